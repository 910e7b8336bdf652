//! History of objects from the index's deltas: `log` (the commits that changed one object,
//! following it across arrays, files and renames); `blame` is in `blame.rs`.
//!
//! `log` and `blame` both walk commits newest first (by committer time) from a start
//! commit, like `git log` with its history simplification: at a merge whose result equals
//! one parent's for what is followed, only that parent is followed, and `log` names it as
//! the parent that brought the change.

use std::collections::{BinaryHeap, HashMap, HashSet};

use gix::ObjectId;

use super::build::{CommitInfo, ObjectIndex};
use super::{Located, ObjectChange};
use crate::error::Error;

pub use super::build::CommitInfo as Commit;

/// A commit time (seconds since the epoch) in UTC, ISO 8601: `2026-11-24T10:00:00Z`.
pub fn iso_time(seconds: i64) -> String {
    gix::date::Time::new(seconds, 0).format_or_unix(gix::date::time::format::ISO8601_STRICT)
}

/// A commit's day in UTC: `2026-11-24`.
pub fn day(seconds: i64) -> String {
    gix::date::Time::new(seconds, 0).format_or_unix(gix::date::time::format::SHORT)
}

/// What a commit did to the object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogKind {
    /// It appeared.
    Created,
    /// It disappeared.
    Deleted,
    /// Its content changed in place.
    Changed,
    /// It moved to another file or array (its content may have changed too).
    Moved,
    /// A merge took it from a parent other than the first.
    Merged,
}

impl LogKind {
    /// `created`, `deleted`, `changed`, `moved` or `merged`.
    pub fn name(self) -> &'static str {
        match self {
            LogKind::Created => "created",
            LogKind::Deleted => "deleted",
            LogKind::Changed => "changed",
            LogKind::Moved => "moved",
            LogKind::Merged => "merged",
        }
    }
}

/// One commit of an object's history.
#[derive(Debug, Clone)]
pub struct LogEntry {
    /// The commit.
    pub commit: CommitInfo,
    /// What it did.
    pub kind: LogKind,
    /// The object before (in the first parent, or in the parent named by `parent`).
    pub old: Option<Located>,
    /// The object after.
    pub new: Option<Located>,
    /// The properties whose value changed (added or removed ones included), in order.
    pub properties: Vec<String>,
    /// For a merge: the parent (1-based number, commit) whose version the merge took, when
    /// that is not the first parent.
    pub parent: Option<(usize, CommitInfo)>,
}

/// The properties that differ between two versions of an object.
fn changed_properties(old: Option<&Located>, new: Option<&Located>) -> Vec<String> {
    let (Some(old), Some(new)) = (old, new) else {
        return Vec::new();
    };
    let mut out: Vec<String> = new
        .entry
        .props
        .iter()
        .enumerate()
        .filter(|(at, (k, h))| old.entry.prop_near(*at, k) != Some(*h))
        .map(|(_, (k, _))| k.clone())
        .collect();
    out.extend(
        old.entry
            .props
            .iter()
            .enumerate()
            .filter(|(at, (k, _))| new.entry.prop_near(*at, k).is_none())
            .map(|(_, (k, _))| k.clone()),
    );
    out
}

fn entry_of(
    commit: CommitInfo,
    change: &ObjectChange,
    parent: Option<(usize, CommitInfo)>,
) -> LogEntry {
    let kind = match (&change.old, &change.new) {
        _ if parent.is_some() => LogKind::Merged,
        (None, _) => LogKind::Created,
        (_, None) => LogKind::Deleted,
        (Some(o), Some(n))
            if o.path != n.path
                || !super::delta::same_place(&o.entry.pointer, &n.entry.pointer) =>
        {
            LogKind::Moved
        }
        _ => LogKind::Changed,
    };
    LogEntry {
        commit,
        kind,
        properties: changed_properties(change.old.as_ref(), change.new.as_ref()),
        old: change.old.clone(),
        new: change.new.clone(),
        parent,
    }
}

/// Commits newest first by committer time, each with the state carried to it.
pub(super) struct Walk<S> {
    heap: BinaryHeap<(i64, u64, ObjectId)>,
    states: HashMap<ObjectId, S>,
    pub(super) visited: HashSet<ObjectId>,
    seq: u64,
}

impl<S> Walk<S> {
    pub(super) fn new() -> Self {
        Walk {
            heap: BinaryHeap::new(),
            states: HashMap::new(),
            visited: HashSet::new(),
            seq: u64::MAX,
        }
    }

    /// Queues `commit` with `state` unless it was queued already (then `merge` combines).
    pub(super) fn push(&mut self, commit: &CommitInfo, state: S, merge: impl FnOnce(&mut S, S)) {
        if self.visited.contains(&commit.id) {
            return;
        }
        match self.states.get_mut(&commit.id) {
            Some(existing) => merge(existing, state),
            None => {
                self.states.insert(commit.id, state);
                self.seq -= 1;
                self.heap.push((commit.commit_time, self.seq, commit.id));
            }
        }
    }

    pub(super) fn pop(&mut self) -> Option<(ObjectId, S)> {
        while let Some((_, _, id)) = self.heap.pop() {
            if let Some(state) = self.states.remove(&id) {
                self.visited.insert(id);
                return Some((id, state));
            }
        }
        None
    }
}

