//! What a commit would record: the index's staged blobs that differ from `HEAD`, read
//! for the pre-commit hook. `GIT_INDEX_FILE` is honoured, so `git commit -a` and
//! `git commit PATH…` (which stage into a temporary index) are checked as committed.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use gix::bstr::{BString, ByteSlice};

use crate::server::{trusted_assetvc_config, Change, ConfigEntry, Error, ObjectId, Readers};

/// A repository with a worktree and an index, opened where git runs its client hooks.
pub struct StagedRepo {
    shared: gix::ThreadSafeRepository,
    repo: gix::Repository,
}

impl StagedRepo {
    /// Opens the repository containing `dir`, honouring `GIT_DIR` and `GIT_INDEX_FILE`
    /// as git sets them for hooks.
    pub fn discover(dir: &Path) -> Result<StagedRepo, Error> {
        let shared =
            gix::ThreadSafeRepository::discover_with_environment_overrides(dir).map_err(|e| {
                Error::Open {
                    path: dir.to_path_buf(),
                    message: e.to_string(),
                }
            })?;
        let repo = shared.to_thread_local();
        Ok(StagedRepo { shared, repo })
    }

    /// The worktree's root, if the repository has one.
    pub fn workdir(&self) -> Option<PathBuf> {
        self.repo.workdir().map(Path::to_path_buf)
    }

    /// The git directory.
    pub fn git_dir(&self) -> &Path {
        self.repo.git_dir()
    }

    /// Blob readers for worker threads.
    pub fn readers(&self) -> Readers {
        Readers {
            repo: self.shared.clone(),
        }
    }

    /// The trusted `assetvc.*` git config entries (system, global, this repository's).
    pub fn assetvc_config(&self) -> Vec<ConfigEntry> {
        trusted_assetvc_config(&self.repo)
    }

    /// The staged blobs (regular or executable files, unconflicted, not intent-to-add)
    /// whose content differs from `HEAD`'s at the same path, with `HEAD`'s blob as the
    /// base. An unborn `HEAD` is the empty tree.
    pub fn changes(&self) -> Result<Vec<Change>, Error> {
        let index_error = |e: &dyn std::fmt::Display| Error::Index(e.to_string());
        let index = self.repo.open_index().map_err(|e| index_error(&e))?;
        let head_tree = self
            .repo
            .head_tree_id_or_empty()
            .map_err(|e| index_error(&e))?
            .detach();
        let head: HashMap<BString, (ObjectId, bool)> = self
            .repo
            .index_from_tree(&head_tree)
            .map_err(|e| index_error(&e))?
            .entries_with_paths_by_filter_map(|_, entry| Some((entry.id, is_file(entry.mode))))
            .map(|(path, v)| (path.to_owned(), v))
            .collect();
        let mut out = Vec::new();
        for entry in index.entries() {
            if entry.stage() != gix::index::entry::Stage::Unconflicted
                || entry
                    .flags
                    .contains(gix::index::entry::Flags::INTENT_TO_ADD)
                || !is_file(entry.mode)
            {
                continue;
            }
            let path = entry.path(&index);
            let base = match head.get(path) {
                Some((id, _)) if *id == entry.id => continue,
                Some((id, true)) => Some(*id),
                _ => None,
            };
            out.push(Change {
                path: path.to_str_lossy().into_owned(),
                id: entry.id,
                base,
            });
        }
        Ok(out)
    }
}

impl StagedRepo {
    /// The paths of every entry of the index (what the commit's tree will hold).
    pub fn staged_paths(&self) -> Result<std::collections::HashSet<String>, Error> {
        let index = self
            .repo
            .open_index()
            .map_err(|e| Error::Index(e.to_string()))?;
        Ok(index
            .entries()
            .iter()
            .map(|e| e.path(&index).to_str_lossy().into_owned())
            .collect())
    }
}

fn is_file(mode: gix::index::entry::Mode) -> bool {
    mode == gix::index::entry::Mode::FILE || mode == gix::index::entry::Mode::FILE_EXECUTABLE
}

/// The trusted `assetvc.*` git config of the repository containing `dir`, or nothing
/// when `dir` is in no repository.
pub fn trusted_config(dir: &Path) -> Vec<ConfigEntry> {
    match StagedRepo::discover(dir) {
        Ok(repo) => repo.assetvc_config(),
        Err(_) => Vec::new(),
    }
}
