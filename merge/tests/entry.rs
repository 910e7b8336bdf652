//! The one entry point, `merge::merge`: whatever form the three versions come in (texts,
//! documents read in place, documents given up to it with base freed), and whether it may
//! use a second thread or not, the answer is the same `Merged`: its document, its text,
//! every conflict with its name for people.

use crate::common;

use levelgen::edits::MergeInputs;
use merge::{merge, Inputs, MergeOptions, Merged, Threads};
use proptest::prelude::*;
use sjson::{Dialect, Document};

/// Base, ours and theirs of a generated level of `n` entities with `conflicts` true
/// conflicts, as SJSON texts.
fn level(n: usize, seed: u64, conflicts: usize) -> [String; 3] {
    let inputs = MergeInputs::generate(n, seed, conflicts);
    [
        inputs.base.to_sjson(),
        inputs.apply(&inputs.ours_edits).to_sjson(),
        inputs.apply(&inputs.theirs_edits).to_sjson(),
    ]
}

/// What a caller reads of a merge: the text, the conflicts and their names.
fn seen(merged: &Merged) -> (String, String, Vec<String>) {
    (
        merged.text().to_string(),
        format!("{:?}", merged.conflicts),
        merged.names.clone(),
    )
}

fn parse(text: &str) -> Document {
    Document::parse(text, Dialect::Sjson).unwrap()
}

/// The three input forms of `texts`, merged with `options`.
fn every_form(texts: &[String; 3], options: &MergeOptions) -> [Merged; 3] {
    let [b, o, t] = texts;
    let from_texts = merge(Inputs::texts(b, o, t, Dialect::Sjson), options).unwrap();
    let (pb, po, pt) = (parse(b), parse(o), parse(t));
    let read = merge(Inputs::documents(&pb, &po, &pt), options).unwrap();
    let again = || Some(b.clone());
    let owned = Inputs::Owned {
        base: parse(b),
        ours: parse(o),
        theirs: parse(t),
        base_again: Some(&again),
    };
    let given = merge(owned, options).unwrap();
    [from_texts, read, given]
}

#[test]
fn one_thread_merges_a_large_level_as_two_do() {
    // Large enough (over 1 MiB) that the default uses a second thread.
    let texts = level(8_000, 7, 3);
    assert!(texts[1].len() >= 1 << 20, "{} bytes", texts[1].len());
    let one = MergeOptions {
        threads: Threads::One,
        ..MergeOptions::default()
    };
    let [a, b, c] = every_form(&texts, &one);
    let auto = every_form(&texts, &MergeOptions::default());
    assert_eq!(a.conflicts.len(), 3, "{:?}", a.conflicts);
    for merged in [&b, &c].into_iter().chain(&auto) {
        assert_eq!(seen(merged), seen(&a));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::proptest_cases(64)))]

    /// Every input form gives the same result; the result always has its document (whose
    /// text parses back to it) and one name and one place per conflict (a repair's place
    /// is its object).
    #[test]
    fn every_input_form_gives_the_same_merged(
        n in 4usize..40,
        seed in any::<u64>(),
        conflicts in 0usize..3,
    ) {
        let texts = level(n, seed, conflicts.min(n / 4));
        let [a, b, c] = every_form(&texts, &MergeOptions::default());
        prop_assert_eq!(seen(&a), seen(&b));
        prop_assert_eq!(seen(&a), seen(&c));
        prop_assert_eq!(a.names.len(), a.conflicts.len());
        let again = parse(a.text());
        prop_assert_eq!(again.text(), a.text());
        prop_assert_eq!(a.lines().len(), a.conflicts.len());
    }
}
