//! What a push brings in, read from a pre-receive hook inside git's quarantine (see
//! [`Repo::open_quarantine`]): the tips of existing refs, the commits a push adds, the
//! blobs that changed, the tree entries git would refuse to check out.

use std::collections::HashMap;

use gix::bstr::ByteSlice;
use gix::ObjectId;

use crate::error::{BoxError, Error, GitContext, Result};
use crate::Repo;

fn object_error(id: ObjectId, source: impl Into<BoxError>) -> Error {
    Error::Object {
        id,
        source: source.into(),
    }
}

/// A blob at a path that a change brought in, with the blob it replaced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// The path in the tree (`/`-separated; lossily decoded if not UTF-8).
    pub path: String,
    /// The new blob.
    pub id: ObjectId,
    /// The blob at the same path before, if it was one.
    pub base: Option<ObjectId>,
}

/// What a ref update's new value names, after peeling tags.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A commit (possibly through one or more annotated tags).
    Commit(ObjectId),
    /// A tree or a blob (a tag may name one): no history to check.
    Other {
        /// The object after peeling.
        id: ObjectId,
        /// `tree` or `blob`.
        kind: String,
    },
}

/// A commit's tree, parents and first message line.
#[derive(Debug, Clone)]
pub struct CommitInfo {
    /// The commit.
    pub id: ObjectId,
    /// Its tree.
    pub tree: ObjectId,
    /// Its parents, in order.
    pub parents: Vec<ObjectId>,
    /// The first line of its message.
    pub summary: String,
}

/// A tree entry that git would refuse to check out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnsafeEntry {
    /// Its path from the root tree.
    pub path: String,
    /// Why it is refused.
    pub reason: String,
}

impl Repo {
    /// The commit that `id` names, peeling annotated tags.
    pub fn peel(&self, id: ObjectId) -> Result<Target> {
        let object = self
            .git
            .find_object(id)
            .map_err(|e| object_error(id, e))?
            .peel_tags_to_end()
            .map_err(|e| object_error(id, e))?;
        Ok(match object.kind {
            gix::object::Kind::Commit => Target::Commit(object.id),
            kind => Target::Other {
                id: object.id,
                kind: kind.to_string(),
            },
        })
    }

    /// The commits that the existing references name (tags peeled; references to
    /// trees or blobs left out): the history a push is measured against.
    pub fn ref_tips(&self) -> Result<Vec<ObjectId>> {
        let refs = "cannot list references";
        let platform = self.git.references().git_err(refs)?;
        let mut tips = Vec::new();
        for r in platform.all().git_err(refs)? {
            let mut r = r.git_err(refs)?;
            let Ok(id) = r.peel_to_id() else {
                continue; // a dangling symbolic ref (an unborn HEAD)
            };
            if let Ok(Target::Commit(c)) = self.peel(id.detach()) {
                tips.push(c);
            }
        }
        tips.sort();
        tips.dedup();
        Ok(tips)
    }

    /// The commits reachable from `tip` but from none of `hidden`.
    pub fn new_commits(&self, tip: ObjectId, hidden: &[ObjectId]) -> Result<Vec<ObjectId>> {
        let walk_error = || format!("cannot walk the history of {tip}");
        let walk = self
            .git
            .rev_walk([tip])
            .with_hidden(hidden.iter().copied())
            .all()
            .git_err(walk_error())?;
        let mut out = Vec::new();
        for info in walk {
            out.push(info.git_err(walk_error())?.id);
        }
        Ok(out)
    }

    /// A commit's tree, parents and summary.
    pub fn commit_info(&self, id: ObjectId) -> Result<CommitInfo> {
        let commit = self.git.find_commit(id).map_err(|e| object_error(id, e))?;
        let tree = commit.tree_id().map_err(|e| object_error(id, e))?.detach();
        let parents = commit.parent_ids().map(|p| p.detach()).collect();
        let summary = commit
            .message_raw()
            .map(|m| {
                m.lines()
                    .next()
                    .unwrap_or_default()
                    .to_str_lossy()
                    .into_owned()
            })
            .unwrap_or_default();
        Ok(CommitInfo {
            id,
            tree,
            parents,
            summary,
        })
    }

