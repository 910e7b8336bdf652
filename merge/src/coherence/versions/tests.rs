//! The pass on versions kept as texts, or given up to the merge: the same answers as on
//! parsed versions; a version parsed or read again only for a repair.

use sjson::{Dialect, Document};

use crate::coherence::tests::{unit_deleted_under_a_new_flow_node, UNIT};
use crate::{ConflictKind, MergeOptions};

/// The pass run on versions kept as texts, and on the same versions parsed: the same
/// answer; with how many texts it parsed again.
fn from_texts(base: &str, ours: &str, theirs: &str) -> (String, usize) {
    use crate::coherence::{repaired, walk_sides, Versions};
    let parse = |t: &str| Document::parse(t, Dialect::Sjson).unwrap();
    let (b, o, t) = (parse(base), parse(ours), parse(theirs));
    let opts = MergeOptions::default();
    let merged = parse(&crate::structural(&b, &o, &t, &opts).text);
    let answer = |pass: crate::coherence::Repaired| {
        let text = pass.document.map(|d| d.text().to_string());
        format!("{text:?} {:?} {}", pass.reports, pass.unique_ids)
    };
    let parsed = repaired(&Versions::parsed(&b, &o, &t), &merged, &opts, None).unwrap();
    let (sb, so, st) = (b.text(), o.text(), t.text());
    let texts = Versions::texts(
        (sb, Dialect::Sjson),
        (so, Dialect::Sjson),
        (st, Dialect::Sjson),
    );
    let walked = walk_sides(&o, &t, &opts);
    let kept = repaired(&texts, &merged, &opts, Some(walked)).unwrap();
    let (parsed, kept) = (answer(parsed), answer(kept));
    assert_eq!(kept, parsed, "kept as texts and parsed differ");
    (kept, texts.parsed_again())
}

#[test]
fn versions_kept_as_texts_are_parsed_again_only_for_a_repair() {
    // Theirs deleted an object ours kept: the ids alone show nothing to repair.
    let base = "units = [{ id = u1 } { id = u2 }]\n";
    let (_, again) = from_texts(base, base, "units = [{ id = u1 }]\n");
    assert_eq!(
        again, 0,
        "a merge with nothing to repair parses no version again"
    );
    // A dangling reference to restore: the side holding the object is read.
    let (base, ours, theirs) = unit_deleted_under_a_new_flow_node();
    let (answer, again) = from_texts(&base, &ours, &theirs);
    assert!(answer.contains("DanglingReference"), "{answer}");
    assert!(again > 0, "the repair read a version");
}

#[test]
fn ids_written_with_escapes_or_as_numbers_survive_being_kept_apart_from_their_document() {
    // `"u\u0031"` is the id `u1`, decoded (not a slice of the text); `7` is a number id.
    // Ours references `u1` from a new node, theirs deletes it: it is restored from ours.
    let base = "a = [{ id = \"u\\u0031\" name = crate } { id = 7 }]\nflow = []\n";
    let ours =
        "a = [{ id = \"u\\u0031\" name = crate } { id = 7 }]\nflow = [{ id = n1 unit = u1 }]\n";
    let theirs = "a = [{ id = 7 }]\nflow = []\n";
    let (answer, again) = from_texts(base, ours, theirs);
    assert!(answer.contains("DanglingReference"), "{answer}");
    assert!(
        answer.contains("u\\\\u0031"),
        "the object restored as ours wrote it: {answer}"
    );
    assert!(again > 0);
}

