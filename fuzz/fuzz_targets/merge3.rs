//! Three-way merges of arbitrary documents.
//!
//! The input is split on 0xFF bytes (never valid UTF-8) into base, ours and theirs; the
//! optional fourth part's first byte picks JSON instead of SJSON. Inputs that do not parse
//! are skipped. For the rest it checks:
//!
//! - merging never panics, and the merged text parses (`merge` re-parses it and
//!   returns `MergeError::Invalid` otherwise);
//! - merge(b, x, b) is x byte for byte, merge(b, x, x) is x byte for byte, and
//!   merge(b, b, x) is x as a value, for x = ours and x = theirs;
//! - each conflict names the side the policy took, and policy `fail` fails exactly when
//!   there are conflicts;
//! - the merge of versions given up to it, base freed before printing and read again for
//!   a repair (`Inputs::Owned` with a `BaseAgain`), gives the same text and
//!   conflicts.

#![no_main]

use libfuzzer_sys::fuzz_target;
use merge::{merge, Inputs, MergeOptions, Policy, Side};
use sjson::Document;

mod three_texts;

fuzz_target!(|data: &[u8]| {
    let Some(([b, o, t], dialect)) = three_texts::three_texts(data) else {
        return;
    };
    if [b, o, t]
        .iter()
        .any(|text| Document::parse(*text, dialect).is_err())
    {
        return;
    }
    let merged = |base: &str, ours: &str, theirs: &str, policy: Policy| {
        let options = MergeOptions {
            policy,
            ..MergeOptions::default()
        };
        merge(Inputs::texts(base, ours, theirs, dialect), &options)
            .unwrap_or_else(|e| panic!("{e}\nbase: {base:?}\nours: {ours:?}\ntheirs: {theirs:?}"))
    };
    for policy in [Policy::Theirs, Policy::Ours, Policy::Fail] {
        let out = merged(b, o, t, policy);
        let side = if policy == Policy::Ours {
            Side::Ours
        } else {
            Side::Theirs
        };
        assert!(out.conflicts.iter().all(|c| c.taken == side));
        assert_eq!(
            out.failed(policy),
            policy == Policy::Fail && !out.conflicts.is_empty()
        );
        let options = MergeOptions {
            policy,
            ..MergeOptions::default()
        };
        let parse = |text: &str| Document::parse(text, dialect).expect("parsed above");
        let base_again = || Some(b.to_string());
        let owned = merge::merge(
            merge::Inputs::Owned {
                base: parse(b),
                ours: parse(o),
                theirs: parse(t),
                base_again: Some(&base_again),
            },
            &options,
        )
        .expect("merged from the texts above");
        assert_eq!(owned.text(), out.text(), "freed base: another text");
        assert_eq!(
            owned.conflicts, out.conflicts,
            "freed base: other conflicts"
        );
    }
    for x in [o, t] {
        let out = merged(b, x, b, Policy::Theirs);
        assert_eq!(out.text(), x, "merge(b, x, b) != x");
        assert!(out.conflicts.is_empty());
        let out = merged(b, x, x, Policy::Theirs);
        assert_eq!(out.text(), x, "merge(b, x, x) != x");
        let out = merged(b, b, x, Policy::Theirs);
        let got = Document::parse(out.into_text(), dialect).expect("checked by merge");
        let want = Document::parse(x, dialect).expect("parsed above");
        assert!(got.root().same_value(&want.root()), "merge(b, b, x) != x");
    }
});
