//! What a commit would record: the index's staged blobs that differ from `HEAD`, read
//! for the pre-commit hook. `GIT_INDEX_FILE` is honoured, so `git commit -a` and
//! `git commit PATH…` (which stage into a temporary index) are checked as committed.

use std::collections::HashMap;

use gix::bstr::{BString, ByteSlice};

use gix::ObjectId;

use crate::error::{GitContext, Result};
use crate::{Change, Repo};

const INDEX: &str = "cannot read the index";

impl Repo {
    /// The staged blobs (regular or executable files, unconflicted, not intent-to-add)
    /// whose content differs from `HEAD`'s at the same path, with `HEAD`'s blob as the
    /// base. An unborn `HEAD` is the empty tree.
    pub fn staged_changes(&self) -> Result<Vec<Change>> {
        let index = self.git.open_index().git_err(INDEX)?;
        let head_tree = self.git.head_tree_id_or_empty().git_err(INDEX)?.detach();
        let head: HashMap<BString, (ObjectId, bool)> = self
            .git
            .index_from_tree(&head_tree)
            .git_err(INDEX)?
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
    /// The paths of every entry of the index (what the commit's tree will hold).
    pub fn staged_paths(&self) -> Result<std::collections::HashSet<String>> {
        let index = self.git.open_index().git_err(INDEX)?;
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
