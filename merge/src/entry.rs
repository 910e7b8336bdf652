//! The one merge entry point ([`merge`]): three versions ([`Inputs`]) and the settings
//! ([`MergeOptions`]) in; the merged document with every conflict, repair and gate finding
//! ([`Merged`]) or a typed [`MergeError`] out.

use sjson::{Dialect, Document, ParseOptions};

use crate::coherence::BaseAgain;
use crate::coherent::{self, Coherent};
use crate::naming::{NamedConflict, Names};
use crate::{Conflict, GateViolation, MergeError, MergeOptions, Policy, Version};

/// The three versions of a merge: base (the common ancestor), ours (the current version,
/// whose text the result edits) and theirs (the other version).
// Given to the merge by value and taken apart at once: boxing the documents would only
// add allocations.
#[allow(clippy::large_enum_variant)]
pub enum Inputs<'a> {
    /// Three texts of one dialect, parsed by the merge: one that does not parse is a
    /// [`MergeError::Parse`] naming its [`Version`].
    Texts {
        /// Base's text.
        base: String,
        /// Ours' text.
        ours: String,
        /// Theirs' text.
        theirs: String,
        /// The syntax of all three.
        dialect: Dialect,
    },
    /// Three parsed documents the merge only reads.
    Documents {
        /// The common ancestor.
        base: &'a Document,
        /// The current version.
        ours: &'a Document,
        /// The other version.
        theirs: &'a Document,
    },
    /// Three parsed documents given up to the merge: once the merged text is printed their
    /// node tables (most of a large merge's memory at that point) are freed, and the
    /// coherence pass works from their texts. With `base_again` (base's text read again
    /// from where the caller has it), base is freed whole before the result is printed
    /// when the result holds nothing of it, and read again only if a repair needs it (an
    /// error [`crate::coherence::CoherenceError::BaseUnreadable`] if it then cannot be).
    Owned {
        /// The common ancestor.
        base: Document,
        /// The current version.
        ours: Document,
        /// The other version.
        theirs: Document,
        /// How to read base's text again if it is freed (`None`: base is kept).
        base_again: Option<BaseAgain<'a>>,
    },
}

impl<'a> Inputs<'a> {
    /// Three texts of `dialect` (a `String` is moved in, a `&str` copied).
    pub fn texts(
        base: impl Into<String>,
        ours: impl Into<String>,
        theirs: impl Into<String>,
        dialect: Dialect,
    ) -> Inputs<'a> {
        Inputs::Texts {
            base: base.into(),
            ours: ours.into(),
            theirs: theirs.into(),
            dialect,
        }
    }

    /// Three parsed documents, only read.
    pub fn documents(base: &'a Document, ours: &'a Document, theirs: &'a Document) -> Inputs<'a> {
        Inputs::Documents { base, ours, theirs }
    }

    /// Three parsed documents given up to the merge, base kept until the end.
    pub fn owned(base: Document, ours: Document, theirs: Document) -> Inputs<'a> {
        Inputs::Owned {
            base,
            ours,
            theirs,
            base_again: None,
        }
    }
}

/// A merge's result: always the merged document (its text is [`Merged::text`], in ours'
/// style and dialect), with every conflict and repair and the gate's findings.
#[derive(Debug)]
pub struct Merged {
    /// The result, parsed (it is checked to parse before it is returned).
    pub document: Document,
    /// Every true conflict with the side taken, then every coherence repair
    /// ([`crate::ConflictKind::is_repair`]).
    pub conflicts: Vec<Conflict>,
    /// Where each of `conflicts` is, for people (`entities[lamp_01 #6f1c…4b03].light`), in
    /// the order of `conflicts`, named in the result ([`Names::pointer`]).
    pub names: Vec<String>,
    /// Each repair's referrer for people (`flow[spawn #node-spawn].unit`), in the order of
    /// `conflicts`, named in the result; `None` for a conflict without one.
    pub referrers: Vec<Option<String>>,
    /// Each of `conflicts` as one line for people, named in the result (a repair's object
    /// and its referrer both named).
    lines: Vec<String>,
    /// Invariants the result breaks that base, ours and theirs kept (the result gate,
    /// [`crate::gate`]): the merge then ends like a conflict whatever the policy.
    pub violations: Vec<GateViolation>,
    /// True when no two objects of the result's arrays hold the same id, as the coherence
    /// pass indexed them; false when two do, or when the pass changed the result (not
    /// indexed again): a caller who must know then checks itself.
    pub unique_ids: bool,
}

