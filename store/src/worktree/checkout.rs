//! Moving the worktree and the index from one tree to another without losing local
//! changes.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use super::{
    diff_indexes, unmerged_paths, validate_index, IndexLock, OnDisk, PathChange, Worktree,
};
use crate::error::{Error, Result};
use crate::repo::ancestors;
use gix::bstr::{BStr, BString, ByteSlice};
use gix::index::entry::{Mode, Stage, Stat};

/// Moves the worktree and the index from `head` (the index of HEAD's tree) to `target` (the
/// index of the tree to check out, possibly with conflict stages), refusing — before anything
/// is written — when that would lose a local change:
///
/// * the current index must match `head` (no staged changes, no unmerged paths);
/// * every path that changes must hold HEAD's content on disk (or be gone when the target
///   deletes it), or hold nothing, or hold exactly the content about to be written;
/// * no untracked file may stand where a directory is needed.
///
/// `worktree_content` names, for conflicted paths, what to write to disk when it is not the
/// stage-0 entry of `target` (which has none for them). The new index is `target` with stat
/// data: fresh for written files, kept from the current index for untouched ones; it is
/// written into `lock`, whose caller moves the ref and then commits the lock.
///
/// Compare-and-swap: every file is hashed again right before it is replaced or removed,
/// and left alone when it no longer holds what was checked (an editor saved it in the
/// meantime); the answer lists those paths, whose index entries get no stat data so that
/// git sees them modified.
///
/// Trees that git would refuse to check out (see [`validate_index`]) are refused before
/// anything is written, and no file is written through a symbolic link.
pub fn checkout(
    repo: &gix::Repository,
    lock: &mut IndexLock,
    head: &gix::index::State,
    worktree_target: &gix::index::State,
    target: gix::index::File,
) -> Result<Vec<String>> {
    let current = lock.index().clone();
    let mut done = checkout_against(repo, &current, head, worktree_target, target)?;
    lock.stage(&mut done.index)?;
    Ok(done.left_alone)
}

/// What [`checkout_against`] did.
pub struct CheckedOut {
    /// The new index with stat data (the entries of the paths left alone have none, so
    /// that git compares their files by content and sees them modified).
    pub index: gix::index::File,
    /// The paths whose file changed between the check and the write (someone saved it
    /// meanwhile): left as they were, not written.
    pub left_alone: Vec<String>,
}

/// [`checkout`]'s work with `current` standing for the index (a caller that knows the
/// worktree holds other content than the index, like sync's recorded edits): returns the
/// new index with stat data, for the caller to stage into the lock it holds, and the
/// paths left alone.
pub fn checkout_against(
    repo: &gix::Repository,
    current: &gix::index::File,
    head: &gix::index::State,
    worktree_target: &gix::index::State,
    mut target: gix::index::File,
) -> Result<CheckedOut> {
    validate_index(worktree_target)?;
    validate_index(&target)?;
    let mut wt = Worktree::new(repo)?;
    // 1. The index must be HEAD's.
    refuse_unless_index_is(head, current)?;
    // 2. Every changed path must be safe to overwrite.
    let changes = diff_indexes(head, worktree_target);
    let already_there = refuse_unless_safe_to_write(&mut wt, current, &changes)?;
    // 3. Write: deletions first (a file may give way to a directory), then the rest, each
    //    file compared again right before it is replaced.
    let written = write_changes(&mut wt, current, &changes, &already_there)?;
    // 4. The index: stat data for what was written, kept for what was not.
    carry_stat(&mut target, &written.stat, current);
    let left_alone: HashSet<&BString> = written.left_alone.iter().collect();
    let (entries, backing) = target.entries_mut_and_pathbacking();
    for e in entries.iter_mut() {
        if left_alone.contains(&BString::from(e.path_in(backing).to_vec())) {
            e.stat = Stat::default();
        }
    }
    Ok(CheckedOut {
        index: target,
        left_alone: written
            .left_alone
            .iter()
            .map(|p| p.to_str_lossy().into_owned())
            .collect(),
    })
}

