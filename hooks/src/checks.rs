//! The checks of one file's content, shared by `check`, `commit`, pre-commit and
//! pre-receive.
//!
//! - Every text file (no NUL byte in its first 8,000 bytes, git's own test): no conflict
//!   markers — a line starting with exactly seven `<`, `>` or `|` followed by a space or
//!   the line's end, or a line of exactly seven `=`. A lone `=======` (a Markdown
//!   heading underline) counts only in a file that also has a `<<<<<<<` or `>>>>>>>`
//!   marker. The other checks run too: an asset with markers also fails to parse.
//! - Assets: parse; ids unique within every keyed array (an array whose elements are all
//!   objects carrying an id, the first of `merge.id_keys` present, keys matched
//!   case-insensitively, ids compared as the merge compares them: strings exactly,
//!   numbers by value); with `check.require_ids`, arrays of objects carry ids (see
//!   [`check_change`] for which arrays); expression-valued properties compile.
//! - `*.lua`: parses as Lua 5.1 with the LuaJIT and Lua 5.2 additions (full_moon).
//! - `assetvc.toml`: a valid configuration (unknown fields are errors).
//! - External checkers whose patterns match (from trusted git config only).

use std::collections::HashMap;

use sjson::{Document, Kind, ParseOptions, Quoting, Value};

use crate::config::Config;
use crate::policy::{FileClass, Policy};
use crate::problem::{excerpt, Check, Problem};

/// How many bytes git looks at to call a file binary.
const BINARY_SNIFF: usize = 8000;

/// Whether git would call this content binary: a NUL byte in its first 8,000 bytes.
pub fn is_binary(bytes: &[u8]) -> bool {
    bytes[..bytes.len().min(BINARY_SNIFF)].contains(&0)
}

/// Checks the content of `path` as a new file: with `check.require_ids`, every array of
/// objects must carry ids. This is what `assetvc check` and a new file in a commit get.
pub fn check_blob(path: &str, bytes: &[u8], policy: &Policy) -> Vec<Problem> {
    check_change(path, bytes, None, policy)
}

/// Checks the content of `path`, changed from `base` (the previous content at the same
/// path, if any). `base` matters only for `check.require_ids`: an array of objects
/// must carry ids when it is new — at a place (object keys, and element ids or indices)
/// where `base` had no non-empty array of objects — or when `base`'s array there was
/// keyed (every element had an id), so a keyed array stays keyed. Arrays that were
/// already unkeyed in `base` are left to `assetvc migrate`.
pub fn check_change(
    path: &str,
    bytes: &[u8],
    base: Option<&[u8]>,
    policy: &Policy,
) -> Vec<Problem> {
    check_classified(path, bytes, base, &policy.classify(path), policy)
}

/// One file for [`check_many`]: path, content, and the previous content at the path.
pub type FileVersion<'a> = (&'a str, &'a [u8], Option<&'a [u8]>);

/// [`check_change`] on many files in parallel; problems in the order of `files`.
pub fn check_many(files: &[FileVersion<'_>], policy: &Policy) -> Vec<Problem> {
    use rayon::prelude::*;
    crate::engine::in_pool(|| {
        files
            .par_iter()
            .map(|&(path, bytes, base)| {
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    check_change(path, bytes, base, policy)
                }))
                .unwrap_or_else(|_| {
                    vec![Problem::whole_file(
                        path,
                        Check::Internal,
                        "a check crashed on this file; rejected to be safe",
                    )]
                })
            })
            .flatten()
            .collect()
    })
}

/// [`check_change`] with the class already known.
pub fn check_classified(
    path: &str,
    bytes: &[u8],
    base: Option<&[u8]>,
    class: &FileClass,
    policy: &Policy,
) -> Vec<Problem> {
    let mut out = Vec::new();
    let binary = is_binary(bytes);
    if !binary {
        conflict_markers(path, bytes, &mut out);
    }
    if let Some(dialect) = class.dialect {
        check_asset(path, bytes, base, dialect, policy, &mut out);
    } else if class.lua && !binary {
        check_lua(path, bytes, &mut out);
    }
    if class.config_file {
        check_config_file(path, bytes, &mut out);
    }
    for &i in &class.checkers {
        if let Some(checker) = policy.checkers.get(i) {
            out.extend(checker.run(path, bytes));
        }
    }
    out
}

