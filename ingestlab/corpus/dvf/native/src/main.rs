//! The DVF converter's fast path: the rows of one DVF file as the Python converter's documents, byte for byte.
//!
//! Usage: `dvf-fast PLAN DVF_FILE OUT_FD HEAD_DOCS`. The plan (made by `ingestlab/corpus/dvf/rows.py`)
//! says the format, the encoding and what each column becomes. With OUT_FD a file descriptor (inherited from
//! Python, the corpus file open for writing), the documents are written to it; with `-`, they travel in the frames.
//! Standard output is a stream of frames, little-endian:
//!   `D` u32 documents, u32 their bytes, u32 n, then n bytes: all of them with `-`, else the first of them that
//!       fall within the corpus's first HEAD_DOCS documents (Python writes those to the -1k file);
//!   `R` u64 line number, u32 n, then n bytes: a row left to Python, as it stands in the file (without its line
//!       end), because a cell is outside the plain forms converted here or the row is wrong. Python converts it, or
//!       names file, line and reason as it always has; with OUT_FD it writes the document itself and then answers
//!       one byte on standard input, `W` (a document written) or `S` (none), and this program waits for it;
//!   `Q` u64 line number: this program stopped after that line and Python converts the rest of the file: the next
//!       line has something Python's csv module could read otherwise than line by line (a double quote in a
//!       comma-separated file, a carriage return inside a line, a NUL, over 1 MiB, bytes that are not the
//!       encoding's), or more than one row in fifty (and over 2,000) went to Python, which then goes on alone rather
//!       than answering row after row;
//!   `E` u64 the number of the file's last line.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::os::unix::io::FromRawFd;
use std::process::exit;

const FIELD_LIMIT: usize = 1 << 20; // Python's csv.field_size_limit in the converter
const BLOCK_BYTES: usize = 1 << 20; // documents sent (or written) at a time

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Int,
    Double,      // decimal point
    CommaDouble, // decimal comma
    IsoDate,
    FrenchDate,
}

struct Plan {
    separator: u8,
    latin1: bool,
    width: usize,
    text: Vec<(usize, Vec<u8>)>,        // column, `"name":`
    typed: Vec<(usize, Vec<u8>, Kind)>, // column, `"name":`, kind
    postcode: usize,
    official: Option<[usize; 5]>, // department, commune, section prefix, section, plan number
    etalab: Option<[usize; 2]>,   // longitude, latitude
}

// ---- the plan: `"key":value;` pairs, a value a number, a word or a list `a|b|c` (rows.py native_plan) ----

fn plan_from(text: &str) -> Plan {
    let get = |key: &str| -> &str {
        let at = text.find(&format!("\"{}\":", key)).unwrap_or_else(|| fail(&format!("plan: no {}", key)));
        let rest = &text[at + key.len() + 3..];
        let end = rest.find(|c| c == ';').unwrap_or_else(|| fail("plan: unterminated value"));
        &rest[..end]
    };
    let num = |key: &str| -> usize { get(key).trim().parse().unwrap_or_else(|_| fail(&format!("plan: {} not a number", key))) };
    let list = |key: &str| -> Vec<String> { let v = get(key); if v.is_empty() { vec![] } else { v.split('|').map(String::from).collect() } };
    let key_bytes = |name: &str| -> Vec<u8> { format!("\"{}\":", name).into_bytes() };
    let text_cols = list("text").iter().map(|e| {
        let (i, n) = e.split_once('=').unwrap_or_else(|| fail("plan: text column"));
        (i.parse().unwrap(), key_bytes(n))
    }).collect();
    let typed_cols = list("typed").iter().map(|e| {
        let mut p = e.splitn(3, '=');
        let i: usize = p.next().unwrap().parse().unwrap();
        let n = p.next().unwrap_or_else(|| fail("plan: typed column"));
        let k = match p.next().unwrap_or("") {
            "int" => Kind::Int, "double" => Kind::Double, "comma-double" => Kind::CommaDouble,
            "iso-date" => Kind::IsoDate, "french-date" => Kind::FrenchDate, other => fail(&format!("plan: kind {}", other)),
        };
        (i, key_bytes(n), k)
    }).collect();
    let idx = |key: &str| -> Vec<usize> { list(key).iter().map(|s| s.parse().unwrap()).collect() };
    let format = get("format");
    let encoding = get("encoding");
    Plan {
        separator: if format == "official" { b'|' } else { b',' },
        latin1: encoding == "latin-1",
        width: num("width"),
        text: text_cols,
        typed: typed_cols,
        postcode: num("postcode"),
        official: if format == "official" { let v = idx("official"); Some([v[0], v[1], v[2], v[3], v[4]]) } else { None },
        etalab: if format == "etalab" { let v = idx("etalab"); Some([v[0], v[1]]) } else { None },
    }
}