/// Refuses when the `current` index is not `head`: unmerged paths, or staged changes.
fn refuse_unless_index_is(head: &gix::index::State, current: &gix::index::File) -> Result<()> {
    let unmerged = unmerged_paths(current);
    if !unmerged.is_empty() {
        return Err(Error::Refused {
            message: "you have unmerged paths; resolve them and commit first".into(),
            paths: unmerged,
        });
    }
    let staged: Vec<String> = diff_indexes(head, current)
        .into_iter()
        .map(|c| c.path.to_str_lossy().into_owned())
        .collect();
    if !staged.is_empty() {
        return Err(Error::Refused {
            message: "your staged changes would be lost; commit them first".into(),
            paths: staged,
        });
    }
    Ok(())
}

/// Refuses when writing `changes` would lose a local change: a changed path must hold
/// HEAD's content on disk (or be gone when it is deleted), or nothing, or exactly what is
/// about to be written; no untracked file may stand where a directory is needed. Returns
/// the paths that already hold what is to be written (not written again).
fn refuse_unless_safe_to_write(
    wt: &mut Worktree,
    current: &gix::index::File,
    changes: &[PathChange],
) -> Result<HashSet<BString>> {
    let deleted: HashSet<&BStr> = changes
        .iter()
        .filter(|c| c.old.is_some())
        .map(|c| c.path.as_bstr())
        .collect();
    let mut in_the_way = Vec::new();
    let mut already_there = HashSet::new();
    // A sample of the file system's clock, before any file is looked at: the versions
    // older than it can be known again at the swap by their stat data (`settled.rs`).
    let clock = super::settled::Clock::sample(&wt.root);
    let exec_bit = wt.exec_bit;
    // Whether each directory a new path needs is taken by something else (checked once).
    let mut not_a_dir: HashMap<BString, bool> = HashMap::new();
    for change in changes {
        let rela = change.path.as_bstr();
        let safe = match change.old {
            Some((id, mode)) => {
                // Taken before the file is looked at: a write after it shows.
                let version = clock.as_ref().and_then(|c| c.version(&wt.path(rela)));
                let entry = current.entry_by_path(rela);
                let holds_new =
                    |d: &OnDisk| change.new.is_some_and(|(nid, nm)| d.is(&nid, nm, exec_bit));
                let unchanged = match entry {
                    Some(e) => wt.is_unchanged(rela, e, current)?,
                    None => wt.probe(rela, current)?.is(&id, mode, exec_bit),
                };
                let (id, mode) = entry.map_or((id, mode), |e| (e.id, e.mode));
                let on_disk = match unchanged {
                    true => OnDisk::of(id, mode, exec_bit),
                    false => wt.probe(rela, current)?,
                };
                if let Some(version) = version {
                    wt.settled.note(rela, version, on_disk);
                }
                let new = holds_new(&on_disk);
                if new {
                    already_there.insert(change.path.clone());
                }
                unchanged || on_disk == OnDisk::Missing && change.new.is_none() || new
            }
            None => {
                let on_disk = wt.probe(rela, current)?;
                match (on_disk, change.new) {
                    (OnDisk::Missing, _) => true,
                    (OnDisk::Dir, Some((_, mode))) if mode != Mode::COMMIT => {
                        is_empty_dir(&wt.path(rela))
                    }
                    (d, Some((nid, nmode))) => {
                        let same = d.is(&nid, nmode, exec_bit);
                        if same {
                            already_there.insert(change.path.clone());
                        }
                        same
                    }
                    (_, None) => true,
                }
            }
        };
        // An untracked file where the new path needs a directory.
        let blocked = change.new.is_some()
            && ancestors(rela).any(|dir| {
                !deleted.contains(dir)
                    && *not_a_dir.entry(dir.to_owned()).or_insert_with(|| {
                        std::fs::symlink_metadata(wt.path(dir)).is_ok_and(|m| !m.is_dir())
                    })
            });
        if !safe || blocked {
            in_the_way.push(change.path.to_str_lossy().into_owned());
        }
    }
    if !in_the_way.is_empty() {
        return Err(Error::Refused {
            message:
                "your local changes to these files would be overwritten; commit or stash them first"
                    .into(),
            paths: in_the_way,
        });
    }
    Ok(already_there)
}

