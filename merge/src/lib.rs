//! Structured three-way merge of SJSON/JSON documents.
//!
//! [`merge`], the one entry point, takes the common ancestor (base), the current version
//! (ours, left) and the other version (theirs, right-hand) as [`Inputs`] with
//! [`MergeOptions`], and merges them by structure: object keys
//! independently, arrays of objects by their id, other arrays by a diff3 over their
//! elements, moved subtrees carrying the other side's edits. True conflicts are resolved
//! by a [`Policy`] and every one is reported as a [`Conflict`]. The result is printed as
//! an edit of ours: ours' text wherever ours' value was kept, parsed back, repaired into
//! a coherent level and checked by the result gate; the answer is a [`Merged`] (always the
//! document and its text) or a [`MergeError`]. No I/O happens here.

#![warn(missing_docs)]
#![forbid(unsafe_code)]

mod align;
mod bump;
pub mod changeset;
pub mod cocos;
pub mod coherence;
mod coherent;
mod compact;
mod context;
mod counters;
mod derived;
pub mod diff;
mod edges;
mod entry;
pub mod explain;
mod game;
pub mod gate;
mod grid;
mod grid_diff;
mod hashing;
mod id;
mod id_list;
pub mod id_table;
mod keyed;
mod keyed_index;
mod lcs;
mod members;
mod merger;
pub mod migrate;
mod moves;
mod names;
pub mod naming;
pub mod objects;
mod observe;
mod pairing;
pub mod patch;
pub mod profile;
pub mod record;
mod repeats;
mod report_path;
mod sequence;
mod sets;
pub mod trace;
mod versions;

use std::fmt;

use sjson::{Document, ParseError, Path};

pub use coherent::FREE_BASE_FROM;
pub use compact::compact_json;
pub use counters::ids_coherent;
pub use entry::{merge, Inputs, Merged};
pub use gate::{FormatInvariant, GateViolation};
pub use grid_diff::{grid_changes, GridChange};
pub use id::Id;
pub use id::{id_member, id_text};
pub use names::Version;

/// From this many bytes of text, work on the two sides runs on two threads (move
/// detection, the coherence pass's walks and reference resolution); below it a thread
/// costs more than it saves.
pub(crate) const PARALLEL_FROM: usize = 1 << 20;

/// Whether the merge may start threads ([`MergeOptions::threads`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Threads {
    /// A second thread for the work on large documents (from 1 MiB of text), where it
    /// saves more than it costs: the default.
    #[default]
    Auto,
    /// None: everything runs on the caller's thread.
    One,
}

impl Threads {
    /// Whether work on a text of `len` bytes goes on two threads.
    pub(crate) fn parallel(self, len: usize) -> bool {
        self == Threads::Auto && len >= PARALLEL_FROM
    }
}

/// `(a(), b())`, with `a` on a second thread when `parallel` (a panic there is passed
/// on as it is), one after the other otherwise.
pub(crate) fn both<A: Send, B>(
    parallel: bool,
    a: impl FnOnce() -> A + Send,
    b: impl FnOnce() -> B,
) -> (A, B) {
    if !parallel {
        return (a(), b());
    }
    std::thread::scope(|scope| {
        let a = scope.spawn(a);
        let b = b();
        let a = a
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (a, b)
    })
}

/// Which side wins a true conflict.
///
/// `Theirs`, `Ours` and `Fail` name git's sides of one merge call; `Upstream` and `Local`
/// name the workflow's sides and mean the same in a merge, a pull, a rebase and a
/// cherry-pick: [`Policy::for_operation`] turns them into a side once the caller knows
/// whether the sides are swapped (in a rebase git's "ours" is the upstream). The merge
/// itself treats them as in a merge: `Upstream` takes theirs, `Local` takes ours.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Policy {
    /// Take theirs (the right-hand side): the default.
    #[default]
    Theirs,
    /// Take ours.
    Ours,
    /// Take theirs, and report the merge as failed so git marks the path conflicted.
    Fail,
    /// Take the upstream's value: theirs in a merge, pull or cherry-pick; ours in a rebase.
    Upstream,
    /// Take the local value: ours in a merge, pull or cherry-pick; theirs in a rebase.
    Local,
}

impl Policy {
    /// Every policy, in the order the documentation lists them.
    pub const ALL: [Policy; 5] = [
        Policy::Theirs,
        Policy::Ours,
        Policy::Fail,
        Policy::Upstream,
        Policy::Local,
    ];

