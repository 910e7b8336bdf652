//! Opening the repository and resolving revisions.

use std::path::{Path, PathBuf};

use gix::bstr::{BStr, BString, ByteSlice};
use gix::ObjectId;

use crate::error::{Error, Result};

/// Opens the repository containing `dir`, honouring `GIT_DIR` and the other variables git
/// sets when it runs hooks and drivers.
pub fn open(dir: &Path) -> Result<gix::Repository> {
    let repo = gix::ThreadSafeRepository::discover_with_environment_overrides(dir)
        .map_err(|_| Error::NotARepository(dir.to_path_buf()))?
        .to_thread_local();
    Ok(repo)
}

/// Opens the repository containing `dir` and checks that it has a worktree.
pub fn open_worktree(dir: &Path) -> Result<(gix::Repository, PathBuf)> {
    let repo = open(dir)?;
    let root = repo
        .workdir()
        .map(Path::to_path_buf)
        .ok_or_else(|| Error::Bare(repo.git_dir().to_path_buf()))?;
    Ok((repo, root))
}

/// The commit `spec` names (`main`, `origin/main`, `HEAD~2`, an id…).
pub fn resolve_commit(repo: &gix::Repository, spec: &str) -> Result<ObjectId> {
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
pub fn head_commit(repo: &gix::Repository) -> Result<Option<ObjectId>> {
    let head = repo.head()?;
    Ok(head.id().map(|id| id.detach()))
}

/// The tree of `commit`, or the empty tree for `None`.
pub fn tree_of(repo: &gix::Repository, commit: Option<ObjectId>) -> Result<ObjectId> {
    match commit {
        Some(id) => Ok(repo.find_commit(id)?.tree_id()?.detach()),
        None => Ok(ObjectId::empty_tree(repo.object_hash())),
    }
}

/// The short name of the checked-out branch (`main`), or `None` when HEAD is detached.
pub fn current_branch(repo: &gix::Repository) -> Result<Option<String>> {
    Ok(repo
        .head_name()?
        .map(|name| name.shorten().to_str_lossy().into_owned()))
}

/// A repository-relative path as git writes it (`/`-separated) from a path on disk,
/// absolute or relative to the current directory. `None` if it is outside `root`.
pub fn rela_path(root: &Path, path: &Path) -> Option<BString> {
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().ok()?.join(path)
    };
    let abs = normalize(&abs);
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    // Canonicalize the deepest existing ancestor so that symlinked temp dirs compare equal.
    let mut existing = abs.clone();
    let mut rest = Vec::new();
    while !existing.exists() {
        rest.push(existing.file_name()?.to_os_string());
        if !existing.pop() {
            return None;
        }
    }
    let mut full = existing.canonicalize().ok()?;
    for part in rest.iter().rev() {
        full.push(part);
    }
    let rel = full.strip_prefix(&root).ok()?;
    let mut out = BString::default();
    for (i, c) in rel.components().enumerate() {
        if i > 0 {
            out.push(b'/');
        }
        let part = c.as_os_str().to_string_lossy();
        out.extend_from_slice(part.as_bytes());
    }
    Some(out)
}

/// Removes `.` and resolves `..` lexically.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// A repository-relative path as a file system path under `root`.
pub fn worktree_path(root: &Path, rela: &BStr) -> PathBuf {
    root.join(to_path(rela))
}

/// A `/`-separated repository path as a relative file system path.
pub fn to_path(rela: &BStr) -> PathBuf {
    gix::path::from_bstr(rela)
        .map(|p| p.into_owned())
        .unwrap_or_else(|_| PathBuf::from(rela.to_str_lossy().as_ref()))
}