fn fail(message: &str) -> ! {
    eprintln!("dvf-fast: {}", message);
    exit(2)
}

// ---- writing JSON as orjson writes it: put_str (shared with the Wikipedia converter's library) -------------------

#[path = "../../../orjson_str.rs"]
mod orjson_str;
use orjson_str::put_str;

fn digits(s: &[u8]) -> bool {
    !s.is_empty() && s.iter().all(|b| b.is_ascii_digit())
}

/// `[0-9]+` up to 2147483647 (an Elasticsearch `integer`): Python's int() of it, written as orjson writes an int (no
/// leading zeros). Other forms (signs, spaces, `_`, other digits) and larger values go to Python.
fn put_int(out: &mut Vec<u8>, s: &[u8]) -> bool {
    if !digits(s) { return false; }
    let v = &s[s.iter().position(|&b| b != b'0').unwrap_or(s.len() - 1)..];
    if v.len() > 10 || (v.len() == 10 && v > &b"2147483647"[..]) { return false; }
    out.extend_from_slice(v);
    true
}

/// `-?[0-9]+([.,][0-9]+)?` (the decimal mark as the plan says) with at most 15 significant digits and a value of 0
/// or in [1e-5, 1e16): Python's float() of it, written as orjson writes that float. A decimal of at most 15
/// significant digits is the shortest one that reads back as its double (a double keeps 15 digits: two such
/// decimals never share one), and orjson writes that shortest decimal, without an exponent in this range, ".0"
/// after a whole number. So the digits are the cell's own, without leading zeros before the mark and trailing
/// zeros after it; no float is parsed or printed. Other forms (exponents, `inf`, spaces, more digits) go to Python.
fn put_double(out: &mut Vec<u8>, s: &[u8], mark: u8) -> bool {
    let (negative, body) = if s.first() == Some(&b'-') { (true, &s[1..]) } else { (false, s) };
    let (whole, frac) = match body.iter().position(|&b| b == mark) {
        Some(i) => (&body[..i], &body[i + 1..]),
        None => (body, &body[body.len()..]),
    };
    if !digits(whole) || (frac.is_empty() && body.len() != whole.len()) || !frac.iter().all(|b| b.is_ascii_digit()) { return false; }
    let whole = &whole[whole.iter().position(|&b| b != b'0').unwrap_or(whole.len())..]; // "" for zero
    let frac = &frac[..frac.iter().rposition(|&b| b != b'0').map_or(0, |i| i + 1)];
    let significant = if whole.is_empty() {
        let zeros = frac.iter().position(|&b| b != b'0').unwrap_or(frac.len());
        if !frac.is_empty() && zeros >= 5 { return false; } // below 1e-5: orjson writes an exponent
        frac.len() - zeros
    } else {
        whole.len() + frac.len()
    };
    if significant > 15 || whole.len() > 16 { return false; }
    if negative { out.push(b'-'); }
    if whole.is_empty() { out.push(b'0'); } else { out.extend_from_slice(whole); }
    out.push(b'.');
    if frac.is_empty() { out.push(b'0'); } else { out.extend_from_slice(frac); }
    true
}

fn zfill(out: &mut Vec<u8>, s: &[u8], width: usize) {
    for _ in s.len()..width { out.push(b'0'); }
    out.extend_from_slice(s);
}

/// What Python's zfill/rjust/[:2] do to a cell is plain left-padding only for ASCII without a sign.
fn plain(s: &[u8]) -> bool {
    s.iter().all(|&b| b.is_ascii() && b != b'+' && b != b'-' && b >= 0x20)
}

/// One row as the Python converter's document at the end of `out`, or false and `out` as it was: Python converts
/// the row (or reports it).
fn document(out: &mut Vec<u8>, row: &[u8], bounds: &[(usize, usize)], plan: &Plan) -> bool {
    let start = out.len();
    let done = bounds.len() == plan.width && write_document(out, row, bounds, plan);
    if !done { out.truncate(start); }
    done
}

