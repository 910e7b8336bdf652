//! docs/design.md "Merge semantics": keyed arrays (tuples and sequences: `sequences.rs`).

use crate::common;

use common::*;
use merge::{ConflictKind, MergeOptions, Policy, Side};

#[test]
fn keyed_elements_merge_property_by_property() {
    let base = "units = [\n\t{ id = \"a\" x = 1 y = 1 }\n\t{ id = \"b\" x = 1 y = 1 }\n]\n";
    let ours = "units = [\n\t{ id = \"a\" x = 2 y = 1 }\n\t{ id = \"b\" x = 1 y = 1 }\n]\n";
    let theirs = "units = [\n\t{ id = \"a\" x = 1 y = 3 }\n\t{ id = \"b\" x = 1 y = 4 }\n]\n";
    let out = sj(base, ours, theirs);
    assert_clean(&out);
    assert_eq!(
        out.text(),
        "units = [\n\t{ id = \"a\" x = 2 y = 3 }\n\t{ id = \"b\" x = 1 y = 4 }\n]\n"
    );
}

#[test]
fn id_keys_are_recognised_case_insensitively() {
    for key in [
        "id", "_id", "guid", "_guid", "uuid", "Id", "ID", "GUID", "Uuid", "_Guid",
    ] {
        let el = |id: &str, x: i32| format!("{{ {key} = \"{id}\" x = {x} }}");
        let base = format!("l = [{} {}]\n", el("p", 1), el("q", 1));
        // Ours reorders (a sequence merge would conflict), theirs edits q.
        let ours = format!("l = [{} {}]\n", el("q", 1), el("p", 1));
        let theirs = format!("l = [{} {}]\n", el("p", 1), el("q", 2));
        let out = sj(&base, &ours, &theirs);
        assert_clean(&out);
        assert_value(
            Sjson,
            out.text(),
            &format!("l = [{} {}]", el("q", 2), el("p", 1)),
        );
    }
}

#[test]
fn the_first_configured_id_key_present_wins() {
    // `id` comes before `guid`: elements are keyed by `id` even though the guids repeat.
    let base = "l = [{ guid = 1 id = \"a\" v = 0 } { guid = 1 id = \"b\" v = 0 }]\n";
    let ours = "l = [{ guid = 1 id = \"b\" v = 0 } { guid = 1 id = \"a\" v = 0 }]\n";
    let theirs = "l = [{ guid = 1 id = \"a\" v = 1 } { guid = 1 id = \"b\" v = 0 }]\n";
    let out = sj(base, ours, theirs);
    assert_clean(&out);
    assert_value(
        Sjson,
        out.text(),
        "l = [{ guid = 1 id = \"b\" v = 0 } { guid = 1 id = \"a\" v = 1 }]",
    );
}

#[test]
fn integer_ids_merge_by_value() {
    let base = "l = [{ id = 1 v = 0 } { id = 2 v = 0 }]\n";
    let ours = "l = [{ id = 2 v = 0 } { id = 1 v = 5 }]\n";
    let theirs = "l = [{ id = 1 v = 0 } { id = 2 v = 7 } { id = 3 v = 0 }]\n";
    let out = sj(base, ours, theirs);
    assert_clean(&out);
    // Ours reordered: ours' order, theirs' new 3 after its predecessor in theirs (2).
    assert_value(
        Sjson,
        out.text(),
        "l = [{ id = 2 v = 7 } { id = 3 v = 0 } { id = 1 v = 5 }]",
    );
    // An integer id and the string of its digits are different ids.
    let out = sj(
        "l = [{ id = 1 }]\n",
        "l = [{ id = 1 } { id = 2 }]\n",
        "l = [{ id = 1 } { id = \"2\" }]\n",
    );
    assert_clean(&out);
    assert_value(
        Sjson,
        out.text(),
        "l = [{ id = 1 } { id = 2 } { id = \"2\" }]",
    );
}

#[test]
fn integer_ids_written_as_floats_are_the_same_ids() {
    // Regression: a tool that writes `1.0` for `1` made every element look deleted and
    // re-added: ours' edit of 1 was a modify-delete conflict (and with policy ours, 1
    // and 1.0 were both in the result).
    let base = "l = [{ id = 1 x = 0 } { id = 2 x = 0 }]\n";
    let ours = "l = [{ id = 1 x = 1 } { id = 2 x = 0 }]\n";
    let theirs = "l = [{ id = 1.0 x = 0 } { id = 2.0 x = 0 } { id = 3.0 x = 0 }]\n";
    let out = sj(base, ours, theirs);
    assert_clean(&out);
    assert_value(
        Sjson,
        out.text(),
        "l = [{ id = 1 x = 1 } { id = 2 x = 0 } { id = 3 x = 0 }]",
    );
    let out = sj_policy(Policy::Ours, base, ours, theirs);
    assert_clean(&out);
    assert_eq!(ids_at(Sjson, out.text(), "l").len(), 3);
}

