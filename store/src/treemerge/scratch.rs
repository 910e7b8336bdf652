//! The scratch directory of one `git merge-tree` run: `$GIT_COMMON_DIR/assetvc/merge-tree-XXXXXX`,
//! whose `objects/` receives every object git writes (its merged trees and subtrees, the
//! blobs of its content merges, a virtual merge base) and the attribute tree given to
//! `--attr-source`. The repository's object directory is git's alternate there, so git
//! reads everything it needs and writes nothing into the repository: the merge then copies
//! into the repository only the objects its result reaches (`persist`), and the directory is
//! removed when the [`Scratch`] is dropped. The same directory serves as the private git
//! directory when `info/attributes` must be left out (`isolate.rs`).
//!
//! A process killed mid-merge leaves its directory behind. Each directory holds a `lock`
//! file its process keeps locked (`flock`) while it lives; the next merge removes every
//! `merge-tree-*` directory whose lock it can take (its owner is gone) or that has no lock
//! file (a kill between creating it and locking it, or an older assetvc). Creating and
//! locking a directory, and looking for stale ones, happen under `assetvc/merge-tree.lock`,
//! so a directory is never seen between the two. Without `flock` (not Linux), a directory
//! is stale once it is a day old.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Command;

use gix::ObjectId;

use crate::error::{Error, Result};

/// The prefix of scratch directories' names.
const PREFIX: &str = "merge-tree-";

/// The scratch directory of one merge (removed when dropped).
pub(super) struct Scratch {
    /// The directory (dropped, so removed, before `_lock` is released).
    dir: tempfile::TempDir,
    /// Its `lock` file, locked while this process lives.
    _lock: File,
    /// The repository's object directory (absolute).
    real_objects: PathBuf,
}

impl Scratch {
    /// Removes the stale scratch directories of `repo`, then creates one.
    pub(super) fn new(repo: &gix::Repository) -> Result<Scratch> {
        let common = repo.common_dir();
        let parent = common.join("assetvc");
        std::fs::create_dir_all(&parent).map_err(|e| io(&parent, e))?;
        let guard_path = parent.join("merge-tree.lock");
        let guard = open_lock(&guard_path, true)?;
        lock::exclusive(&guard).map_err(|e| io(&guard_path, e))?;
        remove_stale(&parent);
        let dir = tempfile::Builder::new()
            .prefix(PREFIX)
            .tempdir_in(&parent)
            .map_err(|e| io(&parent, e))?;
        let lock_path = dir.path().join("lock");
        let held = open_lock(&lock_path, true)?;
        lock::exclusive(&held).map_err(|e| io(&lock_path, e))?;
        drop(guard);
        let objects = dir.path().join("objects");
        std::fs::create_dir_all(objects.join("info")).map_err(|e| io(&objects, e))?;
        let real_objects = std::env::var_os("GIT_OBJECT_DIRECTORY")
            .map(PathBuf::from)
            .unwrap_or_else(|| common.join("objects"));
        Ok(Scratch {
            dir,
            _lock: held,
            real_objects: absolute(&real_objects),
        })
    }

    /// The directory.
    pub(super) fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The object directory git writes into.
    pub(super) fn objects(&self) -> PathBuf {
        self.dir.path().join("objects")
    }

    /// Makes `cmd` (a git command) write its objects here and read the repository's:
    /// `GIT_OBJECT_DIRECTORY` and `GIT_ALTERNATE_OBJECT_DIRECTORIES` (the repository's
    /// objects first, then any alternates already in the environment).
    pub(super) fn apply(&self, cmd: &mut Command) -> Result<()> {
        let mut alternates = vec![self.real_objects.clone()];
        if let Some(more) = std::env::var_os("GIT_ALTERNATE_OBJECT_DIRECTORIES") {
            alternates.extend(std::env::split_paths(&more));
        }
        let joined = std::env::join_paths(&alternates)
            .map_err(|e| Error::git_in("git merge-tree", e.to_string()))?;
        cmd.env("GIT_OBJECT_DIRECTORY", self.objects())
            .env("GIT_ALTERNATE_OBJECT_DIRECTORIES", joined);
        Ok(())
    }

    /// The object store of the directory, to write the attribute tree into and to read
    /// what git wrote.
    pub(super) fn store(&self, hash: gix::hash::Kind) -> gix::odb::loose::Store {
        gix::odb::loose::Store::at(self.objects(), hash)
    }