/// The document's bytes, or false part-way (`document` takes them back).
fn write_document(out: &mut Vec<u8>, row: &[u8], bounds: &[(usize, usize)], plan: &Plan) -> bool {
    let cell = |i: usize| -> &[u8] { let (a, b) = bounds[i]; &row[a..b] };
    out.push(b'{');
    let mut first = true;
    let mut key = |out: &mut Vec<u8>, k: &[u8]| { if !first { out.push(b',') } first = false; out.extend_from_slice(k) };
    for (i, k) in &plan.text {
        let v = cell(*i);
        if !v.is_empty() { key(out, k); put_str(out, v, plan.latin1); }
    }
    for (i, k, kind) in &plan.typed {
        let v = cell(*i);
        if v.is_empty() { continue; }
        key(out, k);
        let ok = match kind {
            Kind::Int => put_int(out, v),
            Kind::Double => put_double(out, v, b'.'),
            Kind::CommaDouble => put_double(out, v, b','),
            Kind::IsoDate => v.len() == 10 && v.is_ascii() && v[4] == b'-' && v[7] == b'-' && { put_str(out, v, false); true },
            Kind::FrenchDate => v.len() == 10 && v.is_ascii() && v[2] == b'/' && v[5] == b'/' && {
                let mut d = Vec::with_capacity(10);
                d.extend_from_slice(&v[6..10]); d.push(b'-'); d.extend_from_slice(&v[3..5]); d.push(b'-'); d.extend_from_slice(&v[0..2]);
                put_str(out, &d, false); true
            },
        };
        if !ok { return false; }
    }
    let pc = cell(plan.postcode);
    if !pc.is_empty() {
        if !digits(pc) { return false; }
        key(out, b"\"postal_code\":");
        out.push(b'"'); zfill(out, pc, 5); out.push(b'"');
    }
    if let Some([dept, commune, prefix, section, plan_no]) = plan.official {
        let (d, c, p, s, n) = (cell(dept), cell(commune), cell(prefix), cell(section), cell(plan_no));
        if !c.is_empty() && !d.is_empty() {
            if !(plain(d) && plain(c) && plain(p) && plain(s) && plain(n)) { return false; }
            let mut code = Vec::with_capacity(8);
            code.extend_from_slice(&d[..d.len().min(2)]);
            zfill(&mut code, c, 3);
            key(out, b"\"commune_code\":");
            put_str(out, &code, false);
            if !s.is_empty() && !n.is_empty() {
                let mut plot = code.clone();
                zfill(&mut plot, if p.is_empty() { b"000" } else { p }, 3);
                zfill(&mut plot, s, 2);
                zfill(&mut plot, n, 4);
                key(out, b"\"plot_id\":");
                put_str(out, &plot, false);
            }
        }
    }
    if let Some([lon, lat]) = plan.etalab {
        let (x, y) = (cell(lon), cell(lat));
        if !x.is_empty() || !y.is_empty() {
            key(out, b"\"location\":{\"lat\":");
            if !put_double(out, y, b'.') { return false; }
            out.extend_from_slice(b",\"lon\":");
            if !put_double(out, x, b'.') { return false; }
            out.push(b'}');
        }
    }
    out.extend_from_slice(b"}\n");
    true
}

struct Output<'a> {
    frames: io::BufWriter<io::StdoutLock<'a>>,
    file: Option<io::BufWriter<File>>, // the corpus file, or None: documents travel in the frames
    block: Vec<u8>,
    docs: u32,
    head_left: u64,  // documents still to go into the -1k file
    head_bytes: usize, // how much of the block belongs to it
}

impl Output<'_> {
    /// A document was just put at the block's end.
    fn converted(&mut self) {
        self.docs += 1;
        if self.head_left > 0 {
            self.head_left -= 1;
            self.head_bytes = self.block.len();
        }
    }

    fn send_docs(&mut self) -> io::Result<()> {
        if self.docs == 0 { return Ok(()); }
        let payload = match self.file.as_mut() {
            Some(f) => { f.write_all(&self.block)?; &self.block[..self.head_bytes] }
            None => &self.block[..],
        };
        self.frames.write_all(b"D")?;
        self.frames.write_all(&self.docs.to_le_bytes())?;
        self.frames.write_all(&(self.block.len() as u32).to_le_bytes())?;
        self.frames.write_all(&(payload.len() as u32).to_le_bytes())?;
        self.frames.write_all(payload)?;
        self.block.clear();
        self.docs = 0;
        self.head_bytes = 0;
        Ok(())
    }

    /// Everything so far where Python will look for it: before a row left to Python, and at the end.
    fn flush(&mut self) -> io::Result<()> {
        self.send_docs()?;
        if let Some(f) = self.file.as_mut() { f.flush()?; }
        self.frames.flush()
    }
}

