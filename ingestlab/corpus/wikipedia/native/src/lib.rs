//! A page's wikitext as plain text, exactly as `markup.plain_text` makes it in Python: the same passes in the same
//! order, each run only when Python's own substring test would run it, each finding the same leftmost matches its
//! regular expression finds and putting back the same text.
//!
//! Every pattern's delimiters are ASCII, so the passes work on bytes: a UTF-8 continuation byte is never ASCII, and
//! every cut falls beside an ASCII character. Two places read characters: `\s*` in a `</ref >` end tag and Python's
//! `str.strip()` of a link's namespace, both with Python's idea of whitespace (`is_py_space`). Why each pass matches
//! what its expression matches is said beside it (`../markup.py` has the expressions).
//!
//! `wiki_page_lines` goes on to the whole page: its two corpus lines, byte for byte as `pages.lines` writes them
//! (orjson's JSON), with the template names, categories and links of `markup` found as its regexes find them.

use std::panic;

fn is_py_space(c: char) -> bool {
    // str.isspace(), which is also what re's \s and str.strip() use
    matches!(c, '\t'..='\r' | '\x1c'..='\x1f' | ' ' | '\u{85}' | '\u{a0}' | '\u{1680}' | '\u{2000}'..='\u{200a}'
        | '\u{2028}' | '\u{2029}' | '\u{202f}' | '\u{205f}' | '\u{3000}')
}

fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// Where `pat` (ASCII) first stands at or after `from`: its first byte found by memchr (str::find of a char), the rest
/// compared there. (str::find of a &str, a two-way search, took a third of the time.)
fn find(s: &str, from: usize, pat: &str) -> Option<usize> {
    let (b, p) = (s.as_bytes(), pat.as_bytes());
    let first = p[0] as char;
    let mut at = from;
    loop {
        let i = s[at..].find(first)? + at;
        if b[i..].starts_with(p) {
            return Some(i);
        }
        at = i + 1;
    }
}

fn find_byte(b: &[u8], from: usize, wanted: impl Fn(u8) -> bool) -> Option<usize> {
    b[from..].iter().position(|&c| wanted(c)).map(|k| k + from)
}

fn trim_blanks_end(s: &str) -> &str {
    s.trim_end_matches([' ', '\t'])
}

fn blanks_at(b: &[u8], from: usize) -> usize {
    b[from..].iter().take_while(|&&c| is_blank(c)).count()
}

/// One pass: `at(s, i, replacement)` is tried at each place `next(s, from)` offers, left to right; `Some(end)` is a
/// match (the text from `i` to `end` becomes what `at` put in `replacement`, and the search goes on from `end`), None
/// moves on one byte (every place offered is an ASCII character's). `next` returning None ends the pass. Returns how
/// many matches there were.
fn pass(s: &str, out: &mut String, next: impl Fn(&str, usize) -> Option<usize>,
        mut at: impl FnMut(&str, usize, &mut String) -> Option<usize>) -> usize {
    out.clear();
    let mut replacement = String::new();
    let (mut copied, mut from, mut count) = (0, 0, 0);
    while from <= s.len() {
        let Some(i) = next(s, from) else { break };
        replacement.clear();
        match at(s, i, &mut replacement) {
            Some(end) => {
                out.push_str(&s[copied..i]);
                out.push_str(&replacement);
                copied = end;
                from = end;
                count += 1;
            }
            None => from = i + 1,
        }
    }
    out.push_str(&s[copied..]);
    count
}

// <!--.*?--> (DOTALL): the first --> after the opening; with none, none later either
fn comment(s: &str, i: usize, _: &mut String) -> Option<usize> {
    find(s, i + 4, "-->").map(|k| k + 3)
}

// <(?i:ref)(?:[^>]*?/>|[^>]*>.*?</(?i:ref)\s*>) (DOTALL). The lazy first branch ends at the first '>' when a '/' stands
// before it; else the second takes that '>' and runs to the first </ref\s*> after it. No character but r, e, f (in
// either case) matches them ignoring case (there is a test of that).
struct Refs {
    no_end_from: usize, // no </ref\s*> starts at or after this
}

