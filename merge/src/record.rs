//! The record of one merged file as the merge journal keeps it and the reports read it:
//! a [`FileStep`] (the file, the policy, what git's sides meant, every conflict and repair
//! as a [`ConflictRecord`], what was left unresolved or could not be merged, where the three
//! versions are kept). Written as one JSON object per step; the journal files written
//! before these types (the same fields, untyped) read back unchanged.
//!
//! The types live here, beside [`Conflict`], so that every layer reads the same fields:
//! `store` keeps them, the cli's `conflicts` and `resolve` and the review page read them.

use std::borrow::Cow;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;
use sjson::Path;

use crate::{Conflict, ConflictKind, Policy, Side};

/// What one of git's sides is in the workflow: the local branch or the upstream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Meaning {
    /// The local branch (your work).
    Local,
    /// The upstream (what was brought in).
    Upstream,
}

impl Meaning {
    /// `local` or `upstream`.
    pub fn name(self) -> &'static str {
        match self {
            Meaning::Local => "local",
            Meaning::Upstream => "upstream",
        }
    }
}

/// What git's two sides meant in the merge that recorded a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SideMeanings {
    /// What git's "ours" (%A) was.
    pub ours: Meaning,
    /// What git's "theirs" (%B) was.
    pub theirs: Meaning,
}

impl SideMeanings {
    /// A merge, pull or cherry-pick: ours is local.
    pub const MERGE: SideMeanings = SideMeanings {
        ours: Meaning::Local,
        theirs: Meaning::Upstream,
    };
    /// A rebase: ours is the upstream.
    pub const SWAPPED: SideMeanings = SideMeanings {
        ours: Meaning::Upstream,
        theirs: Meaning::Local,
    };

    /// The meanings when git's sides are `swapped` (a rebase) or not.
    pub fn of(swapped: bool) -> SideMeanings {
        if swapped {
            SideMeanings::SWAPPED
        } else {
            SideMeanings::MERGE
        }
    }

    /// What `side` meant.
    pub fn meaning(self, side: Side) -> Meaning {
        match side {
            Side::Ours => self.ours,
            Side::Theirs => self.theirs,
        }
    }

    /// git's side that was `meaning`.
    pub fn side(self, meaning: Meaning) -> Side {
        if self.ours == meaning {
            Side::Ours
        } else {
            Side::Theirs
        }
    }
}

/// One conflict resolved by policy, or one repair, as recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConflictRecord {
    /// The place (written as its pointer, `/entities/[id=f341]/position`; a number step
    /// reads back as a key, [`ConflictRecord::place`]).
    #[serde(with = "crate::report_path::pointer")]
    pub path: Path,
    /// The kind.
    pub kind: ConflictKind,
    /// The base value (compact JSON; `None` where absent).
    #[serde(default, with = "raw_json")]
    pub base: Option<String>,
    /// Ours' value (compact JSON; `None` where deleted).
    #[serde(default, with = "raw_json")]
    pub ours: Option<String>,
    /// Theirs' value (compact JSON; `None` where deleted).
    #[serde(default, with = "raw_json")]
    pub theirs: Option<String>,
    /// The side the result held.
    pub taken: Side,
    /// A repair's object, as people name it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
    /// A repair's referrer (written as its pointer).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::report_path::optional_pointer"
    )]
    pub referrer: Option<Path>,
    /// A repair's referrer as people name it (`flow[spawn #node-spawn].unit`), when named.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub referrer_name: Option<String>,
    /// What the side taken meant (`local`, `upstream`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kept: Option<Meaning>,
    /// The place as people name it (`entities[lamp_01 #6f1c…4b03].light`), when named.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// A sync's conflict left pending: the local value stays in the worktree until it is
    /// resolved.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pending: bool,
    /// Who made the upstream value (a pending conflict's), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
}

impl ConflictRecord {
    /// The record of `conflict`, its side's meaning from `sides`, named `name` when known.
    pub fn of(conflict: &Conflict, sides: SideMeanings, name: Option<&str>) -> ConflictRecord {
        ConflictRecord {
            path: conflict.path.clone(),
            kind: conflict.kind,
            base: conflict.base.clone(),
            ours: conflict.ours.clone(),
            theirs: conflict.theirs.clone(),
            taken: conflict.taken,
            object: conflict.object.clone(),
            referrer: conflict.referrer.clone(),
            referrer_name: None,
            kept: Some(sides.meaning(conflict.taken)),
            name: name.map(str::to_string),
            pending: false,
            by: None,
        }
    }

    /// The conflict this records (without its meaning, name and pending mark).
    pub fn conflict(&self) -> Conflict {
        Conflict {
            path: self.path.clone(),
            kind: self.kind,
            base: self.base.clone(),
            ours: self.ours.clone(),
            theirs: self.theirs.clone(),
            taken: self.taken,
            object: self.object.clone(),
            referrer: self.referrer.clone(),
        }
    }

