//! docs/design.md "Merge semantics": atomic number tuples, sequences, unkeyed objects.

use crate::common;

use common::*;
use merge::{ConflictKind, MergeOptions, Policy, Side};

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
    assert_eq!(out.text(), "pos = [1 2 8]\n");
    let out = sj_policy(
        Policy::Ours,
        "pos = [1 2 3]\n",
        "pos = [9 2 3]\n",
        "pos = [1 2 8]\n",
    );
    assert_eq!(out.text(), "pos = [9 2 3]\n");
    // The seed: `[1,2,3]` → `[1,2,4]` / `[1,2,5]`: a conflict, theirs.
    let out = js("[1,2,3]", "[1,2,4]", "[1,2,5]");
    assert_conflict(
        one_conflict(&out),
        "",
        ConflictKind::BothModified,
        Side::Theirs,
    );
    assert_eq!(out.text(), "[1,2,5]");
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
    assert_eq!(out.text(), "weights = [0.6 0.2 0.2]\n");
}

#[test]
fn atomic_tuples_in_keyed_elements() {
    let base = "l = [{ id = 1 pos = [1 2 3] rot = [0 0 0 1] }]\n";
    let ours = "l = [{ id = 1 pos = [4 2 3] rot = [0 0 0 1] }]\n";
    let theirs = "l = [{ id = 1 pos = [1 2 3] rot = [0 1 0 0] }]\n";
    let out = sj(base, ours, theirs);
    assert_clean(&out);
    assert_eq!(
        out.text(),
        "l = [{ id = 1 pos = [4 2 3] rot = [0 1 0 0] }]\n"
    );
    let theirs = "l = [{ id = 1 pos = [1 2 5] rot = [0 0 0 1] }]\n";
    let out = sj(base, ours, theirs);
    assert_eq!(one_conflict(&out).path.to_string(), "/l/[id=1]/pos");
}

#[test]
fn a_length_change_makes_a_number_list_a_sequence() {
    let out = sj("l = [1 2]\n", "l = [0 1 2]\n", "l = [1 2 3]\n");
    assert_clean(&out);
    assert_eq!(out.text(), "l = [0 1 2 3]\n");
    let out = js("[1,2]", "[0,1,2]", "[1,2,3]");
    assert_clean(&out);
    assert_value(Json, out.text(), "[0, 1, 2, 3]");
    // One side changes the length, the other a component: a sequence merge.
    let out = sj("l = [1 2 3]\n", "l = [1 2 3 4]\n", "l = [7 2 3]\n");
    assert_clean(&out);
    assert_value(Sjson, out.text(), "l = [7 2 3 4]");
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
    assert_eq!(out.text(), l(&expected));
    // atomic_max is configurable: at 2, a triple is a sequence.
    let opts = MergeOptions {
        atomic_max: 2,
        ..MergeOptions::default()
    };
    let out = merge_with(Sjson, "p = [1 2 3]", "p = [9 2 3]", "p = [1 2 8]", &opts);
    assert_clean(&out);
    assert_eq!(out.text(), "p = [9 2 8]");
}

#[test]
fn sequences_merge_by_diff3() {
    let out = sj(
        "l = [a b c d e]\n",
        "l = [a x c d e]\n",
        "l = [a b c d y z]\n",
    );
    assert_clean(&out);
    assert_eq!(out.text(), "l = [a x c d y z]\n");
    // Deletions on both sides.
    let out = sj("l = [a b c d e]\n", "l = [b c d e]\n", "l = [a b c d]\n");
    assert_clean(&out);
    assert_value(Sjson, out.text(), "l = [b c d]");
    // The same deletion on both sides.
    let out = sj("l = [a b c]\n", "l = [a c]\n", "l = [a c]\n");
    assert_eq!(out.text(), "l = [a c]\n");
}

#[test]
fn sequences_both_insert_at_one_place_ours_first() {
    let out = sj("l = [a z]\n", "l = [a o1 o2 z]\n", "l = [a t1 z]\n");
    assert_clean(&out);
    assert_value(Sjson, out.text(), "l = [a o1 o2 t1 z]");
    let out = sj("l = [a]\n", "l = [a o]\n", "l = [a t]\n");
    assert_value(Sjson, out.text(), "l = [a o t]");
    let out = sj("l = []\n", "l = [o]\n", "l = [t]\n");
    assert_value(Sjson, out.text(), "l = [o t]");
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
    assert_value(Sjson, out.text(), theirs);
    let out = sj_policy(Policy::Ours, base, ours, theirs);
    assert_conflict(
        one_conflict(&out),
        "/l/1",
        ConflictKind::BothModified,
        Side::Ours,
    );
    assert_eq!(out.text(), ours);
    // Edit against delete of the same element.
    let out = sj(base, "l = [a x c]\n", "l = [a c]\n");
    assert_eq!(out.conflicts.len(), 1, "{:?}", out.conflicts);
    assert_value(Sjson, out.text(), "l = [a c]");
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
    assert_eq!(out.text(), theirs.replace("sort = 1\n", "sort = 10\n"));
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
        out.text(),
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
    assert_value(
        Sjson,
        out.text(),
        "l = [{ name = \"a\" p = 2 q = 2 r = 3 }]",
    );
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
        out.text(),
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
        out.text(),
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
    assert_value(Sjson, out.text(), "l = [1 2 4]");
    let out = sj("", "l = [{ id = 1 }]\n", "l = [{ id = 2 }]\n");
    assert_clean(&out);
    assert_value(Sjson, out.text(), "l = [{ id = 1 } { id = 2 }]");
}

#[test]
fn no_id_is_duplicated_when_both_sides_add_it() {
    let base = units(&[("a", "w")]);
    let ours = units(&[("n", "w"), ("a", "w")]);
    let theirs = units(&[("a", "w"), ("n", "w")]);
    let out = sj(&base, &ours, &theirs);
    assert_clean(&out);
    let ids = ids_at(Sjson, out.text(), "units");
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
    assert_eq!(out.text(), list(&|i| el(i, usize::from(i == 17), 1)));
}
