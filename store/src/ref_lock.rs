//! A ref lock file in the way (issue #30 item 3): `packed-refs.lock`, `HEAD.lock` or a ref's
//! `refs/…/NAME.lock` left by a killed process makes every later ref update fail inside gix
//! ("Could not lock packed refs", without the file). Every place this crate moves a ref or
//! fetches goes through [`map`], which turns such a failure into [`Error::RefLocked`]:
//! the lock's full path and who may hold it.
//!
//! git's lock files carry no process id. While assetvc itself updates refs it keeps
//! `.git/assetvc/ref.lock.owner` naming its process ([`Owner`]): a lock file made while
//! that note existed, whose process is gone, was left by a killed assetvc and nothing holds
//! it; one whose process still runs is held by it; any other may be a running git's.

use std::path::{Path, PathBuf};

use crate::error::{BoxError, Error};
use crate::migrate_journal::process_alive;

/// Who may hold a ref lock file, as far as assetvc can tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockHolder {
    /// An assetvc process that is still running (its process id).
    Running(u32),
    /// An assetvc process that was killed while it held the lock (its process id): nothing
    /// holds the file, it can be removed.
    Gone(u32),
    /// No process id is recorded (git's lock files carry none): a running git may hold it.
    Unknown,
}

impl std::fmt::Display for LockHolder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LockHolder::Running(pid) => write!(
                f,
                "assetvc process {pid} holds it and is still running; wait for it to finish"
            ),
            LockHolder::Gone(pid) => write!(
                f,
                "it was left by assetvc process {pid}, which is no longer running: \
                 nothing holds it; remove it and try again"
            ),
            LockHolder::Unknown => f.write_str(
                "it records no process, so a running git may hold it; if no git command \
                 is running in this repository (check with `ps -ef | grep git`), \
                 remove it and try again",
            ),
        }
    }
}

/// The note naming the assetvc process that is updating refs; removed when dropped.
pub(crate) struct Owner(Option<PathBuf>);

impl Owner {
    /// Writes the note for this process (best effort: without it a lock is only "unknown").
    pub(crate) fn note(repo: &gix::Repository) -> Owner {
        let path = owner_path(repo.git_dir());
        if let Some(dir) = path.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        match std::fs::write(&path, format!("{}\n", std::process::id())) {
            Ok(()) => Owner(Some(path)),
            Err(_) => Owner(None),
        }
    }
}

impl Drop for Owner {
    fn drop(&mut self) {
        if let Some(path) = &self.0 {
            let _ = std::fs::remove_file(path);
        }
    }
}

fn owner_path(git_dir: &Path) -> PathBuf {
    git_dir.join("assetvc").join("ref.lock.owner")
}

/// Runs the ref update `edit` under an [`Owner`] note, mapping its failure with [`map`].
pub(crate) fn guarded<T, E: Into<BoxError>>(
    repo: &gix::Repository,
    edit: impl FnOnce() -> std::result::Result<T, E>,
) -> crate::Result<T> {
    let owner = Owner::note(repo);
    let result = edit();
    drop(owner);
    result.map_err(|e| map(repo, e))
}

/// `e`, a failure of a ref update or a fetch in `repo`, as [`Error::RefLocked`] when a ref
/// lock file was in the way (the failure was a lock file that already existed, and one
/// exists), else as [`Error::Git`].
pub(crate) fn map(repo: &gix::Repository, e: impl Into<BoxError>) -> Error {
    let e = e.into();
    if lock_exists_error(e.as_ref()) {
        let dir = repo.common_dir();
        let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        if let Some(lock) = find_ref_lock(&dir) {
            let holder = holder(repo.git_dir(), &lock);
            return Error::RefLocked { lock, holder };
        }
    }
    Error::git(e)
}

/// Whether the cause of `e` is a file that already existed (how taking a lock fails).
fn lock_exists_error(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(c) = cause {
        if let Some(io) = c.downcast_ref::<std::io::Error>() {
            if io.kind() == std::io::ErrorKind::AlreadyExists {
                return true;
            }
        }
        cause = c.source();
    }
    false
}

/// The first ref lock file in `git_dir`: `packed-refs.lock`, `HEAD.lock`, then any
/// `*.lock` under `refs/` (listed only on this error path).
pub(crate) fn find_ref_lock(git_dir: &Path) -> Option<PathBuf> {
    for name in ["packed-refs.lock", "HEAD.lock", "FETCH_HEAD.lock"] {
        let p = git_dir.join(name);
        if p.is_file() {
            return Some(p);
        }
    }
    let mut stack = vec![git_dir.join("refs")];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut entries: Vec<_> = entries.flatten().collect();
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            if kind.is_dir() {
                stack.push(path);
            } else if kind.is_file() && path.extension().is_some_and(|x| x == "lock") {
                return Some(path);
            }
        }
    }
    None
}

/// Who holds `lock`: the assetvc process of the owner note when the lock was made while
/// the note existed (not before it), else unknown.
pub(crate) fn holder(git_dir: &Path, lock: &Path) -> LockHolder {
    let note = owner_path(git_dir);
    let Some(pid) = std::fs::read_to_string(&note)
        .ok()
        .and_then(|s| s.trim().parse::<u32>().ok())
    else {
        return LockHolder::Unknown;
    };
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    match (modified(&note), modified(lock)) {
        (Some(noted), Some(locked)) if locked >= noted => {
            if pid != std::process::id() && !process_alive(pid) {
                LockHolder::Gone(pid)
            } else {
                LockHolder::Running(pid)
            }
        }
        _ => LockHolder::Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lock_left_by_git_or_by_a_killed_assetvc_is_found_and_told_apart() {
        let dir = tempfile::tempdir().unwrap();
        let git = dir.path();
        std::fs::create_dir_all(git.join("refs/heads/team")).unwrap();
        assert_eq!(find_ref_lock(git), None);
        let branch = git.join("refs/heads/team/main.lock");
        std::fs::write(&branch, "").unwrap();
        assert_eq!(find_ref_lock(git), Some(branch.clone()));
        assert_eq!(holder(git, &branch), LockHolder::Unknown);
        let packed = git.join("packed-refs.lock");
        std::fs::write(&packed, "").unwrap();
        assert_eq!(find_ref_lock(git), Some(packed.clone()));

        // A note of a process that no longer exists, written before the lock was made.
        std::fs::create_dir_all(git.join("assetvc")).unwrap();
        let old = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
        std::fs::write(owner_path(git), format!("{}\n", u32::MAX - 1)).unwrap();
        std::fs::File::options()
            .write(true)
            .open(owner_path(git))
            .unwrap()
            .set_modified(old)
            .unwrap();
        if cfg!(target_os = "linux") {
            assert_eq!(holder(git, &packed), LockHolder::Gone(u32::MAX - 1));
        }
        // A lock older than the note was not made under it.
        std::fs::File::options()
            .write(true)
            .open(&packed)
            .unwrap()
            .set_modified(old - std::time::Duration::from_secs(60))
            .unwrap();
        assert_eq!(holder(git, &packed), LockHolder::Unknown);
        // This process, still running.
        std::fs::write(owner_path(git), format!("{}\n", std::process::id())).unwrap();
        std::fs::write(&packed, "").unwrap();
        let h = holder(git, &packed);
        assert_eq!(h, LockHolder::Running(std::process::id()));
        assert!(h.to_string().contains("still running"));
    }
}
