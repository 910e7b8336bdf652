//! Change sets by example: written from a diff, read back, applied.

use sjson::{Dialect, Document};

use super::*;
use crate::diff::{diff, DiffOptions};
use crate::{ConflictKind, MergeOptions, Policy, Side};

fn doc(text: &str) -> Document {
    Document::parse(text, Dialect::Sjson).unwrap()
}

/// The change set of `a` → `b` as text.
fn changes(a: &str, b: &str) -> String {
    let (a, b) = (doc(a), doc(b));
    let opts = DiffOptions::default();
    let d = diff(a.root(), b.root(), &opts);
    change_set(Some(a.root()), Some(b.root()), &d, &opts)
        .iter()
        .map(|o| format!("{}\n", o.to_json()))
        .collect()
}

fn apply(set: &str, target: &str, policy: Policy) -> Applied {
    let lines = parse_change_set(set).unwrap();
    let ops = read_ops(&lines).unwrap();
    let options = MergeOptions {
        policy,
        ..MergeOptions::default()
    };
    apply_change_set(&doc(target), &ops, &options).unwrap()
}

const A: &str = "units = [\n\t{ id = \"u1\" pos = [0 0 0] name = \"a\" }\n\t{ id = \"u2\" pos = [1 1 1] }\n\t{ id = \"u3\" pos = [2 2 2] }\n]\ntitle = \"t\" // keep me\ntags = [\"x\" \"y\"]\n";

