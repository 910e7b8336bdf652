//! Structured three-way merge of SJSON/JSON documents.
//!
//! [`merge`] takes the common ancestor (base), the current version (ours, left) and the
//! other version (theirs, right-hand) and merges them by structure: object keys
//! independently, arrays of objects by their id, other arrays by a diff3 over their
//! elements, moved subtrees carrying the other side's edits. True conflicts are resolved
//! by a [`Policy`] and every one is reported as a [`Conflict`]. The result is printed as
//! an edit of ours: ours' text wherever ours' value was kept. No I/O happens here.

mod align;
pub mod diff;
mod keyed;
mod merger;
pub mod migrate;
mod moves;
pub mod objects;
mod pairing;
mod sequence;

use std::fmt;

use sjson::{Dialect, Document, ParseError, ParseOptions};

pub use merger::compact_json;

/// Which side wins a true conflict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Policy {
    /// Take theirs (the right-hand side): the default.
    #[default]
    Theirs,
    /// Take ours.
    Ours,
    /// Take theirs, and report the merge as failed so git marks the path conflicted.
    Fail,
}

impl std::str::FromStr for Policy {
    type Err = String;

    fn from_str(s: &str) -> Result<Policy, String> {
        match s {
            "theirs" => Ok(Policy::Theirs),
            "ours" => Ok(Policy::Ours),
            "fail" => Ok(Policy::Fail),
            other => Err(format!(
                "unknown policy \"{other}\" (expected theirs, ours or fail)"
            )),
        }
    }
}

/// A side of the merge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    /// The current version (left).
    Ours,
    /// The other version (right-hand).
    Theirs,
}

impl Side {
    /// `"ours"` or `"theirs"`.
    pub fn name(self) -> &'static str {
        match self {
            Side::Ours => "ours",
            Side::Theirs => "theirs",
        }
    }

    fn other(self) -> Side {
        match self {
            Side::Ours => Side::Theirs,
            Side::Theirs => Side::Ours,
        }
    }
}

/// What kind of true conflict was met.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ConflictKind {
    /// Both sides changed the same value differently.
    BothModified,
    /// Ours deleted what theirs modified.
    DeleteModify,
    /// Ours modified what theirs deleted.
    ModifyDelete,
    /// Both sides added different values at the same place.
    BothAdded,
    /// Both sides reordered the same elements differently.
    Order,
}

impl ConflictKind {
    /// The kind's name in reports: `both-modified`, `delete-modify`, …
    pub fn name(self) -> &'static str {
        match self {
            ConflictKind::BothModified => "both-modified",
            ConflictKind::DeleteModify => "delete-modify",
            ConflictKind::ModifyDelete => "modify-delete",
            ConflictKind::BothAdded => "both-added",
            ConflictKind::Order => "order",
        }
    }

    /// A phrase for people: `both modified`, `deleted by ours, modified by theirs`, …
    pub fn describe(self) -> &'static str {
        match self {
            ConflictKind::BothModified => "both modified",
            ConflictKind::DeleteModify => "deleted by ours, modified by theirs",
            ConflictKind::ModifyDelete => "modified by ours, deleted by theirs",
            ConflictKind::BothAdded => "both added",
            ConflictKind::Order => "both reordered",
        }
    }
}

/// A true conflict and how it was resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict {
    /// JSON Pointer of the place, keyed elements named by id: `/entities/[id=f341]/position`.
    pub path: String,
    /// The kind of conflict.
    pub kind: ConflictKind,
    /// The base value as compact JSON (`None` where absent).
    pub base: Option<String>,
    /// Ours' value as compact JSON (`None` where deleted).
    pub ours: Option<String>,
    /// Theirs' value as compact JSON (`None` where deleted).
    pub theirs: Option<String>,
    /// The side whose value the result holds.
    pub taken: Side,
}

impl fmt::Display for Conflict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = if self.path.is_empty() {
            "/"
        } else {
            &self.path
        };
        write!(
            f,
            "{path}: {}, took {}",
            self.kind.describe(),
            self.taken.name()
        )
    }
}

/// Merge settings (see DESIGN.md "Merge semantics").
#[derive(Debug, Clone)]
pub struct MergeOptions {
    /// How true conflicts are resolved.
    pub policy: Policy,
    /// Member names that give array elements an identity, in priority order; matched
    /// case-insensitively.
    pub id_keys: Vec<String>,
    /// Member names that pair unkeyed objects when present and unique in every version.
    pub natural_keys: Vec<String>,
    /// All-number arrays up to this length, of equal length in all versions, are atomic.
    pub atomic_max: usize,
}

impl Default for MergeOptions {
    fn default() -> Self {
        MergeOptions {
            policy: Policy::Theirs,
            id_keys: ["id", "_id", "guid", "_guid", "uuid"]
                .map(String::from)
                .to_vec(),
            natural_keys: vec!["name".into()],
            atomic_max: 16,
        }
    }
}

/// The result of a merge.
#[derive(Debug, Clone)]
pub struct MergeOutcome {
    /// The merged document's text, in ours' style.
    pub text: String,
    /// Every true conflict, with the side taken.
    pub conflicts: Vec<Conflict>,
}

impl MergeOutcome {
    /// Whether policy `fail` met a conflict (the text still holds theirs' values).
    pub fn failed(&self, policy: Policy) -> bool {
        policy == Policy::Fail && !self.conflicts.is_empty()
    }
}

/// Which input failed to parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MergeError {
    /// An input is not a valid document.
    #[error("{side}: {error}")]
    Parse {
        /// `base`, `ours` or `theirs`.
        side: &'static str,
        /// The parse error.
        error: ParseError,
    },
    /// The merged text did not parse back (a bug; nothing is written).
    #[error("internal error: the merged document does not parse ({0})")]
    Invalid(ParseError),
}

/// Merges three parsed documents. The result is an edit of `ours`.
pub fn merge(
    base: &Document,
    ours: &Document,
    theirs: &Document,
    options: &MergeOptions,
) -> MergeOutcome {
    merger::Merger::new(base, ours, theirs, options).run()
}

/// Parses three texts of `dialect` and merges them; the merged text is checked to parse.
pub fn merge_texts(
    base: &str,
    ours: &str,
    theirs: &str,
    dialect: Dialect,
    options: &MergeOptions,
) -> Result<MergeOutcome, MergeError> {
    let parse = |side: &'static str, text: &str| {
        Document::parse_with(text.to_string(), ParseOptions::new(dialect))
            .map_err(|error| MergeError::Parse { side, error })
    };
    let (b, o, t) = (
        parse("base", base)?,
        parse("ours", ours)?,
        parse("theirs", theirs)?,
    );
    let outcome = merge(&b, &o, &t, options);
    Document::parse_with(outcome.text.clone(), ParseOptions::new(dialect))
        .map_err(MergeError::Invalid)?;
    Ok(outcome)
}