    /// The blobs (regular or executable files) added or modified from tree `old`
    /// (`None`: the empty tree) to tree `new`; renames count as additions.
    pub fn diff_trees(&self, old: Option<ObjectId>, new: ObjectId) -> Result<Vec<Change>> {
        let hash = self.git.object_hash();
        let tree_data = |id: ObjectId| -> Result<Vec<u8>> {
            let object = self.git.find_object(id).map_err(|e| object_error(id, e))?;
            if object.kind != gix::object::Kind::Tree {
                return Err(object_error(id, format!("a {}, not a tree", object.kind)));
            }
            Ok(object.detach().data)
        };
        let old_data = match old {
            Some(id) => tree_data(id)?,
            None => Vec::new(),
        };
        let new_data = tree_data(new)?;
        let mut recorder = gix::diff::tree::Recorder::default();
        gix::diff::tree(
            gix::objs::TreeRefIter::from_bytes(&old_data, hash),
            gix::objs::TreeRefIter::from_bytes(&new_data, hash),
            gix::diff::tree::State::default(),
            &self.git.objects,
            &mut recorder,
        )
        .map_err(|e| object_error(new, e))?;
        let mut out = Vec::new();
        for change in recorder.records {
            use gix::diff::tree::recorder::Change as C;
            match change {
                C::Addition {
                    entry_mode,
                    oid,
                    path,
                    ..
                } if entry_mode.is_blob() => out.push(Change {
                    path: path.to_str_lossy().into_owned(),
                    id: oid,
                    base: None,
                }),
                C::Modification {
                    previous_entry_mode,
                    previous_oid,
                    entry_mode,
                    oid,
                    path,
                } if entry_mode.is_blob() => out.push(Change {
                    path: path.to_str_lossy().into_owned(),
                    id: oid,
                    base: previous_entry_mode.is_blob().then_some(previous_oid),
                }),
                _ => {}
            }
        }
        Ok(out)
    }

    /// The entries of tree `root` and its subtrees that git would refuse to check out (`git
    /// fsck` flags them): a `.git` component in any spelling, `.`/`..`, a name given twice
    /// in one tree (a symlink and a folder of one name lead writes through the link). Each
    /// tree object is examined once; `checked` holds the ids already examined.
    pub fn unsafe_entries(
        &self,
        root: ObjectId,
        checked: &mut std::collections::HashSet<ObjectId>,
    ) -> Result<Vec<UnsafeEntry>> {
        let mut out = Vec::new();
        let mut stack = vec![(root, String::new())];
        while let Some((id, prefix)) = stack.pop() {
            if !checked.insert(id) {
                continue;
            }
            let object = self.git.find_object(id).map_err(|e| object_error(id, e))?;
            if object.kind != gix::object::Kind::Tree {
                return Err(object_error(id, format!("a {}, not a tree", object.kind)));
            }
            let tree = gix::objs::TreeRef::from_bytes(&object.data, self.git.object_hash())
                .map_err(|e| object_error(id, e))?;
            let mut names = std::collections::HashSet::new();
            for entry in &tree.entries {
                let path = format!("{prefix}{}", entry.filename.to_str_lossy());
                let mode = if entry.mode.is_link() {
                    gix::index::entry::Mode::SYMLINK
                } else {
                    gix::index::entry::Mode::FILE
                };
                if let Some(reason) = crate::worktree::path_problem(entry.filename, mode) {
                    out.push(UnsafeEntry { path, reason });
                    continue;
                }
                if !names.insert(entry.filename) {
                    out.push(UnsafeEntry {
                        path,
                        reason: "the tree holds this name twice (git fsck: duplicateEntries)"
                            .into(),
                    });
                    continue;
                }
                if entry.mode.is_tree() {
                    stack.push((entry.oid.to_owned(), format!("{path}/")));
                }
            }
        }
        Ok(out)
    }

    /// The blobs commit `id` introduces: those that differ from every parent (all of
    /// a root commit's blobs). Content a merge takes unchanged from one parent is
    /// not the merge's own; its base is the first parent's blob.
    pub fn introduced(&self, info: &CommitInfo) -> Result<Vec<Change>> {
        let Some((first, others)) = info.parents.split_first() else {
            return self.diff_trees(None, info.tree);
        };
        let first_tree = self.commit_info(*first)?.tree;
        let mut changes = self.diff_trees(Some(first_tree), info.tree)?;
        for parent in others {
            let tree = self.commit_info(*parent)?.tree;
            let differs: HashMap<String, ObjectId> = self
                .diff_trees(Some(tree), info.tree)?
                .into_iter()
                .map(|c| (c.path, c.id))
                .collect();
            changes.retain(|c| differs.get(&c.path) == Some(&c.id));
        }
        Ok(changes)
    }
}