impl Refs {
    fn at(&mut self, s: &str, i: usize) -> Option<usize> {
        let b = s.as_bytes();
        if b.len() < i + 4 || !b[i + 1..i + 4].eq_ignore_ascii_case(b"ref") {
            return None;
        }
        let j = find(s, i + 4, ">")?;
        if j > i + 4 && b[j - 1] == b'/' {
            return Some(j + 1);
        }
        self.end_tag(s, j + 1)
    }

    fn end_tag(&mut self, s: &str, from: usize) -> Option<usize> {
        let b = s.as_bytes();
        let mut m = from;
        while m < self.no_end_from {
            let Some(k) = find(s, m, "</") else { break };
            if b.len() >= k + 5 && b[k + 2..k + 5].eq_ignore_ascii_case(b"ref") {
                let rest = &s[k + 5..];
                let spaces: usize = rest.chars().take_while(|&c| is_py_space(c)).map(char::len_utf8).sum();
                if rest.as_bytes().get(spaces) == Some(&b'>') {
                    return Some(k + 5 + spaces + 1);
                }
            }
            m = k + 1;
        }
        self.no_end_from = self.no_end_from.min(from);
        None
    }
}

// \n\{\|.*?\n\|\} (DOTALL) → "\n": the first "\n|}" after the opening
fn table(s: &str, i: usize, out: &mut String) -> Option<usize> {
    let m = find(s, i + 3, "\n|}")?;
    out.push('\n');
    Some(m + 3)
}

// \{\{[^{}]*\}\}: the run of non-braces after "{{" must end at "}}"
fn template(s: &str, i: usize, _: &mut String) -> Option<usize> {
    let b = s.as_bytes();
    let j = find_byte(b, i + 2, |c| c == b'{' || c == b'}')?;
    (b[j] == b'}' && b.get(j + 1) == Some(&b'}')).then_some(j + 2)
}

fn namespace_kind(prefix: &str) -> Option<&'static str> {
    // Python: {"category": …, "カテゴリ": …, "file": …}.get(prefix.strip().lower()). A name with a character
    // outside ASCII lowers to one of the ASCII keys never (only U+212A and U+0130 lower to ASCII letters, k and an i
    // with a combining dot), and to a Japanese key only when it is that key (kana and kanji have no case).
    let t = prefix.trim_matches(is_py_space);
    if t.is_ascii() {
        let lower = t.to_ascii_lowercase();
        match lower.as_str() {
            "category" => Some("category"),
            "file" | "image" | "media" => Some("file"),
            _ => None,
        }
    } else {
        match t {
            "カテゴリ" => Some("category"),
            "ファイル" | "画像" => Some("file"),
            _ => None,
        }
    }
}

// \[\[(?=[^\[\]|:]*:)[ \t]*([^\[\]|:]+?)[ \t]*:[ \t]*([^\[\]|]*?)[ \t]*(\|(?:[^\[\]]|\[\[[^\[\]]*\]\])*)?\]\]
// The lookahead: the first of [ ] | : after "[[" is ':'. Group 1 is what stands before it without the blanks around
// it (the last blank when it is nothing but blanks); group 2 what stands between it and the first of [ ] |, blanks
// around it dropped. Then either "]]", or '|' and a run of non-brackets and bracket-free [[…]] that must end at "]]"
// (giving back any of the run cannot help: every place inside it starts with something other than ']').
fn namespaced(s: &str, i: usize, out: &mut String) -> Option<usize> {
    let b = s.as_bytes();
    let p = i + 2;
    let c = find_byte(b, p, |x| matches!(x, b'[' | b']' | b'|' | b':'))?;
    if b[c] != b':' || c == p {
        return None;
    }
    let lead = blanks_at(b, p);
    let g1 = if p + lead == c { &s[c - 1..c] } else { trim_blanks_end(&s[p + lead..c]) };
    let q = c + 1;
    let e = find_byte(b, q, |x| matches!(x, b'[' | b']' | b'|'))?;
    let g2 = trim_blanks_end(&s[q + blanks_at(b, q)..e]); // blanks stop before e
    let (g3, end) = if b[e] == b'|' {
        let mut f = e + 1;
        while f < b.len() {
            match b[f] {
                b'[' if b.get(f + 1) == Some(&b'[') => {
                    let k = find_byte(b, f + 2, |x| x == b'[' || x == b']');
                    match k {
                        Some(k) if b[k] == b']' && b.get(k + 1) == Some(&b']') => f = k + 2,
                        _ => break,
                    }
                }
                b'[' | b']' => break,
                _ => f += 1,
            }
        }
        if !s[f..].starts_with("]]") {
            return None;
        }
        (Some(&s[e..f]), f + 2)
    } else if s[e..].starts_with("]]") {
        (None, e + 2)
    } else {
        return None;
    };
    if namespace_kind(g1).is_none() {
        let label = g3.map(|g| &g[1..]).unwrap_or("");
        if label.is_empty() {
            out.push_str(g1);
            out.push(':');
            out.push_str(g2);
        } else {
            out.push_str(label);
        }
    }
    Some(end)
}

