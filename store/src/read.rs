//! Reading revisions for `assetvc diff`, `apply` and `demo`: blobs at revisions, and
//! the paths that differ between two revisions or between a revision and the worktree.
//! Nothing here writes to the repository.

use std::collections::{BTreeMap, BTreeSet};

use gix::bstr::ByteSlice;
use gix::ObjectId;

use crate::error::{Error, GitContext, Result};
use crate::Repo;

/// The tree of a revision, resolved once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TreeId(gix::ObjectId);

impl std::fmt::Display for TreeId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl Repo {
    /// Whether `rev` names a commit or tree.
    pub fn is_revision(&self, rev: &str) -> bool {
        self.tree(rev).is_ok()
    }

    /// The tree of revision `rev` (a commit, tag or tree).
    pub fn tree(&self, rev: &str) -> Result<TreeId> {
        let unknown = || Error::UnknownRevision(rev.to_string());
        let id = self
            .git
            .rev_parse_single(rev.as_bytes().as_bstr())
            .map_err(|_| unknown())?;
        let tree = id
            .object()
            .map_err(|_| unknown())?
            .peel_to_tree()
            .map_err(|_| unknown())?;
        Ok(TreeId(tree.id))
    }

    /// The tree of commit `commit`.
    pub fn commit_tree(&self, commit: ObjectId) -> Result<TreeId> {
        Ok(TreeId(self.tree_of(Some(commit))?))
    }

    /// The content of the blob at `path` (relative to the repository root, `/`-separated)
    /// in revision `rev`; `None` if there is no file at that path.
    pub fn blob_at(&self, rev: &str, path: &str) -> Result<Option<Vec<u8>>> {
        let tree = self.tree(rev)?;
        self.blob_in(tree, path)
    }

    /// The content of the blob at `path` in `tree`; `None` if there is no file there.
    pub fn blob_in(&self, tree: TreeId, path: &str) -> Result<Option<Vec<u8>>> {
        let tree_obj = self
            .git
            .find_object(tree.0)
            .git_err(format!("reading tree {tree}"))?
            .into_tree();
        let entry = tree_obj
            .lookup_entry(path.split('/').map(str::as_bytes))
            .git_err(format!("looking up {path}"))?;
        let Some(entry) = entry else {
            return Ok(None);
        };
        if !entry.mode().is_blob_or_symlink() {
            return Ok(None);
        }
        let blob = entry.object().git_err(format!("reading {path}"))?;
        Ok(Some(blob.detach().data))
    }