/// A conflict marker's character if `line` is one (see the module documentation).
fn marker(line: &[u8]) -> Option<u8> {
    let c = *line.first()?;
    if !matches!(c, b'<' | b'=' | b'>' | b'|')
        || line.len() < 7
        || line[..7].iter().any(|&b| b != c)
    {
        return None;
    }
    let rest = &line[7..];
    let blank = |b: &u8| matches!(b, b' ' | b'\t' | b'\r');
    let ok = if c == b'=' {
        rest.iter().all(blank)
    } else {
        rest.first().is_none_or(blank)
    };
    ok.then_some(c)
}

fn conflict_markers(path: &str, bytes: &[u8], out: &mut Vec<Problem>) {
    let mut found: Vec<(usize, usize, u8)> = Vec::new(); // line number, line start, marker
    let mut start = 0;
    for (number, line) in (1..).zip(bytes.split(|&b| b == b'\n')) {
        if let Some(c) = marker(line) {
            found.push((number, start, c));
        }
        start += line.len() + 1;
    }
    if found.is_empty() {
        return;
    }
    let angles = found.iter().any(|&(_, _, c)| c == b'<' || c == b'>');
    let mut open = false;
    let mut report = |number: usize, start: usize, reason: String| {
        let end = bytes[start..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(bytes.len(), |p| start + p);
        let text = String::from_utf8_lossy(&bytes[start..end]);
        let (source_line, caret) = excerpt(text.trim_end_matches('\r'), 1);
        out.push(Problem {
            path: path.to_string(),
            line: number,
            col: 1,
            check: Check::ConflictMarker,
            reason,
            source_line,
            caret,
        });
    };
    for (number, start, c) in found {
        match (c, open) {
            (b'<', _) => {
                open = true;
                report(
                    number,
                    start,
                    "unresolved merge conflict (conflict marker `<<<<<<<`)".into(),
                );
            }
            (b'>', true) => open = false,
            (b'=' | b'|', true) => {}
            (b'=', false) if !angles => {}
            (c, _) => {
                let m = String::from_utf8(vec![c; 7]).unwrap_or_default();
                report(number, start, format!("conflict marker `{m}`"));
            }
        }
    }
}

fn check_asset(
    path: &str,
    bytes: &[u8],
    base: Option<&[u8]>,
    dialect: sjson::Dialect,
    policy: &Policy,
    out: &mut Vec<Problem>,
) {
    let doc = match Document::parse_bytes(bytes.to_vec(), ParseOptions::new(dialect)) {
        Ok(doc) => doc,
        Err(e) => {
            let text = String::from_utf8_lossy(bytes);
            let mut p = Problem::at(path, &text, e.offset, Check::Parse, e.kind.to_string());
            (p.line, p.col) = (e.line, e.col);
            out.push(p);
            return;
        }
    };
    let ids = Ids {
        keys: &policy.id_keys,
    };
    duplicate_ids(path, &doc, &ids, out);
    if policy.require_ids {
        let base_doc =
            base.and_then(|b| Document::parse_bytes(b.to_vec(), ParseOptions::new(dialect)).ok());
        missing_ids(path, &doc, base_doc.as_ref(), &ids, out);
    }
    if !policy.expressions.is_empty() {
        expressions(path, &doc, policy, out);
    }
}

/// Finds ids as the merge does.
struct Ids<'p> {
    keys: &'p [String],
}

impl Ids<'_> {
    /// The id member's value and the id's identity text, if `v` is an object with an id.
    fn of<'d>(&self, v: Value<'d>) -> Option<(Value<'d>, String)> {
        if v.kind() != Kind::Object {
            return None;
        }
        for wanted in self.keys {
            for (key, value) in v.members() {
                if key.eq_ignore_ascii_case(wanted) {
                    return id_text(value).map(|id| (value, id));
                }
            }
        }
        None
    }

    /// Each element's id if `arr` is a non-empty array whose elements all carry one.
    fn keyed<'d>(&self, arr: Value<'d>) -> Option<Vec<(Value<'d>, String)>> {
        if arr.kind() != Kind::Array || arr.is_empty() {
            return None;
        }
        arr.children().map(|c| self.of(c)).collect()
    }
}

