//! Repeated keys (docs/formats.md, "Repeated keys"): a key base holds at most once and a
//! side writes more than once is read as JSON readers read it (the last occurrence) and
//! written once, with a report; a key base repeats is kept, its occurrences aligned with
//! base's by value first, then by order.

use std::path::Path;

use crate::common::*;
use merge::{ConflictKind, Merged, Side};
use proptest::prelude::*;
use sjson::Dialect;

/// The repairs reporting a repeated key: (path, side).
fn collapses(out: &Merged) -> Vec<(String, Side)> {
    out.conflicts
        .iter()
        .filter(|c| c.kind == ConflictKind::RepeatedKey)
        .map(|c| (c.path.to_string(), c.taken))
        .collect()
}

/// Ours added dead copies of keys base holds once (the live copy still base's); theirs
/// edited those keys: theirs' edits win, each key is written once where ours' last was.
#[test]
fn a_dead_copy_is_no_change_and_is_written_once() {
    let base = "{\n  \"a\": 1,\n  \"n\": \"old\",\n  \"z\": 3\n}\n";
    let ours = "{\n  \"n\": \"dead\",\n  \"a\": 1,\n  \"n\": \"old\",\n  \"z\": 3\n}\n";
    let theirs = "{\n  \"a\": 1,\n  \"n\": \"new\",\n  \"z\": 3\n}\n";
    let out = js(base, ours, theirs);
    assert_eq!(out.text(), theirs);
    assert_eq!(collapses(&out), [("/n".to_string(), Side::Ours)]);
    assert_eq!(out.conflicts.len(), 1, "{:#?}", out.conflicts);
    let line = out.conflicts[0].to_string();
    assert_eq!(
        line,
        "/n: ours wrote \"n\" twice; JSON readers take the last; written once"
    );
    assert!(
        !out.failed(merge::Policy::Fail),
        "a collapse is not a conflict"
    );
}

/// The side's effective value is its last occurrence, merged like any member: theirs'
/// last copy changed, so theirs' value is taken; ours' other edits stay.
#[test]
fn the_last_occurrence_is_the_sides_value() {
    let base = "{\"a\": 1, \"n\": 2}";
    let ours = "{\"a\": 5, \"n\": 2}";
    let theirs = "{\"a\": 1, \"n\": 2, \"n\": 7, \"n\": 9}";
    let out = js(base, ours, theirs);
    let doc = parse(Dialect::Json, out.text());
    assert!(doc.duplicate_keys().is_empty(), "{}", out.text());
    assert_value(Dialect::Json, out.text(), "{\"a\": 5, \"n\": 9}");
    let c = one_conflict(&out);
    assert_eq!(c.kind, ConflictKind::RepeatedKey);
    assert!(c.to_string().contains("theirs wrote \"n\" 3 times"), "{c}");
}

/// The same in SJSON.
#[test]
fn sjson_repeats_collapse_too() {
    let base = "a = 1\nn = 2\n";
    let ours = "n = 0\na = 1\nn = 2\n";
    let theirs = "a = 1\nn = 3\n";
    let out = sj(base, ours, theirs);
    assert_eq!(out.text(), "a = 1\nn = 3\n");
    assert_eq!(collapses(&out), [("/n".to_string(), Side::Ours)]);
    // Nested objects collapse where they are.
    let base = "o = { a = 1 }\n";
    let ours = "o = { a = 1 b = 1 b = 2 }\n";
    let theirs = "o = { a = 4 }\n";
    let out = sj(base, ours, theirs);
    assert_value(Dialect::Sjson, out.text(), "o = { a = 4 b = 2 }\n");
    assert_eq!(collapses(&out), [("/o/b".to_string(), Side::Ours)]);
}

/// Where base repeats a key, nothing collapses; a repeat one side inserts BEFORE the
/// existing ones is an addition, and the other side's edit of base's second stays on it.
#[test]
fn a_repeat_inserted_first_does_not_shift_the_pairing() {
    let base = "{\n  \"_c\": \"a\",\n  \"x\": 1,\n  \"_c\": \"b\"\n}\n";
    let ours = "{\n  \"_c\": \"new\",\n  \"_c\": \"a\",\n  \"x\": 1,\n  \"_c\": \"b\"\n}\n";
    let theirs = "{\n  \"_c\": \"a\",\n  \"x\": 1,\n  \"_c\": \"B\"\n}\n";
    let out = js(base, ours, theirs);
    assert_clean(&out);
    assert_eq!(
        out.text(),
        "{\n  \"_c\": \"new\",\n  \"_c\": \"a\",\n  \"x\": 1,\n  \"_c\": \"B\"\n}\n"
    );
    // Both sides add a repeat: both are kept.
    let theirs = "{\n  \"_c\": \"a\",\n  \"x\": 1,\n  \"_c\": \"b\",\n  \"_c\": \"c\"\n}\n";
    let out = js(base, ours, theirs);
    assert_clean(&out);
    let doc = parse(Dialect::Json, out.text());
    let comments: Vec<String> = doc
        .root()
        .members()
        .filter(|(k, _)| k == "_c")
        .map(|(_, v)| v.as_str().unwrap().into_owned())
        .collect();
    assert_eq!(comments, ["new", "a", "b", "c"]);
}

