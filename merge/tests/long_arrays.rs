//! Long reordered arrays align in near-linear work (issue 12, item 8): before the bound, a
//! 40,000-element array reversed on one side and shuffled on the other took 18 s and
//! 200,000 elements did not finish. These tests only have to finish; speed is measured by
//! `cargo bench -p assetvc-merge --bench merge -- long_reorder`.

use crate::common;

use common::*;
use merge::ConflictKind;

const N: u64 = 200_000;

fn numbers(values: impl Iterator<Item = u64>) -> String {
    let parts: Vec<String> = values.map(|v| v.to_string()).collect();
    format!("l = [{}]\n", parts.join(" "))
}

/// 0..n shuffled deterministically (multiplication by a unit modulo n).
fn shuffled(n: u64) -> impl Iterator<Item = u64> {
    (0..n).map(move |i| i * 7919 % n)
}

#[test]
fn reversed_against_shuffled_200k_numbers_finishes_as_one_conflict() {
    let base = numbers(0..N);
    let ours = numbers((0..N).rev());
    let theirs = numbers(shuffled(N));
    let out = sj(&base, &ours, &theirs);
    assert_eq!(out.conflicts.len(), 1, "both sides reordered one array");
    assert_eq!(out.conflicts[0].kind, ConflictKind::BothModified);
    assert_value(Sjson, out.text(), &theirs);
}

#[test]
fn one_sided_reorder_of_200k_numbers_is_taken_cleanly() {
    let base = numbers(0..N);
    let ours = numbers(0..N);
    let theirs = numbers((0..N).rev());
    let out = sj(&base, &ours, &theirs);
    assert!(out.conflicts.is_empty());
    assert_value(Sjson, out.text(), &theirs);
}

#[test]
fn edits_at_both_ends_of_a_reversed_200k_array_still_merge() {
    // Theirs appends; ours changes the first element: far apart, both kept.
    let base = numbers(0..N);
    let ours = numbers(std::iter::once(N + 1).chain(1..N));
    let theirs = numbers((0..N).chain(std::iter::once(N + 2)));
    let out = sj(&base, &ours, &theirs);
    assert!(out.conflicts.is_empty(), "{:?}", out.conflicts.len());
    let expected = numbers(
        std::iter::once(N + 1)
            .chain(1..N)
            .chain(std::iter::once(N + 2)),
    );
    assert_value(Sjson, out.text(), &expected);
}

#[test]
fn diff_of_a_reversed_200k_array_finishes() {
    let old = parse(Sjson, &numbers(0..N));
    let new = parse(Sjson, &numbers((0..N).rev()));
    let d = merge::diff::diff(old.root(), new.root(), &merge::diff::DiffOptions::default());
    assert!(!d.changes.is_empty());
}

fn keyed(ids: impl Iterator<Item = String>) -> String {
    let parts: Vec<String> = ids.map(|id| format!("{{ id = \"{id}\" }}")).collect();
    format!("l = [{}]\n", parts.join(" "))
}

#[test]
fn both_sides_inserting_many_keyed_elements_at_one_place_finishes() {
    // Each side inserts 20,000 new ids between the same two: ours' first, then theirs'.
    let n = 20_000;
    let ends = || ["first".to_string(), "last".to_string()].into_iter();
    let with = |prefix: &'static str| {
        std::iter::once("first".to_string())
            .chain((0..n).map(move |i| format!("{prefix}{i}")))
            .chain(std::iter::once("last".to_string()))
    };
    let out = sj(&keyed(ends()), &keyed(with("o")), &keyed(with("t")));
    assert!(out.conflicts.is_empty());
    let expected = keyed(
        std::iter::once("first".to_string())
            .chain((0..n).map(|i| format!("o{i}")))
            .chain((0..n).map(|i| format!("t{i}")))
            .chain(std::iter::once("last".to_string())),
    );
    assert_value(Sjson, out.text(), &expected);
}