    /// The policy's name in `assetvc.toml` and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Policy::Theirs => "theirs",
            Policy::Ours => "ours",
            Policy::Fail => "fail",
            Policy::Upstream => "upstream",
            Policy::Local => "local",
        }
    }

    /// The side-naming policy this one means when `swapped` says whether git's "ours" is
    /// the upstream (a rebase) rather than the local branch (a merge, pull, cherry-pick).
    /// `Theirs`, `Ours` and `Fail` are returned unchanged.
    pub fn for_operation(self, swapped: bool) -> Policy {
        match (self, swapped) {
            (Policy::Upstream, false) | (Policy::Local, true) => Policy::Theirs,
            (Policy::Upstream, true) | (Policy::Local, false) => Policy::Ours,
            (other, _) => other,
        }
    }

    /// The side a true conflict is resolved to (for `Upstream`/`Local`, as in a merge).
    pub fn side(self) -> Side {
        match self.for_operation(false) {
            Policy::Ours => Side::Ours,
            _ => Side::Theirs,
        }
    }
}

impl std::str::FromStr for Policy {
    type Err = String;

    fn from_str(s: &str) -> Result<Policy, String> {
        Policy::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| {
                format!("unknown policy \"{s}\" (expected theirs, ours, fail, upstream or local)")
            })
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
    /// Repair: the result referenced an object one side deleted; it was restored.
    DanglingReference,
    /// Repair: the sides' reparents made a parent cycle; the losing side's were reverted.
    Cycle,
    /// Repair: an object no side deleted lost its container; it went back to its place.
    Orphan,
    /// Both sides gave a new object the same id from a file's counter (a Tiled object or
    /// layer, an LDtk `uid`): theirs' was renumbered (`ours` holds the id, `theirs` the new
    /// one, `object` its name).
    Renumbered,
    /// Both sides painted cells of a tile grid differently: one report per grid, `object`
    /// says how many cells and their bounding box.
    Cells,
    /// Repair: `taken` wrote a key more than once in an object where base holds it at most
    /// once; read as JSON readers read it (the last occurrence), written once. `path` is the
    /// member, `object` names the key and how many times (`"_comment" twice`).
    RepeatedKey,
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
            ConflictKind::DanglingReference => "dangling-reference",
            ConflictKind::Cycle => "cycle",
            ConflictKind::Orphan => "orphan",
            ConflictKind::Renumbered => "renumbered",
            ConflictKind::Cells => "cells",
            ConflictKind::RepeatedKey => "repeated-key",
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
            ConflictKind::DanglingReference => "referenced object restored",
            ConflictKind::Cycle => "parent cycle broken",
            ConflictKind::Orphan => "lost object restored",
            ConflictKind::Renumbered => "id taken by both sides, theirs renumbered",
            ConflictKind::Cells => "cells painted differently by both sides",
            ConflictKind::RepeatedKey => "key written more than once, the last kept",
        }
    }
}

/// A true conflict and how it was resolved. Serialised as the journal writes a conflict
/// ([`record::ConflictRecord`]): paths as their pointer text, values as JSON.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Conflict {
    /// The place, keyed elements named by id: `/entities/[id=f341]/position`.
    #[serde(with = "report_path::pointer")]
    pub path: Path,
    /// The kind of conflict.
    pub kind: ConflictKind,
    /// The base value as compact JSON (`None` where absent).
    #[serde(default, with = "record::raw_json")]
    pub base: Option<String>,
    /// Ours' value as compact JSON (`None` where deleted).
    #[serde(default, with = "record::raw_json")]
    pub ours: Option<String>,
    /// Theirs' value as compact JSON (`None` where deleted).
    #[serde(default, with = "record::raw_json")]
    pub theirs: Option<String>,
    /// The side whose value the result holds.
    pub taken: Side,
    /// For a coherence repair: the object, as people name it (`crate #1f2e3d4c`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
    /// For a coherence repair: the place of the reference that needed the object
    /// (`dangling-reference`) or of the parent the reverted reparent named (`cycle`).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "report_path::optional_pointer"
    )]
    pub referrer: Option<Path>,
}

impl ConflictKind {
    /// Whether this is a repair (coherence, or a repeated key read as its last occurrence)
    /// rather than a true conflict.
    pub fn is_repair(self) -> bool {
        matches!(
            self,
            ConflictKind::DanglingReference
                | ConflictKind::Cycle
                | ConflictKind::Orphan
                | ConflictKind::RepeatedKey
        )
    }
}

