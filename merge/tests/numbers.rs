//! Numbers compare by value (docs/design.md "Exact values", issue 12): `1e400` → `2e400` and
//! `0.0` → `-0.0` are changes for the diff and the merge, though `f64` sees no difference.

use crate::common;

use common::*;
use merge::diff::{diff, DiffOptions};

fn changed(old: &str, new: &str) -> bool {
    let (o, n) = (parse(Sjson, old), parse(Sjson, new));
    !diff(o.root(), n.root(), &DiffOptions::default())
        .changes
        .is_empty()
}

#[test]
fn values_beyond_f64_and_the_sign_of_zero_are_changes_in_a_diff() {
    assert!(changed("a = 1e400", "a = 2e400"));
    assert!(changed("a = 0.0", "a = -0.0"));
    assert!(changed("a = [1e-400]", "a = [2e-400]"));
    assert!(!changed("a = 1", "a = 1.0"));
    assert!(!changed("a = 1e400", "a = 10e399"));
}

#[test]
fn the_merge_takes_a_one_sided_change_f64_cannot_see() {
    let out = sj(
        "a = 1e400\nb = 0.0\n",
        "a = 1e400\nb = -0.0\n",
        "a = 2e400\nb = 0.0\n",
    );
    assert!(out.conflicts.is_empty());
    assert_eq!(out.text(), "a = 2e400\nb = -0.0\n");
}

#[test]
fn both_sides_changing_to_different_huge_values_is_a_conflict() {
    let out = sj("a = 1\n", "a = 1e400\n", "a = 2e400\n");
    assert_eq!(out.conflicts.len(), 1);
}
