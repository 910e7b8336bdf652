//! The journal of a merge or a sync that moves the worktree, the index and HEAD, so that a
//! kill at any point leaves a state git reads as before or as after it — never HEAD on the
//! merge with the index at the old tree — and the next assetvc command finishes it.
//!
//! Order of work (issue #30 item 1): the new commit is written (its objects children
//! first), then `.git/assetvc/head-move-in-progress` records `OLD NEW PID`, then the
//! worktree moves and the new index is written into `index.lock`, then the journal adds the
//! new index's checksum, then the lock replaces the index, and **only then** HEAD moves;
//! the journal is removed last. A kill before HEAD moved leaves HEAD at `OLD` (with, at
//! worst, the merge staged, which `git commit` would record, never revert). A rerun
//! ([`resume`]) takes over the `index.lock` of the dead process and, when the index had
//! moved, moves HEAD; when it had not, the rerun simply runs again.
//!
//! A merge that leaves paths for the user records `OLD THEIRS PID conflicted`: the index
//! with conflict stages replaces the index before `MERGE_HEAD` is written, so that a kill
//! never leaves git believing a merge is in progress over the old index; the rerun writes
//! the missing `MERGE_HEAD`, or, when the index never moved, lets the merge run again.

use std::path::PathBuf;

use gix::ObjectId;

use crate::error::{Error, Result};
use crate::migrate_journal::lock_for_resume;
use crate::{failpoint, repo, worktree};

/// A recorded move of HEAD from `old` to `new` (or, when `conflicted`, a merge of `new`
/// into `old` left for the user).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct HeadMove {
    /// HEAD when the operation started.
    pub old: ObjectId,
    /// The commit HEAD moves to (the merged commit when `conflicted`).
    pub new: ObjectId,
    /// Whether the merge left paths for the user (HEAD does not move; `MERGE_HEAD` names `new`).
    pub conflicted: bool,
}

/// How [`resume`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Resumed {
    /// HEAD now points at this commit: the interrupted operation is complete.
    Moved(ObjectId),
    /// The interrupted merge of this commit is now in progress with its paths left for the user.
    Conflicted(ObjectId),
}

/// What a journal file says.
struct Recorded {
    head_move: HeadMove,
    /// The process that wrote it (and held `index.lock`).
    pid: Option<u32>,
    /// The checksum of the new index, once it was written into the lock file.
    index: Option<ObjectId>,
}

fn path(repo: &gix::Repository) -> PathBuf {
    repo.git_dir().join("assetvc").join("head-move-in-progress")
}

fn write(repo: &gix::Repository, head_move: HeadMove, index: Option<ObjectId>) -> Result<()> {
    let p = path(repo);
    let dir = p.parent().unwrap_or(repo.git_dir());
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir.display().to_string(), e))?;
    let mut text = format!("{} {} {}", head_move.old, head_move.new, std::process::id());
    if let Some(index) = index {
        text.push_str(&format!(" index={index}"));
    }
    if head_move.conflicted {
        text.push_str(" conflicted");
    }
    text.push('\n');
    crate::atomic::write_atomic(&p, text.as_bytes())
}

/// Records, durably, that HEAD is about to move as `head_move` says (before the worktree
/// is touched: a rerun then knows whose `index.lock` it may take over).
pub(crate) fn begin(repo: &gix::Repository, head_move: HeadMove) -> Result<()> {
    write(repo, head_move, None)?;
    failpoint::hit("head-move-after-journal");
    Ok(())
}

/// Removes the journal: the operation is complete.
pub(crate) fn finish(repo: &gix::Repository) -> Result<()> {
    match std::fs::remove_file(path(repo)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(Error::io(path(repo).display().to_string(), e))
        }
        _ => Ok(()),
    }
}

