//! Whether a recorded `git merge` or `git pull` landed: `git merge --abort` (or a reset)
//! undoes a merge after the driver recorded its steps, and `assetvc conflicts --all` must
//! not report it as if it were in the history.

use gix::ObjectId;

use super::{Operation, OperationKind};
use crate::Repo;

impl Repo {
    /// Whether `operation` is a `git merge`/`git pull` that was undone: not in progress
    /// (its commits are not in `MERGE_HEAD`) and its merged commits are not all in HEAD's
    /// history. Other operations, and merges whose commits are unknown here, are not.
    pub fn merge_undone(&self, operation: &Operation) -> bool {
        if !matches!(operation.kind, OperationKind::Merge | OperationKind::Pull) {
            return false;
        }
        // The key is `KIND ORIG_HEAD OID...` (operation.rs).
        let merged: Vec<ObjectId> = operation
            .key
            .split_whitespace()
            .skip(2)
            .filter_map(|hex| ObjectId::from_hex(hex.as_bytes()).ok())
            .collect();
        if merged.is_empty() || merged.iter().any(|id| !self.git.has_object(id)) {
            return false;
        }
        let in_progress = std::fs::read_to_string(self.git_dir().join("MERGE_HEAD"))
            .unwrap_or_default()
            .split_whitespace()
            .filter_map(|line| ObjectId::from_hex(line.as_bytes()).ok())
            .any(|id| merged.contains(&id));
        if in_progress {
            return false;
        }
        let Ok(Some(head)) = self.head_commit() else {
            return true;
        };
        !merged.iter().all(|id| {
            *id == head
                || self
                    .git
                    .merge_base(*id, head)
                    .is_ok_and(|base| base.is_some_and(|b| b.detach() == *id))
        })
    }
}
