//! The three versions of a file merged in memory (`assetvc merge`, `assetvc pull`), read
//! from the commits, for the journal.

use gix::ObjectId;

use super::Versions;
use crate::error::Result;
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
        let base = self
            .git
            .merge_base(ours, theirs)
            .ok()
            .flatten()
            .map(|id| id.detach());
        self.versions_in((base, ours, theirs), paths)
    }
}