#[test]
fn versions_given_up_are_parsed_again_in_their_own_dialects() {
    // A JSON base beside SJSON sides: the repair reads ours, parsed again as SJSON.
    let (_, ours, theirs) = unit_deleted_under_a_new_flow_node();
    let base = format!(r#"{{"units": [{{"id": "{UNIT}", "name": "crate"}}], "flow": []}}"#);
    let docs = || {
        (
            Document::parse(base.as_str(), Dialect::Json).unwrap(),
            Document::parse(ours.as_str(), Dialect::Sjson).unwrap(),
            Document::parse(theirs.as_str(), Dialect::Sjson).unwrap(),
        )
    };
    let opts = MergeOptions::default();
    let (b, o, t) = docs();
    let borrowed = crate::merge(crate::Inputs::documents(&b, &o, &t), &opts).unwrap();
    let (b, o, t) = docs();
    let owned = crate::merge(crate::Inputs::owned(b, o, t), &opts).unwrap();
    assert_eq!(owned.document.text(), borrowed.document.text());
    assert_eq!(
        format!("{:?}", owned.conflicts),
        format!("{:?}", borrowed.conflicts)
    );
    assert_eq!(owned.conflicts[0].kind, ConflictKind::DanglingReference);
}

#[test]
fn a_version_that_does_not_parse_again_fails_the_pass_without_a_panic() {
    use crate::coherence::{repaired, walk_sides, CoherenceError, Versions};
    // What a bug would do: a side kept with the wrong dialect, so that it cannot be parsed
    // again when the repair needs it.
    let (base, ours, theirs) = unit_deleted_under_a_new_flow_node();
    let parse = |t: &str| Document::parse(t, Dialect::Sjson).unwrap();
    let (b, o, t) = (parse(&base), parse(&ours), parse(&theirs));
    let opts = MergeOptions::default();
    let merged = parse(&crate::structural(&b, &o, &t, &opts).text);
    let versions = Versions::texts(
        (&base, Dialect::Sjson),
        (&ours, Dialect::Json),
        (&theirs, Dialect::Sjson),
    );
    let pass = repaired(&versions, &merged, &opts, Some(walk_sides(&o, &t, &opts)));
    assert!(matches!(pass, Err(CoherenceError::Internal)), "{pass:?}");
}

#[test]
fn a_freed_base_is_read_again_only_when_a_repair_needs_it() {
    use crate::coherence::CoherenceError;
    use crate::MergeError;
    use std::cell::Cell;
    // Ours adds `n1` inside `c1`, which theirs deletes (and wins): `n1` is lost with it
    // and restored. Whether `n0`, also gone, was deleted by theirs is read in base.
    let base = "a = [{ id = c1 items = [{ id = n0 }] }]\n";
    let ours = "a = [{ id = c1 items = [{ id = n0 } { id = n1 }] }]\n";
    let theirs = "a = []\n";
    let parse = |t: &str| Document::parse(t, Dialect::Sjson).unwrap();
    let opts = MergeOptions::default();
    let (b, o, t) = (parse(base), parse(ours), parse(theirs));
    let borrowed = crate::merge(crate::Inputs::documents(&b, &o, &t), &opts).unwrap();
    assert!(
        borrowed.document.text().contains("n1") && !borrowed.document.text().contains("n0"),
        "{}",
        borrowed.document.text()
    );
    let reads = Cell::new(0);
    let again = || {
        reads.set(reads.get() + 1);
        Some(base.to_string())
    };
    let owned = crate::merge(
        crate::Inputs::Owned {
            base: parse(base),
            ours: parse(ours),
            theirs: parse(theirs),
            base_again: Some(&again),
        },
        &opts,
    )
    .unwrap();
    assert_eq!(owned.document.text(), borrowed.document.text());
    assert_eq!(
        format!("{:?}", owned.conflicts),
        format!("{:?}", borrowed.conflicts)
    );
    assert_eq!(reads.get(), 1, "base read again once, for the repair");
    // Base cannot be had again: the merge fails, nothing is guessed.
    let gone = || None;
    let failed = crate::merge(
        crate::Inputs::Owned {
            base: parse(base),
            ours: parse(ours),
            theirs: parse(theirs),
            base_again: Some(&gone),
        },
        &opts,
    );
    assert!(
        matches!(
            failed,
            Err(MergeError::Coherence(CoherenceError::BaseUnreadable))
        ),
        "{failed:?}"
    );
    // A merge with nothing to repair never asks for base.
    let plain = crate::merge(
        crate::Inputs::Owned {
            base: parse(base),
            ours: parse("a = [{ id = c1 items = [{ id = n0 v = 1 }] }]\n"),
            theirs: parse(base),
            base_again: Some(&gone),
        },
        &opts,
    );
    assert!(plain.is_ok(), "{plain:?}");
}