#[test]
fn operations_address_objects_by_id_and_carry_old_values() {
    let b = A
        .replace("pos = [0 0 0]", "pos = [5 0 0]")
        .replace("\t{ id = \"u2\" pos = [1 1 1] }\n", "")
        .replace("title = \"t\"", "title = \"t2\" extra = 1");
    let b = b.replace(
        "\t{ id = \"u3\"",
        "\t{ id = \"u9\" pos = [9 9 9] }\n\t{ id = \"u3\"",
    );
    let set = changes(A, &b);
    let lines: Vec<&str> = set.lines().collect();
    assert!(
        lines
            .contains(&r#"{"op":"set","path":"/units/[id=u1]/pos","old":[0,0,0],"value":[5,0,0]}"#),
        "{set}"
    );
    assert!(
        lines.contains(
            &r#"{"op":"destroy","path":"/units/[id=u2]","old":{"id":"u2","pos":[1,1,1]}}"#
        ),
        "{set}"
    );
    assert!(lines.contains(&r#"{"op":"create","path":"/units/[id=u9]","after":"u1","before":"u3","value":{"id":"u9","pos":[9,9,9]}}"#), "{set}");
    assert!(
        lines.contains(&r#"{"op":"set","path":"/extra","value":1}"#),
        "{set}"
    );
    let out = apply(&set, A, Policy::Theirs);
    assert!(out.conflicts.is_empty());
    // The same data; untouched text kept; new objects in the neighbours' style.
    let b_last = b.replace(" extra = 1", "") + "extra = 1\n";
    assert!(
        doc(out.text()).root().same_value(&doc(&b_last).root()),
        "{}",
        out.text()
    );
    for kept in [
        "\t{ id = \"u1\" pos = [5 0 0] name = \"a\" }\n",
        "title = \"t2\" // keep me\n",
    ] {
        assert!(out.text().contains(kept), "{}", out.text());
    }
}

#[test]
fn sequences_are_set_whole_and_merged() {
    let b = A.replace("tags = [\"x\" \"y\"]", "tags = [\"x\" \"y\" \"z\"]");
    let set = changes(A, &b);
    assert_eq!(
        set,
        "{\"op\":\"set\",\"path\":\"/tags\",\"old\":[\"x\",\"y\"],\"value\":[\"x\",\"y\",\"z\"]}\n"
    );
    // Applied where "w" was put first meanwhile: both insertions kept.
    let a2 = A.replace("tags = [\"x\" \"y\"]", "tags = [\"w\" \"x\" \"y\"]");
    let out = apply(&set, &a2, Policy::Theirs);
    assert!(
        out.text().contains("tags = [\"w\" \"x\" \"y\" \"z\"]"),
        "{}",
        out.text()
    );
}

#[test]
fn a_property_changed_since_is_a_conflict_resolved_by_policy() {
    let b = A.replace("pos = [0 0 0]", "pos = [5 0 0]");
    let set = changes(A, &b);
    let a2 = A.replace("pos = [0 0 0]", "pos = [7 0 0]");
    let out = apply(&set, &a2, Policy::Theirs);
    assert_eq!(out.conflicts.len(), 1);
    let c = &out.conflicts[0];
    assert_eq!(c.path.to_string(), "/units/[id=u1]/pos");
    assert_eq!(c.kind, ConflictKind::BothModified);
    assert_eq!(c.taken, Side::Theirs);
    assert!(out.text().contains("[5 0 0]"));
    let out = apply(&set, &a2, Policy::Ours);
    assert!(out.text().contains("[7 0 0]") && out.conflicts.len() == 1);
}

#[test]
fn moved_and_reordered_objects_arrive_in_place() {
    let b = "units = [\n\t{ id = \"u3\" pos = [2 2 2] }\n\t{ id = \"u1\" pos = [0 0 0] name = \"a\" }\n\t{ id = \"u2\" pos = [1 1 1] }\n]\ntitle = \"t\" // keep me\ntags = [\"x\" \"y\"]\n";
    let set = changes(A, b);
    let out = apply(&set, A, Policy::Theirs);
    assert!(out.conflicts.is_empty());
    assert!(
        doc(out.text()).root().same_value(&doc(b).root()),
        "{}",
        out.text()
    );
}

#[test]
fn an_empty_change_set_changes_nothing_and_sets_chain() {
    assert_eq!(apply("", A, Policy::Theirs).text(), A);
    // Two change sets appended: the first gives the base, the last the value.
    let b = A.replace("title = \"t\"", "title = \"t2\"");
    let c = A.replace("title = \"t\"", "title = \"t3\"");
    let set = changes(A, &b) + &changes(&b, &c);
    let out = apply(&set, A, Policy::Theirs);
    assert!(out.conflicts.is_empty());
    assert_eq!(out.text(), c);
}

#[test]
fn a_change_inside_an_object_the_target_deleted_keeps_it_deleted() {
    let b = A.replace("pos = [0 0 0]", "pos = [5 0 0]");
    let set = changes(A, &b);
    let a2 = A.replace("\t{ id = \"u1\" pos = [0 0 0] name = \"a\" }\n", "");
    let out = apply(&set, &a2, Policy::Theirs);
    assert_eq!(out.text(), a2);
    assert_eq!(out.conflicts.len(), 1);
    let c = &out.conflicts[0];
    assert_eq!(c.path.to_string(), "/units/[id=u1]/pos");
    assert_eq!(c.kind, ConflictKind::DeleteModify);
    assert_eq!(c.taken, Side::Ours);
    assert!(out.failed(Policy::Fail));
}

#[test]
fn a_new_key_that_needs_quotes_keeps_its_name() {
    // The value comes from the line's `"value"` member: that key must not be printed.
    for key in ["x y", "%", "é"] {
        let a = "a = 1\n";
        let b = format!("a = 1\n\"{key}\" = \"K\"\n");
        let set = changes(a, &b);
        let out = apply(&set, a, Policy::Theirs);
        assert!(out.conflicts.is_empty());
        assert!(
            crate::patch::json_equal(doc(out.text()).root(), doc(&b).root()),
            "{set}{}",
            out.text()
        );
        assert_eq!(out.text(), b);
    }
}

#[test]
fn a_created_object_is_written_like_its_neighbours() {
    let create =
        "{\"op\":\"create\",\"path\":\"/u/[id=z]\",\"value\":{\"id\":\"z\",\"p\":3,\"q\":[1,2]}}\n";
    let cases = [
        // Objects on one line: so is the new one, spaced and separated like them.
        (
            "u = [{id = \"x\" p = 1}]\n",
            "u = [{id = \"x\" p = 1} {id = \"z\" p = 3 q = [1 2]}]\n",
        ),
        (
            "u = [{ id = \"x\", p = 1 }]\n",
            "u = [{ id = \"x\", p = 1 } { id = \"z\", p = 3, q = [1 2] }]\n",
        ),
        (
            "u = [\n\t{id = \"x\" p = 1}\n]\n",
            "u = [\n\t{id = \"x\" p = 1}\n\t{id = \"z\" p = 3 q = [1 2]}\n]\n",
        ),
        // Objects on several lines: one member per line.
        (
            "u = [\n\t{\n\t\tid = \"x\"\n\t}\n]\n",
            "u = [\n\t{\n\t\tid = \"x\"\n\t}\n\t{\n\t\tid = \"z\"\n\t\tp = 3\n\t\tq = [1 2]\n\t}\n]\n",
        ),
    ];
    for (target, expected) in cases {
        let out = apply(create, target, Policy::Theirs);
        assert!(out.conflicts.is_empty(), "{:?}", out.conflicts);
        assert_eq!(out.text(), expected);
    }
    // JSON: with its commas.
    let lines = parse_change_set(create).unwrap();
    let ops = read_ops(&lines).unwrap();
    let json = Document::parse("{\"u\": [{\"id\": \"x\"}]}", Dialect::Json).unwrap();
    let out = apply_change_set(&json, &ops, &MergeOptions::default()).unwrap();
    assert_eq!(
        out.text(),
        "{\"u\": [{\"id\": \"x\"}, {\"id\": \"z\", \"p\": 3, \"q\": [1, 2]}]}"
    );
    // A member that is an object is not squeezed onto the line.
    let nested =
        "{\"op\":\"create\",\"path\":\"/u/[id=z]\",\"value\":{\"id\":\"z\",\"o\":{\"k\":1}}}\n";
    let out = apply(nested, "u = [{id = \"x\"}]\n", Policy::Theirs);
    assert!(out.text().contains("{\n"), "{}", out.text());
}

#[test]
fn a_key_that_looks_like_an_id_is_not_one() {
    // `/[ =x]` names an element by id; the key `[ =x]` is written `/~2 =x]`.
    let a = "\"[ =x]\" = 1\nk = 2\n";
    let b = "k = 2\n\"[id=y]\" = 3\n";
    let set = changes(a, b);
    assert!(
        set.contains("\"/~2 =x]\"") && set.contains("\"/~2id=y]\""),
        "{set}"
    );
    let out = apply(&set, a, Policy::Theirs);
    assert!(out.conflicts.is_empty(), "{:?}", out.conflicts);
    assert!(
        crate::patch::json_equal(doc(out.text()).root(), doc(b).root()),
        "{set}{}",
        out.text()
    );
    // The JSON Patch of the same diff is plain RFC 6901: no `~2`.
    let (ad, bd) = (doc(a), doc(b));
    let patch = diff(ad.root(), bd.root(), &DiffOptions::default()).patch_json();
    assert!(patch.contains("\"/[ =x]\""), "{patch}");
    let patch = Document::parse(patch, Dialect::Json).unwrap();
    let patched = crate::patch::apply_patch(&ad, &patch, &MergeOptions::default()).unwrap();
    assert!(crate::patch::json_equal(doc(&patched).root(), bd.root()));
}

/// Issue #30 item 13: a `set` inside a scalar is refused, never reported as applied.
#[test]
fn a_set_inside_a_scalar_is_refused() {
    for (target, kind) in [
        ("a = 1\n", "a number"),
        ("a = \"s\"\n", "a string"),
        ("a = true\n", "a boolean"),
        ("a = null\n", "null"),
    ] {
        let lines = parse_change_set("{\"op\":\"set\",\"path\":\"/a/b\",\"value\":2}\n").unwrap();
        let ops = read_ops(&lines).unwrap();
        let err = apply_change_set(&doc(target), &ops, &MergeOptions::default()).unwrap_err();
        assert!(
            matches!(&err, ApplyError::NotAContainer { kind: k, .. } if *k == kind),
            "{target}: {err}"
        );
        assert!(err.to_string().contains("/a/b"), "{err}");
    }
    // Inside an object it applies.
    let out = apply(
        "{\"op\":\"set\",\"path\":\"/a/b\",\"value\":2}\n",
        "a = { b = 1 }\n",
        Policy::Theirs,
    );
    assert!(out.text().contains("b = 2"), "{}", out.text());
}

proptest::proptest! {
    /// Whatever scalar or container is at `/a`, applying a set of `/a/b` either changes
    /// the file to hold the new value or fails; it never reports success with no change.
    #[test]
    fn a_set_applies_or_fails(target in proptest::sample::select(vec![
        "a = 1\n", "a = \"x\"\n", "a = {}\n", "a = { b = 1 }\n", "a = [1]\n", "a = null\n",
    ])) {
        let lines = parse_change_set("{\"op\":\"set\",\"path\":\"/a/b\",\"value\":7}\n").unwrap();
        let ops = read_ops(&lines).unwrap();
        if let Ok(out) = apply_change_set(&doc(target), &ops, &MergeOptions::default()) {
            let ok = out.text().contains('7') || !out.conflicts.is_empty();
            proptest::prop_assert!(ok, "{target} -> {}", out.text());
        }
    }
}

proptest::proptest! {
    /// An applied change set always holds the whole result: a text that parses in the
    /// target's dialect (the target's own text when nothing changes), and `failed` says
    /// exactly whether policy `fail` met a conflict.
    #[test]
    fn an_applied_change_set_always_holds_its_text(
        pos in 0i64..4, name in "[a-c]{1,2}", target_pos in 0i64..4, drop_u1 in proptest::bool::ANY,
    ) {
        let b = A
            .replace("pos = [0 0 0]", &format!("pos = [{pos} 0 0]"))
            .replace("name = \"a\"", &format!("name = \"{name}\""));
        let set = changes(A, &b);
        let target = if drop_u1 {
            A.replace("\t{ id = \"u1\" pos = [0 0 0] name = \"a\" }\n", "")
        } else {
            A.replace("pos = [0 0 0]", &format!("pos = [{target_pos} 1 0]"))
        };
        for policy in [Policy::Theirs, Policy::Ours, Policy::Fail] {
            let out = apply(&set, &target, policy);
            proptest::prop_assert!(Document::parse(out.text(), Dialect::Sjson).is_ok(), "{}", out.text());
            if set.is_empty() {
                proptest::prop_assert_eq!(out.text(), target.as_str());
            }
            let decided = out.conflicts.iter().any(|c| c.kind != ConflictKind::RepeatedKey);
            proptest::prop_assert_eq!(out.failed(policy), policy == Policy::Fail && decided);
            proptest::prop_assert_eq!(out.clone().into_text(), out.text());
        }
    }
}

#[test]
fn an_exact_result_has_no_conflict_and_never_fails() {
    let out = Applied::exact(A.to_string());
    assert_eq!(out.text(), A);
    assert!(out.conflicts.is_empty());
    assert!(!out.failed(Policy::Fail));
}