/// The journal, if one is recorded and readable.
fn read(repo: &gix::Repository) -> Option<Recorded> {
    let text = std::fs::read_to_string(path(repo)).ok()?;
    let mut words = text.split_whitespace();
    let old = ObjectId::from_hex(words.next()?.as_bytes()).ok()?;
    let new = ObjectId::from_hex(words.next()?.as_bytes()).ok()?;
    let pid = words.next().and_then(|w| w.parse().ok());
    let (mut index, mut conflicted) = (None, false);
    for word in words {
        if let Some(hex) = word.strip_prefix("index=") {
            index = ObjectId::from_hex(hex.as_bytes()).ok();
        }
        conflicted |= word == "conflicted";
    }
    Some(Recorded {
        head_move: HeadMove {
            old,
            new,
            conflicted,
        },
        pid,
        index,
    })
}

/// Records the checksum of the index `lock` staged, then replaces the index by it: after
/// this, a rerun can tell the index already moved.
pub(crate) fn commit_index(
    repo: &gix::Repository,
    lock: worktree::IndexLock,
    head_move: HeadMove,
) -> Result<()> {
    write(repo, head_move, lock.staged_checksum())?;
    failpoint::hit("head-move-before-index");
    lock.commit()
}

/// Replaces the index by what `lock` staged, then moves HEAD as `head_move` says, then
/// removes the journal [`begin`] wrote: the last steps of a merge or a sync.
pub(crate) fn commit_then_move_head(
    repo: &gix::Repository,
    lock: worktree::IndexLock,
    head_move: HeadMove,
    reflog: &str,
) -> Result<()> {
    commit_index(repo, lock, head_move)?;
    failpoint::hit("head-move-before-ref");
    crate::treemerge::update_head(repo, Some(head_move.old), head_move.new, reflog)?;
    failpoint::hit("head-move-before-finish");
    finish(repo)
}

/// The checksum at the end of the index file, if there is one.
fn index_checksum(repo: &gix::Repository) -> Option<ObjectId> {
    let data = std::fs::read(repo.index_path()).ok()?;
    let len = repo.object_hash().len_in_bytes();
    let tail = data.get(data.len().checked_sub(len)?..)?;
    ObjectId::try_from(tail).ok()
}

/// Finishes the merge or sync a journal records, if HEAD is still where it started (a
/// journal that no longer applies — HEAD moved on, say by `git commit` — is removed).
///
/// When the new index is in place, HEAD is moved (or, for a merge left for the user,
/// `MERGE_HEAD` written). When it is not, the interrupted run changed nothing git
/// records: only the `index.lock` of the dead process and the journal are removed, and the
/// files it already wrote hold exactly what the rerun writes (which the checkout accepts).
pub(crate) fn resume(repo: &gix::Repository) -> Result<Option<Resumed>> {
    let Some(recorded) = read(repo) else {
        return Ok(None);
    };
    let head_move = recorded.head_move;
    let head = repo::head_commit(repo)?;
    if head != Some(head_move.old) || repo.find_commit(head_move.new).is_err() {
        finish(repo)?;
        return Ok(None);
    }
    let journal = crate::migrate_journal::Journal {
        old: head_move.old,
        new: head_move.new,
        pid: recorded.pid,
    };
    let lock = lock_for_resume(repo, &journal)?;
    let index_moved = recorded.index.is_some() && index_checksum(repo) == recorded.index;
    let git_dir = repo.git_dir();
    let resumed = match (index_moved, head_move.conflicted) {
        (false, conflicted) => {
            if conflicted {
                for name in ["MERGE_HEAD", "MERGE_MSG", "MERGE_MODE"] {
                    let _ = std::fs::remove_file(git_dir.join(name));
                }
            }
            None
        }
        (true, true) => {
            let merge_head = git_dir.join("MERGE_HEAD");
            if !merge_head.exists() {
                let text = format!("{}\n", head_move.new);
                crate::atomic::write_atomic(&merge_head, text.as_bytes())?;
            }
            Some(Resumed::Conflicted(head_move.new))
        }
        (true, false) => {
            let reflog = "assetvc: finished an interrupted merge";
            crate::treemerge::update_head(repo, Some(head_move.old), head_move.new, reflog)?;
            Some(Resumed::Moved(head_move.new))
        }
    };
    drop(lock);
    finish(repo)?;
    Ok(resumed)
}