#[test]
fn custom_id_keys() {
    let opts = MergeOptions {
        id_keys: vec!["serial".into()],
        ..MergeOptions::default()
    };
    let base = "l = [{ serial = 1 v = 0 } { serial = 2 v = 0 }]\n";
    let ours = "l = [{ serial = 2 v = 0 } { serial = 1 v = 0 }]\n";
    let theirs = "l = [{ serial = 1 v = 1 } { serial = 2 v = 0 }]\n";
    let out = merge_with(Sjson, base, ours, theirs, &opts);
    assert_clean(&out);
    assert_value(
        Sjson,
        out.text(),
        "l = [{ serial = 2 v = 0 } { serial = 1 v = 1 }]",
    );
    // With the default keys, `id` is just another member here.
    let out = merge_with(
        Sjson,
        "l = [{ id = 1 v = 0 }]",
        "l = [{ id = 1 v = 0 } { id = 2 }]",
        "l = [{ id = 1 v = 1 }]",
        &opts,
    );
    // Unkeyed: a sequence merge, which pairs the edited object.
    assert_value(Sjson, out.text(), "l = [{ id = 1 v = 1 } { id = 2 }]");
}

#[test]
fn keyed_conflicts_name_the_element_by_id() {
    let base = units(&[("u-1", "white"), ("f341", "white")]);
    let ours = units(&[("u-1", "white"), ("f341", "red")]);
    let theirs = units(&[("u-1", "white"), ("f341", "blue")]);
    let out = sj(&base, &ours, &theirs);
    let c = one_conflict(&out);
    assert_conflict(
        c,
        "/units/[id=f341]/tint",
        ConflictKind::BothModified,
        Side::Theirs,
    );
    assert_eq!(c.base.as_deref(), Some("\"white\""));
    assert_eq!(c.ours.as_deref(), Some("\"red\""));
    assert_eq!(c.theirs.as_deref(), Some("\"blue\""));
    assert_eq!(out.text(), theirs);
    // Integer ids are shown as numbers, the id key as written.
    let out = sj(
        "l = [{ ID = 7 v = 0 }]",
        "l = [{ ID = 7 v = 1 }]",
        "l = [{ ID = 7 v = 2 }]",
    );
    assert_eq!(one_conflict(&out).path.to_string(), "/l/[ID=7]/v");
}

#[test]
fn keyed_delete_vs_modify() {
    let base = units(&[("a", "white"), ("b", "white"), ("c", "white")]);
    let edited = units(&[("a", "white"), ("b", "red"), ("c", "white")]);
    let deleted = units(&[("a", "white"), ("c", "white")]);
    // Ours modified, theirs deleted: theirs wins by default.
    let out = sj(&base, &edited, &deleted);
    let c = one_conflict(&out);
    assert_conflict(c, "/units/[id=b]", ConflictKind::ModifyDelete, Side::Theirs);
    assert_eq!(c.theirs, None);
    assert_eq!(ids_at(Sjson, out.text(), "units"), ["a", "c"]);
    let out = sj_policy(Policy::Ours, &base, &edited, &deleted);
    assert_conflict(
        one_conflict(&out),
        "/units/[id=b]",
        ConflictKind::ModifyDelete,
        Side::Ours,
    );
    assert_eq!(out.text(), edited);
    // Ours deleted, theirs modified.
    let out = sj(&base, &deleted, &edited);
    let c = one_conflict(&out);
    assert_conflict(c, "/units/[id=b]", ConflictKind::DeleteModify, Side::Theirs);
    assert_eq!(c.ours, None);
    assert_value(Sjson, out.text(), &edited);
    let out = sj_policy(Policy::Ours, &base, &deleted, &edited);
    assert_eq!(out.text(), deleted);
    // Deleted on one side, untouched on the other: deleted.
    let out = sj(&base, &base, &deleted);
    assert_eq!(ids_at(Sjson, out.text(), "units"), ["a", "c"]);
}

