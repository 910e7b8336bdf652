//! Recording the worktree's uncommitted asset edits as a WIP commit, without touching
//! HEAD, the index or the worktree.

use gix::bstr::{BString, ByteSlice};
use gix::index::entry::{Mode, Stage};
use gix::ObjectId;
use sjson::{Dialect, Document, ParseError, ParseOptions};

use crate::commit::entry_kind;
use crate::error::{Error, Result};
use crate::repo;
use crate::treemerge::current_index;
use crate::worktree::{OnDisk, Worktree};
use crate::Repo;

/// A recorded WIP commit.
#[derive(Debug, Clone)]
pub struct Wip {
    /// The WIP commit: parent HEAD, tree HEAD's tree with the asset files as on disk.
    pub commit: ObjectId,
    /// HEAD when it was recorded.
    pub head: ObjectId,
    /// HEAD's tree.
    pub head_tree: ObjectId,
    /// The WIP commit's tree.
    pub tree: ObjectId,
    /// Assets whose content differs from HEAD's, with their content in the WIP (`None`:
    /// deleted), in path order.
    pub(crate) edits: Vec<(BString, Option<(ObjectId, Mode)>)>,
    /// Edited assets that do not parse (yet): carried in the WIP as they are.
    pub unparsable: Vec<(String, ParseError)>,
    /// Whether a new commit was written (false: the ref already held the same edits).
    pub is_new: bool,
}

impl Wip {
    /// Whether the worktree holds no uncommitted asset edit.
    pub fn is_clean(&self) -> bool {
        self.edits.is_empty()
    }

    /// How many assets are edited.
    pub fn edit_count(&self) -> usize {
        self.edits.len()
    }

    /// The edited assets' paths (lossily decoded if not UTF-8), in path order.
    pub fn edited_paths(&self) -> Vec<String> {
        self.edits
            .iter()
            .map(|(path, _)| path.to_str_lossy().into_owned())
            .collect()
    }
}

impl Repo {
    /// Records the asset edits of the worktree (tracked assets, staged or not, as they are on
    /// disk) as a commit whose parent is HEAD, and points `refname` at it. The commit is
    /// reused when `refname` already holds the same tree on the same parent. Blobs of edited
    /// files are written to the object database, as `git add` would; HEAD, the index and the
    /// worktree are left alone. `user` signs the commit. With `refname` `None` no ref is read
    /// or written (`who` computes the local user's edits this way, in an in-memory object
    /// database).
    pub fn record_wip(
        &self,
        dialect_of: &dyn Fn(&str) -> Option<Dialect>,
        refname: Option<&str>,
        user: &str,
    ) -> Result<Wip> {
        let repo = &self.git;
        // A sync or merge killed midway is finished first (issue #30 item 1).
        crate::head_journal::resume(repo)?;
        let head = repo::head_commit(repo)?.ok_or_else(|| {
            Error::Usage("nothing is committed yet: commit once, then sync".into())
        })?;
        let head_tree = repo::tree_of(repo, Some(head))?;
        let (edits, unparsable) = asset_edits(repo, head_tree, dialect_of)?;
        let tree = edited_tree(repo, head_tree, &edits)?;
        let recorded = match refname {
            Some(name) => recorded_already(repo, name, head, tree)?,
            None => None,
        };
        let (commit, is_new) = match recorded {
            Some(commit) => (commit, false),
            None => {
                let commit = write_wip_commit(repo, tree, head, user, edits.len())?;
                if let Some(name) = refname {
                    set_ref(repo, name, commit, "assetvc sync: record work in progress")?;
                }
                (commit, true)
            }
        };
        Ok(Wip {
            commit,
            head,
            head_tree,
            tree,
            edits,
            unparsable,
            is_new,
        })
    }
}

/// A path and its entry now (`None`: deleted).
type AssetEdit = (BString, Option<(ObjectId, Mode)>);

/// Edited assets that do not parse, with why.
type Unparsable = Vec<(String, ParseError)>;