    /// The file at `path` in the worktree; `None` if it does not exist.
    pub fn worktree_file(&self, path: &str) -> Result<Option<Vec<u8>>> {
        let root = self.worktree_root()?;
        match std::fs::read(root.join(path)) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) if e.kind() == std::io::ErrorKind::IsADirectory => Ok(None),
            Err(e) => Err(Error::io(format!("reading {path}"), e)),
        }
    }

    /// Every file of `tree` (blobs and symlinks) with its id, by path.
    fn files(&self, tree: TreeId) -> Result<BTreeMap<String, gix::ObjectId>> {
        let tree_obj = self
            .git
            .find_object(tree.0)
            .git_err(format!("reading tree {tree}"))?
            .into_tree();
        let entries = tree_obj
            .traverse()
            .breadthfirst
            .files()
            .git_err(format!("listing tree {tree}"))?;
        Ok(entries
            .into_iter()
            .filter(|e| e.mode.is_blob_or_symlink())
            .map(|e| (e.filepath.to_str_lossy().into_owned(), e.oid))
            .collect())
    }

    /// The paths whose content differs between revision `a` and revision `b`, or, when
    /// `b` is `None`, between `a` and the worktree (tracked files, as `git diff A` sees
    /// them: staged or not, deleted or added to the index). Sorted, without renames.
    pub fn changed_paths(&self, a: &str, b: Option<&str>) -> Result<Vec<String>> {
        let tree_a = self.tree(a)?;
        match b {
            Some(b) => {
                let tree_b = self.tree(b)?;
                self.changed_between(tree_a, tree_b)
            }
            None => self.changed_in_worktree(tree_a),
        }
    }

    /// The paths whose content differs between two trees.
    pub fn changed_between(&self, a: TreeId, b: TreeId) -> Result<Vec<String>> {
        if a == b {
            return Ok(Vec::new());
        }
        let (fa, fb) = (self.files(a)?, self.files(b)?);
        let mut out: BTreeSet<String> = BTreeSet::new();
        for (path, id) in &fa {
            if fb.get(path) != Some(id) {
                out.insert(path.clone());
            }
        }
        for path in fb.keys() {
            if !fa.contains_key(path) {
                out.insert(path.clone());
            }
        }
        Ok(out.into_iter().collect())
    }

    /// The tracked paths whose worktree content differs from `tree`: the tree against
    /// the index, and the index against the worktree (untracked files are not looked at).
    pub fn changed_in_worktree(&self, tree: TreeId) -> Result<Vec<String>> {
        use gix::status::index_worktree::Item as Iw;
        use gix::status::plumbing::index_as_worktree::EntryStatus;

        self.worktree_root()?;
        let status = self
            .git
            .status(gix::progress::Discard)
            .git_err("status")?
            .untracked_files(gix::status::UntrackedFiles::None)
            .index_worktree_submodules(gix::status::Submodule::Given {
                ignore: gix::submodule::config::Ignore::All,
                check_dirty: false,
            })
            .index_worktree_rewrites(None)
            .tree_index_track_renames(gix::status::tree_index::TrackRenames::Disabled)
            .head_tree(tree.0)
            .into_iter(None)
            .git_err("status")?;
        let mut out: BTreeSet<String> = BTreeSet::new();
        for item in status {
            let item = item.git_err("status")?;
            match &item {
                gix::status::Item::TreeIndex(_) => {}
                gix::status::Item::IndexWorktree(Iw::Modification { status, .. }) => {
                    if matches!(status, EntryStatus::NeedsUpdate(_)) {
                        continue;
                    }
                }
                gix::status::Item::IndexWorktree(Iw::Rewrite { source, .. }) => {
                    out.insert(source.rela_path().to_str_lossy().into_owned());
                }
                gix::status::Item::IndexWorktree(Iw::DirectoryContents { .. }) => continue,
            }
            out.insert(item.location().to_str_lossy().into_owned());
        }
        Ok(out.into_iter().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_git::git;

    #[test]
    fn reads_blobs_and_changed_paths() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        git(dir, &["init", "-q", "-b", "main"]);
        std::fs::create_dir(dir.join("levels")).unwrap();
        std::fs::write(dir.join("levels/a.level"), "a = 1\n").unwrap();
        std::fs::write(dir.join("b.txt"), "b\n").unwrap();
        std::fs::write(dir.join("c.txt"), "c\n").unwrap();
        git(dir, &["add", "."]);
        git(dir, &["commit", "-q", "-m", "one"]);
        std::fs::write(dir.join("levels/a.level"), "a = 2\n").unwrap();
        std::fs::remove_file(dir.join("c.txt")).unwrap();
        std::fs::write(dir.join("d.txt"), "d\n").unwrap();
        git(dir, &["add", "-A"]);
        git(dir, &["commit", "-q", "-m", "two"]);

        let repo = Repo::discover(&dir.join("levels")).unwrap();
        assert_eq!(
            repo.blob_at("HEAD~1", "levels/a.level").unwrap().as_deref(),
            Some(&b"a = 1\n"[..])
        );
        assert_eq!(repo.blob_at("HEAD", "c.txt").unwrap(), None);
        assert_eq!(repo.blob_at("HEAD", "levels").unwrap(), None);
        assert!(matches!(
            repo.blob_at("nope", "b.txt"),
            Err(Error::UnknownRevision(_))
        ));
        assert!(repo.is_revision("main") && !repo.is_revision("b.txt"));
        assert_eq!(
            repo.changed_paths("HEAD~1", Some("HEAD")).unwrap(),
            ["c.txt", "d.txt", "levels/a.level"]
        );
        assert!(repo.changed_paths("HEAD", None).unwrap().is_empty());

        // Worktree: one staged change, one unstaged, one deletion; untracked ignored.
        std::fs::write(dir.join("b.txt"), "b2\n").unwrap();
        std::fs::write(dir.join("levels/a.level"), "a = 3\n").unwrap();
        git(dir, &["add", "levels/a.level"]);
        std::fs::remove_file(dir.join("d.txt")).unwrap();
        std::fs::write(dir.join("new.txt"), "untracked\n").unwrap();
        let repo = Repo::discover(dir).unwrap();
        assert_eq!(
            repo.changed_paths("HEAD", None).unwrap(),
            ["b.txt", "d.txt", "levels/a.level"]
        );
        // d.txt is in neither HEAD~1 nor the worktree, but in the index: listed, and
        // callers find no content on either side.
        assert_eq!(
            repo.changed_paths("HEAD~1", None).unwrap(),
            ["b.txt", "c.txt", "d.txt", "levels/a.level"]
        );
        assert_eq!(repo.worktree_file("d.txt").unwrap(), None);
        assert!(Repo::discover(&std::env::temp_dir().join("surely-not-a-repo-x")).is_err());
    }
}