// \[\[[^\[\]|]+\|([^\[\]]*)\]\] → the label
fn labelled(s: &str, i: usize, out: &mut String) -> Option<usize> {
    let b = s.as_bytes();
    let k = find_byte(b, i + 2, |x| matches!(x, b'[' | b']' | b'|'))?;
    if b[k] != b'|' || k == i + 2 {
        return None;
    }
    let m = find_byte(b, k + 1, |x| x == b'[' || x == b']')?;
    if !s[m..].starts_with("]]") {
        return None;
    }
    out.push_str(&s[k + 1..m]);
    Some(m + 2)
}

// \[\[([^\[\]|]+)\]\] → the target
fn plain_link(s: &str, i: usize, out: &mut String) -> Option<usize> {
    let b = s.as_bytes();
    let k = find_byte(b, i + 2, |x| matches!(x, b'[' | b']' | b'|'))?;
    if k == i + 2 || !s[k..].starts_with("]]") {
        return None;
    }
    out.push_str(&s[i + 2..k]);
    Some(k + 2)
}

// \[(?:https?|ftp)://[^ \]\n]+(?: ([^\]\n]*))?\] → the label or nothing
fn external(s: &str, i: usize, out: &mut String) -> Option<usize> {
    let b = s.as_bytes();
    let rest = &s[i + 1..];
    let scheme = ["http://", "https://", "ftp://"].iter().find(|p| rest.starts_with(**p))?;
    let after = i + 1 + scheme.len();
    let k = find_byte(b, after, |x| matches!(x, b' ' | b']' | b'\n'))?;
    if k == after {
        return None;
    }
    match b[k] {
        b']' => Some(k + 1),
        b' ' => {
            let m = find_byte(b, k + 1, |x| x == b']' || x == b'\n')?;
            if b[m] != b']' {
                return None;
            }
            out.push_str(&s[k + 1..m]);
            Some(m + 1)
        }
        _ => None,
    }
}

// </?[a-zA-Z][^>]*> → nothing
fn tag(s: &str, i: usize, _: &mut String) -> Option<usize> {
    let b = s.as_bytes();
    let j = if b.get(i + 1) == Some(&b'/') { i + 2 } else { i + 1 };
    if !b.get(j)?.is_ascii_alphabetic() {
        return None;
    }
    find(s, j + 1, ">").map(|k| k + 1)
}

// '''?'?'? (2 to 5 quotes, greedy) → nothing
fn quotes(s: &str, i: usize, _: &mut String) -> Option<usize> {
    let run = s.as_bytes()[i..].iter().take(5).take_while(|&&c| c == b'\'').count();
    Some(i + run) // next() offers only places with "''"
}

// \n(=+)[ \t]*(.*?)[ \t]*\1[ \t]*$ (MULTILINE) → "\n" + the title. For each length l of group 1, longest first, the
// line after it must end with l '=' and blanks; the title is what stands between, blanks around it dropped.
fn heading(s: &str, i: usize, out: &mut String) -> Option<usize> {
    let end = find(s, i + 1, "\n").unwrap_or(s.len());
    let line = &s[i + 1..end];
    let run = line.bytes().take_while(|&c| c == b'=').count();
    for l in (1..=run).rev() {
        let rest = &line[l..];
        let body = trim_blanks_end(rest);
        if body.len() >= l && body.as_bytes()[body.len() - l..].iter().all(|&c| c == b'=') {
            let lead = blanks_at(rest.as_bytes(), 0);
            out.push('\n');
            out.push_str(trim_blanks_end(&body[lead..body.len() - l]));
            return Some(end);
        }
    }
    None
}

