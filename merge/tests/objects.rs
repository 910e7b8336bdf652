//! docs/design.md "Merge semantics": values and object keys, conflicts and policies.

use crate::common;

use common::*;
use merge::{ConflictKind, MergeOptions, Policy, Side};

#[test]
fn equal_changes_on_both_sides_are_one_change() {
    let out = sj("a = 1\nb = 2\n", "a = 5\nb = 2\n", "a = 5\nb = 2\n");
    assert_clean(&out);
    assert_eq!(out.text(), "a = 5\nb = 2\n");
}

#[test]
fn equal_values_written_differently_are_equal() {
    // `5` and `5.0` are one value: no conflict, ours' text kept.
    let out = sj("a = 1\n", "a = 5\n", "a = 5.0\n");
    assert_clean(&out);
    assert_eq!(out.text(), "a = 5\n");
}

#[test]
fn a_change_on_one_side_is_taken() {
    let base = "a = 1\nb = 2\n";
    let out = sj(base, "a = 3\nb = 2\n", base);
    assert_clean(&out);
    assert_eq!(out.text(), "a = 3\nb = 2\n");
    let out = sj(base, base, "a = 1\nb = \"x\"\n");
    assert_clean(&out);
    assert_eq!(out.text(), "a = 1\nb = \"x\"\n");
}

#[test]
fn different_keys_changed_on_each_side_both_kept() {
    let out = sj(
        "a = 1\nb = 2\nc = 3\n",
        "a = 10\nb = 2\nc = 3\n",
        "a = 1\nb = 2\nc = 30\n",
    );
    assert_clean(&out);
    assert_eq!(out.text(), "a = 10\nb = 2\nc = 30\n");
}

#[test]
fn nested_objects_merge_key_by_key() {
    let out = sj(
        "o = {\n\tx = 1\n\ty = 2\n\tz = { p = 1, q = 2 }\n}\n",
        "o = {\n\tx = 5\n\ty = 2\n\tz = { p = 1, q = 9 }\n}\n",
        "o = {\n\tx = 1\n\ty = 6\n\tz = { p = 7, q = 2 }\n}\n",
    );
    assert_clean(&out);
    assert_eq!(
        out.text(),
        "o = {\n\tx = 5\n\ty = 6\n\tz = { p = 7, q = 9 }\n}\n"
    );
}

#[test]
fn true_conflict_takes_theirs_and_is_reported() {
    let out = sj("o = { a = 1 }\n", "o = { a = 2 }\n", "o = { a = 3 }\n");
    let c = one_conflict(&out);
    assert_conflict(c, "/o/a", ConflictKind::BothModified, Side::Theirs);
    assert_eq!(c.base.as_deref(), Some("1"));
    assert_eq!(c.ours.as_deref(), Some("2"));
    assert_eq!(c.theirs.as_deref(), Some("3"));
    assert_eq!(out.text(), "o = { a = 3 }\n");
    assert!(!out.failed(Policy::Theirs));
}

#[test]
fn policy_ours_takes_ours() {
    let out = sj_policy(Policy::Ours, "a = 1\n", "a = 2\n", "a = 3\n");
    let c = one_conflict(&out);
    assert_conflict(c, "/a", ConflictKind::BothModified, Side::Ours);
    assert_eq!(out.text(), "a = 2\n");
    assert!(!out.failed(Policy::Ours));
}

#[test]
fn policy_fail_takes_theirs_and_fails() {
    let out = sj_policy(Policy::Fail, "a = 1\n", "a = 2\n", "a = 3\n");
    let c = one_conflict(&out);
    assert_conflict(c, "/a", ConflictKind::BothModified, Side::Theirs);
    assert_eq!(out.text(), "a = 3\n");
    assert!(out.failed(Policy::Fail));
    // A clean merge does not fail.
    let clean = sj_policy(Policy::Fail, "a = 1\n", "a = 2\n", "a = 1\n");
    assert!(!clean.failed(Policy::Fail));
}

#[test]
fn policy_parses() {
    assert_eq!("theirs".parse::<Policy>(), Ok(Policy::Theirs));
    assert_eq!("ours".parse::<Policy>(), Ok(Policy::Ours));
    assert_eq!("fail".parse::<Policy>(), Ok(Policy::Fail));
    assert!("mine".parse::<Policy>().unwrap_err().contains("mine"));
    assert_eq!(Policy::default(), Policy::Theirs);
}

