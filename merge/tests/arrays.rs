//! DESIGN.md "Merge semantics": keyed arrays, atomic number tuples, sequences.

mod common;

use common::*;
use merge::{ConflictKind, MergeOptions, Policy, Side};

fn units(ids: &[(&str, &str)]) -> String {
    let mut s = String::from("units = [\n");
    for (id, tint) in ids {
        s.push_str(&format!(
            "\t{{\n\t\tid = \"{id}\"\n\t\ttint = \"{tint}\"\n\t}}\n"
        ));
    }
    s.push_str("]\n");
    s
}

#[test]
fn keyed_elements_merge_property_by_property() {
    let base = "units = [\n\t{ id = \"a\" x = 1 y = 1 }\n\t{ id = \"b\" x = 1 y = 1 }\n]\n";
    let ours = "units = [\n\t{ id = \"a\" x = 2 y = 1 }\n\t{ id = \"b\" x = 1 y = 1 }\n]\n";
    let theirs = "units = [\n\t{ id = \"a\" x = 1 y = 3 }\n\t{ id = \"b\" x = 1 y = 4 }\n]\n";
    let out = sj(base, ours, theirs);
    assert_clean(&out);
    assert_eq!(
        out.text,
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
            &out.text,
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
        &out.text,
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
        &out.text,
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
        &out.text,
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
        &out.text,
        "l = [{ id = 1 x = 1 } { id = 2 x = 0 } { id = 3 x = 0 }]",
    );
    let out = sj_policy(Policy::Ours, base, ours, theirs);
    assert_clean(&out);
    assert_eq!(ids_at(Sjson, &out.text, "l").len(), 3);
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
        &out.text,
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
    assert_value(Sjson, &out.text, "l = [{ id = 1 v = 1 } { id = 2 }]");
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
    assert_eq!(out.text, theirs);
    // Integer ids are shown as numbers, the id key as written.
    let out = sj(
        "l = [{ ID = 7 v = 0 }]",
        "l = [{ ID = 7 v = 1 }]",
        "l = [{ ID = 7 v = 2 }]",
    );
    assert_eq!(one_conflict(&out).path, "/l/[ID=7]/v");
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
    assert_eq!(ids_at(Sjson, &out.text, "units"), ["a", "c"]);
    let out = sj_policy(Policy::Ours, &base, &edited, &deleted);
    assert_conflict(
        one_conflict(&out),
        "/units/[id=b]",
        ConflictKind::ModifyDelete,
        Side::Ours,
    );
    assert_eq!(out.text, edited);
    // Ours deleted, theirs modified.
    let out = sj(&base, &deleted, &edited);
    let c = one_conflict(&out);
    assert_conflict(c, "/units/[id=b]", ConflictKind::DeleteModify, Side::Theirs);
    assert_eq!(c.ours, None);
    assert_value(Sjson, &out.text, &edited);
    let out = sj_policy(Policy::Ours, &base, &deleted, &edited);
    assert_eq!(out.text, deleted);
    // Deleted on one side, untouched on the other: deleted.
    let out = sj(&base, &base, &deleted);
    assert_eq!(ids_at(Sjson, &out.text, "units"), ["a", "c"]);
}

#[test]
fn seed_both_delete_one_adds() {
    // Two people delete u-42; one of them adds u-50 in its place.
    let base = units(&[("u-17", "white"), ("u-42", "white"), ("u-99", "white")]);
    let ours = units(&[("u-17", "white"), ("u-99", "white")]);
    let theirs = units(&[("u-17", "white"), ("u-50", "black"), ("u-99", "white")]);
    let out = sj(&base, &ours, &theirs);
    assert_clean(&out);
    assert_eq!(out.text, theirs);
    let out = sj(&base, &theirs, &ours);
    assert_clean(&out);
    assert_eq!(out.text, theirs);
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
        out.text,
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
    assert_eq!(ids_at(Sjson, &out.text, "units"), ["t", "a", "o"]);
}