// \n[*#:;]+[ \t]* → "\n"
fn list(s: &str, i: usize, out: &mut String) -> Option<usize> {
    let b = s.as_bytes();
    let marks = b[i + 1..].iter().take_while(|&&c| matches!(c, b'*' | b'#' | b':' | b';')).count();
    if marks == 0 {
        return None;
    }
    out.push('\n');
    Some(i + 1 + marks + blanks_at(b, i + 1 + marks))
}

// [ \t]{2,}|\t → " "
fn spaces(s: &str, i: usize, out: &mut String) -> Option<usize> {
    let b = s.as_bytes();
    let run = blanks_at(b, i);
    if run < 2 && b[i] != b'\t' {
        return None;
    }
    out.push(' ');
    Some(i + run) // next() offers only blanks: run is at least 1
}

// [ \t]+\n → "\n"
fn trailing(s: &str, i: usize, out: &mut String) -> Option<usize> {
    let b = s.as_bytes();
    let run = blanks_at(b, i);
    if b.get(i + run) != Some(&b'\n') {
        return None;
    }
    out.push('\n');
    Some(i + run + 1)
}

// \n[ \t]+ → "\n"
fn leading(s: &str, i: usize, out: &mut String) -> Option<usize> {
    let run = blanks_at(s.as_bytes(), i + 1);
    if run == 0 {
        return None;
    }
    out.push('\n');
    Some(i + 1 + run)
}

// \n\n\n+ → "\n\n"
fn blank_lines(s: &str, i: usize, out: &mut String) -> Option<usize> {
    let run = s.as_bytes()[i..].iter().take_while(|&&c| c == b'\n').count();
    out.push_str("\n\n");
    Some(i + run)
}

fn at_str(pat: &'static str) -> impl Fn(&str, usize) -> Option<usize> {
    move |s: &str, from: usize| find(s, from, pat)
}

fn at_byte(wanted: impl Fn(u8) -> bool) -> impl Fn(&str, usize) -> Option<usize> {
    move |s: &str, from: usize| find_byte(s.as_bytes(), from, &wanted)
}

/// The plain text, as markup.plain_text makes it.
pub fn plain_text(wikitext: &str) -> String {
    let mut text = String::with_capacity(wikitext.len() + 1);
    text.push('\n');
    text.push_str(wikitext);
    let mut out = String::with_capacity(text.len());
    macro_rules! run {
        ($next:expr, $at:expr) => {{
            let n = pass(&text, &mut out, $next, $at);
            std::mem::swap(&mut text, &mut out);
            n
        }};
    }
    if text.contains("<!--") {
        run!(at_str("<!--"), comment);
    }
    if text.contains("<ref") || text.contains("<REF") {
        let mut refs = Refs { no_end_from: usize::MAX };
        run!(at_str("<"), |s: &str, i: usize, _: &mut String| refs.at(s, i));
    }
    if text.contains("\n{|") {
        run!(at_str("\n{|"), table);
    }
    for _ in 0..20 {
        if !text.contains("{{") {
            break;
        }
        if run!(at_str("{{"), template) == 0 {
            break;
        }
    }
    if text.contains("[[") {
        if text.contains(":") {
            run!(at_str("[["), namespaced);
        }
        run!(at_str("[["), labelled);
        run!(at_str("[["), plain_link);
    }
    if text.contains("://") {
        run!(at_str("["), external);
    }
    if text.contains("<") {
        if let Some(last) = text.rfind('>') {
            // a tag needs a '>' after its '<': none after the last one
            run!(move |s: &str, from: usize| find(s, from, "<").filter(|&i| i < last), tag);
        }
    }
    if text.contains("''") {
        run!(at_str("''"), quotes);
    }
    if text.contains("\n=") {
        run!(at_str("\n="), heading);
    }
    if text.contains("\n*") || text.contains("\n#") || text.contains("\n:") || text.contains("\n;") {
        run!(at_str("\n"), list);
    }
    if text.contains("  ") || text.contains("\t") {
        run!(at_byte(is_blank), spaces);
    }
    if text.contains(" \n") || text.contains("\t\n") {
        run!(at_byte(is_blank), trailing);
    }
    if text.contains("\n ") || text.contains("\n\t") {
        run!(at_str("\n"), leading);
    }
    if text.contains("\n\n\n") {
        run!(at_str("\n\n\n"), blank_lines);
    }
    text.trim_matches([' ', '\t', '\n']).to_string()
}