/// An id's identity: strings as they are, numbers by exact value (as the merge has it).
fn id_text(v: Value<'_>) -> Option<String> {
    match v.kind() {
        Kind::String => v.as_str().map(|s| s.into_owned()),
        Kind::Number => v.as_number().map(|n| match n {
            sjson::NumberValue::Int(i) => format!("\u{0}{i}"),
            sjson::NumberValue::Big(s) => format!("\u{0}{s}"),
            sjson::NumberValue::Float(f) => format!("\u{0}{f:?}"),
        }),
        _ => None,
    }
}

fn id_display(id: &str) -> String {
    match id.strip_prefix('\u{0}') {
        Some(number) => number.to_string(),
        None => format!("{id:?}"),
    }
}

fn duplicate_ids(path: &str, doc: &Document, ids: &Ids<'_>, out: &mut Vec<Problem>) {
    for arr in doc.root().descendants() {
        let Some(keyed) = ids.keyed(arr) else {
            continue;
        };
        let mut first: HashMap<&str, Value<'_>> = HashMap::with_capacity(keyed.len());
        for (value, id) in &keyed {
            if let Some(prev) = first.get(id.as_str()) {
                let (line, _) = sjson::line_col(doc.text(), prev.item_start());
                out.push(Problem::at(
                    path,
                    doc.text(),
                    value.item_start(),
                    Check::DuplicateId,
                    format!(
                        "duplicate id {} in this array (first at line {line})",
                        id_display(id)
                    ),
                ));
            } else {
                first.insert(id, *value);
            }
        }
    }
}

/// Calls `f` with every value and its place: object keys, and array elements by id when
/// they have one, else by index.
fn walk<'d>(v: Value<'d>, place: &mut String, ids: &Ids<'_>, f: &mut dyn FnMut(Value<'d>, &str)) {
    f(v, place);
    let len = place.len();
    match v.kind() {
        Kind::Object => {
            for (key, child) in v.members() {
                place.push('/');
                place.push_str(&key.replace('~', "~0").replace('/', "~1"));
                walk(child, place, ids, f);
                place.truncate(len);
            }
        }
        Kind::Array => {
            for (i, child) in v.children().enumerate() {
                match ids.of(child) {
                    Some((_, id)) => {
                        place.push_str("/[id=");
                        place.push_str(&id);
                        place.push(']');
                    }
                    None => {
                        place.push('/');
                        place.push_str(&i.to_string());
                    }
                }
                walk(child, place, ids, f);
                place.truncate(len);
            }
        }
        _ => {}
    }
}

fn is_array_of_objects(v: Value<'_>) -> bool {
    v.kind() == Kind::Array && !v.is_empty() && v.children().all(|c| c.kind() == Kind::Object)
}

fn missing_ids(
    path: &str,
    doc: &Document,
    base: Option<&Document>,
    ids: &Ids<'_>,
    out: &mut Vec<Problem>,
) {
    // Places where the base had an array of objects without ids on every element.
    let mut legacy: std::collections::HashSet<String> = Default::default();
    if let Some(base) = base {
        walk(base.root(), &mut String::new(), ids, &mut |v, place| {
            if is_array_of_objects(v) && ids.keyed(v).is_none() {
                legacy.insert(place.to_string());
            }
        });
    }
    walk(doc.root(), &mut String::new(), ids, &mut |v, place| {
        if !is_array_of_objects(v) || legacy.contains(place) {
            return;
        }
        let missing: Vec<Value<'_>> = v.children().filter(|c| ids.of(*c).is_none()).collect();
        if let Some(first) = missing.first() {
            out.push(Problem::at(
                path,
                doc.text(),
                first.span().start,
                Check::MissingId,
                format!(
                    "{} of the {} objects in this array have no id (check.require_ids; id keys: {})",
                    missing.len(),
                    v.len(),
                    ids.keys.join(", ")
                ),
            ));
        }
    });
}

fn expressions(path: &str, doc: &Document, policy: &Policy, out: &mut Vec<Problem>) {
    for v in doc.root().descendants() {
        let Some(key) = v.key() else {
            continue;
        };
        let Some(rule) = policy.expressions.iter().find(|r| r.keys.is_match(&*key)) else {
            continue;
        };
        let variables: Vec<&str> = rule.variables.iter().map(String::as_str).collect();
        let strings: Vec<Value<'_>> = match v.kind() {
            Kind::String => vec![v],
            Kind::Array => v.children().filter(|c| c.kind() == Kind::String).collect(),
            _ => continue,
        };
        for s in strings {
            let (Some(source), Some(quoting)) = (s.as_str(), s.quoting()) else {
                continue;
            };
            if let Err(e) = expr::compile(&source, &variables) {
                let offset = s.span().start + source_offset(s.text(), quoting, e.position);
                out.push(Problem::at(
                    path,
                    doc.text(),
                    offset,
                    Check::Expression,
                    format!("expression in `{key}` does not compile: {}", e.kind),
                ));
            }
        }
    }
}