impl Conflict {
    /// The conflict as one line for people with its place named by `place`
    /// (`entities[crate #e1].tint: both modified, took theirs`; a repair's object named by
    /// `place`, its referrer by short ids, [`Conflict::repair_line`]); the pointer when
    /// `None`.
    pub fn line_at(&self, place: Option<&str>) -> String {
        let referrer = self.referrer.as_ref().map(naming::bare_path);
        self.line_named(place, referrer.as_deref())
    }

    /// [`Conflict::line_at`] with a repair's referrer named by `referrer` when the merge
    /// named it ([`Merged::referrers`]: `flow[spawn #node-spawn].unit`), else by its short
    /// ids as `line_at` does.
    pub fn line_with(&self, place: Option<&str>, referrer: Option<&str>) -> String {
        match referrer {
            Some(referrer) => self.line_named(place, Some(referrer)),
            None => self.line_at(place),
        }
    }

    /// [`Conflict::line_at`] with a repair's referrer named by `referrer` (a document at
    /// hand names it `flow[spawn #node-spawn].unit`; without one, its short ids).
    pub(crate) fn line_named(&self, place: Option<&str>, referrer: Option<&str>) -> String {
        if let Some(detail) = self.detail() {
            let place = place.map_or_else(|| self.place_text(), |p| p.to_string());
            return format!("{place}: {detail}");
        }
        match place {
            Some(place) if self.kind.is_repair() => self.repair_line(place, referrer),
            Some(place) => format!(
                "{place}: {}, took {}",
                self.kind.describe(),
                self.taken.name()
            ),
            None => self.to_string(),
        }
    }

    /// A coherence repair for people, its object named by `place` and its referrer by
    /// `referrer` (`units[crate #9f0c…4f5f]: referenced object restored (referenced by
    /// flow[spawn #node-spawn].unit), from ours`).
    pub fn repair_line(&self, place: &str, referrer: Option<&str>) -> String {
        let mut line = format!("{place}: {}", self.kind.describe());
        if let Some(referrer) = referrer.filter(|r| !r.is_empty()) {
            line.push_str(&format!(" ({} {referrer})", self.referrer_role()));
        }
        line.push_str(&format!(", from {}", self.taken.name()));
        line
    }

    /// How a repair's referrer relates to its object: `parent` for a cycle.
    fn referrer_role(&self) -> &'static str {
        match self.kind {
            ConflictKind::Cycle => "parent",
            _ => "referenced by",
        }
    }
}

impl Conflict {
    /// What a renumbering or a grid's cell conflicts did, for people (`id 12 taken by both
    /// sides, theirs renumbered to 14`); `None` for other kinds.
    fn detail(&self) -> Option<String> {
        let safe = |v: &Option<String>| {
            sjson::string::terminal_safe_line(v.as_deref().unwrap_or("?")).into_owned()
        };
        match self.kind {
            ConflictKind::Renumbered => Some(format!(
                "id {} taken by both sides, theirs renumbered to {}",
                safe(&self.ours),
                safe(&self.theirs)
            )),
            ConflictKind::Cells => Some(format!(
                "{} painted differently by both sides, took {}",
                safe(&self.object),
                self.taken.name()
            )),
            ConflictKind::RepeatedKey => Some(format!(
                "{} wrote {}; JSON readers take the last; written once",
                self.taken.name(),
                safe(&self.object)
            )),
            _ => None,
        }
    }

    /// The place as the report's pointer (`/` for the root), safe for a terminal.
    fn place_text(&self) -> String {
        if self.path.0.is_empty() {
            return "/".to_string();
        }
        sjson::string::terminal_safe_line(&self.path.to_string()).into_owned()
    }
}

impl fmt::Display for Conflict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(detail) = self.detail() {
            return write!(f, "{}: {detail}", self.place_text());
        }
        let path = self.place_text();
        if self.kind.is_repair() {
            let safe = sjson::string::terminal_safe_line;
            write!(f, "{path}: {}", self.kind.name())?;
            if let Some(object) = &self.object {
                write!(f, ": {}", safe(object))?;
            }
            write!(f, ", {}", self.kind.describe())?;
            if let Some(referrer) = &self.referrer {
                let referrer = safe(&referrer.to_string()).into_owned();
                write!(f, " ({} {referrer})", self.referrer_role())?;
            }
            return write!(f, ", from {}", self.taken.name());
        }
        write!(
            f,
            "{path}: {}, took {}",
            self.kind.describe(),
            self.taken.name()
        )
    }
}