#[path = "../../../orjson_str.rs"]
mod orjson_str;

/// `text` as orjson writes a str (`../../../orjson_str.rs`, shared with the DVF converter's program).
fn put_json(out: &mut Vec<u8>, text: &str) {
    orjson_str::put_str(out, text.as_bytes(), false);
}

// ---- the facts kept beside the text (markup.template_names, categories_and_links, is_stub, is_disambiguation) ----

/// `\{\{[ \t\n]*([^{}|\n]+?)[ \t\n]*(?:\||\}\})`, findall. After "{{" and its blanks and newlines, the name runs to the
/// first of { } | newline, blanks at its end dropped; what follows it (blanks and newlines) must be '|' or "}}". A name
/// of nothing: the regex gives back blanks it had skipped, and the name is the last blank or tab before that '|' or
/// "}}" (none: no match here).
fn template_names(s: &str) -> Vec<&str> {
    let b = s.as_bytes();
    let mut names = Vec::new();
    let mut from = 0;
    while let Some(i) = find(s, from, "{{") {
        let p = i + 2;
        let lead = b[p..].iter().take_while(|&&c| matches!(c, b' ' | b'\t' | b'\n')).count();
        let start = p + lead;
        let e = find_byte(b, start, |c| matches!(c, b'{' | b'}' | b'|' | b'\n')).unwrap_or(b.len());
        let (name, g) = if e > start {
            let name = trim_blanks_end(&s[start..e]);
            (name, start + name.len())
        } else {
            match b[p..start].iter().rposition(|&c| is_blank(c)) {
                Some(k) => (&s[p + k..p + k + 1], p + k + 1),
                None => ("", usize::MAX),
            }
        };
        if g != usize::MAX {
            let h = g + b[g..].iter().take_while(|&&c| matches!(c, b' ' | b'\t' | b'\n')).count();
            let end = if b.get(h) == Some(&b'|') { Some(h + 1) } else if s[h..].starts_with("}}") { Some(h + 2) } else { None };
            if let Some(end) = end {
                names.push(name);
                from = end;
                continue;
            }
        }
        from = i + 1;
    }
    names
}

fn is_stub(names: &[&str]) -> bool {
    // n.lower().endswith("stub"): only ASCII letters lower to s, t, u, b
    names.iter().any(|n| {
        let b = n.as_bytes();
        (b.len() >= 4 && b[b.len() - 4..].eq_ignore_ascii_case(b"stub")) || n.contains("スタブ")
    })
}

fn is_disambiguation(names: &[&str]) -> bool {
    // n.lower() in DISAMBIGUATION_TEMPLATES, as namespace_kind reasons
    names.iter().any(|n| {
        if n.is_ascii() {
            matches!(n.to_ascii_lowercase().as_str(), "aimai" | "disambig" | "dab")
        } else {
            matches!(*n, "曖昧さ回避" | "人名の曖昧さ回避" | "地名の曖昧さ回避")
        }
    })
}

/// `\[\[([^\[\]|]+)(?:\|[^\[\]]*)?\]\]`, findall: the target runs to the first of [ ] |; then "]]", or '|' and a
/// run of non-brackets that must end at "]]".
fn link_targets(s: &str) -> Vec<&str> {
    let b = s.as_bytes();
    let mut targets = Vec::new();
    let mut from = 0;
    while let Some(i) = find(s, from, "[[") {
        let p = i + 2;
        let end = find_byte(b, p, |c| matches!(c, b'[' | b']' | b'|')).filter(|&k| k > p).and_then(|k| {
            if b[k] == b'|' {
                let m = find_byte(b, k + 1, |c| c == b'[' || c == b']')?;
                s[m..].starts_with("]]").then_some((k, m + 2))
            } else {
                s[k..].starts_with("]]").then_some((k, k + 2))
            }
        });
        match end {
            Some((k, end)) => {
                targets.push(&s[p..k]);
                from = end;
            }
            None => from = i + 1,
        }
    }
    targets
}

