//! Asset checks: the file parses, ids are unique within keyed arrays, arrays of objects
//! carry ids (with `check.require_ids`), expression-valued properties compile.

use std::borrow::Cow;

use merge::id_member;
use merge::id_table::IdTable;
use sjson::{Document, Kind, ParseOptions, Quoting, Value};

use crate::policy::Policy;
use crate::problem::{Check, Problem};

pub(super) fn check_asset(
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
    duplicate_keys(path, &doc, out);
    let ids = Ids::new(&policy.id_keys);
    duplicate_ids(path, &doc, &ids, out);
    if policy.require_ids {
        let base_doc =
            base.and_then(|b| Document::parse_bytes(b.to_vec(), ParseOptions::new(dialect)).ok());
        missing_ids(path, &doc, base_doc.as_ref(), &ids, out);
    }
    if !policy.expressions.is_empty() {
        expressions(path, &doc, policy, out);
    }
    if let Some(tree) = policy
        .tree
        .as_ref()
        .filter(|_| !policy.resources.is_empty())
    {
        super::resources::check_resources(path, &doc, &policy.resources, tree, out);
    }
}

/// A warning (never blocking) for each key an object repeats: git merges such a file, and
/// so does assetvc, but JSON readers keep only the last of the values.
fn duplicate_keys(path: &str, doc: &Document, out: &mut Vec<Problem>) {
    for e in doc.duplicate_keys() {
        let mut p = Problem::at(
            path,
            doc.text(),
            e.offset,
            Check::DuplicateKey,
            e.kind.to_string(),
        );
        (p.line, p.col) = (e.line, e.col);
        out.push(p.warning());
    }
}

/// The ids repeated within keyed arrays of an already parsed document (`duplicate id …`
/// problems): what `merge-file` reports about a merge's result without parsing it again.
pub fn duplicate_ids_in(path: &str, doc: &Document, id_keys: &[String]) -> Vec<Problem> {
    let mut out = Vec::new();
    duplicate_ids(path, doc, &Ids::new(id_keys), &mut out);
    out
}

/// Finds ids as the merge does ([`merge::id_member`]).
struct Ids<'p> {
    /// The id keys as configured (for messages).
    keys: &'p [String],
    /// The same, lowercased, as the merge matches them.
    lower: Vec<String>,
}

impl<'p> Ids<'p> {
    fn new(keys: &'p [String]) -> Self {
        let lower = keys.iter().map(|k| k.to_ascii_lowercase()).collect();
        Ids { keys, lower }
    }

    /// The id member's value and the id's identity text, if `v` is an object with an id.
    fn of<'d>(&self, v: Value<'d>) -> Option<(Value<'d>, Cow<'d, str>)> {
        id_member(&self.lower, v).map(|(_, id, value)| (value, id))
    }

    /// Each element's id, and where each id member starts, if `arr` is a non-empty array
    /// whose elements all carry one.
    fn keyed<'d>(&self, arr: Value<'d>) -> Option<(Vec<Cow<'d, str>>, Vec<usize>)> {
        if arr.kind() != Kind::Array || arr.is_empty() {
            return None;
        }
        let (mut ids, mut starts) = (Vec::with_capacity(arr.len()), Vec::new());
        for c in arr.children() {
            let (value, id) = self.of(c)?;
            ids.push(id);
            starts.push(value.item_start());
        }
        Some((ids, starts))
    }
}

/// An id for a message: a number as written, a string quoted.
fn id_display(id: &str) -> String {
    match merge::Id::from_key(id) {
        merge::Id::Number(number) => number,
        merge::Id::Str(s) => format!("{s:?}"),
    }
}

fn duplicate_ids(path: &str, doc: &Document, ids: &Ids<'_>, out: &mut Vec<Problem>) {
    duplicate_ids_under(path, doc, doc.root(), ids, out);
}

/// [`duplicate_ids`] in `v` and everything under it, in document order.
fn duplicate_ids_under(
    path: &str,
    doc: &Document,
    v: Value<'_>,
    ids: &Ids<'_>,
    out: &mut Vec<Problem>,
) {
    // A keyed array's elements have members, and so has anything holding one: a value
    // with nothing below its children (`pos = [1 2 3]`, most of a level) is skipped whole.
    if !v.has_grandchildren() {
        return;
    }
    if let Some((keyed, starts)) = ids.keyed(v) {
        // The first element of each id (this runs on the result of every merge).
        let mut first = IdTable::with_capacity(keyed.len());
        for (i, id) in keyed.iter().enumerate() {
            if let Some(prev) = first.insert_first(&keyed, i) {
                let (line, _) = sjson::line_col(doc.text(), starts[prev]);
                out.push(Problem::at(
                    path,
                    doc.text(),
                    starts[i],
                    Check::DuplicateId,
                    format!(
                        "duplicate id {} in this array (first at line {line})",
                        id_display(id)
                    ),
                ));
            }
        }
    }
    for c in v.children() {
        duplicate_ids_under(path, doc, c, ids, out);
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

#[cfg(test)]
mod tests {
    use super::*;

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