/// Merge settings (see docs/design.md "Merge semantics").
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
    /// What counts as a reference between objects (level coherence).
    pub references: coherence::ReferenceOptions,
    /// The engine format of the documents (chosen by the caller from configuration and
    /// file name); `None`: chosen by ours' content when the merge starts.
    pub profile: Option<profile::Format>,
    /// Whether the merge may use a second thread on large documents.
    pub threads: Threads,
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
            references: coherence::ReferenceOptions::default(),
            profile: None,
            threads: Threads::Auto,
        }
    }
}

/// The bare structural pass's result ([`structural`], for benchmarks and tests): the text
/// printed as an edit of ours (not checked to parse, no coherence pass, no result gate) and
/// the conflicts met. A merge whose result is used goes through [`merge`] and answers a
/// [`Merged`].
#[derive(Debug, Clone)]
pub struct Structural {
    /// The printed text, in ours' style (always the whole result; may not parse).
    pub text: String,
    /// Every true conflict met, in the order met, with the side taken.
    pub conflicts: Vec<Conflict>,
}

/// Whether a merge that reported `conflicts` and `violations` failed under `policy`: policy
/// `fail` met a conflict or made a repair, or the result breaks an invariant its inputs
/// kept (any policy). A repeated key read as its last occurrence
/// ([`ConflictKind::RepeatedKey`]) is how JSON reads the file: never a failure by itself.
pub(crate) fn failed(conflicts: &[Conflict], violations: &[GateViolation], policy: Policy) -> bool {
    let decided = |c: &Conflict| c.kind != ConflictKind::RepeatedKey;
    (policy == Policy::Fail && conflicts.iter().any(decided)) || !violations.is_empty()
}

/// Which input failed to parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MergeError {
    /// An input is not a valid document.
    #[error("{version}: {error}")]
    Parse {
        /// The input that does not parse.
        version: Version,
        /// The parse error.
        error: ParseError,
    },
    /// The merged text did not parse back (a bug; nothing is written).
    #[error("internal error: the merged document does not parse ({0})")]
    Invalid(ParseError),
    /// The level's references cannot be made coherent (bad input or settings).
    #[error("{0}")]
    Coherence(#[from] coherence::CoherenceError),
}

/// The bare structural pass, for benchmarks (`merge/benches`) and tests: the structural
/// merge alone, printed as an edit of `ours`, the first step of [`merge`] (and the inner
/// step of the format passes, a change set's and a JSON Patch's application), without the
/// coherence pass and the result gate, so its text may hold dangling references and is not
/// checked to parse. A result that is written goes through [`merge`].
pub fn structural(
    base: &Document,
    ours: &Document,
    theirs: &Document,
    options: &MergeOptions,
) -> Structural {
    merger::Merger::new(base, ours, theirs, options).run()
}

#[cfg(test)]
mod policy_tests {
    use super::*;
    use sjson::Dialect;

    #[test]
    fn upstream_and_local_mean_the_same_side_whatever_git_calls_it() {
        // A merge: theirs is the upstream. A rebase: ours is the upstream.
        assert_eq!(Policy::Upstream.for_operation(false), Policy::Theirs);
        assert_eq!(Policy::Upstream.for_operation(true), Policy::Ours);
        assert_eq!(Policy::Local.for_operation(false), Policy::Ours);
        assert_eq!(Policy::Local.for_operation(true), Policy::Theirs);
        for p in [Policy::Theirs, Policy::Ours, Policy::Fail] {
            assert_eq!(p.for_operation(true), p);
            assert_eq!(p.for_operation(false), p);
        }
    }

    #[test]
    fn every_policy_parses_from_its_name() {
        for p in Policy::ALL {
            assert_eq!(p.name().parse::<Policy>(), Ok(p));
        }
        let e = "ourz".parse::<Policy>().unwrap_err();
        assert!(e.contains("upstream or local"), "{e}");
    }

    #[test]
    fn upstream_and_local_merge_like_theirs_and_ours() {
        let o = |policy| MergeOptions {
            policy,
            ..MergeOptions::default()
        };
        let run = |p| {
            merge(
                Inputs::texts("a = 1\n", "a = 2\n", "a = 3\n", Dialect::Sjson),
                &o(p),
            )
            .unwrap()
        };
        assert_eq!(run(Policy::Upstream).text(), "a = 3\n");
        assert_eq!(run(Policy::Local).text(), "a = 2\n");
        assert_eq!(run(Policy::Local).conflicts[0].taken, Side::Ours);
    }
}
