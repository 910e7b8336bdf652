//! The three versions of a file merged in memory (`assetvc merge`, `assetvc pull`), read
//! from the commits, for the journal.

use gix::ObjectId;

use super::Versions;
use crate::error::{Error, Result};
use crate::repo;
use crate::Repo;

impl Repo {
    /// The three versions of the merges of `ours` and `theirs` at each of `paths`: the merge
    /// base's (empty when absent or when there is no merge base), ours' and theirs'. A path
    /// missing on a side (a rename) gives `None` for that path.
    pub fn versions_of_merge(
        &self,
        ours: ObjectId,
        theirs: ObjectId,
        paths: &[&str],
    ) -> Result<Vec<Option<Versions>>> {
        let repo = &self.git;
        let base = repo
            .merge_base(ours, theirs)
            .ok()
            .flatten()
            .map(|id| id.detach());
        let trees = [
            base.map(|b| repo::tree_of(repo, Some(b))).transpose()?,
            Some(repo::tree_of(repo, Some(ours))?),
            Some(repo::tree_of(repo, Some(theirs))?),
        ];
        let blob = |tree: Option<ObjectId>, path: &str| -> Result<Option<Vec<u8>>> {
            let Some(tree) = tree else { return Ok(None) };
            let tree = repo.find_tree(tree)?;
            match tree.lookup_entry_by_path(path)? {
                Some(e) if e.mode().is_blob() => Ok(Some(
                    repo.find_blob(e.object_id())
                        .map_err(Error::git)?
                        .take_data(),
                )),
                _ => Ok(None),
            }
        };
        paths
            .iter()
            .map(|path| {
                let (Some(ours), Some(theirs)) = (blob(trees[1], path)?, blob(trees[2], path)?)
                else {
                    return Ok(None);
                };
                Ok(Some(Versions {
                    base: blob(trees[0], path)?.unwrap_or_default(),
                    ours,
                    theirs,
                }))
            })
            .collect()
    }
}
