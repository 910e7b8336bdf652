//! docs/design.md "Merge semantics": moves (reparenting, wrapping) and unmigrated branches.

use crate::common;

use common::*;
use merge::{ConflictKind, Policy, Side};

const TREE: &str = "a = [\n\t{ id = 1 x = 0 }\n\t{ id = 2 x = 0 }\n]\nb = [\n\t{ id = 9 }\n]\n";
const MOVED: &str = "a = [\n\t{ id = 1 x = 0 }\n]\nb = [\n\t{ id = 9 }\n\t{ id = 2 x = 0 }\n]\n";
const EDITED: &str = "a = [\n\t{ id = 1 x = 0 }\n\t{ id = 2 x = 5 }\n]\nb = [\n\t{ id = 9 }\n]\n";
const RESULT: &str = "a = [\n\t{ id = 1 x = 0 }\n]\nb = [\n\t{ id = 9 }\n\t{ id = 2 x = 5 }\n]\n";

fn count(text: &str, needle: &str) -> usize {
    text.matches(needle).count()
}

#[test]
fn reparented_by_ours_edited_by_theirs() {
    // Regression: the edit was lost, because `b` (unchanged by theirs) was taken from
    // ours whole without merging the moved element.
    let out = sj(TREE, MOVED, EDITED);
    assert_clean(&out);
    assert_eq!(out.text(), RESULT);
}

#[test]
fn reparented_by_theirs_edited_by_ours() {
    let out = sj(TREE, EDITED, MOVED);
    assert_clean(&out);
    assert_value(Sjson, out.text(), RESULT);
    assert_eq!(count(out.text(), "id = 2"), 1, "{}", out.text());
}

#[test]
fn reparented_when_both_sides_changed_both_arrays() {
    // Ours moves 2 from a to b and adds 3 to a; theirs edits 2 and adds 10 to b.
    let ours =
        "a = [\n\t{ id = 1 x = 0 }\n\t{ id = 3 }\n]\nb = [\n\t{ id = 9 }\n\t{ id = 2 x = 0 }\n]\n";
    let theirs =
        "a = [\n\t{ id = 1 x = 0 }\n\t{ id = 2 x = 5 }\n]\nb = [\n\t{ id = 9 }\n\t{ id = 10 }\n]\n";
    let out = sj(TREE, ours, theirs);
    assert_clean(&out);
    assert_value(
        Sjson,
        out.text(),
        "a = [{ id = 1 x = 0 } { id = 3 }]\nb = [{ id = 9 } { id = 2 x = 5 } { id = 10 }]",
    );
}

#[test]
fn reparented_in_a_hierarchy() {
    let base =
        "e = [\n\t{ id = 1 children = [ { id = 2 x = 0 } ] }\n\t{ id = 3 children = [] }\n]\n";
    let ours =
        "e = [\n\t{ id = 1 children = [] }\n\t{ id = 3 children = [ { id = 2 x = 0 } ] }\n]\n";
    let theirs =
        "e = [\n\t{ id = 1 children = [ { id = 2 x = 7 } ] }\n\t{ id = 3 children = [] }\n]\n";
    let expected =
        "e = [\n\t{ id = 1 children = [] }\n\t{ id = 3 children = [ { id = 2 x = 7 } ] }\n]\n";
    let out = sj(base, ours, theirs);
    assert_clean(&out);
    assert_eq!(out.text(), expected);
    let out = sj(base, theirs, ours);
    assert_clean(&out);
    assert_value(Sjson, out.text(), expected);
}

#[test]
fn reparented_into_a_new_container() {
    // Ours creates a group object holding entity 2; theirs edits 2 in place.
    let ours = "a = [\n\t{ id = 1 x = 0 }\n]\nb = [\n\t{ id = 9 }\n]\ngroup = {\n\tmembers = [\n\t\t{ id = 2 x = 0 }\n\t]\n}\n";
    let out = sj(TREE, ours, EDITED);
    assert_clean(&out);
    assert_value(
        Sjson,
        out.text(),
        "a = [{ id = 1 x = 0 }]\nb = [{ id = 9 }]\ngroup = { members = [{ id = 2 x = 5 }] }",
    );
    assert_eq!(count(out.text(), "id = 2"), 1);
}

