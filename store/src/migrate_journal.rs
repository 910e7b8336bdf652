//! A migration's journal, so that a killed `assetvc migrate` is resumable.
//!
//! Before the worktree and index move, `.git/assetvc/migrate-in-progress` records
//! `OLD NEW` (the commit migrated and the migration commit, already written); it is
//! removed once HEAD points at NEW. A rerun that finds it with HEAD still at OLD finishes
//! that migration — checking out NEW over a worktree that may already hold some or all of
//! its files (the checkout accepts files that hold exactly what it would write), or only
//! moving HEAD when the index was already written — instead of refusing the half-done state
//! as local changes or starting a second migration with other ids.

use std::path::PathBuf;

use gix::ObjectId;

use crate::error::{Error, Result};
use crate::{repo, worktree};

/// An interrupted migration: HEAD was at `old` and is to move to `new`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Journal {
    /// The commit that was migrated (HEAD when the migration started).
    pub old: ObjectId,
    /// The migration commit.
    pub new: ObjectId,
    /// The process that ran it (and held `index.lock`), when recorded.
    pub pid: Option<u32>,
}

fn path(repo: &gix::Repository) -> PathBuf {
    repo.git_dir().join("assetvc").join("migrate-in-progress")
}

/// Records that the worktree is about to move from `old` to `new` (durably, before it does).
pub(crate) fn begin(repo: &gix::Repository, old: ObjectId, new: ObjectId) -> Result<()> {
    let p = path(repo);
    let dir = p.parent().unwrap_or(repo.git_dir());
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir.display().to_string(), e))?;
    crate::atomic::write_atomic(
        &p,
        format!("{old} {new} {}\n", std::process::id()).as_bytes(),
    )
    .map_err(|e| {
        Error::io(
            p.display().to_string(),
            std::io::Error::other(e.to_string()),
        )
    })
}

/// Removes the journal: the migration is complete.
pub(crate) fn finish(repo: &gix::Repository) -> Result<()> {
    match std::fs::remove_file(path(repo)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(Error::io(path(repo).display().to_string(), e))
        }
        _ => Ok(()),
    }
}

/// The journal of an interrupted migration, if one is recorded and readable.
pub fn read(repo: &gix::Repository) -> Option<Journal> {
    let text = std::fs::read_to_string(path(repo)).ok()?;
    let mut words = text.split_whitespace();
    let old = ObjectId::from_hex(words.next()?.as_bytes()).ok()?;
    let new = ObjectId::from_hex(words.next()?.as_bytes()).ok()?;
    let pid = words.next().and_then(|w| w.parse().ok());
    Some(Journal { old, new, pid })
}

/// Takes `index.lock` for finishing `journal`. A lock left by the interrupted migration
/// itself (its process is gone) is its own half-done work: it is removed first. A lock of a
/// live process is refused as usual.
pub(crate) fn lock_for_resume(
    repo: &gix::Repository,
    journal: &Journal,
) -> Result<worktree::IndexLock> {
    match worktree::IndexLock::acquire(repo) {
        Err(Error::Locked { lock }) if journal.pid.is_some_and(|pid| !process_alive(pid)) => {
            std::fs::remove_file(&lock).map_err(|e| Error::io(lock.display().to_string(), e))?;
            worktree::IndexLock::acquire(repo)
        }
        other => other,
    }
}

/// Whether process `pid` still runs (Linux: `/proc/PID`); elsewhere assumed alive, so that
/// a lock is never taken from a running process.
pub(crate) fn process_alive(pid: u32) -> bool {
    if cfg!(target_os = "linux") {
        std::path::Path::new(&format!("/proc/{pid}")).exists()
    } else {
        true
    }
}

/// Finishes the migration `journal` records if HEAD (`head`) is still where it started:
/// the worktree and index move to its commit (what is already there is kept), then HEAD.
/// Returns the migration commit when it did; a journal that no longer applies (HEAD moved
/// on) is removed and `None` returned.
pub(crate) fn resume(repo: &gix::Repository, head: ObjectId) -> Result<Option<ObjectId>> {
    let Some(journal) = read(repo) else {
        return Ok(None);
    };
    if journal.old != head || repo.find_commit(journal.new).is_err() {
        finish(repo)?;
        return Ok(None);
    }
    let mut lock = lock_for_resume(repo, &journal)?;
    let old_index = repo.index_from_tree(&repo::tree_of(repo, Some(journal.old))?)?;
    let target = repo.index_from_tree(&repo::tree_of(repo, Some(journal.new))?)?;
    if !worktree::diff_indexes(&target, lock.index()).is_empty() {
        worktree::checkout(repo, &mut lock, &old_index, &target.clone(), target)?;
    }
    // The index first, HEAD last (issue #30 item 1): a kill in between leaves HEAD at the
    // old commit with the migration staged, never the migration with its revert staged.
    lock.commit()?;
    crate::migrate::move_ref(
        repo,
        "HEAD",
        journal.old,
        journal.new,
        "assetvc migrate: finished an interrupted migration",
    )?;
    finish(repo)?;
    Ok(Some(journal.new))
}
