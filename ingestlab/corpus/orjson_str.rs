//! A string as orjson writes it, for the converters' compiled parts (`dvf/native`, `wikipedia/native`), which include
//! this file: in double quotes, `"` and `\` escaped, control characters as \b \t \n \f \r or \u00XX, everything else as
//! it is. `latin1`: the bytes are Latin-1, written as UTF-8; else they are UTF-8 already.

const HEX: &[u8; 16] = b"0123456789abcdef";

pub fn put_str(out: &mut Vec<u8>, s: &[u8], latin1: bool) {
    out.push(b'"');
    let mut from = 0;
    for (i, &b) in s.iter().enumerate() {
        if b >= 0x20 && b != b'"' && b != b'\\' && (b < 0x80 || !latin1) { continue; }
        out.extend_from_slice(&s[from..i]);
        from = i + 1;
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0c => out.extend_from_slice(b"\\f"),
            0..=0x1f => out.extend_from_slice(&[b'\\', b'u', b'0', b'0', HEX[(b >> 4) as usize], HEX[(b & 15) as usize]]),
            _ => out.extend_from_slice(&[0xc0 | (b >> 6), 0x80 | (b & 0x3f)]), // Latin-1 to UTF-8
        }
    }
    out.extend_from_slice(&s[from..]);
    out.push(b'"');
}