#[test]
fn conflict_values_are_compact_json() {
    let out = sj(
        "a = { x = [1 2] }\n",
        "a = \"s\"\n",
        "a = [true null \"\"\"raw\"\"\"]\n",
    );
    let c = one_conflict(&out);
    assert_conflict(c, "/a", ConflictKind::BothModified, Side::Theirs);
    assert_eq!(c.base.as_deref(), Some(r#"{"x":[1,2]}"#));
    assert_eq!(c.ours.as_deref(), Some(r#""s""#));
    assert_eq!(c.theirs.as_deref(), Some(r#"[true,null,"raw"]"#));
    assert_eq!(c.to_string(), "/a: both modified, took theirs");
}

#[test]
fn type_change_against_a_change_is_a_conflict() {
    let out = sj("a = { b = 1 }\n", "a = { b = 2 }\n", "a = [1]\n");
    assert_conflict(
        one_conflict(&out),
        "/a",
        ConflictKind::BothModified,
        Side::Theirs,
    );
    assert_value(Sjson, out.text(), "a = [1]");
}

#[test]
fn key_added_on_one_side() {
    let out = sj("a = 1\n", "a = 1\nb = 2\n", "a = 1\n");
    assert_clean(&out);
    assert_eq!(out.text(), "a = 1\nb = 2\n");
    let out = sj("a = 1\n", "a = 1\n", "a = 1\nb = 2\n");
    assert_clean(&out);
    assert_eq!(out.text(), "a = 1\nb = 2\n");
}

#[test]
fn key_deleted_on_one_side() {
    let out = sj("a = 1\nb = 2\n", "a = 1\n", "a = 1\nb = 2\n");
    assert_clean(&out);
    assert_eq!(out.text(), "a = 1\n");
    let out = sj(
        "a = 1\nb = 2\nc = 3\n",
        "a = 1\nb = 2\nc = 3\n",
        "a = 1\nc = 3\n",
    );
    assert_clean(&out);
    assert_eq!(out.text(), "a = 1\nc = 3\n");
}

#[test]
fn key_deleted_on_both_sides() {
    let out = sj("a = 1\nb = 2\n", "a = 1\n", "a = 1\n");
    assert_clean(&out);
    assert_eq!(out.text(), "a = 1\n");
}

#[test]
fn both_add_equal_values_is_one_addition() {
    let out = sj("a = 1\n", "a = 1\nb = [1 2]\n", "a = 1\nb = [1.0 2]\n");
    assert_clean(&out);
    assert_eq!(out.text(), "a = 1\nb = [1 2]\n");
}

#[test]
fn both_add_different_scalars_is_a_both_added_conflict() {
    let out = sj("a = 1\n", "a = 1\nb = 2\n", "a = 1\nb = 3\n");
    let c = one_conflict(&out);
    assert_conflict(c, "/b", ConflictKind::BothAdded, Side::Theirs);
    assert_eq!(c.base, None);
    assert_eq!(c.ours.as_deref(), Some("2"));
    assert_eq!(c.theirs.as_deref(), Some("3"));
    assert_value(Sjson, out.text(), "a = 1\nb = 3");
    let out = sj_policy(Policy::Ours, "a = 1\n", "a = 1\nb = 2\n", "a = 1\nb = 3\n");
    assert_conflict(
        one_conflict(&out),
        "/b",
        ConflictKind::BothAdded,
        Side::Ours,
    );
    assert_eq!(out.text(), "a = 1\nb = 2\n");
}

#[test]
fn both_add_different_objects_merge_against_an_empty_base() {
    let out = sj(
        "a = 1\n",
        "a = 1\nb = {\n\tx = 1\n\ty = 2\n}\n",
        "a = 1\nb = {\n\ty = 2\n\tz = 3\n}\n",
    );
    assert_clean(&out);
    assert_value(Sjson, out.text(), "a = 1\nb = { x = 1 y = 2 z = 3 }");
    // Inside, a key both added differently is a both-added conflict.
    let out = sj("", "b = { x = 1 }\n", "b = { x = 2 }\n");
    assert_conflict(
        one_conflict(&out),
        "/b/x",
        ConflictKind::BothAdded,
        Side::Theirs,
    );
    assert_value(Sjson, out.text(), "b = { x = 2 }");
}

#[test]
fn delete_vs_modify_is_a_conflict() {
    let base = "a = 1\nb = { x = 1 }\n";
    let ours = "a = 1\n";
    let theirs = "a = 1\nb = { x = 2 }\n";
    let out = sj(base, ours, theirs);
    let c = one_conflict(&out);
    assert_conflict(c, "/b", ConflictKind::DeleteModify, Side::Theirs);
    assert_eq!(c.base.as_deref(), Some(r#"{"x":1}"#));
    assert_eq!(c.ours, None);
    assert_eq!(c.theirs.as_deref(), Some(r#"{"x":2}"#));
    assert_value(Sjson, out.text(), theirs);
    let out = sj_policy(Policy::Ours, base, ours, theirs);
    assert_conflict(
        one_conflict(&out),
        "/b",
        ConflictKind::DeleteModify,
        Side::Ours,
    );
    assert_eq!(out.text(), ours);
    let out = sj_policy(Policy::Fail, base, ours, theirs);
    assert!(out.failed(Policy::Fail));
    assert_value(Sjson, out.text(), theirs);
}

#[test]
fn modify_vs_delete_is_a_conflict() {
    let base = "a = 1\nb = 2\nc = 3\n";
    let ours = "a = 1\nb = 5\nc = 3\n";
    let theirs = "a = 1\nc = 3\n";
    let out = sj(base, ours, theirs);
    let c = one_conflict(&out);
    assert_conflict(c, "/b", ConflictKind::ModifyDelete, Side::Theirs);
    assert_eq!(
        (c.base.as_deref(), c.ours.as_deref(), c.theirs.as_deref()),
        (Some("2"), Some("5"), None)
    );
    assert_eq!(out.text(), theirs);
    let out = sj_policy(Policy::Ours, base, ours, theirs);
    assert_conflict(
        one_conflict(&out),
        "/b",
        ConflictKind::ModifyDelete,
        Side::Ours,
    );
    assert_eq!(out.text(), ours);
}

#[test]
fn null_is_a_value_not_a_deletion() {
    // Setting null against an unchanged value: null taken, key kept.
    let out = sj("a = 1\nb = 2\n", "a = 1\nb = null\n", "a = 1\nb = 2\n");
    assert_clean(&out);
    assert_eq!(out.text(), "a = 1\nb = null\n");
    // Setting null against a deletion: a modify-delete conflict, not agreement.
    let out = sj("a = 1\nb = 2\n", "a = 1\nb = null\n", "a = 1\n");
    assert_conflict(
        one_conflict(&out),
        "/b",
        ConflictKind::ModifyDelete,
        Side::Theirs,
    );
    assert_eq!(out.text(), "a = 1\n");
    // null against another value: both modified.
    let out = sj("a = 1\n", "a = null\n", "a = 2\n");
    assert_conflict(
        one_conflict(&out),
        "/a",
        ConflictKind::BothModified,
        Side::Theirs,
    );
    // Adding null on one side is an addition.
    let out = sj("a = 1\n", "a = 1\n", "a = 1\nn = null\n");
    assert_clean(&out);
    assert_eq!(out.text(), "a = 1\nn = null\n");
    // A base null deleted on one side is deleted.
    let out = sj("a = null\nb = 1\n", "b = 1\n", "a = null\nb = 2\n");
    assert_clean(&out);
    assert_value(Sjson, out.text(), "b = 2");
}

#[test]
fn key_order_is_ours_with_theirs_new_keys_after_their_predecessor() {
    let base = "a = 1\nb = 2\nc = 3\n";
    // Ours reordered; theirs added `x` after `b` and `y` first.
    let ours = "c = 3\na = 1\nb = 2\n";
    let theirs = "y = 0\na = 1\nb = 2\nx = 9\nc = 3\n";
    let out = sj(base, ours, theirs);
    assert_clean(&out);
    assert_eq!(keys_at(Sjson, out.text(), ""), ["y", "c", "a", "b", "x"]);
    assert_eq!(out.text(), "y = 0\nc = 3\na = 1\nb = 2\nx = 9\n");
}

#[test]
fn theirs_reordering_keys_does_not_reorder_ours() {
    // Both changed the object: ours' key order.
    let out = sj("a = 1\nb = 2\n", "a = 1\nb = 3\n", "b = 2\na = 5\n");
    assert_clean(&out);
    assert_eq!(out.text(), "a = 5\nb = 3\n");
    // Only theirs changed it (a reordering is a change of an ordered object): theirs.
    let out = sj("a = 1\nb = 2\n", "a = 1\nb = 2\n", "b = 2\na = 1\n");
    assert_eq!(keys_at(Sjson, out.text(), ""), ["b", "a"]);
}

#[test]
fn both_insert_after_the_same_key_ours_first() {
    let out = sj(
        "a = 1\nz = 26\n",
        "a = 1\nours1 = 1\nours2 = 2\nz = 26\n",
        "a = 1\ntheirs1 = 1\ntheirs2 = 2\nz = 26\n",
    );
    assert_clean(&out);
    assert_eq!(
        keys_at(Sjson, out.text(), ""),
        ["a", "ours1", "ours2", "theirs1", "theirs2", "z"]
    );
    // At the start, too.
    let out = sj("a = 1\n", "o = 1\na = 1\n", "t = 1\na = 1\n");
    assert_clean(&out);
    assert_eq!(keys_at(Sjson, out.text(), ""), ["o", "t", "a"]);
    // At the end.
    let out = sj("a = 1\n", "a = 1\no = 1\n", "a = 1\nt = 1\n");
    assert_eq!(keys_at(Sjson, out.text(), ""), ["a", "o", "t"]);
}

#[test]
fn theirs_new_key_after_a_key_ours_deleted() {
    let out = sj(
        "a = 1\nb = 2\nc = 3\n",
        "a = 1\nc = 3\n",
        "a = 1\nb = 2\nx = 0\nc = 3\n",
    );
    assert_clean(&out);
    let keys = keys_at(Sjson, out.text(), "");
    assert_eq!(keys.len(), 3, "{keys:?}");
    assert!(keys.contains(&"x".to_string()));
    // The natural place: after `a` (the deleted anchor's predecessor), before `c`.
    assert_eq!(keys, ["a", "x", "c"]);
}

#[test]
fn root_replaced_whole_by_one_side() {
    let out = js("[1, 2]", "[1, 2]", "{\"a\": 1}");
    assert_clean(&out);
    assert_eq!(out.text(), "{\"a\": 1}");
    let out = js("1", "\"x\"", "1");
    assert_eq!(out.text(), "\"x\"");
}

#[test]
fn json_scalar_roots_conflict() {
    let out = js("1", "2", "3");
    assert_conflict(
        one_conflict(&out),
        "",
        ConflictKind::BothModified,
        Side::Theirs,
    );
    assert_eq!(out.text(), "3");
    assert_eq!(
        out.conflicts[0].to_string(),
        "/: both modified, took theirs"
    );
}

#[test]
fn paths_escape_json_pointer_characters() {
    let out = sj(
        "\"a/b\" = { \"c~d\" = 1 }\n",
        "\"a/b\" = { \"c~d\" = 2 }\n",
        "\"a/b\" = { \"c~d\" = 3 }\n",
    );
    assert_eq!(one_conflict(&out).path.to_string(), "/a~1b/c~0d");
}

#[test]
fn custom_options_are_honoured() {
    let opts = MergeOptions {
        policy: Policy::Ours,
        ..MergeOptions::default()
    };
    let out = merge_with(Sjson, "a = 1", "a = 2", "a = 3", &opts);
    assert_eq!(out.text(), "a = 2");
}

#[test]
fn parse_errors_name_the_side() {
    let opts = MergeOptions::default();
    let e = merge::merge(
        merge::Inputs::texts("a = 1", "a = {", "a = 1", Sjson),
        &opts,
    )
    .unwrap_err();
    assert!(e.to_string().starts_with("ours: "), "{e}");
    let e = merge::merge(merge::Inputs::texts("{", "a = 1", "a = 1", Sjson), &opts).unwrap_err();
    assert!(e.to_string().starts_with("base: "), "{e}");
    let e = merge::merge(merge::Inputs::texts("{}", "{}", "a = 1", Json), &opts).unwrap_err();
    assert!(e.to_string().starts_with("theirs: "), "{e}");
}

#[test]
fn deeply_nested_documents_merge() {
    // Near the parser's default depth limit, on a stack of the size the binaries' main
    // thread has (8 MiB; the merge runs there). A test thread's 2 MiB is no longer enough
    // for a debug build since the profiles, sets and repeated keys added to the recursion.
    std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(deeply_nested_documents_merge_on_this_thread)
        .expect("a thread")
        .join()
        .expect("no panic");
}

fn deeply_nested_documents_merge_on_this_thread() {
    let n = 500;
    let nest = |v: &str| format!("a = {}{v}{}\n", "{ a = ".repeat(n), " }".repeat(n));
    let out = sj(
        &nest("1"),
        &(nest("2") + "x = 1\n"),
        &(nest("1") + "y = 1\n"),
    );
    assert_clean(&out);
    assert_eq!(out.text(), nest("2") + "x = 1\ny = 1\n");
    let out = sj(
        &nest("1"),
        &(nest("2") + "x = 1\n"),
        &(nest("3") + "y = 1\n"),
    );
    assert_eq!(out.conflicts.len(), 1);
    assert_eq!(out.conflicts[0].path.to_string(), "/a".repeat(n + 1));
    let arr = |v: &str| format!("a = {}{v}{}\n", "[".repeat(n), "]".repeat(n));
    let out = sj(
        &arr("1 2"),
        &(arr("1 3") + "x = 1\n"),
        &(arr("1 2") + "y = 1\n"),
    );
    assert_clean(&out);
    assert_eq!(out.text(), arr("1 3") + "x = 1\ny = 1\n");
    // Both changed the innermost list: nested lists are not paired (one conflict at the
    // outermost overlapping element).
    let out = sj(
        &arr("1 2"),
        &(arr("1 3") + "x = 1\n"),
        &(arr("0 1 2") + "y = 1\n"),
    );
    assert_eq!(out.conflicts.len(), 1);
    assert_eq!(out.conflicts[0].path.to_string(), "/a/0");
    assert_value(Sjson, out.text(), &(arr("0 1 2") + "x = 1\ny = 1\n"));
}