/// The asset edits of the worktree against HEAD's tree `head_tree` (tracked assets, staged
/// or not, as they are on disk; assets deleted with `git rm`), their blobs written to the
/// object database; and the edited assets that do not parse, with why.
fn asset_edits(
    repo: &gix::Repository,
    head_tree: ObjectId,
    dialect_of: &dyn Fn(&str) -> Option<Dialect>,
) -> Result<(Vec<AssetEdit>, Unparsable)> {
    let index = current_index(repo)?;
    let head_index = repo.index_from_tree(&head_tree)?;
    let mut wt = Worktree::new(repo)?;
    let mut edits = Vec::new();
    let mut unparsable = Vec::new();
    for entry in index.entries() {
        if entry.stage() != Stage::Unconflicted {
            continue;
        }
        let rela = entry.path(&index);
        let path = rela.to_str_lossy();
        let Some(dialect) = dialect_of(&path) else {
            continue;
        };
        let now = if wt.is_unchanged(rela, entry, &index)? {
            Some((entry.id, entry.mode))
        } else {
            wt.add(rela, &index)?.map(|(id, mode, _)| (id, mode))
        };
        let before = head_index.entry_by_path(rela).map(|e| (e.id, e.mode));
        if now == before {
            continue;
        }
        if let Some((id, _)) = now {
            let data = repo.find_blob(id)?.take_data();
            if let Err(e) = Document::parse_bytes(data, ParseOptions::new(dialect)) {
                unparsable.push((path.into_owned(), e));
            }
        }
        edits.push((rela.to_owned(), now));
    }
    // Assets deleted with `git rm`: in HEAD, neither in the index nor on disk.
    for entry in head_index.entries() {
        let rela = entry.path(&head_index);
        if index.entry_by_path(rela).is_some() || dialect_of(&rela.to_str_lossy()).is_none() {
            continue;
        }
        if wt.probe(rela, &index)? == OnDisk::Missing {
            edits.push((rela.to_owned(), None));
        }
    }
    Ok((edits, unparsable))
}

/// `head_tree` with `edits` applied, written to the object database.
fn edited_tree(
    repo: &gix::Repository,
    head_tree: ObjectId,
    edits: &[AssetEdit],
) -> Result<ObjectId> {
    if edits.is_empty() {
        return Ok(head_tree);
    }
    let mut editor = repo.edit_tree(head_tree)?;
    for (path, now) in edits {
        match now {
            Some((id, mode)) => {
                editor.upsert(path.as_bstr(), entry_kind(*mode), *id)?;
            }
            None => {
                editor.remove(path.as_bstr())?;
            }
        }
    }
    Ok(editor.write()?.detach())
}

/// The WIP commit `refname` holds, when it already records `tree` on parent `head`.
fn recorded_already(
    repo: &gix::Repository,
    refname: &str,
    head: ObjectId,
    tree: ObjectId,
) -> Result<Option<ObjectId>> {
    let previous = repo
        .try_find_reference(refname)
        .map_err(Error::git)?
        .and_then(|mut r| r.peel_to_id().ok().map(|id| id.detach()))
        .and_then(|id| repo.find_commit(id).ok());
    Ok(previous.and_then(|prev| {
        let same_parent = prev.parent_ids().map(|p| p.detach()).eq([head]);
        let same_tree = prev.tree_id().map(|t| t.detach()).ok() == Some(tree);
        (same_parent && same_tree).then_some(prev.id)
    }))
}

fn write_wip_commit(
    repo: &gix::Repository,
    tree: ObjectId,
    head: ObjectId,
    user: &str,
    edited: usize,
) -> Result<ObjectId> {
    let signature = gix::actor::Signature {
        name: user.into(),
        email: user.into(),
        time: gix::date::Time::now_utc(),
    };
    let commit = gix::objs::Commit {
        tree,
        parents: [head].into_iter().collect(),
        author: signature.clone(),
        committer: signature,
        encoding: None,
        message: format!(
            "assetvc work in progress of {user}: {edited} asset{} edited\n",
            if edited == 1 { "" } else { "s" }
        )
        .into(),
        extra_headers: Vec::new(),
    };
    Ok(repo.write_object(&commit)?.detach())
}

/// Points `refname` at `id`, whatever it held (the WIP refs are private to their user).
pub(super) fn set_ref(
    repo: &gix::Repository,
    refname: &str,
    id: ObjectId,
    log: &str,
) -> Result<()> {
    crate::ref_lock::guarded(repo, || {
        repo.reference(refname, id, gix::refs::transaction::PreviousValue::Any, log)
    })?;
    Ok(())
}