#[test]
fn keyed_both_insert_at_one_place_ours_first() {
    let base = units(&[("a", "w"), ("z", "w")]);
    let ours = units(&[("a", "w"), ("o1", "w"), ("o2", "w"), ("z", "w")]);
    let theirs = units(&[("a", "w"), ("t1", "w"), ("t2", "w"), ("z", "w")]);
    let out = sj(&base, &ours, &theirs);
    assert_clean(&out);
    assert_eq!(
        ids_at(Sjson, &out.text, "units"),
        ["a", "o1", "o2", "t1", "t2", "z"]
    );
    // At the front and at the end.
    let ours = units(&[("o", "w"), ("a", "w"), ("z", "w"), ("oo", "w")]);
    let theirs = units(&[("t", "w"), ("a", "w"), ("z", "w"), ("tt", "w")]);
    let out = sj(&base, &ours, &theirs);
    assert_eq!(
        ids_at(Sjson, &out.text, "units"),
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
    assert_eq!(out.text, both);
    // Different: merged against an empty base.
    let ours = "units = [\n\t{ id = \"a\" }\n\t{ id = \"n\" x = 1 }\n]\n";
    let theirs = "units = [\n\t{ id = \"a\" }\n\t{ id = \"n\" y = 2 }\n]\n";
    let out = sj("units = [\n\t{ id = \"a\" }\n]\n", ours, theirs);
    assert_clean(&out);
    assert_value(
        Sjson,
        &out.text,
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
    assert_eq!(ids_at(Sjson, &out.text, "units"), ["c", "a", "b"]);
    assert_eq!(out.text, units(&[("c", "w"), ("a", "w"), ("b", "x")]));
    let out = sj(&base, &edited, &reordered);
    assert_clean(&out);
    assert_eq!(ids_at(Sjson, &out.text, "units"), ["c", "a", "b"]);
    assert_value(
        Sjson,
        &out.text,
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
    assert_eq!(ids_at(Sjson, &out.text, "units"), ["b", "a", "c"]);
    let out = sj_policy(Policy::Ours, &base, &ours, &theirs);
    assert_conflict(
        one_conflict(&out),
        "/units",
        ConflictKind::Order,
        Side::Ours,
    );
    assert_eq!(ids_at(Sjson, &out.text, "units"), ["c", "a", "b"]);
    // Both reordered the same way: no conflict.
    let out = sj(&base, &ours, &ours);
    assert_clean(&out);
    assert_eq!(out.text, ours);
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
    assert_eq!(ids_at(Sjson, &out.text, "units"), ["b", "o", "t", "a"]);
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
        &out.text,
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
        &out.text,
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
        &out.text,
        "l = [{ id = 0 } { id = 1 } { guid = 2 } { id = 3 }]",
    );
}

#[test]
fn atomic_tuples_conflict_as_a_whole() {
    // Changing different components on two sides is a conflict.
    let out = sj("pos = [1 2 3]\n", "pos = [9 2 3]\n", "pos = [1 2 8]\n");
    let c = one_conflict(&out);
    assert_conflict(c, "/pos", ConflictKind::BothModified, Side::Theirs);
    assert_eq!(
        (c.base.as_deref(), c.ours.as_deref(), c.theirs.as_deref()),
        (Some("[1,2,3]"), Some("[9,2,3]"), Some("[1,2,8]"))
    );
    assert_eq!(out.text, "pos = [1 2 8]\n");
    let out = sj_policy(
        Policy::Ours,
        "pos = [1 2 3]\n",
        "pos = [9 2 3]\n",
        "pos = [1 2 8]\n",
    );
    assert_eq!(out.text, "pos = [9 2 3]\n");
    // The seed: `[1,2,3]` → `[1,2,4]` / `[1,2,5]`: a conflict, theirs.
    let out = js("[1,2,3]", "[1,2,4]", "[1,2,5]");
    assert_conflict(
        one_conflict(&out),
        "",
        ConflictKind::BothModified,
        Side::Theirs,
    );
    assert_eq!(out.text, "[1,2,5]");
    // Weights, from the sample cases (tests/data/cases).
    let out = sj(
        "weights = [0.5 0.25 0.25]\n",
        "weights = [0.5 0.5 0.0]\n",
        "weights = [0.6 0.2 0.2]\n",
    );
    assert_conflict(
        one_conflict(&out),
        "/weights",
        ConflictKind::BothModified,
        Side::Theirs,
    );
    assert_eq!(out.text, "weights = [0.6 0.2 0.2]\n");
}

#[test]
fn atomic_tuples_in_keyed_elements() {
    let base = "l = [{ id = 1 pos = [1 2 3] rot = [0 0 0 1] }]\n";
    let ours = "l = [{ id = 1 pos = [4 2 3] rot = [0 0 0 1] }]\n";
    let theirs = "l = [{ id = 1 pos = [1 2 3] rot = [0 1 0 0] }]\n";
    let out = sj(base, ours, theirs);
    assert_clean(&out);
    assert_eq!(out.text, "l = [{ id = 1 pos = [4 2 3] rot = [0 1 0 0] }]\n");
    let theirs = "l = [{ id = 1 pos = [1 2 5] rot = [0 0 0 1] }]\n";
    let out = sj(base, ours, theirs);
    assert_eq!(one_conflict(&out).path, "/l/[id=1]/pos");
}

#[test]
fn a_length_change_makes_a_number_list_a_sequence() {
    let out = sj("l = [1 2]\n", "l = [0 1 2]\n", "l = [1 2 3]\n");
    assert_clean(&out);
    assert_eq!(out.text, "l = [0 1 2 3]\n");
    let out = js("[1,2]", "[0,1,2]", "[1,2,3]");
    assert_clean(&out);
    assert_value(Json, &out.text, "[0, 1, 2, 3]");
    // One side changes the length, the other a component: a sequence merge.
    let out = sj("l = [1 2 3]\n", "l = [1 2 3 4]\n", "l = [7 2 3]\n");
    assert_clean(&out);
    assert_value(Sjson, &out.text, "l = [7 2 3 4]");
}

#[test]
fn long_number_lists_are_sequences() {
    let base: Vec<String> = (0..20).map(|i| i.to_string()).collect();
    let mut ours = base.clone();
    ours[0] = "100".into();
    let mut theirs = base.clone();
    theirs[19] = "119".into();
    let l = |v: &[String]| format!("l = [{}]\n", v.join(" "));
    let out = sj(&l(&base), &l(&ours), &l(&theirs));
    assert_clean(&out);
    let mut expected = ours.clone();
    expected[19] = "119".into();
    assert_eq!(out.text, l(&expected));
    // atomic_max is configurable: at 2, a triple is a sequence.
    let opts = MergeOptions {
        atomic_max: 2,
        ..MergeOptions::default()
    };
    let out = merge_with(Sjson, "p = [1 2 3]", "p = [9 2 3]", "p = [1 2 8]", &opts);
    assert_clean(&out);
    assert_eq!(out.text, "p = [9 2 8]");
}

#[test]
fn sequences_merge_by_diff3() {
    let out = sj(
        "l = [a b c d e]\n",
        "l = [a x c d e]\n",
        "l = [a b c d y z]\n",
    );
    assert_clean(&out);
    assert_eq!(out.text, "l = [a x c d y z]\n");
    // Deletions on both sides.
    let out = sj("l = [a b c d e]\n", "l = [b c d e]\n", "l = [a b c d]\n");
    assert_clean(&out);
    assert_value(Sjson, &out.text, "l = [b c d]");
    // The same deletion on both sides.
    let out = sj("l = [a b c]\n", "l = [a c]\n", "l = [a c]\n");
    assert_eq!(out.text, "l = [a c]\n");
}

#[test]
fn sequences_both_insert_at_one_place_ours_first() {
    let out = sj("l = [a z]\n", "l = [a o1 o2 z]\n", "l = [a t1 z]\n");
    assert_clean(&out);
    assert_value(Sjson, &out.text, "l = [a o1 o2 t1 z]");
    let out = sj("l = [a]\n", "l = [a o]\n", "l = [a t]\n");
    assert_value(Sjson, &out.text, "l = [a o t]");
    let out = sj("l = []\n", "l = [o]\n", "l = [t]\n");
    assert_value(Sjson, &out.text, "l = [o t]");
}

#[test]
fn sequences_overlapping_scalar_changes_conflict() {
    let base = "l = [a b c]\n";
    let ours = "l = [a x c]\n";
    let theirs = "l = [a y c]\n";
    let out = sj(base, ours, theirs);
    let c = one_conflict(&out);
    assert_conflict(c, "/l/1", ConflictKind::BothModified, Side::Theirs);
    assert_eq!(
        (c.base.as_deref(), c.ours.as_deref(), c.theirs.as_deref()),
        (Some("[\"b\"]"), Some("[\"x\"]"), Some("[\"y\"]"))
    );
    assert_value(Sjson, &out.text, theirs);
    let out = sj_policy(Policy::Ours, base, ours, theirs);
    assert_conflict(
        one_conflict(&out),
        "/l/1",
        ConflictKind::BothModified,
        Side::Ours,
    );
    assert_eq!(out.text, ours);
    // Edit against delete of the same element.
    let out = sj(base, "l = [a x c]\n", "l = [a c]\n");
    assert_eq!(out.conflicts.len(), 1, "{:?}", out.conflicts);
    assert_value(Sjson, &out.text, "l = [a c]");
}

#[test]
fn seed_unkeyed_objects_edit_and_append() {
    let base = "passes = [\n\t{\n\t\tlayer = \"opaque\"\n\t\tsort = 1\n\t}\n\t{\n\t\tlayer = \"alpha\"\n\t\tsort = 2\n\t}\n]\n";
    let ours = base.replace("sort = 1", "sort = 10");
    let theirs = base.replace(
        "\t}\n]\n",
        "\t}\n\t{\n\t\tlayer = \"ui\"\n\t\tsort = 3\n\t}\n]\n",
    );
    let out = sj(base, &ours, &theirs);
    assert_clean(&out);
    assert_eq!(out.text, theirs.replace("sort = 1\n", "sort = 10\n"));
}

#[test]
fn overlapping_object_edits_pair_by_natural_key() {
    // Both sides edit the same named objects; ours also inserts one before them.
    let base = "l = [\n\t{ name = \"a\" x = 1 y = 1 }\n\t{ name = \"b\" x = 1 y = 1 }\n]\n";
    let ours = "l = [\n\t{ name = \"n\" x = 0 y = 0 }\n\t{ name = \"a\" x = 2 y = 1 }\n\t{ name = \"b\" x = 1 y = 1 }\n]\n";
    let theirs = "l = [\n\t{ name = \"a\" x = 1 y = 3 }\n\t{ name = \"b\" x = 1 y = 4 }\n]\n";
    let out = sj(base, ours, theirs);
    assert_clean(&out);
    assert_value(
        Sjson,
        &out.text,
        "l = [{ name = \"n\" x = 0 y = 0 } { name = \"a\" x = 2 y = 3 } { name = \"b\" x = 1 y = 4 }]",
    );
}

#[test]
fn natural_key_pairs_objects_that_changed_a_lot() {
    // Nothing else in common but the name: still the same object.
    let base = "l = [{ name = \"a\" p = 1 q = 1 r = 1 }]\n";
    let ours = "l = [{ name = \"a\" p = 2 q = 2 r = 1 }]\n";
    let theirs = "l = [{ name = \"a\" p = 1 q = 1 r = 3 }]\n";
    let out = sj(base, ours, theirs);
    assert_clean(&out);
    assert_value(Sjson, &out.text, "l = [{ name = \"a\" p = 2 q = 2 r = 3 }]");
}

#[test]
fn overlapping_object_edits_pair_by_similarity() {
    let base = "l = [{ k = 1 a = 1 b = 1 c = 1 } { k = 2 a = 2 b = 2 c = 2 }]\n";
    let ours = "l = [{ k = 1 a = 9 b = 1 c = 1 } { k = 2 a = 2 b = 9 c = 2 }]\n";
    let theirs = "l = [{ k = 1 a = 1 b = 1 c = 8 } { k = 2 a = 8 b = 2 c = 2 }]\n";
    let out = sj(base, ours, theirs);
    assert_clean(&out);
    assert_value(
        Sjson,
        &out.text,
        "l = [{ k = 1 a = 9 b = 1 c = 8 } { k = 2 a = 8 b = 9 c = 2 }]",
    );
    // A true conflict inside a paired object is reported at its index.
    let theirs = "l = [{ k = 1 a = 7 b = 1 c = 1 } { k = 2 a = 2 b = 2 c = 2 }]\n";
    let out = sj(base, ours, theirs);
    assert_conflict(
        one_conflict(&out),
        "/l/0/a",
        ConflictKind::BothModified,
        Side::Theirs,
    );
}

#[test]
fn unpairable_objects_in_overlapping_changes() {
    // Ours replaces an object by an unrelated one, theirs edits it: modify-delete on
    // the old one, ours' new one kept.
    let base = "l = [{ a = 1 b = 1 c = 1 }]\n";
    let ours = "l = [{ x = 1 y = 1 z = 1 }]\n";
    let theirs = "l = [{ a = 1 b = 1 c = 2 }]\n";
    let out = sj(base, ours, theirs);
    assert_eq!(out.conflicts.len(), 1, "{:?}", out.conflicts);
    assert_eq!(out.conflicts[0].kind, ConflictKind::DeleteModify);
    assert_value(
        Sjson,
        &out.text,
        "l = [{ x = 1 y = 1 z = 1 } { a = 1 b = 1 c = 2 }]",
    );
}

#[test]
fn arrays_added_on_both_sides_merge_as_sequences() {
    let out = sj("", "l = [1 2 3]\n", "l = [1 2 4]\n");
    // Equal length all-number arrays added on both sides: atomic, both added.
    assert_conflict(
        one_conflict(&out),
        "/l",
        ConflictKind::BothAdded,
        Side::Theirs,
    );
    assert_value(Sjson, &out.text, "l = [1 2 4]");
    let out = sj("", "l = [{ id = 1 }]\n", "l = [{ id = 2 }]\n");
    assert_clean(&out);
    assert_value(Sjson, &out.text, "l = [{ id = 1 } { id = 2 }]");
}

#[test]
fn no_id_is_duplicated_when_both_sides_add_it() {
    let base = units(&[("a", "w")]);
    let ours = units(&[("n", "w"), ("a", "w")]);
    let theirs = units(&[("a", "w"), ("n", "w")]);
    let out = sj(&base, &ours, &theirs);
    assert_clean(&out);
    let ids = ids_at(Sjson, &out.text, "units");
    assert_eq!(ids.len(), 2, "{ids:?}");
}

#[test]
fn long_lists_of_unkeyed_objects_all_edited() {
    // Theirs edits every element, ours one: all pair by similarity (near their own
    // position: long lists are not searched pair by pair) and merge cleanly. A rewrite of
    // every element used to take quadratic time in the diff and the pairing.
    let n = 600;
    let el =
        |i: usize, a: usize, b: usize| format!("\t{{ k = {i} a = {a} b = {b} c = \"x{i}\" }}\n");
    let list =
        |f: &dyn Fn(usize) -> String| format!("l = [\n{}]\n", (0..n).map(f).collect::<String>());
    let base = list(&|i| el(i, 0, 0));
    let ours = list(&|i| el(i, usize::from(i == 17), 0));
    let theirs = list(&|i| el(i, 0, 1));
    let out = sj(&base, &ours, &theirs);
    assert_clean(&out);
    assert_eq!(out.text, list(&|i| el(i, usize::from(i == 17), 1)));
}
