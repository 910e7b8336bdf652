//! Explaining a merge to a person who finds its result surprising: what each side changed
//! against the base (moves between arrays included, as the diff pairs objects by id), whether
//! each change is in the result, the conflicts and the side taken, and what the result
//! changes against the base. Pure: the caller prints it or keeps it with the inputs.

use std::collections::HashSet;
use std::fmt::Write as _;

use sjson::Document;

use crate::diff::{diff, Change, DiffOptions};
use crate::{Conflict, MergeOptions, Policy};

/// One side's change and whether the merge result holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SideChange {
    /// The change as `assetvc diff` prints it.
    pub text: String,
    /// Whether the result differs from the base in exactly this way too.
    pub in_result: bool,
}

/// What a merge did, change by change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Explanation {
    /// The policy that resolved true conflicts.
    pub policy: Policy,
    /// Ours' changes against the base.
    pub ours: Vec<SideChange>,
    /// Theirs' changes against the base.
    pub theirs: Vec<SideChange>,
    /// The true conflicts, as reported.
    pub conflicts: Vec<String>,
    /// The result's changes against the base that neither side made as such (a merge of
    /// both sides' edits inside one value, an order merge).
    pub combined: Vec<String>,
}

fn changes(old: &Document, new: &Document, options: &DiffOptions) -> Vec<String> {
    diff(old.root(), new.root(), options)
        .changes
        .iter()
        .map(Change::text)
        .collect()
}

/// Explains the merge of `base`, `ours` and `theirs` into `merged`, which reported
/// `conflicts`.
pub fn explain(
    base: &Document,
    ours: &Document,
    theirs: &Document,
    merged: &Document,
    conflicts: &[Conflict],
    options: &MergeOptions,
) -> Explanation {
    let diff_options = DiffOptions::from(options);
    let result = changes(base, merged, &diff_options);
    let in_result: HashSet<&str> = result.iter().map(String::as_str).collect();
    let side = |doc: &Document| -> Vec<SideChange> {
        changes(base, doc, &diff_options)
            .into_iter()
            .map(|text| SideChange {
                in_result: in_result.contains(text.as_str()),
                text,
            })
            .collect()
    };
    let ours = side(ours);
    let theirs = side(theirs);
    let made: HashSet<&str> = ours
        .iter()
        .chain(&theirs)
        .map(|c| c.text.as_str())
        .collect();
    let combined = result
        .iter()
        .filter(|c| !made.contains(c.as_str()))
        .cloned()
        .collect();
    Explanation {
        policy: options.policy,
        ours,
        theirs,
        conflicts: conflicts.iter().map(|c| c.to_string()).collect(),
        combined,
    }
}

impl Explanation {
    /// The explanation for people, one change per line.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for (name, list) in [("ours", &self.ours), ("theirs", &self.theirs)] {
            let _ = writeln!(out, "{name} changed {} thing(s) against base:", list.len());
            for c in list {
                let mark = if c.in_result {
                    "kept   "
                } else {
                    "NOT in result"
                };
                let _ = writeln!(out, "  [{mark}] {}", c.text);
            }
        }
        let policy = self.policy.side().name();
        let _ = writeln!(
            out,
            "{} true conflict(s), resolved by policy ({policy} wins):",
            self.conflicts.len()
        );
        for c in &self.conflicts {
            let _ = writeln!(out, "  {c}");
        }
        if !self.combined.is_empty() {
            let _ = writeln!(
                out,
                "the result also combines both sides' edits ({} change(s) against base that \
                 neither side made alone):",
                self.combined.len()
            );
            for c in &self.combined {
                let _ = writeln!(out, "  {c}");
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sjson::Dialect;

    fn doc(text: &str) -> Document {
        Document::parse(text, Dialect::Sjson).unwrap()
    }

    #[test]
    fn names_what_each_side_did_and_what_the_result_kept() {
        let base = doc("a = 1\nb = 1\nunits = [\n\t{ id = \"u1\" x = 0 }\n]\n");
        let ours = doc("a = 2\nb = 5\nunits = [\n\t{ id = \"u1\" x = 0 }\n]\n");
        let theirs = doc("a = 3\nb = 1\nunits = [\n\t{ id = \"u1\" x = 7 }\n]\n");
        let options = MergeOptions::default();
        let outcome = crate::structural(&base, &ours, &theirs, &options);
        let merged = doc(&outcome.text);
        let e = explain(&base, &ours, &theirs, &merged, &outcome.conflicts, &options);
        assert_eq!(e.ours.len(), 2, "{e:?}");
        let ours_a = e.ours.iter().find(|c| c.text.starts_with("a:")).unwrap();
        assert!(!ours_a.in_result, "theirs won `a`: {e:?}");
        let ours_b = e.ours.iter().find(|c| c.text.starts_with("b:")).unwrap();
        assert!(ours_b.in_result);
        assert!(e.theirs.iter().all(|c| c.in_result), "{e:?}");
        assert_eq!(e.conflicts.len(), 1);
        let text = e.render();
        assert!(text.contains("[NOT in result] a: 1 → 2"), "{text}");
        assert!(text.contains("units[id=u1].x: 0 → 7"), "{text}");
        assert!(text.contains("/a: both modified, took theirs"), "{text}");
    }
}