fn py_strip(s: &str) -> &str {
    s.trim_matches(is_py_space)
}

/// Category names and link targets (without #section), each once, in order of appearance: categories_and_links.
fn categories_and_links(s: &str) -> (Vec<&str>, Vec<&str>) {
    let (mut categories, mut links) = (Vec::new(), Vec::new());
    if !s.contains("[[") {
        return (categories, links);
    }
    let (mut seen_c, mut seen_l) = (std::collections::HashSet::new(), std::collections::HashSet::new());
    for target in link_targets(s) {
        if let Some((prefix, rest)) = target.split_once(':') {
            match namespace_kind(prefix) {
                Some("category") => {
                    let rest = py_strip(rest);
                    if !rest.is_empty() && seen_c.insert(rest) {
                        categories.push(rest);
                    }
                    continue;
                }
                Some(_) => continue,
                None => {}
            }
        }
        let target = py_strip(target.split('#').next().unwrap_or(""));
        if !target.is_empty() && seen_l.insert(target) {
            links.push(target);
        }
    }
    (categories, links)
}

fn put_list(out: &mut Vec<u8>, items: &[&str]) {
    out.push(b'[');
    for (n, item) in items.iter().enumerate() {
        if n > 0 {
            out.push(b',');
        }
        put_json(out, item);
    }
    out.push(b']');
}

fn put_bool(out: &mut Vec<u8>, key: &[u8], value: bool) {
    out.extend_from_slice(key);
    out.extend_from_slice(if value { b"true" } else { b"false" });
}

/// pages.lines(page_id, page_document(title, ns, text, redirect)): the action line and the document line.
fn page_lines(id: &str, title: &str, text: &str, redirect: bool, special: bool) -> Vec<u8> {
    let names = template_names(text);
    let (categories, links) = categories_and_links(text);
    let mut out = Vec::with_capacity(text.len() + text.len() / 4 + title.len() + 256);
    out.extend_from_slice(b"{\"index\":{\"_id\":");
    put_json(&mut out, id);
    out.extend_from_slice(b"}}\n{\"title\":");
    put_json(&mut out, title);
    out.extend_from_slice(b",\"text\":");
    let plain = if redirect { String::new() } else { plain_text(text) };
    put_json(&mut out, &plain);
    put_bool(&mut out, b",\"redirect\":", redirect);
    put_bool(&mut out, b",\"special\":", special);
    put_bool(&mut out, b",\"stub\":", is_stub(&names));
    put_bool(&mut out, b",\"disambiguation\":", is_disambiguation(&names));
    out.extend_from_slice(b",\"category\":");
    put_list(&mut out, &categories);
    out.extend_from_slice(b",\"link\":");
    put_list(&mut out, &links);
    out.extend_from_slice(b"}\n");
    out
}

unsafe fn utf8<'a>(data: *const u8, len: usize) -> &'a str {
    // Python's str.encode() made it: UTF-8 (a lone surrogate fails there, and Python converts that page itself)
    std::str::from_utf8_unchecked(std::slice::from_raw_parts(data, len))
}

/// A page's two corpus lines, as `pages.lines(page_id, page_document(...))` writes them, put in `out`. Returns their
/// length; -1: Python does the page (a panic caught here); below -1: `out` is too small, -2 - the length needed.
///
/// # Safety
/// `id`, `title` and `text` point to their lengths' bytes of UTF-8, and `out` to `cap` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn wiki_page_lines(id: *const u8, id_len: usize, title: *const u8, title_len: usize, text: *const u8,
                                         text_len: usize, redirect: i32, special: i32, out: *mut u8, cap: usize) -> i64 {
    let (id, title, text) = (utf8(id, id_len), utf8(title, title_len), utf8(text, text_len));
    let Ok(lines) = panic::catch_unwind(|| page_lines(id, title, text, redirect != 0, special != 0)) else {
        return -1;
    };
    if lines.len() > cap {
        return -2 - lines.len() as i64;
    }
    std::ptr::copy_nonoverlapping(lines.as_ptr(), out, lines.len());
    lines.len() as i64
}