/// The commits from `start` that changed the object (or the property) `followed`
/// names; newest first, at most `limit`.
pub fn log(
    index: &mut ObjectIndex<'_>,
    start: ObjectId,
    followed: Followed<'_>,
    limit: Option<usize>,
) -> Result<Vec<LogEntry>, Error> {
    let mut out = Vec::new();
    log_each(index, start, followed, limit, &mut |e| {
        out.push(e.clone());
        Ok(())
    })?;
    Ok(out)
}

/// What [`log`] and [`log_each`] follow.
#[derive(Debug, Clone, Copy)]
pub struct Followed<'a> {
    /// The file the object is in at the start (or was deleted from).
    pub path: &'a str,
    /// Its id.
    pub id: &'a str,
    /// Whether it is there at the start.
    pub present: bool,
    /// Only the commits that changed this property of it or a leaf below it (`light`,
    /// `light.intensity`, named as [`merge::objects::leaf_properties`] names them), and
    /// those that created or deleted it with the property; `None`: every change.
    pub property: Option<&'a str>,
}

/// [`log`], each entry given to `each` as soon as it is found: the walk goes back from
/// `start` one commit at a time, reading only what each commit changed (see
/// `build/lazy.rs`), so the newest entries come before older history is read, and with
/// `limit` nothing older than the last entry is read. Stops at the first error of `each`.
pub fn log_each(
    index: &mut ObjectIndex<'_>,
    start: ObjectId,
    followed: Followed<'_>,
    limit: Option<usize>,
    each: &mut dyn FnMut(&LogEntry) -> Result<(), Error>,
) -> Result<(), Error> {
    let Followed {
        path,
        id,
        present,
        property,
    } = followed;
    let mut out = Emit {
        each,
        found: 0,
        property,
    };
    let mut walk: Walk<(String, bool)> = Walk::new();
    let first = index.commit_info(start)?;
    walk.push(&first, (path.to_string(), present), |_, _| {});
    while let Some((commit, (path, present))) = walk.pop() {
        if limit.is_some_and(|n| out.found >= n) {
            break;
        }
        let info = index.commit_info(commit)?;
        let parents = parent_infos(index, &info)?;
        let base_trees: Vec<ObjectId> = if parents.is_empty() {
            vec![ObjectId::empty_tree(index.repo().object_hash())]
        } else {
            parents.iter().map(|p| p.tree).collect()
        };
        let mut records = Vec::with_capacity(base_trees.len());
        for base in base_trees {
            let delta = index.delta(info.tree, base)?;
            records.push(delta.find(&path, id, present).cloned());
        }
        if let Some(same) = records.iter().position(Option::is_none) {
            // Unchanged against parent `same`: follow that parent only.
            if same > 0 {
                if let Some(change) = &records[0] {
                    out.push(entry_of(
                        info.clone(),
                        change,
                        Some((same + 1, parents[same].clone())),
                    ))?;
                }
            }
            if let Some(p) = parents.get(same) {
                walk.push(p, (path, present), |_, _| {});
            }
            continue;
        }
        if let Some(Some(change)) = records.first() {
            out.push(entry_of(info.clone(), change, None))?;
        }
        for (parent, record) in parents.iter().zip(records) {
            let next = match record.as_ref().and_then(|r| r.old.as_ref()) {
                Some(old) => (old.path.clone(), true),
                None => (path.clone(), false),
            };
            walk.push(parent, next, |_, _| {});
        }
    }
    Ok(())
}

/// Entries of [`log_each`] on their way out, counted; with a property, only those that
/// touched it, their properties narrowed to it.
struct Emit<'e> {
    each: &'e mut dyn FnMut(&LogEntry) -> Result<(), Error>,
    found: usize,
    property: Option<&'e str>,
}

impl Emit<'_> {
    fn push(&mut self, entry: LogEntry) -> Result<(), Error> {
        let entry = match self.property {
            Some(property) => match for_property(entry, property) {
                Some(entry) => entry,
                None => return Ok(()),
            },
            None => entry,
        };
        self.found += 1;
        (self.each)(&entry)
    }
}

/// `entry` as far as it touched `property` (or leaves below it): its changed properties
/// narrowed to those; a creation or deletion when the object had the property; `None`
/// when it left the property as it was.
fn for_property(mut entry: LogEntry, property: &str) -> Option<LogEntry> {
    let covered = |l: &Option<Located>| {
        l.as_ref().is_some_and(|l| {
            l.entry
                .props
                .iter()
                .any(|(k, _)| merge::objects::property_covers(property, k))
        })
    };
    // A merge may have taken the object's creation or deletion from a parent too.
    let touched = match (&entry.old, &entry.new) {
        (None, _) => covered(&entry.new),
        (_, None) => covered(&entry.old),
        _ => {
            entry
                .properties
                .retain(|k| merge::objects::property_covers(property, k));
            !entry.properties.is_empty()
        }
    };
    touched.then_some(entry)
}

/// The commits `info` has as parents, first parent first.
pub(super) fn parent_infos(
    index: &ObjectIndex<'_>,
    info: &CommitInfo,
) -> Result<Vec<CommitInfo>, Error> {
    info.parents.iter().map(|p| index.commit_info(*p)).collect()
}