#[test]
fn a_move_without_edits_on_the_other_side_keeps_ours_bytes() {
    let out = sj(TREE, MOVED, TREE);
    assert_clean(&out);
    assert_eq!(out.text(), MOVED);
    let out = sj(TREE, TREE, MOVED);
    assert_clean(&out);
    assert_eq!(out.text(), MOVED);
}

#[test]
fn both_move_one_entity_to_the_same_place() {
    // Merged against the base it came from, not as two additions.
    let base = "a = [{id=1} {id=2 x=0 y=0}]\nb = []\n";
    let ours = "a = [{id=1}]\nb = [{id=2 x=0 y=1}]\n";
    let theirs = "a = [{id=1}]\nb = [{id=2 x=1 y=0}]\n";
    let out = sj(base, ours, theirs);
    assert_clean(&out);
    assert_eq!(out.text(), "a = [{id=1}]\nb = [{id=2 x=1 y=1}]\n");
}

#[test]
fn both_move_one_entity_to_different_places() {
    // Regression: the entity was in the result twice.
    let base = "a = [{id=1} {id=2 x=0 y=0}]\nb = []\nc = []\n";
    let ours = "a = [{id=1}]\nb = [{id=2 x=0 y=1}]\nc = []\n";
    let theirs = "a = [{id=1}]\nb = []\nc = [{id=2 x=1 y=0}]\n";
    let out = sj(base, ours, theirs);
    let c = one_conflict(&out);
    assert_conflict(c, "/c/[id=2]", ConflictKind::BothModified, Side::Theirs);
    assert_eq!(c.ours.as_deref(), Some(r#"{"id":2,"x":0,"y":1}"#));
    assert_value(
        Sjson,
        out.text(),
        "a = [{id=1}]\nb = []\nc = [{id=2 x=1 y=1}]",
    );
    let out = sj_policy(Policy::Ours, base, ours, theirs);
    assert_conflict(
        one_conflict(&out),
        "/b/[id=2]",
        ConflictKind::BothModified,
        Side::Ours,
    );
    assert_value(
        Sjson,
        out.text(),
        "a = [{id=1}]\nb = [{id=2 x=1 y=1}]\nc = []",
    );
}

#[test]
fn moved_against_deleted_is_a_conflict() {
    let base = "a = [{id=1} {id=2 x=0}]\nb = []\n";
    let moved = "a = [{id=1}]\nb = [{id=2 x=0}]\n";
    let deleted = "a = [{id=1}]\nb = []\n";
    let out = sj(base, moved, deleted);
    assert_conflict(
        one_conflict(&out),
        "/b/[id=2]",
        ConflictKind::ModifyDelete,
        Side::Theirs,
    );
    assert_value(Sjson, out.text(), deleted);
    let out = sj_policy(Policy::Ours, base, moved, deleted);
    assert_eq!(out.conflicts.len(), 1);
    assert_eq!(out.text(), moved);
    let out = sj(base, deleted, moved);
    assert_conflict(
        one_conflict(&out),
        "/b/[id=2]",
        ConflictKind::DeleteModify,
        Side::Theirs,
    );
    assert_value(Sjson, out.text(), moved);
}

const PLAIN: &str = "hello = {\n\ta = 1\n\tb = 2\n\tc = 3\n}\nz = 0\n";
const WRAPPED: &str =
    "container = {\n\thello = {\n\t\ta = 1\n\t\tb = 2\n\t\tc = 3\n\t}\n}\nz = 0\n";

#[test]
fn wrapped_by_ours_edited_by_theirs() {
    let theirs = PLAIN.replace("b = 2", "b = 5");
    let out = sj(PLAIN, WRAPPED, &theirs);
    assert_clean(&out);
    assert_eq!(out.text(), WRAPPED.replace("b = 2", "b = 5"));
}

#[test]
fn wrapped_by_theirs_edited_by_ours() {
    let ours = PLAIN.replace("b = 2", "b = 5");
    let out = sj(PLAIN, &ours, WRAPPED);
    assert_clean(&out);
    assert_value(Sjson, out.text(), &WRAPPED.replace("b = 2", "b = 5"));
    assert_eq!(count(out.text(), "hello"), 1);
}

#[test]
fn wrapped_nearly_equal_and_edited_on_both_sides() {
    // Ours wraps and changes `a`; theirs changes `c`.
    let ours = WRAPPED.replace("a = 1", "a = 10");
    let theirs = PLAIN.replace("c = 3", "c = 30");
    let out = sj(PLAIN, &ours, &theirs);
    assert_clean(&out);
    assert_eq!(
        out.text(),
        WRAPPED
            .replace("a = 1", "a = 10")
            .replace("c = 3", "c = 30")
    );
}

#[test]
fn an_unrelated_object_under_the_same_key_is_not_a_move() {
    // Ours deletes `hello` and adds a different `hello` elsewhere; theirs edits the old one.
    let ours = "other = {\n\thello = {\n\t\tx = 1\n\t\ty = 2\n\t}\n}\nz = 0\n";
    let theirs = PLAIN.replace("b = 2", "b = 5");
    let out = sj(PLAIN, ours, &theirs);
    assert_conflict(
        one_conflict(&out),
        "/hello",
        ConflictKind::DeleteModify,
        Side::Theirs,
    );
    assert_value_unordered(
        Sjson,
        out.text(),
        "hello = { a = 1 b = 5 c = 3 }\nother = { hello = { x = 1 y = 2 } }\nz = 0",
    );
}

// Unmigrated branches: ids on one side only.

const UNKEYED: &str = "l = [\n\t{ name = \"a\" x = 1 }\n\t{ name = \"b\" x = 2 }\n\t{ name = \"c\" x = 3 }\n\t{ name = \"d\" x = 4 }\n]\n";
const KEYED: &str = "l = [\n\t{ id = \"i1\" name = \"a\" x = 1 }\n\t{ id = \"i2\" name = \"b\" x = 2 }\n\t{ id = \"i3\" name = \"c\" x = 3 }\n\t{ id = \"i4\" name = \"d\" x = 4 }\n]\n";
/// Edited b, inserted `new` where c was, deleted c.
const UNKEYED_EDITED: &str = "l = [\n\t{ name = \"a\" x = 1 }\n\t{ name = \"b\" x = 20 }\n\t{ name = \"new\" x = 9 }\n\t{ name = \"d\" x = 4 }\n]\n";
const UNMIGRATED_RESULT: &str = "l = [\n\t{ id = \"i1\" name = \"a\" x = 1 }\n\t{ id = \"i2\" name = \"b\" x = 20 }\n\t{ name = \"new\" x = 9 }\n\t{ id = \"i4\" name = \"d\" x = 4 }\n]\n";

#[test]
fn unmigrated_theirs_against_migrated_ours() {
    // Regression: deleting c reported a modify-delete conflict, as if adding the id
    // member to c had been an edit.
    let out = sj(UNKEYED, KEYED, UNKEYED_EDITED);
    assert_clean(&out);
    assert_eq!(out.text(), UNMIGRATED_RESULT);
    // With policy ours, c is still deleted (no conflict to resolve).
    let out = sj_policy(Policy::Ours, UNKEYED, KEYED, UNKEYED_EDITED);
    assert_clean(&out);
    assert_eq!(out.text(), UNMIGRATED_RESULT);
}

#[test]
fn unmigrated_ours_against_migrated_theirs() {
    let out = sj(UNKEYED, UNKEYED_EDITED, KEYED);
    assert_clean(&out);
    assert_value(Sjson, out.text(), UNMIGRATED_RESULT);
}

#[test]
fn unmigrated_without_natural_keys_aligns_by_similarity() {
    let base =
        "l = [\n\t{ a = 1 b = 1 c = 1 }\n\t{ a = 2 b = 2 c = 2 }\n\t{ a = 3 b = 3 c = 3 }\n]\n";
    let keyed = "l = [\n\t{ id = 1 a = 1 b = 1 c = 1 }\n\t{ id = 2 a = 2 b = 2 c = 2 }\n\t{ id = 3 a = 3 b = 3 c = 3 }\n]\n";
    let edited =
        "l = [\n\t{ a = 1 b = 1 c = 9 }\n\t{ a = 3 b = 3 c = 3 }\n\t{ a = 7 b = 7 c = 7 }\n]\n";
    let out = sj(base, keyed, edited);
    assert_clean(&out);
    assert_eq!(
        out.text(),
        "l = [\n\t{ id = 1 a = 1 b = 1 c = 9 }\n\t{ id = 3 a = 3 b = 3 c = 3 }\n\t{ a = 7 b = 7 c = 7 }\n]\n"
    );
    // The migrated side also edited the element the other side deleted: a true conflict.
    let keyed_edited = keyed.replace("b = 2", "b = 5");
    let out = sj(base, &keyed_edited, edited);
    assert_conflict(
        one_conflict(&out),
        "/l/[id=2]",
        ConflictKind::ModifyDelete,
        Side::Theirs,
    );
}

#[test]
fn unmigrated_nothing_duplicated_when_both_edit_the_same_element() {
    let keyed_edited = KEYED.replace("x = 4", "x = 40");
    let unkeyed_edited = UNKEYED.replace("name = \"d\" x = 4", "name = \"d\" x = 4 y = 1");
    let out = sj(UNKEYED, &keyed_edited, &unkeyed_edited);
    assert_clean(&out);
    assert_eq!(ids_at(Sjson, out.text(), "l"), ["i1", "i2", "i3", "i4"]);
    assert_eq!(
        out.text(),
        KEYED.replace("name = \"d\" x = 4", "name = \"d\" x = 40 y = 1")
    );
}

/// Found by the merge3 fuzz target: both sides wrap `hello` into `container.hello` (the
/// same move to the same place) and ours edits it. Under policy `ours` this recursed
/// without end; now every policy merges cleanly and keeps ours' edit.
#[test]
fn both_moved_to_the_same_place_with_an_edit_merges_cleanly_under_every_policy() {
    let base = "{\n  \"hello\": {\n    \"bar\": 1,\n    \"foo\": 2\n  }\n}\n";
    let ours = "{\n \"container\": {\n    \"hello\": {\n      \"bar\": 0,\n      \"foo\": 2\n    }\n  }\n}\n";
    let theirs = "{\n  \n \"container\": {\n    \"hello\": {\n      \"bar\": 1,\n      \"foo\": 2\n    }\n  }\n}\n";
    for policy in [Policy::Theirs, Policy::Ours, Policy::Fail] {
        let opts = merge::MergeOptions {
            policy,
            ..merge::MergeOptions::default()
        };
        let out = merge_with(sjson::Dialect::Json, base, ours, theirs, &opts);
        assert_clean(&out);
        assert_value(
            sjson::Dialect::Json,
            out.text(),
            r#"{"container": {"hello": {"bar": 0, "foo": 2}}}"#,
        );
    }
}

#[test]
fn a_rename_inside_a_subtree_the_other_side_wrapped_follows_the_wrap() {
    // Ours renames `shared.m0` to `shared.n`; theirs wraps `shared` into `wrapper`. The
    // other side's version of `m0` is found through theirs' own move of `shared`.
    let base = "shared = { m0 = { k = 1 } m1 = { v = 2 } }\n";
    let ours = "shared = { m1 = { v = 2 } n = { k = 1 } }\n";
    let theirs = "wrapper = { shared = { m0 = { k = 1 } m1 = { v = 2 } } }\n";
    for (o, t) in [(ours, theirs), (theirs, ours)] {
        let out = sj(base, o, t);
        assert_clean(&out);
        assert_value(
            Sjson,
            out.text(),
            "wrapper = { shared = { m1 = { v = 2 } n = { k = 1 } } }",
        );
    }
}
