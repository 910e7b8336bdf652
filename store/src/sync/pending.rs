//! Who made the upstream value of a pending conflict: the author of the newest upstream
//! commit that changed the file.

use gix::ObjectId;

use crate::error::{Error, Result};
use crate::Repo;

/// How many upstream commits are looked at, newest first, before giving up.
const LOOK_BACK: usize = 200;

impl Repo {
    /// The author name of the newest commit reachable from `upstream` but not from `from`
    /// that changed `path` (its blob differs from its first parent's); `None` when none of
    /// the newest commits did.
    pub fn upstream_author(
        &self,
        from: ObjectId,
        upstream: ObjectId,
        path: &str,
    ) -> Result<Option<String>> {
        let repo = &self.git;
        let walk = repo
            .rev_walk([upstream])
            .with_hidden([from])
            .all()
            .map_err(Error::git)?;
        let entry = |tree: ObjectId| -> Result<Option<ObjectId>> {
            let tree = repo.find_tree(tree)?;
            Ok(tree.lookup_entry_by_path(path)?.map(|e| e.object_id()))
        };
        for info in walk.take(LOOK_BACK) {
            let info = info.map_err(Error::git)?;
            let commit = repo.find_commit(info.id)?;
            let tree = commit.tree_id().map_err(Error::git)?.detach();
            let parent_entry = match commit.parent_ids().next() {
                Some(p) => entry(crate::repo::tree_of(repo, Some(p.detach()))?)?,
                None => None,
            };
            if entry(tree)? != parent_entry {
                let author = commit.author().map_err(Error::git)?;
                return Ok(Some(author.name.to_string()));
            }
        }
        Ok(None)
    }
}
