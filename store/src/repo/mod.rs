//! [`Repo`]: the one repository handle — opened in a worktree, a bare repository, or a
//! pre-receive quarantine — with the operations every command starts with (revisions,
//! `HEAD`, the branch). The other modules add their operations in `impl Repo` blocks.

mod paths;
mod quarantine;

use std::path::Path;

use gix::bstr::ByteSlice;
use gix::ObjectId;

use crate::error::{Error, Result};

pub use paths::rela_path;
pub(crate) use paths::{ancestors, rela_bpath, to_path, worktree_path};
pub use quarantine::ObjectDirs;

/// A repository. Cheap to open and `Send`; it is not `Sync` (one per thread; blob readers
/// for worker threads come from [`Repo::readers`]).
pub struct Repo {
    /// The shareable handle (what worker threads open their own handles from).
    pub(crate) shared: gix::ThreadSafeRepository,
    /// This thread's handle.
    pub(crate) git: gix::Repository,
}

impl Repo {
    fn from_shared(shared: gix::ThreadSafeRepository) -> Repo {
        let git = shared.to_thread_local();
        Repo { shared, git }
    }

    /// Opens the repository containing `dir` (searching upwards), honouring `GIT_DIR`,
    /// `GIT_INDEX_FILE` and the other variables git sets when it runs hooks and drivers.
    /// A bare repository is opened too; see [`Repo::worktree_root`].
    pub fn discover(dir: &Path) -> Result<Repo> {
        let shared =
            gix::ThreadSafeRepository::discover_with_environment_overrides(dir).map_err(|e| {
                Error::NotARepository {
                    path: dir.to_path_buf(),
                    source: e.into(),
                }
            })?;
        Ok(Repo::from_shared(shared))
    }

    /// Opens the repository containing `dir`, like [`Repo::discover`], and checks that it
    /// has a worktree ([`Error::Bare`] otherwise).
    pub fn discover_worktree(dir: &Path) -> Result<Repo> {
        let repo = Repo::discover(dir)?;
        repo.worktree_root()?;
        Ok(repo)
    }

    /// Opens the repository whose git directory is exactly `git_dir` (a bare repository on
    /// a server), without looking at the environment.
    pub fn open_bare(git_dir: &Path) -> Result<Repo> {
        let shared = gix::ThreadSafeRepository::open_opts(git_dir, gix::open::Options::default())
            .map_err(|e| Error::NotARepository {
            path: git_dir.to_path_buf(),
            source: e.into(),
        })?;
        Ok(Repo::from_shared(shared))
    }

    /// A copy of this handle whose object writes stay in memory: what it records is
    /// readable through it, and nothing reaches the repository (`assetvc who`).
    pub fn in_memory(&self) -> Repo {
        Repo {
            shared: self.shared.clone(),
            git: self.git.clone().with_object_memory(),
        }
    }

    /// The paths with conflict stages in the index (unmerged).
    pub fn unmerged_paths(&self) -> Result<Vec<String>> {
        let index = crate::treemerge::current_index(&self.git)?;
        Ok(crate::worktree::unmerged_paths(&index))
    }

    /// This thread's gix handle, for the modules of this crate.
    pub(crate) fn gix(&self) -> &gix::Repository {
        &self.git
    }

    /// The worktree's root, if the repository has one.
    pub fn workdir(&self) -> Option<&Path> {
        self.git.workdir()
    }

    /// The worktree's root; [`Error::Bare`] for a bare repository.
    pub fn worktree_root(&self) -> Result<&Path> {
        self.git
            .workdir()
            .ok_or_else(|| Error::Bare(self.git.git_dir().to_path_buf()))
    }

    /// The git directory (`.git`, or a linked worktree's own directory).
    pub fn git_dir(&self) -> &Path {
        self.git.git_dir()
    }

    /// The git directory shared by every worktree (where refs, objects and config live).
    pub fn common_dir(&self) -> &Path {
        self.git.common_dir()
    }

    /// Whether the repository has no worktree.
    pub fn is_bare(&self) -> bool {
        self.git.workdir().is_none()
    }

    /// Whether the object database holds object `id`.
    pub fn has_object(&self, id: ObjectId) -> bool {
        self.git.has_object(id)
    }

    /// Whether reference `name` (`refs/heads/main`) exists.
    pub fn has_reference(&self, name: &str) -> bool {
        self.git.try_find_reference(name).ok().flatten().is_some()
    }

    /// Whether `name` is a configured remote.
    pub fn has_remote(&self, name: &str) -> bool {
        self.git.try_find_remote(name).is_some()
    }

    /// The commit `spec` names (`main`, `origin/main`, `HEAD~2`, an id…).
    pub fn resolve_commit(&self, spec: &str) -> Result<ObjectId> {
        resolve_commit(&self.git, spec)
    }

    /// The current commit, or `None` on an unborn branch.
    pub fn head_commit(&self) -> Result<Option<ObjectId>> {
        head_commit(&self.git)
    }

    /// The tree of `commit`, or the empty tree for `None`.
    pub fn tree_of(&self, commit: Option<ObjectId>) -> Result<ObjectId> {
        tree_of(&self.git, commit)
    }

    /// The short name of the checked-out branch (`main`), or `None` when HEAD is detached.
    pub fn current_branch(&self) -> Result<Option<String>> {
        current_branch(&self.git)
    }
}

/// The commit `spec` names.
pub(crate) fn resolve_commit(repo: &gix::Repository, spec: &str) -> Result<ObjectId> {
    let id = repo
        .rev_parse_single(spec)
        .map_err(|_| Error::UnknownRevision(spec.to_string()))?;
    let object = id
        .object()
        .map_err(|_| Error::UnknownRevision(spec.to_string()))?;
    let commit = object
        .peel_to_commit()
        .map_err(|_| Error::UnknownRevision(format!("{spec} (not a commit)")))?;
    Ok(commit.id)
}

/// The current commit, or `None` on an unborn branch.
pub(crate) fn head_commit(repo: &gix::Repository) -> Result<Option<ObjectId>> {
    let head = repo.head()?;
    Ok(head.id().map(|id| id.detach()))
}

/// The tree of `commit`, or the empty tree for `None`.
pub(crate) fn tree_of(repo: &gix::Repository, commit: Option<ObjectId>) -> Result<ObjectId> {
    match commit {
        Some(id) => Ok(repo.find_commit(id)?.tree_id()?.detach()),
        None => Ok(ObjectId::empty_tree(repo.object_hash())),
    }
}

/// The short name of the checked-out branch.
pub(crate) fn current_branch(repo: &gix::Repository) -> Result<Option<String>> {
    Ok(repo
        .head_name()?
        .map(|name| name.shorten().to_str_lossy().into_owned()))
}