impl Merged {
    /// The merged text.
    pub fn text(&self) -> &str {
        self.document.text()
    }

    /// The merged text, without copying it.
    pub fn into_text(self) -> String {
        self.document.into_text()
    }

    /// Whether policy `fail` met a conflict or made a repair (the text still holds theirs'
    /// values, repaired), or the result breaks an invariant its inputs kept (any policy).
    /// A repeated key read as its last occurrence is never a failure by itself.
    pub fn failed(&self, policy: Policy) -> bool {
        crate::failed(&self.conflicts, &self.violations, policy)
    }

    /// Each conflict as one line for people (`entities[crate #e1].tint: both modified,
    /// took theirs`; a repair as its report names it).
    pub fn lines(&self) -> Vec<String> {
        self.lines.clone()
    }
}

/// Merges three versions by structure: the format's pass when the format has one (a
/// Cocos graph, a Tiled map, an LDtk project), else the structural merge; the result is
/// parsed back, repaired into a coherent level ([`crate::coherence`]) and checked by the
/// result gate ([`crate::gate`]). Conflicts are named for people beside the coherence
/// pass. No I/O; threads only as `options.threads` allows.
pub fn merge(inputs: Inputs<'_>, options: &MergeOptions) -> Result<Merged, MergeError> {
    let beside = |document: &Document, conflicts: &[Conflict]| names(document, conflicts, options);
    let coherent = match inputs {
        Inputs::Texts {
            base,
            ours,
            theirs,
            dialect,
        } => {
            let parse = |version: Version, text: String| {
                Document::parse_with(text, ParseOptions::new(dialect))
                    .map_err(|error| MergeError::Parse { version, error })
            };
            let base = parse(Version::Base, base)?;
            let ours = parse(Version::Ours, ours)?;
            let theirs = parse(Version::Theirs, theirs)?;
            coherent::merge_beside(&base, &ours, &theirs, options, beside)?
        }
        Inputs::Documents { base, ours, theirs } => {
            coherent::merge_beside(base, ours, theirs, options, beside)?
        }
        Inputs::Owned {
            base,
            ours,
            theirs,
            base_again,
        } => coherent::merge_owned(base, ours, theirs, base_again, options, beside)?,
    };
    Ok(merged(coherent))
}

/// Each conflict's place in `document` for people (indexing names walks the document: only
/// when there is a conflict to name).
fn names(
    document: &Document,
    conflicts: &[Conflict],
    options: &MergeOptions,
) -> Vec<NamedConflict> {
    if conflicts.is_empty() {
        return Vec::new();
    }
    let names = Names::new(
        vec![document.root()],
        &options.id_keys,
        &options.natural_keys,
    );
    names.conflicts(conflicts)
}

fn merged(coherent: Coherent<Vec<NamedConflict>>) -> Merged {
    let Coherent {
        conflicts,
        violations,
        document,
        beside,
        unique_ids,
    } = coherent;
    let mut names = Vec::with_capacity(beside.len());
    let mut referrers = Vec::with_capacity(beside.len());
    let mut lines = Vec::with_capacity(beside.len());
    for named in beside {
        names.push(named.place);
        referrers.push(named.referrer);
        lines.push(named.line);
    }
    Merged {
        document,
        conflicts,
        names,
        referrers,
        lines,
        violations,
        unique_ids,
    }
}