/// The byte offset within a string lexeme of byte `pos` of its decoded text.
fn source_offset(lexeme: &str, quoting: Quoting, pos: usize) -> usize {
    match quoting {
        Quoting::Bare => pos.min(lexeme.len()),
        Quoting::Raw => (3 + pos).min(lexeme.len().saturating_sub(3)),
        Quoting::Quoted => {
            let inner = &lexeme.as_bytes()[1..lexeme.len().saturating_sub(1).max(1)];
            let hex = |at: usize| {
                std::str::from_utf8(inner.get(at..at + 4)?)
                    .ok()
                    .and_then(|h| u32::from_str_radix(h, 16).ok())
            };
            let (mut i, mut decoded) = (0, 0);
            while i < inner.len() && decoded < pos {
                if inner[i] == b'\\' {
                    if inner.get(i + 1) == Some(&b'u') {
                        let hi = hex(i + 2).unwrap_or(0);
                        if (0xD800..0xDC00).contains(&hi) && inner.get(i + 6) == Some(&b'\\') {
                            i += 12;
                            decoded += 4;
                        } else {
                            i += 6;
                            decoded += char::from_u32(hi).map_or(3, char::len_utf8);
                        }
                    } else {
                        i += 2;
                        decoded += 1;
                    }
                } else {
                    i += 1;
                    decoded += 1;
                }
            }
            1 + i.min(inner.len())
        }
    }
}

/// The most syntax levels a Lua chunk may nest: LuaJIT's `LJ_MAX_XLEVEL` and Lua 5.1's
/// `LUAI_MAXCCALLS` (beyond, both refuse the chunk: "chunk has too many syntax levels").
pub const LUA_MAX_LEVELS: usize = 200;

/// Stack for the Lua parser, which recurses about 40 KB per level in a debug build.
const LUA_STACK: usize = 64 * 1024 * 1024;

fn check_lua(path: &str, bytes: &[u8], out: &mut Vec<Problem>) {
    let text = String::from_utf8_lossy(bytes);
    if let Some(offset) = lua_too_deep(text.as_bytes(), LUA_MAX_LEVELS) {
        out.push(Problem::at(
            path,
            &text,
            offset,
            Check::Lua,
            format!("Lua: nesting deeper than {LUA_MAX_LEVELS} levels (chunk has too many syntax levels)"),
        ));
        return;
    }
    // Parse on a thread with a stack that fits LUA_MAX_LEVELS of the deepest construct.
    let parsed = std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("assetvc-lua".into())
            .stack_size(LUA_STACK)
            .spawn_scoped(scope, || {
                let version = full_moon::LuaVersion::lua51().with_lua52().with_luajit();
                let result = full_moon::parse_fallible(&text, version);
                result
                    .errors()
                    .first()
                    .map(|e| (e.range().0.bytes(), e.error_message().into_owned()))
            })
            .map(|handle| handle.join())
    });
    match parsed {
        Ok(Ok(None)) => {}
        Ok(Ok(Some((offset, message)))) => {
            out.push(Problem::at(
                path,
                &text,
                offset,
                Check::Lua,
                format!("Lua: {message}"),
            ));
        }
        Ok(Err(_)) => out.push(Problem::whole_file(
            path,
            Check::Internal,
            "the Lua parser crashed",
        )),
        Err(e) => out.push(Problem::whole_file(
            path,
            Check::Internal,
            format!("cannot start the Lua parser: {e}"),
        )),
    }
}