/// Python converts the file from the line after `done` on.
fn hand_over(out: &mut Output, done: u64) -> io::Result<()> {
    out.flush()?;
    out.frames.write_all(b"Q")?;
    out.frames.write_all(&done.to_le_bytes())?;
    out.frames.flush()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 5 { fail("usage: dvf-fast PLAN DVF_FILE OUT_FD|- HEAD_DOCS"); }
    let plan = plan_from(&args[1]);
    let path = &args[2];
    let file = if args[3] == "-" { None } else {
        let fd: i32 = args[3].parse().unwrap_or_else(|_| fail("OUT_FD: not a number"));
        // the descriptor is Python's corpus file, inherited for this program's lifetime only
        Some(io::BufWriter::with_capacity(BLOCK_BYTES, unsafe { File::from_raw_fd(fd) }))
    };
    let head_docs: u64 = args[4].parse().unwrap_or_else(|_| fail("HEAD_DOCS: not a number"));
    let mut reader = BufReader::with_capacity(1 << 20, File::open(path).unwrap_or_else(|e| fail(&format!("{}: {}", path, e))));
    let stdout = io::stdout();
    let mut answers = io::stdin().lock();
    let mut out = Output { frames: io::BufWriter::with_capacity(1 << 20, stdout.lock()), file, block: Vec::with_capacity(BLOCK_BYTES + 65536),
                           docs: 0, head_left: head_docs, head_bytes: 0 };
    let mut line: Vec<u8> = Vec::with_capacity(4096);
    let mut number: u64 = 0;
    let (mut rows, mut left) = (0u64, 0u64);
    let mut bounds: Vec<(usize, usize)> = Vec::with_capacity(64);
    let mut table = [0u8; 256]; // 1: the separator, 2: a byte that hands the file over
    table[plan.separator as usize] = 1;
    table[0] = 2;
    table[b'\r' as usize] = 2;
    if plan.separator == b',' { table[b'"' as usize] = 2; }
    let result: io::Result<()> = (|| {
        loop {
            line.clear();
            if reader.read_until(b'\n', &mut line)? == 0 { break; }
            number += 1;
            if number == 1 {
                continue; // the header (with a BOM, if any): Python read and checked it
            }
            let mut end = line.len();
            if end > 0 && line[end - 1] == b'\n' { end -= 1; }
            if end > 0 && line[end - 1] == b'\r' { end -= 1; }
            let row = &line[..end];
            rows += 1;
            // one cell per separator; a line Python's csv module could read otherwise (a double quote in a
            // comma-separated file, a carriage return inside, a NUL, over 1 MiB, not the encoding's bytes) hands
            // the rest of the file to Python, from this line on
            bounds.clear();
            let mut from = 0;
            let mut odd = row.len() > FIELD_LIMIT;
            for (i, &b) in row.iter().enumerate() {
                match table[b as usize] {
                    0 => {}
                    1 => { bounds.push((from, i)); from = i + 1; }
                    _ => { odd = true; break; }
                }
            }
            if odd || (!plan.latin1 && !row.is_ascii() && std::str::from_utf8(row).is_err()) {
                return hand_over(&mut out, number - 1);
            }
            bounds.push((from, row.len()));
            // an empty line is no cells at all to Python's csv: left to it
            let converted = !row.is_empty() && document(&mut out.block, row, &bounds, &plan);
            if converted {
                out.converted();
                if out.block.len() >= BLOCK_BYTES { out.send_docs()?; }
                continue;
            }
            left += 1;
            if left > 2000 && left * 50 > rows {
                return hand_over(&mut out, number - 1);
            }
            out.flush()?;
            out.frames.write_all(b"R")?;
            out.frames.write_all(&number.to_le_bytes())?;
            out.frames.write_all(&(row.len() as u32).to_le_bytes())?;
            out.frames.write_all(row)?;
            out.frames.flush()?;
            let mut answer = [0u8; 1];
            answers.read_exact(&mut answer)?;
            match answer[0] {
                b'W' => out.head_left = out.head_left.saturating_sub(1),
                b'S' => {}
                other => fail(&format!("an answer {} that is neither W nor S", other)),
            }
        }
        out.flush()?;
        out.frames.write_all(b"E")?;
        out.frames.write_all(&number.to_le_bytes())?;
        out.frames.flush()
    })();
    if let Err(e) = result {
        // Python stopped reading (a strict conversion's bad row): nothing to say
        if e.kind() == io::ErrorKind::BrokenPipe || e.kind() == io::ErrorKind::UnexpectedEof { exit(0); }
        fail(&format!("{}: {}", path, e));
    }
}