#[test]
fn seed_both_delete_one_adds() {
    // Two people delete u-42; one of them adds u-50 in its place.
    let base = units(&[("u-17", "white"), ("u-42", "white"), ("u-99", "white")]);
    let ours = units(&[("u-17", "white"), ("u-99", "white")]);
    let theirs = units(&[("u-17", "white"), ("u-50", "black"), ("u-99", "white")]);
    let out = sj(&base, &ours, &theirs);
    assert_clean(&out);
    assert_eq!(out.text(), theirs);
    let out = sj(&base, &theirs, &ours);
    assert_clean(&out);
    assert_eq!(out.text(), theirs);
}

#[test]
fn seed_localization_languages() {
    let base = r#"{
  "lines": [
    {
      "id": "greeting",
      "en": "Hello"
    }
  ]
}
"#;
    let ours = r#"{
  "lines": [
    {
      "id": "greeting",
      "en": "Hello",
      "fr": "Bonjour"
    }
  ]
}
"#;
    let theirs = r#"{
  "lines": [
    {
      "id": "greeting",
      "en": "Hello",
      "ja": "こんにちは"
    },
    {
      "id": "farewell",
      "en": "Bye"
    }
  ]
}
"#;
    let out = js(base, ours, theirs);
    assert_clean(&out);
    assert_eq!(
        out.text(),
        r#"{
  "lines": [
    {
      "id": "greeting",
      "en": "Hello",
      "fr": "Bonjour",
      "ja": "こんにちは"
    },
    {
      "id": "farewell",
      "en": "Bye"
    }
  ]
}
"#
    );
}

#[test]
fn keyed_membership_adds_from_both_sides() {
    let base = units(&[("a", "w")]);
    let ours = units(&[("a", "w"), ("o", "w")]);
    let theirs = units(&[("t", "w"), ("a", "w")]);
    let out = sj(&base, &ours, &theirs);
    assert_clean(&out);
    assert_eq!(ids_at(Sjson, out.text(), "units"), ["t", "a", "o"]);
}

#[test]
fn keyed_both_insert_at_one_place_ours_first() {
    let base = units(&[("a", "w"), ("z", "w")]);
    let ours = units(&[("a", "w"), ("o1", "w"), ("o2", "w"), ("z", "w")]);
    let theirs = units(&[("a", "w"), ("t1", "w"), ("t2", "w"), ("z", "w")]);
    let out = sj(&base, &ours, &theirs);
    assert_clean(&out);
    assert_eq!(
        ids_at(Sjson, out.text(), "units"),
        ["a", "o1", "o2", "t1", "t2", "z"]
    );
    // At the front and at the end.
    let ours = units(&[("o", "w"), ("a", "w"), ("z", "w"), ("oo", "w")]);
    let theirs = units(&[("t", "w"), ("a", "w"), ("z", "w"), ("tt", "w")]);
    let out = sj(&base, &ours, &theirs);
    assert_eq!(
        ids_at(Sjson, out.text(), "units"),
        ["o", "t", "a", "z", "oo", "tt"]
    );
}

#[test]
fn keyed_both_add_the_same_id() {
    let base = units(&[("a", "w")]);
    // Equal: one element.
    let both = units(&[("a", "w"), ("n", "red")]);
    let out = sj(&base, &both, &both);
    assert_clean(&out);
    assert_eq!(out.text(), both);
    // Different: merged against an empty base.
    let ours = "units = [\n\t{ id = \"a\" }\n\t{ id = \"n\" x = 1 }\n]\n";
    let theirs = "units = [\n\t{ id = \"a\" }\n\t{ id = \"n\" y = 2 }\n]\n";
    let out = sj("units = [\n\t{ id = \"a\" }\n]\n", ours, theirs);
    assert_clean(&out);
    assert_value(
        Sjson,
        out.text(),
        "units = [{ id = \"a\" } { id = \"n\" x = 1 y = 2 }]",
    );
    let ours = "units = [\n\t{ id = \"a\" }\n\t{ id = \"n\" x = 1 }\n]\n";
    let theirs = "units = [\n\t{ id = \"a\" }\n\t{ id = \"n\" x = 2 }\n]\n";
    let out = sj("units = [\n\t{ id = \"a\" }\n]\n", ours, theirs);
    assert_conflict(
        one_conflict(&out),
        "/units/[id=n]/x",
        ConflictKind::BothAdded,
        Side::Theirs,
    );
}