    /// The place with a number step read as an array index where `is_array` says the
    /// path so far is an array (a key otherwise).
    pub fn place(&self, is_array: impl FnMut(&Path) -> bool) -> Path {
        crate::report_path::reported_indices(&self.path, is_array)
    }

    /// A repair's line for people, its object and referrer named as the merge named them
    /// (`units[crate #9f0c…4f5f]: referenced object restored (referenced by
    /// flow[spawn #node-spawn].unit), from ours`); any conflict's line otherwise.
    pub fn line(&self) -> String {
        self.conflict()
            .line_with(self.name.as_deref(), self.referrer_name.as_deref())
    }

    /// The place for people: its name, else its pointer (`/` for the root).
    pub fn shown_place(&self) -> Cow<'_, str> {
        match self.name.as_deref().filter(|n| !n.is_empty()) {
            Some(name) => Cow::Borrowed(name),
            None if self.path.0.is_empty() => Cow::Borrowed("/"),
            None => Cow::Owned(self.path.to_string()),
        }
    }
}

/// The record of one merged (or not merged) file: one step of a journal operation.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct FileStep {
    /// The file's path in the repository.
    pub path: String,
    /// The policy as configured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<Policy>,
    /// Every conflict resolved by policy and every repair.
    #[serde(default)]
    pub conflicts: Vec<ConflictRecord>,
    /// What git's sides meant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sides: Option<SideMeanings>,
    /// The operation's name (`merge`, `rebase`, …), as reports say "in this rebase".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operation: Option<String>,
    /// Why the file was left for the user (a path the merge could not resolve).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unresolved: Option<String>,
    /// The step of a rebase or a sequence (`2/5`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<String>,
    /// The commit replayed or picked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// The name under which the journal keeps the three input versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub versions: Option<String>,
}

impl FileStep {
    /// The step of a file merged under `policy` with `conflicts` (`names[i]`: the place
    /// of conflict `i` as people name it, [`crate::Merged::names`]).
    pub fn merged(
        path: &str,
        policy: Policy,
        sides: SideMeanings,
        operation: &str,
        conflicts: &[Conflict],
        names: &[String],
    ) -> FileStep {
        let records = conflicts
            .iter()
            .enumerate()
            .map(|(i, c)| ConflictRecord::of(c, sides, names.get(i).map(String::as_str)))
            .collect();
        FileStep {
            path: path.to_string(),
            policy: Some(policy),
            conflicts: records,
            sides: Some(sides),
            operation: Some(operation.to_string()),
            ..FileStep::default()
        }
    }

    /// This step with each repair's referrer named as people name it (`referrers[i]` for
    /// conflict `i`, [`crate::Merged::referrers`]).
    pub fn with_referrers(mut self, referrers: &[Option<String>]) -> FileStep {
        for (record, name) in self.conflicts.iter_mut().zip(referrers) {
            record.referrer_name.clone_from(name);
        }
        self
    }

    /// The step of a file that could not be merged, for `reason` (its first line kept).
    pub fn unresolved(path: &str, policy: Policy, reason: &str) -> FileStep {
        FileStep {
            path: path.to_string(),
            policy: Some(policy),
            unresolved: Some(reason.lines().next().unwrap_or(reason).to_string()),
            ..FileStep::default()
        }
    }

    /// Whether a later step at the same place replaces this one (a merge retried).
    pub fn same_place(&self, other: &FileStep) -> bool {
        (&self.path, &self.step, &self.commit) == (&other.path, &other.step, &other.commit)
    }

    /// The number of conflicts resolved by policy and repairs.
    pub fn count(steps: &[FileStep]) -> usize {
        steps.iter().map(|s| s.conflicts.len()).sum()
    }
}

/// A value kept as its compact JSON text, written as JSON (not as a string); `null` and
/// an absent field read as `None`, as the untyped journal wrote them.
pub(crate) mod raw_json {
    use super::*;

    /// Writes the value's JSON as JSON.
    pub fn serialize<S: Serializer>(v: &Option<String>, s: S) -> Result<S::Ok, S::Error> {
        match v.as_deref().map(|t| RawValue::from_string(t.to_string())) {
            Some(Ok(raw)) => raw.serialize(s),
            // Not JSON (never made by the merge): kept as a string rather than lost.
            Some(Err(_)) => v.serialize(s),
            None => s.serialize_none(),
        }
    }

    /// Reads any JSON value as its text (`null`: `None`).
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
        let raw = Option::<Box<RawValue>>::deserialize(d)?;
        Ok(raw.map(|r| r.get().to_string()))
    }
}

#[cfg(test)]
mod tests;
