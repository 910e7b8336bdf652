//! Two merges that used to lose an edit (issue 13): different properties of one unkeyed,
//! unnamed array element edited on each side; a renamed subtree edited inside by the
//! other side.

use crate::common;

use common::*;

#[test]
fn different_properties_of_one_unkeyed_element_keep_both_edits() {
    let base = "l = [\n\t{ a = 1 b = 1 }\n\t{ a = 2 b = 2 }\n]\n";
    let ours = "l = [\n\t{ a = 1 b = 1 }\n\t{ a = 5 b = 2 }\n]\n";
    let theirs = "l = [\n\t{ a = 1 b = 1 }\n\t{ a = 2 b = 7 }\n]\n";
    let out = sj(base, ours, theirs);
    assert_clean(&out);
    assert_eq!(
        out.text(),
        "l = [\n\t{ a = 1 b = 1 }\n\t{ a = 5 b = 7 }\n]\n"
    );
    let out = js(
        r#"{"l": [{"a": 1, "b": 1, "c": 0}, {"a": 2, "b": 2, "c": 0}]}"#,
        r#"{"l": [{"a": 1, "b": 1, "c": 0}, {"a": 5, "b": 2, "c": 3}]}"#,
        r#"{"l": [{"a": 1, "b": 1, "c": 0}, {"a": 2, "b": 7, "c": 0}]}"#,
    );
    assert_clean(&out);
    assert_value(
        Json,
        out.text(),
        r#"{"l": [{"a": 1, "b": 1, "c": 0}, {"a": 5, "b": 7, "c": 3}]}"#,
    );
}

#[test]
fn an_edit_inside_a_renamed_subtree_follows_the_rename() {
    let base = "settings = {\n\tfog = 1\n\tsky = 2\n\tsun = 3\n}\nother = 1\n";
    let renamed = "render = {\n\tfog = 1\n\tsky = 2\n\tsun = 3\n}\nother = 1\n";
    let edited = "settings = {\n\tfog = 5\n\tsky = 2\n\tsun = 3\n}\nother = 1\n";
    let want = "render = {\n\tfog = 5\n\tsky = 2\n\tsun = 3\n}\nother = 1\n";
    for (ours, theirs) in [(renamed, edited), (edited, renamed)] {
        let out = sj(base, ours, theirs);
        assert_clean(&out);
        assert_value(Sjson, out.text(), want);
    }
    let out = js(
        r#"{"settings": {"fog": 1, "sky": 2, "sun": 3}}"#,
        r#"{"render": {"fog": 1, "sky": 2, "sun": 3}}"#,
        r#"{"settings": {"fog": 1, "sky": 9, "sun": 3}}"#,
    );
    assert_clean(&out);
    assert_value(
        Json,
        out.text(),
        r#"{"render": {"fog": 1, "sky": 9, "sun": 3}}"#,
    );
}

#[test]
fn an_unrelated_new_member_is_not_a_rename() {
    let base = "settings = {\n\tfog = 1\n\tsky = 2\n}\n";
    let ours = "render = {\n\tquality = 3\n\tshadows = true\n}\n";
    let theirs = "settings = {\n\tfog = 5\n\tsky = 2\n}\n";
    let out = sj(base, ours, theirs);
    // Ours deleted what theirs modified: a true conflict, theirs taken; render stays.
    assert_eq!(out.conflicts.len(), 1);
    assert_value(
        Sjson,
        out.text(),
        "render = {\n\tquality = 3\n\tshadows = true\n}\nsettings = {\n\tfog = 5\n\tsky = 2\n}\n",
    );
}