    /// Copies every object git wrote here into the object memory of `repo` (a merge
    /// repository, [`super::merge_repo`]), where the merge reads them.
    pub(super) fn load_into(&self, repo: &gix::Repository) -> Result<()> {
        use gix::objs::Write as _;
        let store = self.store(repo.object_hash());
        let mut buf = Vec::new();
        let ids: Vec<ObjectId> = store.iter().filter_map(|id| id.ok()).collect();
        for id in ids {
            let found = store.try_find(&id, &mut buf).map_err(Error::git)?;
            if let Some(data) = found {
                repo.objects.write_buf(data.kind, data.data)?;
            }
        }
        Ok(())
    }
}

fn io(path: &Path, e: std::io::Error) -> Error {
    Error::io(path.display().to_string(), e)
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

fn open_lock(path: &Path, create: bool) -> Result<File> {
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(create)
        .truncate(false)
        .open(path)
        .map_err(|e| io(path, e))
}

/// Removes the scratch directories in `parent` whose process is gone (best effort: one
/// that cannot be removed now is tried again next time).
fn remove_stale(parent: &Path) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let is_scratch = name.to_str().is_some_and(|n| n.starts_with(PREFIX))
            && entry.file_type().is_ok_and(|t| t.is_dir());
        if is_scratch && is_stale(&entry.path()) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Whether the scratch directory `dir` belongs to no living merge.
fn is_stale(dir: &Path) -> bool {
    let Ok(file) = open_lock(&dir.join("lock"), false) else {
        // Created under the guard with its lock file: without one, its process was killed
        // in between (or it predates the lock files).
        return true;
    };
    lock::owner_gone(&file, dir)
}

#[cfg(target_os = "linux")]
mod lock {
    use std::fs::File;
    use std::path::Path;

    use rustix::fs::{flock, FlockOperation};

    /// Waits for an exclusive lock on `file` (released when it is closed).
    pub(super) fn exclusive(file: &File) -> std::io::Result<()> {
        flock(file, FlockOperation::LockExclusive).map_err(std::io::Error::from)
    }

    /// Whether nobody holds `file`'s lock (the lock taken is released when it is closed).
    pub(super) fn owner_gone(file: &File, _dir: &Path) -> bool {
        flock(file, FlockOperation::NonBlockingLockExclusive).is_ok()
    }
}

#[cfg(not(target_os = "linux"))]
mod lock {
    use std::fs::File;
    use std::path::Path;
    use std::time::{Duration, SystemTime};

    /// No `flock` here: directories are told stale by their age alone.
    pub(super) fn exclusive(_file: &File) -> std::io::Result<()> {
        Ok(())
    }

    /// Whether `dir` is older than any merge runs: a day.
    pub(super) fn owner_gone(_file: &File, dir: &Path) -> bool {
        let modified = std::fs::metadata(dir).and_then(|m| m.modified());
        modified.is_ok_and(|at| {
            SystemTime::now()
                .duration_since(at)
                .is_ok_and(|age| age > Duration::from_secs(24 * 3600))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_git::git;

    fn scratch_dirs(repo: &gix::Repository) -> Vec<String> {
        let parent = repo.common_dir().join("assetvc");
        let mut names: Vec<String> = std::fs::read_dir(parent)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(PREFIX))
            .collect();
        names.sort();
        names
    }

    #[test]
    #[cfg(target_os = "linux")] // elsewhere, a day's age tells a stale directory
    fn a_dead_merges_directory_goes_and_a_living_ones_stays() {
        let tmp = tempfile::tempdir().unwrap();
        git(tmp.path(), &["init", "-q", "-b", "main"]);
        let repo = gix::open(tmp.path()).unwrap();
        let parent = repo.common_dir().join("assetvc");
        // Left by a killed merge: an unlocked lock file; by an older assetvc: none.
        for (name, lock) in [("merge-tree-killed", true), ("merge-tree-old", false)] {
            let dir = parent.join(name);
            std::fs::create_dir_all(dir.join("objects/ab")).unwrap();
            std::fs::write(dir.join("objects/ab/cdef"), "x").unwrap();
            if lock {
                std::fs::write(dir.join("lock"), "").unwrap();
            }
        }
        std::fs::create_dir_all(parent.join("other")).unwrap();
        let living = Scratch::new(&repo).unwrap();
        let own = living
            .path()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        assert_eq!(scratch_dirs(&repo), [own], "the stale ones are gone");
        assert!(parent.join("other").is_dir(), "only scratch directories go");
        // A second merge while the first lives leaves the first's directory alone.
        let second = Scratch::new(&repo).unwrap();
        assert_eq!(scratch_dirs(&repo).len(), 2);
        assert!(living.path().is_dir());
        drop(second);
        drop(living);
        assert!(scratch_dirs(&repo).is_empty(), "removed when dropped");
    }
}
