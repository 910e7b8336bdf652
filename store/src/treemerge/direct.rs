//! The tree merges that need no `git merge-tree`: where neither side deleted anything,
//! no rename can have happened (a rename is a deletion and an addition), and merge-ort's
//! result is fixed by a rule a few lines long: a path one side changed takes that side's
//! entry, a path both sides changed alike takes it, and an asset both sides changed is left
//! with its three stages for the structured merge, as merge-ort leaves it with the
//! attribute tree's `merge=binary`. Anything else (a deletion, several merge bases, a
//! non-asset or a symbolic link both sides changed differently, a mode both sides changed,
//! both sides adding a path differently, a file where the other side adds a folder) goes
//! to git.
//!
//! Most merges of level data are of this kind (designers edit levels; they rarely delete
//! one during the same day), and running git for them was most of a merge step's cost: a
//! process, the attribute tree, git's objects written to a scratch directory and read back
//! (BENCHMARKS.md, "The merge strategy"). `ort_parity.rs` holds that the answer is git's.

use std::collections::{BTreeMap, HashSet};

use gix::bstr::{BStr, BString, ByteSlice};
use gix::object::tree::diff::ChangeDetached;
use gix::objs::tree::EntryMode;
use gix::ObjectId;

use super::both_changed::index_mode;
use super::ort::{GitMerge, GitStages};
use super::{edit_tree, AssetRules};
use crate::error::{Error, Result};

/// One path's entry after a side's change.
type Entry = (EntryMode, ObjectId);

/// What one side did to a path: its entry before (`None`: added) and after.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Change {
    before: Option<Entry>,
    after: Entry,
}

/// merge-ort's result for `(base, ours, theirs)` (trees) when it can be told without git:
/// ours' tree with theirs' one-sided changes, and the assets both sides changed as three
/// stages. `None` when git must merge.
pub(super) fn merge(
    repo: &gix::Repository,
    (base, ours, theirs): (ObjectId, ObjectId, ObjectId),
    rules: &AssetRules,
) -> Result<Option<GitMerge>> {
    let (Some(by_ours), Some(by_theirs)) =
        (changes(repo, base, ours)?, changes(repo, base, theirs)?)
    else {
        return Ok(None);
    };
    if clashes(&by_ours, &by_theirs) || clashes(&by_theirs, &by_ours) {
        return Ok(None);
    }
    let mut edits = Vec::new();
    let mut stages = GitStages::new();
    for (path, theirs_change) in &by_theirs {
        let Some(ours_change) = by_ours.get(path) else {
            let (mode, id) = theirs_change.after;
            edits.push((path.clone(), mode.kind(), id));
            continue;
        };
        if ours_change.after == theirs_change.after {
            continue; // the same change on both sides
        }
        let (Some(before), ours_after, theirs_after) =
            (theirs_change.before, ours_change.after, theirs_change.after)
        else {
            return Ok(None); // added by both, differently: add/add
        };
        let regular = |(mode, _): Entry| mode.is_blob() && !mode.is_link();
        let same_mode = before.0 == ours_after.0 && before.0 == theirs_after.0;
        let asset = path.to_str().is_ok_and(|p| rules.of_path(p).is_some());
        if !(asset && same_mode && regular(before)) {
            return Ok(None);
        }
        let stage = |(mode, id): Entry| Some((id, index_mode(mode)));
        stages.insert(
            path.clone(),
            [stage(before), stage(ours_after), stage(theirs_after)],
        );
    }
    let tree = edit_tree(repo, ours, &edits)?;
    Ok(Some(GitMerge {
        tree,
        stages,
        messages: Vec::new(),
    }))
}

/// Every non-tree path that differs between trees `a` and `b`; `None` when `b` deleted
/// anything or turned a folder into a file or back (git must look for renames).
fn changes(
    repo: &gix::Repository,
    a: ObjectId,
    b: ObjectId,
) -> Result<Option<BTreeMap<BString, Change>>> {
    let mut out = BTreeMap::new();
    if a == b {
        return Ok(Some(out));
    }
    let (a, b) = (repo.find_tree(a)?, repo.find_tree(b)?);
    let options = gix::diff::Options::default().with_rewrites(None);
    let diff = repo
        .diff_tree_to_tree(&a, &b, options)
        .map_err(Error::git)?;
    for change in diff {
        let change = match change {
            ChangeDetached::Deletion { .. } | ChangeDetached::Rewrite { .. } => return Ok(None),
            ChangeDetached::Addition {
                location,
                entry_mode,
                id,
                ..
            } => (location, None, (entry_mode, id)),
            ChangeDetached::Modification {
                location,
                previous_entry_mode,
                previous_id,
                entry_mode,
                id,
            } => {
                if previous_entry_mode.is_tree() != entry_mode.is_tree() {
                    return Ok(None);
                }
                (
                    location,
                    Some((previous_entry_mode, previous_id)),
                    (entry_mode, id),
                )
            }
        };
        let (location, before, after) = change;
        if after.0.is_tree() {
            continue; // a folder's changes are its entries'
        }
        out.insert(location, Change { before, after });
    }
    Ok(Some(out))
}

/// Whether a file `one` side added stands where the `other` side added a file below it
/// (a file/folder conflict, which git reports).
fn clashes(one: &BTreeMap<BString, Change>, other: &BTreeMap<BString, Change>) -> bool {
    let added: HashSet<&BStr> = one
        .iter()
        .filter(|(_, c)| c.before.is_none())
        .map(|(p, _)| p.as_bstr())
        .collect();
    if added.is_empty() {
        return false;
    }
    other
        .iter()
        .filter(|(_, c)| c.before.is_none())
        .any(|(path, _)| crate::repo::ancestors(path.as_bstr()).any(|dir| added.contains(dir)))
}