/// The offset of the first token at which a cheap scan of Lua source counts more than
/// `limit` syntax levels: open brackets and blocks (`function if do repeat` … `end
/// until`) plus the current run of right-recursive operators (`..`, `^`, unary `not - #
/// ~`), which real Lua parsers recurse on too. Strings and comments are skipped. It
/// keeps the recursive parser from ever overflowing its stack on hostile input.
fn lua_too_deep(src: &[u8], limit: usize) -> Option<usize> {
    let n = src.len();
    let (mut i, mut depth, mut run) = (0usize, 0usize, 0usize);
    let mut operand = false; // the previous token ends an operand
                             // The length of a long bracket `[==[` at `at` (its level + 2), if one opens there.
    let long_open = |at: usize| -> Option<usize> {
        let mut j = at + 1;
        while j < n && src[j] == b'=' {
            j += 1;
        }
        (src.get(at) == Some(&b'[') && src.get(j) == Some(&b'[')).then_some(j - at + 1)
    };
    // The end of a long bracket body opened with `len` bytes (level = len - 2).
    let long_close = |from: usize, len: usize| -> usize {
        let level = len - 2;
        let mut j = from;
        while j < n {
            if src[j] == b']'
                && src[j + 1..].iter().take(level).all(|&b| b == b'=')
                && src.len() > j + 1 + level
                && src[j + 1 + level] == b']'
            {
                return j + 2 + level;
            }
            j += 1;
        }
        n
    };
    while i < n {
        let start = i;
        let c = src[i];
        match c {
            b' ' | b'\t' | b'\r' | b'\n' | 0x0b | 0x0c => {
                i += 1;
                continue;
            }
            b'-' if src.get(i + 1) == Some(&b'-') => {
                i += 2;
                match long_open(i) {
                    Some(len) => i = long_close(i + len, len),
                    None => {
                        while i < n && src[i] != b'\n' {
                            i += 1;
                        }
                    }
                }
                continue;
            }
            b'"' | b'\'' => {
                i += 1;
                while i < n && src[i] != c && src[i] != b'\n' {
                    i += if src[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
                if operand {
                    run = 0;
                }
                operand = true;
            }
            b'[' if long_open(i).is_some() => {
                let len = long_open(i).unwrap_or(2);
                i = long_close(i + len, len);
                if operand {
                    run = 0;
                }
                operand = true;
            }
            b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                while i < n && (src[i].is_ascii_alphanumeric() || src[i] == b'_') {
                    i += 1;
                }
                match &src[start..i] {
                    b"function" | b"if" | b"do" | b"repeat" => {
                        depth += 1;
                        run = 0;
                        operand = false;
                    }
                    b"end" => {
                        depth = depth.saturating_sub(1);
                        run = 0;
                        operand = true;
                    }
                    b"until" => {
                        depth = depth.saturating_sub(1);
                        run = 0;
                        operand = false;
                    }
                    b"not" => {
                        run += 1;
                        operand = false;
                    }
                    b"and" | b"or" => operand = false,
                    b"nil" | b"true" | b"false" => {
                        if operand {
                            run = 0;
                        }
                        operand = true;
                    }
                    b"local" | b"return" | b"then" | b"else" | b"elseif" | b"while" | b"for"
                    | b"in" | b"goto" | b"break" => {
                        run = 0;
                        operand = false;
                    }
                    _ => {
                        if operand {
                            run = 0;
                        }
                        operand = true;
                    }
                }
            }
            b'0'..=b'9' => {
                while i < n {
                    let b = src[i];
                    let exponent_sign =
                        (b == b'+' || b == b'-') && matches!(src[i - 1], b'e' | b'E' | b'p' | b'P');
                    if b.is_ascii_alphanumeric() || b == b'.' || b == b'_' || exponent_sign {
                        i += 1;
                    } else {
                        break;
                    }
                }
                if operand {
                    run = 0;
                }
                operand = true;
            }
            b'.' if src.get(i + 1).is_some_and(u8::is_ascii_digit) => {
                i += 1;
                while i < n && (src[i].is_ascii_alphanumeric() || src[i] == b'.') {
                    i += 1;
                }
                operand = true;
            }
            b'.' if src[i..].starts_with(b"...") => {
                i += 3;
                operand = true;
            }
            b'.' if src[i..].starts_with(b"..") => {
                i += 2;
                run += 1;
                operand = false;
            }
            b'(' | b'{' | b'[' => {
                i += 1;
                depth += 1;
                operand = false;
            }
            b')' | b'}' | b']' => {
                i += 1;
                depth = depth.saturating_sub(1);
                operand = true;
            }
            b'^' => {
                i += 1;
                run += 1;
                operand = false;
            }
            b'-' | b'#' | b'~' => {
                i += 1;
                if !operand {
                    run += 1;
                }
                operand = false;
            }
            b',' | b';' => {
                i += 1;
                run = 0;
                operand = false;
            }
            b'=' if src.get(i + 1) != Some(&b'=') => {
                i += 1;
                run = 0;
                operand = false;
            }
            _ => {
                i += 1;
                operand = false;
            }
        }
        if depth + run > limit {
            return Some(start);
        }
    }
    None
}

fn check_config_file(path: &str, bytes: &[u8], out: &mut Vec<Problem>) {
    let text = String::from_utf8_lossy(bytes);
    let result =
        Config::parse(&text, std::path::Path::new(path)).and_then(|c| Policy::new(&c).map(|_| ()));
    match result {
        Ok(()) => {}
        Err(crate::config::ConfigError::Invalid {
            line, col, message, ..
        }) => {
            let offset = text
                .split_inclusive('\n')
                .take(line.saturating_sub(1))
                .map(str::len)
                .sum::<usize>();
            let mut p = Problem::at(path, &text, offset, Check::Config, message);
            p.col = col;
            p.caret = col;
            if p.source_line.chars().count() < col {
                p.caret = 0;
            }
            out.push(p);
        }
        Err(e) => out.push(Problem::whole_file(path, Check::Config, e.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Expressions;

    fn policy(edit: impl FnOnce(&mut Config)) -> Policy {
        let mut c = Config::default();
        edit(&mut c);
        Policy::new(&c).unwrap()
    }

    fn check(path: &str, text: &str, p: &Policy) -> Vec<Problem> {
        check_blob(path, text.as_bytes(), p)
    }

    #[test]
    fn parse_errors_have_line_and_column() {
        let p = policy(|_| {});
        let out = check("levels/a.level", "a = 1\nb = [1 2\nc = 3\n", &p);
        assert_eq!(out.len(), 1, "{out:?}");
        assert_eq!(out[0].check, Check::Parse);
        assert_eq!(out[0].line, 3);
        assert!(
            out[0].to_string().starts_with("levels/a.level:3:"),
            "{}",
            out[0]
        );
        assert!(check("a.level", "a = [1 2]\n", &p).is_empty());
        // JSON files are strict.
        assert_eq!(check("x.json", "{a: 1}", &p)[0].check, Check::Parse);
        // Invalid UTF-8 is reported with its place.
        let out = check_blob("b.unit", b"a = \"\xff\"\n", &p);
        assert_eq!((out[0].line, out[0].col), (1, 6));
    }

    #[test]
    fn conflict_markers_in_any_text_file() {
        let p = policy(|_| {});
        let text = "a = 1\n<<<<<<< HEAD\nb = 2\n=======\nb = 3\n>>>>>>> theirs\n";
        for (path, parses) in [
            ("x.level", false),
            ("s.lua", false),
            ("a.hlsl", true),
            ("n.txt", true),
        ] {
            let out = check(path, text, &p);
            // Assets and scripts with markers also fail to parse, at the first marker.
            assert_eq!(out.len(), if parses { 1 } else { 2 }, "{path}: {out:?}");
            assert_eq!(out[0].check, Check::ConflictMarker);
            assert!(out.iter().skip(1).all(|p| p.line == 2), "{out:?}");
            assert_eq!((out[0].line, out[0].col), (2, 1));
            assert_eq!(out[0].source_line, "<<<<<<< HEAD");
        }
        // diff3 style and CRLF.
        let out = check(
            "a.txt",
            "<<<<<<< a\r\nx\r\n||||||| base\r\n=======\r\n>>>>>>> b\r\n",
            &p,
        );
        assert_eq!(out.len(), 1);
        // Leftovers of a partial resolution.
        let out = check("a.txt", "x\n=======\ny\n>>>>>>> b\n", &p);
        assert_eq!(out.len(), 2, "{out:?}");
        assert_eq!(out[0].line, 2);
        // Not markers: a Markdown underline alone, longer runs, markers mid-line.
        assert!(check("r.md", "Title\n=======\n", &p).is_empty());
        assert!(check("r.txt", "========\n<<<<<<<< x\n a <<<<<<< b\n", &p).is_empty());
        // Binary files are skipped.
        assert!(check_blob("t.png", b"\x89PNG\0\0\n<<<<<<< x\n", &p).is_empty());
    }

    #[test]
    fn duplicate_ids_including_case_insensitive_keys() {
        let p = policy(|_| {});
        let text = "entities = [\n\t{ id = \"e1\" }\n\t{ Id = \"e2\" }\n\t{ ID = \"e1\" }\n]\n";
        let out = check("a.level", text, &p);
        assert_eq!(out.len(), 1, "{out:?}");
        assert_eq!(out[0].check, Check::DuplicateId);
        assert_eq!((out[0].line, out[0].col), (4, 4));
        assert!(out[0].reason.contains("\"e1\"") && out[0].reason.contains("line 2"));
        // Numbers are ids too; guid keys count; nested arrays too.
        let out = check(
            "b.level",
            "a = { list = [ { guid = 1 } { guid = 2 } { guid = 1 } ] }\n",
            &p,
        );
        assert_eq!(out.len(), 1, "{out:?}");
        // Different ids, or an array not fully keyed, are fine.
        assert!(check("c.level", "l = [ {id = a} {id = b} ]\n", &p).is_empty());
        assert!(check("c.level", "l = [ {id = a} {name = a} {id = a} ]\n", &p).is_empty());
        // Configured id keys.
        let q = policy(|c| c.merge.id_keys = vec!["serial".into()]);
        assert_eq!(
            check("d.level", "l = [ {SERIAL = 3} {serial = 3} ]", &q).len(),
            1
        );
        assert!(check("d.level", "l = [ {id = 3} {id = 3} ]", &q).is_empty());
    }

    #[test]
    fn require_ids_flags_new_arrays_of_objects() {
        let off = policy(|_| {});
        let on = policy(|c| c.check.require_ids = true);
        let text =
            "units = [\n\t{ name = a }\n\t{ name = b id = x }\n]\nnums = [1 2]\nempty = []\n";
        assert!(check("a.level", text, &off).is_empty());
        let out = check("a.level", text, &on);
        assert_eq!(out.len(), 1, "{out:?}");
        assert_eq!(out[0].check, Check::MissingId);
        assert_eq!((out[0].line, out[0].col), (2, 2));
        assert!(
            out[0].reason.starts_with("1 of the 2 objects"),
            "{}",
            out[0].reason
        );
        // Against a base: an array that was already unkeyed is left alone ...
        let base = "units = [\n\t{ name = a }\n]\n";
        let changed = "units = [\n\t{ name = a }\n\t{ name = c }\n]\nmore = [ { name = n } ]\n";
        let out = check_change("a.level", changed.as_bytes(), Some(base.as_bytes()), &on);
        assert_eq!(out.len(), 1, "{out:?}");
        assert_eq!(out[0].line, 5, "only the new array: {out:?}");
        // ... and a keyed array must stay keyed.
        let base = "units = [ { id = a } ]\n";
        let changed = "units = [ { id = a } { name = b } ]\n";
        let out = check_change("a.level", changed.as_bytes(), Some(base.as_bytes()), &on);
        assert_eq!(out.len(), 1, "{out:?}");
    }

    #[test]
    fn lua_syntax_errors_have_line_and_column() {
        let p = policy(|_| {});
        let good = "#!/usr/bin/env luajit\nlocal M = {}\nfunction M.f(x)\n\tgoto done\n\t::done::\n\treturn x // 1\nend\nreturn M\n";
        // `//` is Lua 5.3 integer division: not in LuaJIT.
        let out = check("scripts/m.lua", good, &p);
        assert_eq!(out.len(), 1, "{out:?}");
        let good = good.replace("x // 1", "x");
        assert!(check("scripts/m.lua", &good, &p).is_empty());
        let out = check(
            "scripts/bad.lua",
            "local x = 1\nif x then\n\tprint(x\nend\n",
            &p,
        );
        assert_eq!(out.len(), 1, "{out:?}");
        assert_eq!(out[0].check, Check::Lua);
        // The call's `(` that is never closed.
        assert_eq!((out[0].line, out[0].col), (3, 7), "{}", out[0]);
        // Not Lua by name: not parsed.
        assert!(check("notes.txt", "if then else", &p).is_empty());
    }

    #[test]
    fn deep_lua_is_a_problem_not_a_crash() {
        let p = policy(|_| {});
        for text in [
            format!("x = {}1{}", "(".repeat(100_000), ")".repeat(100_000)),
            format!("{}{}", "function f() ".repeat(5_000), "end ".repeat(5_000)),
            format!("x = {}1", "1 .. ".repeat(300)),
            format!("x = {}1", "not ".repeat(300)),
            format!("x = {}1", "- ".repeat(300)),
        ] {
            let out = check("deep.lua", &text, &p);
            assert_eq!(out.len(), 1, "{out:?}");
            assert!(out[0].reason.contains("nesting deeper"), "{}", out[0]);
        }
        // Within the limit, long flat code and every construct parse.
        let fine = [
            format!("x = {}1{}", "(".repeat(150), ")".repeat(150)),
            format!("{}{}", "function f() ".repeat(150), "end ".repeat(150)),
            format!("{}{}", "if x then ".repeat(150), "end ".repeat(150)),
            format!("x = {}1", "1 + ".repeat(50_000)),
            format!("x = {}1", "1 .. ".repeat(150)),
            "x = a .. b\ny = c .. d\n".repeat(5_000),
            "-- [[ not long\nlocal s = [==[ ( ( ( ]] ]==] .. \"((\" .. '))' --[[ (((( ]]\n"
                .repeat(100),
            "local t = { 1e-5, 0x1p-2, .5, a[1], ... }\n".to_string(),
        ];
        for text in fine {
            let out = check("flat.lua", &text, &p);
            assert!(out.is_empty(), "{out:?}");
        }
    }

    #[test]
    fn expression_errors_map_to_the_file() {
        let p = policy(|c| {
            c.expressions.push(Expressions {
                keys: vec!["*_expr".into()],
                variables: vec!["t".into()],
            })
        });
        let text = "fx = {\n\tspeed_expr = \"sin(t) + 0.1 * cos(10 * t)\"\n\tsize_expr = \"1 + * t\"\n\tname = \"1 + * t\"\n}\n";
        let out = check("a.particles", text, &p);
        assert_eq!(out.len(), 1, "{out:?}");
        assert_eq!(out[0].check, Check::Expression);
        // `*` is the 5th character of the string; the string starts at column 15.
        assert_eq!((out[0].line, out[0].col), (3, 19), "{}", out[0]);
        assert!(out[0].reason.contains("size_expr"));
        // Escapes, raw and bare strings, arrays of expressions, unknown variables.
        let text = "a_expr = \"\\u0031 + \\t* t\"\nb_expr = \"\"\"2 * u\"\"\"\nc_expr = [ \"t\" \"(t\" ]\nd_expr = t\ne_expr = 3\n";
        let out = check("b.particles", text, &p);
        let cols: Vec<_> = out.iter().map(|p| (p.line, p.col)).collect();
        assert_eq!(cols, [(1, 22), (2, 17), (3, 17)], "{out:?}");
    }

    #[test]
    fn hostile_config_files_are_rejected() {
        let p = policy(|_| {});
        let out = check(
            "assetvc.toml",
            "[merge]\npolicy = \"ours\"\n\n[check]\ncommand = \"touch /tmp/pwned\"\n",
            &p,
        );
        assert_eq!(out.len(), 1, "{out:?}");
        assert_eq!(out[0].check, Check::Config);
        assert_eq!(out[0].line, 5, "{}", out[0]);
        assert!(check("assetvc.toml", "[check]\nrequire_ids = true\n", &p).is_empty());
    }

    #[test]
    fn many_files_at_once_keep_their_order() {
        let p = policy(|_| {});
        let files: Vec<FileVersion<'_>> = vec![
            ("a.level", b"a = [\n", None),
            ("b.level", b"b = 1\n", None),
            ("c.txt", b"<<<<<<< x\n", None),
        ];
        let out = check_many(&files, &p);
        let paths: Vec<&str> = out.iter().map(|p| p.path.as_str()).collect();
        assert_eq!(paths, ["a.level", "c.txt"]);
    }

    #[test]
    fn byte_offsets_in_quoted_strings() {
        assert_eq!(source_offset("\"abc\"", Quoting::Quoted, 2), 3);
        assert_eq!(source_offset("\"\\n\\nx\"", Quoting::Quoted, 2), 5);
        assert_eq!(source_offset("\"\\ud83d\\ude00x\"", Quoting::Quoted, 4), 13);
        assert_eq!(source_offset("\"ab\"", Quoting::Quoted, 2), 3);
        assert_eq!(source_offset("\"\"\"ab\"\"\"", Quoting::Raw, 1), 4);
        assert_eq!(source_offset("ab", Quoting::Bare, 1), 1);
    }
}