/// What writing the changes did: the stat data of every path written (or already
/// holding its new content), and the paths left alone because their file changed since
/// it was checked.
struct Written {
    stat: HashMap<BString, Stat>,
    left_alone: Vec<BString>,
}

/// Whether `on_disk` is what [`refuse_unless_safe_to_write`] accepted for `change`: the
/// content `current` records for the path (HEAD's when it has no entry), nothing when the
/// change deletes it or the path was untracked, or the very content about to be written.
fn as_checked(
    on_disk: &OnDisk,
    change: &PathChange,
    current: &gix::index::File,
    exec_bit: bool,
) -> bool {
    let is_new = change
        .new
        .is_some_and(|(id, mode)| on_disk.is(&id, mode, exec_bit));
    let is_recorded = match change.old {
        Some((id, mode)) => match current.entry_by_path(change.path.as_bstr()) {
            Some(e) => on_disk.is(&e.id, e.mode, exec_bit),
            None => on_disk.is(&id, mode, exec_bit),
        },
        None => false,
    };
    let may_be_missing = change.new.is_none() || change.old.is_none();
    is_new || is_recorded || (may_be_missing && *on_disk == OnDisk::Missing)
}

/// Writes `changes` to the worktree, deletions first; the paths in `already_there` are
/// not written again. Compare-and-swap: each file is hashed again right before it is
/// replaced or removed, and left alone when it no longer holds what was checked (someone
/// saved it meanwhile); a file that already holds its new content is not rewritten.
fn write_changes(
    wt: &mut Worktree,
    current: &gix::index::File,
    changes: &[PathChange],
    already_there: &HashSet<BString>,
) -> Result<Written> {
    let exec_bit = wt.exec_bit;
    let mut left_alone = Vec::new();
    for change in changes.iter().filter(|c| c.new.is_none()) {
        crate::failpoint::hit("checkout-write");
        let expected = |d: &OnDisk| as_checked(d, change, current, exec_bit);
        if !wt.remove_if(change.path.as_bstr(), current, &expected)? {
            left_alone.push(change.path.clone());
        }
    }
    let mut written = HashMap::new();
    for change in changes {
        let Some((id, mode)) = change.new else {
            continue;
        };
        let rela = change.path.as_bstr();
        // What each path holds was found by the check; a save since then is caught by
        // the compare-and-swap below.
        if already_there.contains(&change.path) {
            written.insert(change.path.clone(), wt.stat_of(rela)?);
            continue;
        }
        let mut removed = false;
        if let Some((_, old_mode)) = change.old {
            if (old_mode == Mode::SYMLINK) != (mode == Mode::SYMLINK) {
                let expected = |d: &OnDisk| as_checked(d, change, current, exec_bit);
                if !wt.remove_if(rela, current, &expected)? {
                    left_alone.push(change.path.clone());
                    continue;
                }
                removed = true;
            }
        }
        crate::failpoint::hit("checkout-write");
        let expected = |d: &OnDisk| {
            (removed && *d == OnDisk::Missing) || as_checked(d, change, current, exec_bit)
        };
        match wt.write_if(rela, &id, mode, current, &expected)? {
            Some(stat) => {
                written.insert(change.path.clone(), stat);
            }
            None => left_alone.push(change.path.clone()),
        }
    }
    Ok(Written {
        stat: written,
        left_alone,
    })
}

/// Gives `target`'s entries stat data: fresh for the paths `written`, kept from the
/// `current` index for untouched entries that did not change.
fn carry_stat(
    target: &mut gix::index::File,
    written: &HashMap<BString, Stat>,
    current: &gix::index::File,
) {
    let (entries, backing) = target.entries_mut_and_pathbacking();
    for e in entries.iter_mut() {
        let path = e.path_in(backing);
        if let Some(stat) = written.get(path) {
            if e.stage() == Stage::Unconflicted {
                e.stat = *stat;
            }
        } else if e.stage() == Stage::Unconflicted {
            if let Some(old) = current.entry_by_path(path) {
                if old.id == e.id && old.mode == e.mode {
                    e.stat = old.stat;
                }
            }
        }
    }
}

fn is_empty_dir(path: &Path) -> bool {
    std::fs::read_dir(path).is_ok_and(|mut d| d.next().is_none())
}
