//! Helpers shared by the merge integration tests.
#![allow(dead_code)]

use merge::{merge, Conflict, ConflictKind, Inputs, MergeOptions, Merged, Policy, Side};
use sjson::{Dialect, Document, Kind, Value};

pub use sjson::Dialect::{Json, Sjson};

/// Merges three texts with the default options; panics (with the inputs) on an error.
pub fn merge3(dialect: Dialect, base: &str, ours: &str, theirs: &str) -> Merged {
    merge_with(dialect, base, ours, theirs, &MergeOptions::default())
}

/// Merges three SJSON texts with the default options.
pub fn sj(base: &str, ours: &str, theirs: &str) -> Merged {
    merge3(Sjson, base, ours, theirs)
}

/// Merges three JSON texts with the default options.
pub fn js(base: &str, ours: &str, theirs: &str) -> Merged {
    merge3(Json, base, ours, theirs)
}

/// Merges with `policy`.
pub fn sj_policy(policy: Policy, base: &str, ours: &str, theirs: &str) -> Merged {
    let opts = MergeOptions {
        policy,
        ..MergeOptions::default()
    };
    merge_with(Sjson, base, ours, theirs, &opts)
}

pub fn merge_with(
    dialect: Dialect,
    base: &str,
    ours: &str,
    theirs: &str,
    opts: &MergeOptions,
) -> Merged {
    merge(Inputs::texts(base, ours, theirs, dialect), opts).unwrap_or_else(|e| {
        panic!("merge failed: {e}\nbase:\n{base}\nours:\n{ours}\ntheirs:\n{theirs}")
    })
}

pub fn parse(dialect: Dialect, text: &str) -> Document {
    Document::parse(text, dialect).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// Whether two values are equal as data: numbers by value, object keys in any order,
/// array order kept.
pub fn equal_unordered(a: Value<'_>, b: Value<'_>) -> bool {
    match (a.kind(), b.kind()) {
        (Kind::Object, Kind::Object) => {
            a.len() == b.len()
                && a.members().all(|(k, av)| {
                    b.members()
                        .find(|(bk, _)| *bk == k)
                        .is_some_and(|(_, bv)| equal_unordered(av, bv))
                })
        }
        (Kind::Array, Kind::Array) => {
            a.len() == b.len()
                && a.children()
                    .zip(b.children())
                    .all(|(x, y)| equal_unordered(x, y))
        }
        _ => a.same_value(&b),
    }
}

/// Asserts that `out`'s text (of `dialect`) is the value `expected` (SJSON or JSON
/// text), keys in the same order.
#[track_caller]
pub fn assert_value(dialect: Dialect, out: &str, expected: &str) {
    let got = parse(dialect, out);
    let want = expected_doc(dialect, expected);
    assert!(
        got.root().same_value(&want.root()),
        "merged value differs\n--- got:\n{out}\n--- expected:\n{expected}"
    );
}

/// Like [`assert_value`], object key order ignored.
#[track_caller]
pub fn assert_value_unordered(dialect: Dialect, out: &str, expected: &str) {
    let got = parse(dialect, out);
    let want = expected_doc(dialect, expected);
    assert!(
        equal_unordered(got.root(), want.root()),
        "merged value differs\n--- got:\n{out}\n--- expected:\n{expected}"
    );
}

/// An expected value: text of `dialect`, else SJSON.
pub fn expected_doc(dialect: Dialect, text: &str) -> Document {
    Document::parse(text, dialect).unwrap_or_else(|_| parse(Sjson, text))
}

/// The keys of the object at `path` (keys separated by `.`), in order.
pub fn keys_at(dialect: Dialect, text: &str, path: &str) -> Vec<String> {
    let doc = parse(dialect, text);
    let mut v = doc.root();
    for k in path.split('.').filter(|k| !k.is_empty()) {
        v = v.get(k).unwrap_or_else(|| panic!("no {k} in\n{text}"));
    }
    v.members().map(|(k, _)| k.into_owned()).collect()
}

/// The `id` strings (any id key, case-insensitive) of the array at `path`, in order.
pub fn ids_at(dialect: Dialect, text: &str, path: &str) -> Vec<String> {
    let doc = parse(dialect, text);
    let mut v = doc.root();
    for k in path.split('.').filter(|k| !k.is_empty()) {
        v = v.get(k).unwrap_or_else(|| panic!("no {k} in\n{text}"));
    }
    v.children()
        .map(|c| {
            let (_, id) = c
                .members()
                .find(|(k, _)| {
                    ["id", "_id", "guid", "_guid", "uuid"]
                        .iter()
                        .any(|w| k.eq_ignore_ascii_case(w))
                })
                .unwrap_or_else(|| panic!("element without id in\n{text}"));
            match id.as_str() {
                Some(s) => s.into_owned(),
                None => id.text().to_string(),
            }
        })
        .collect()
}

/// Asserts that the merge was clean.
#[track_caller]
pub fn assert_clean(out: &Merged) {
    assert!(
        out.conflicts.is_empty(),
        "unexpected conflicts: {:#?}\n{}",
        out.conflicts,
        out.text()
    );
}

/// Asserts exactly one conflict and returns it.
#[track_caller]
pub fn one_conflict(out: &Merged) -> &Conflict {
    assert_eq!(
        out.conflicts.len(),
        1,
        "expected one conflict: {:#?}\n{}",
        out.conflicts,
        out.text()
    );
    &out.conflicts[0]
}

/// Asserts a conflict's path, kind and side taken.
#[track_caller]
pub fn assert_conflict(c: &Conflict, path: &str, kind: ConflictKind, taken: Side) {
    assert_eq!(c.path.to_string(), path, "{c:#?}");
    assert_eq!(c.kind, kind, "{c:#?}");
    assert_eq!(c.taken, taken, "{c:#?}");
}

/// An SJSON `units` array of objects with ids and tints, one member per line.
pub fn units(ids: &[(&str, &str)]) -> String {
    let mut s = String::from("units = [\n");
    for (id, tint) in ids {
        s.push_str(&format!(
            "\t{{\n\t\tid = \"{id}\"\n\t\ttint = \"{tint}\"\n\t}}\n"
        ));
    }
    s.push_str("]\n");
    s
}

/// `default` cases for a property test, or `PROPTEST_CASES` for a longer hunt.
pub fn proptest_cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(default)
}
