//! Change sets and RFC 6902 JSON Patches applied to arbitrary documents: what
//! `assetvc apply` reads from files somebody sent.
//!
//! The input is split on 0xFF bytes into a target document, a change set or patch, and a
//! second document; the optional fourth part's first byte picks JSON targets (bit 0).
//! It checks:
//!
//! - reading and applying never panics, whatever the change set or patch holds;
//! - an applied change set or patch gives a document that parses in the target's dialect;
//! - `apply(diff(A, B), A)` is B as data, for the target A and the second document B,
//!   when the change set applies without a conflict;
//! - the JSON Patch of `diff(A, B)` applies to A and gives B as data.

#![no_main]

use libfuzzer_sys::fuzz_target;
use merge::changeset::{apply_change_set, change_set, parse_change_set, read_ops};
use merge::diff::{diff, DiffOptions};
use merge::patch::{apply_patch, json_equal};
use merge::MergeOptions;
use sjson::{Dialect, Document};

mod three_texts;

fuzz_target!(|data: &[u8]| {
    let Some(([target, sent, other], dialect)) = three_texts::three_texts(data) else {
        return;
    };
    let Ok(a) = Document::parse(target, dialect) else {
        return;
    };
    let options = MergeOptions::default();
    // The sent text as a change set.
    if let Ok(lines) = parse_change_set(sent) {
        if let Ok(ops) = read_ops(&lines) {
            if let Ok(out) = apply_change_set(&a, &ops, &options) {
                Document::parse(out.text(), dialect)
                    .unwrap_or_else(|e| panic!("applied change set does not parse: {e}"));
            }
        }
    }
    // The sent text as a JSON Patch.
    if let Ok(patch) = Document::parse(sent, Dialect::Json) {
        if let Ok(text) = apply_patch(&a, &patch, &options) {
            Document::parse(text.as_str(), dialect)
                .unwrap_or_else(|e| panic!("patched document does not parse: {e}"));
        }
    }
    // apply(diff(A, B), A) = B.
    let Ok(b) = Document::parse(other, dialect) else {
        return;
    };
    let diff_options = DiffOptions::default();
    let d = diff(a.root(), b.root(), &diff_options);
    let patch_text = d.patch_json();
    let patch = Document::parse(patch_text.as_str(), Dialect::Json)
        .unwrap_or_else(|e| panic!("the diff's patch does not parse: {e}\n{patch_text}"));
    let patched = apply_patch(&a, &patch, &options).unwrap_or_else(|e| {
        panic!("the diff's patch does not apply: {e}\nA: {target:?}\nB: {other:?}\n{patch_text}")
    });
    let got = Document::parse(patched.as_str(), dialect).expect("checked by apply_patch");
    assert!(
        json_equal(got.root(), b.root()),
        "patch(diff(A, B), A) != B\nA: {target:?}\nB: {other:?}\npatch: {patch_text}\ngot: {patched:?}"
    );
    let set: String = change_set(Some(a.root()), Some(b.root()), &d, &diff_options)
        .iter()
        .map(|op| format!("{}\n", op.to_json()))
        .collect();
    let lines = parse_change_set(&set).unwrap_or_else(|e| panic!("{e}\n{set}"));
    let ops = read_ops(&lines).unwrap_or_else(|e| panic!("{e}\n{set}"));
    let Ok(out) = apply_change_set(&a, &ops, &options) else {
        return;
    };
    if out.conflicts.is_empty() {
        let got = Document::parse(out.text(), dialect).expect("checked above");
        assert!(
            json_equal(got.root(), b.root()),
            "apply(diff(A, B), A) != B\nA: {target:?}\nB: {other:?}\nchange set:\n{set}\ngot: {:?}",
            out.text()
        );
    }
});