/// A side deleting base's first repeat and the other editing base's second: the deletion
/// and the edit both hold.
#[test]
fn deleting_the_first_repeat_keeps_the_second_paired() {
    let base = r#"{"_c": "a", "x": 1, "_c": "b"}"#;
    let ours = r#"{"x": 1, "_c": "b"}"#;
    let theirs = r#"{"_c": "a", "x": 1, "_c": "B"}"#;
    let out = js(base, ours, theirs);
    assert_clean(&out);
    assert_eq!(out.text(), r#"{"x": 1, "_c": "B"}"#);
}

/// TerraformersMC/ModMenu 1d057118bf, `zh_cn.json`: ours added copies of three keys base
/// holds once further down; theirs rewrote the file; the person committed theirs.
#[test]
fn mod_menu_lang_file_with_dead_copies() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "../tests/data/real-cases/\
         TerraformersMC_ModMenu__1d057118bf__src_main_resources_assets_modmenu_lang_zh_cn.json",
    );
    let read = |side: &str| std::fs::read_to_string(dir.join(format!("{side}.json"))).unwrap();
    let out = js(&read("base"), &read("ours"), &read("theirs"));
    let doc = parse(Dialect::Json, out.text());
    assert!(doc.duplicate_keys().is_empty(), "{}", out.text());
    let mut keys: Vec<String> = collapses(&out).into_iter().map(|c| c.0).collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "/modmenu.mods.1",
            "/modmenu.mods.69.secret",
            "/modmenu.mods.n"
        ]
    );
    let human = parse(Dialect::Json, &read("human"));
    for key in ["modmenu.mods.1", "modmenu.mods.69.secret", "modmenu.mods.n"] {
        let got = doc.root().get(key).unwrap();
        assert!(got.same_value(&human.root().get(key).unwrap()), "{key}");
    }
}

fn object(members: &[(usize, u8)]) -> String {
    let items: Vec<String> = members
        .iter()
        .map(|(k, v)| format!("\"k{k}\": {v}"))
        .collect();
    format!("{{{}}}", items.join(", "))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(proptest_cases(256)))]

    /// Where base repeats no key, the merge never writes a key twice in that object,
    /// whatever the sides repeat, and each key a side repeats is reported once for it.
    #[test]
    fn no_repeats_in_base_none_in_the_result(
        base in proptest::collection::btree_map(0..4usize, 0..3u8, 0..4),
        ours in proptest::collection::vec((0..4usize, 0..3u8), 0..8),
        theirs in proptest::collection::vec((0..4usize, 0..3u8), 0..8),
    ) {
        let base: Vec<(usize, u8)> = base.into_iter().collect();
        let (b, o, t) = (object(&base), object(&ours), object(&theirs));
        let out = js(&b, &o, &t);
        let doc = parse(Dialect::Json, out.text());
        // A side is taken whole where the other kept base or both agree (as git would): its
        // repeats too.
        let kept_base = |side: &str| {
            parse(Dialect::Json, &b).root().same_value(&parse(Dialect::Json, side).root())
        };
        let same = parse(Dialect::Json, &o).root().same_value(&parse(Dialect::Json, &t).root());
        if !kept_base(&o) && !kept_base(&t) && !same {
            prop_assert!(doc.duplicate_keys().is_empty(), "{}", out.text());
        }
        for (side, members) in [(Side::Ours, &ours), (Side::Theirs, &theirs)] {
            for k in 0..4usize {
                let times = members.iter().filter(|m| m.0 == k).count();
                let reported = collapses(&out)
                    .iter()
                    .filter(|c| c.1 == side && c.0 == format!("/k{k}"))
                    .count();
                prop_assert!(reported <= usize::from(times > 1));
            }
        }
    }
}