#[test]
fn keyed_order_one_side_reorders() {
    let base = units(&[("a", "w"), ("b", "w"), ("c", "w")]);
    let reordered = units(&[("c", "w"), ("a", "w"), ("b", "w")]);
    let edited = units(&[("a", "w"), ("b", "x"), ("c", "w")]);
    let out = sj(&base, &reordered, &edited);
    assert_clean(&out);
    assert_eq!(ids_at(Sjson, out.text(), "units"), ["c", "a", "b"]);
    assert_eq!(out.text(), units(&[("c", "w"), ("a", "w"), ("b", "x")]));
    let out = sj(&base, &edited, &reordered);
    assert_clean(&out);
    assert_eq!(ids_at(Sjson, out.text(), "units"), ["c", "a", "b"]);
    assert_value(
        Sjson,
        out.text(),
        &units(&[("c", "w"), ("a", "w"), ("b", "x")]),
    );
}

#[test]
fn keyed_order_both_reorder_differently_is_an_order_conflict() {
    let base = units(&[("a", "w"), ("b", "w"), ("c", "w")]);
    let ours = units(&[("c", "w"), ("a", "w"), ("b", "w")]);
    let theirs = units(&[("b", "w"), ("a", "w"), ("c", "w")]);
    let out = sj(&base, &ours, &theirs);
    let c = one_conflict(&out);
    assert_conflict(c, "/units", ConflictKind::Order, Side::Theirs);
    // The report gives the order of the ids, not the whole arrays.
    assert_eq!(c.base.as_deref(), Some(r#"["a","b","c"]"#));
    assert_eq!(c.ours.as_deref(), Some(r#"["c","a","b"]"#));
    assert_eq!(c.theirs.as_deref(), Some(r#"["b","a","c"]"#));
    assert_eq!(ids_at(Sjson, out.text(), "units"), ["b", "a", "c"]);
    let out = sj_policy(Policy::Ours, &base, &ours, &theirs);
    assert_conflict(
        one_conflict(&out),
        "/units",
        ConflictKind::Order,
        Side::Ours,
    );
    assert_eq!(ids_at(Sjson, out.text(), "units"), ["c", "a", "b"]);
    // Both reordered the same way: no conflict.
    let out = sj(&base, &ours, &ours);
    assert_clean(&out);
    assert_eq!(out.text(), ours);
}

#[test]
fn keyed_order_with_insertions_on_the_reordering_side() {
    let base = units(&[("a", "w"), ("b", "w")]);
    let ours = units(&[("a", "w"), ("b", "w"), ("o", "w")]);
    let theirs = units(&[("b", "w"), ("t", "w"), ("a", "w")]);
    let out = sj(&base, &ours, &theirs);
    assert_clean(&out);
    // Theirs' order; ours' `o` after its predecessor `b`, before theirs' `t` (both
    // inserted after `b`: ours first).
    assert_eq!(ids_at(Sjson, out.text(), "units"), ["b", "o", "t", "a"]);
}

#[test]
fn duplicate_ids_fall_back_to_a_sequence_merge() {
    let base = "l = [{ id = 1 v = 0 } { id = 1 v = 1 }]\n";
    let ours = "l = [{ id = 1 v = 0 } { id = 1 v = 1 } { id = 2 v = 2 }]\n";
    let theirs = "l = [{ id = 1 v = 5 } { id = 1 v = 1 }]\n";
    let out = sj(base, ours, theirs);
    assert_clean(&out);
    assert_value(
        Sjson,
        out.text(),
        "l = [{ id = 1 v = 5 } { id = 1 v = 1 } { id = 2 v = 2 }]",
    );
    // Duplicates introduced by one side only.
    let out = sj(
        "l = [{ id = 1 } { id = 2 }]\n",
        "l = [{ id = 1 } { id = 2 } { id = 2 }]\n",
        "l = [{ id = 1 x = 1 } { id = 2 }]\n",
    );
    assert_value(
        Sjson,
        out.text(),
        "l = [{ id = 1 x = 1 } { id = 2 } { id = 2 }]",
    );
}

#[test]
fn mixed_id_keys_are_not_keyed() {
    let out = sj(
        "l = [{ id = 1 } { guid = 2 }]\n",
        "l = [{ id = 1 } { guid = 2 } { id = 3 }]\n",
        "l = [{ id = 0 } { id = 1 } { guid = 2 }]\n",
    );
    assert_clean(&out);
    assert_value(
        Sjson,
        out.text(),
        "l = [{ id = 0 } { id = 1 } { guid = 2 } { id = 3 }]",
    );
}
