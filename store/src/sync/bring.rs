//! Bringing the upstream into the branch and the worktree by structure, the uncommitted
//! asset edits being "ours" — `git pull --autostash` without conflict markers, ever.
//!
//! The new branch tip M is the upstream (a fast-forward) or the merge of HEAD and the
//! upstream; the worktree gets the merge of the WIP commit (HEAD + the edits) and M, whose
//! merge base is HEAD; the index gets M's tree, so the edits stay uncommitted. Every
//! written path is first checked by the worktree writer to hold what the WIP recorded:
//! a file typed into since is never overwritten (the cycle is abandoned and retried).

use gix::bstr::ByteSlice;
use gix::index::entry::Stat;
use gix::ObjectId;

use super::Wip;
use crate::error::{Error, Result};
use crate::repo;
use crate::treemerge::{
    conflict_lines, merge_commits, update_head, AssetRules, MergedFile, Unresolved,
};
use crate::worktree::{self, diff_indexes};
use crate::Repo;

/// Why the upstream was not brought in; nothing was changed.
#[derive(Debug, Clone)]
pub enum Postponed {
    /// Paths that cannot be merged automatically (a side that does not parse yet, policy
    /// `fail` meeting a conflict, a tree conflict…).
    Unresolved(Vec<Unresolved>),
}

/// What [`Repo::bring_upstream`](crate::Repo::bring_upstream) did.
#[derive(Debug, Clone)]
pub enum Brought {
    /// HEAD already contains the upstream.
    UpToDate,
    /// HEAD moved to `new_head` and the worktree got the upstream's changes.
    Merged {
        /// HEAD before.
        from: ObjectId,
        /// HEAD now: the upstream (fast-forward) or a merge commit.
        new_head: ObjectId,
        /// Whether HEAD fast-forwarded.
        fast_forward: bool,
        /// Assets merged by structure (between HEAD and the upstream, then between the
        /// uncommitted edits and the result), with the conflicts resolved by policy.
        files: Vec<MergedFile>,
        /// The commits each file of `files` was merged from, in the same order: (ours,
        /// theirs), so that the three versions of a conflict can be read back.
        sides: Vec<(ObjectId, ObjectId)>,
        /// When a conflict touched the uncommitted edits: the ref that keeps them as they
        /// were before the merge (the WIP commit), so nothing typed is lost.
        saved: Option<String>,
    },
    /// Nothing was changed, and why.
    Postponed(Postponed),
}

impl Repo {
    /// Merges `upstream` into HEAD and the worktree, keeping the uncommitted edits that `wip`
    /// recorded on `branch` (see the module documentation). Refuses, changing nothing, when a merge is in
    /// progress, the index holds unmerged paths or staged changes the WIP does not carry, HEAD moved since `wip` was
    /// recorded, or a file to be written changed since.
    pub fn bring_upstream(
        &self,
        branch: &str,
        wip: &Wip,
        upstream: ObjectId,
        upstream_label: &str,
        rules: &AssetRules<'_>,
    ) -> Result<Brought> {
        let repo = &self.git;
        let head = wip.head;
        if repo::head_commit(repo)? != Some(head) {
            return Err(Error::Refused {
                message: "HEAD moved while syncing; the next cycle will catch up".into(),
                paths: Vec::new(),
            });
        }
        let Some(base) = repo.merge_base(head, upstream)?.map(|b| b.detach()) else {
            return Err(Error::Usage(format!(
                "refusing to merge unrelated histories ({upstream_label} shares no commit with HEAD)"
            )));
        };
        if base == upstream {
            return Ok(Brought::UpToDate);
        }
        if repo.state().is_some() {
            return Err(Error::Refused {
                message: "a merge, rebase or similar is in progress: finish it before syncing"
                    .into(),
                paths: Vec::new(),
            });
        }
        // git's discipline: the index lock first, the index and HEAD read under it.
        let mut lock = worktree::IndexLock::acquire(repo)?;
        if repo::head_commit(repo)? != Some(head) {
            return Err(Error::Refused {
                message: "HEAD moved while syncing; the next cycle will catch up".into(),
                paths: Vec::new(),
            });
        }
        let index = lock.index().clone();
        let unmerged = worktree::unmerged_paths(&index);
        if !unmerged.is_empty() {
            return Err(Error::Refused {
                message: "you have unmerged paths; resolve them and commit first".into(),
                paths: unmerged,
            });
        }
        let head_index = repo.index_from_tree(&wip.head_tree)?;
        // Staged assets (added or modified) are in the WIP and stay staged; anything else
        // staged is not carried by the WIP, and must be committed first.
        let staged = diff_indexes(&head_index, &index);
        let not_carried: Vec<String> = staged
            .iter()
            .filter(|c| c.new.is_none() || (rules.dialect_of)(&c.path.to_str_lossy()).is_none())
            .map(|c| c.path.to_str_lossy().into_owned())
            .collect();
        if !not_carried.is_empty() {
            return Err(Error::Refused {
                message: "you have staged changes that sync does not carry (deletions, files \
                          that are not assets); commit them to let sync merge"
                    .into(),
                paths: not_carried,
            });
        }
        let mut files = Vec::new();
        let mut sides = Vec::new();
        // 1. The new branch tip.
        let fast_forward = base == head;
        let new_head = if fast_forward {
            upstream
        } else {
            let merged = merge_commits(repo, head, upstream, ("HEAD", upstream_label), rules)?;
            if !merged.unresolved.is_empty() {
                return Ok(Brought::Postponed(Postponed::Unresolved(merged.unresolved)));
            }
            let mut message = format!("Merge {upstream_label} (assetvc sync)\n");
            let lines = conflict_lines(&merged.files);
            if !lines.is_empty() {
                message.push_str("\nassetvc resolved these conflicts by policy:\n");
                for line in lines {
                    message.push_str(&line);
                    message.push('\n');
                }
            }
            sides.extend(merged.files.iter().map(|_| (head, upstream)));
            files.extend(merged.files);
            repo.new_commit(message, merged.tree, [head, upstream])?.id
        };
        // 2. What the worktree gets: the edits merged onto the new tip.
        let new_tree = repo::tree_of(repo, Some(new_head))?;
        let mut edits_conflicted = false;
        let worktree_tree = if wip.is_clean() {
            new_tree
        } else {
            let merged = merge_commits(
                repo,
                wip.commit,
                new_head,
                ("your uncommitted edits", upstream_label),
                rules,
            )?;
            if !merged.unresolved.is_empty() {
                return Ok(Brought::Postponed(Postponed::Unresolved(merged.unresolved)));
            }
            edits_conflicted = merged.files.iter().any(|f| !f.conflicts.is_empty());
            sides.extend(merged.files.iter().map(|_| (wip.commit, new_head)));
            files.extend(merged.files);
            merged.tree
        };
        // 3. Worktree and index. The writer checks each path against what the WIP recorded.
        let mut recorded = index.clone();
        for (path, now) in &wip.edits {
            let stage = gix::index::entry::Stage::Unconflicted;
            if let (Some(e), Some((id, mode))) = (
                recorded.entry_mut_by_path_and_stage(path.as_bstr(), stage),
                now,
            ) {
                e.id = *id;
                e.mode = *mode;
                e.stat = Stat::default();
            }
        }
        let deleted: std::collections::HashSet<&[u8]> = wip
            .edits
            .iter()
            .filter(|(_, now)| now.is_none())
            .map(|(path, _)| path.as_slice())
            .collect();
        if !deleted.is_empty() {
            recorded.remove_entries(|_, path, _| deleted.contains(path.as_bytes()));
        }
        let recorded_state = repo.index_from_tree(&wip.tree)?;
        let worktree_target = repo.index_from_tree(&worktree_tree)?;
        let mut target = repo.index_from_tree(&new_tree)?;
        keep_staged(&mut target, &staged)?;
        let mut written =
            worktree::checkout_against(repo, &recorded, &recorded_state, &worktree_target, target)?;
        // Paths whose file is not the index's content must not look clean to git.
        fix_stat(&mut written, &worktree_target);
        lock.stage(&mut written)?;
        update_head(
            repo,
            Some(head),
            new_head,
            &format!(
                "assetvc sync: {} {upstream_label}",
                if fast_forward {
                    "fast-forward to"
                } else {
                    "merge"
                }
            ),
        )?;
        lock.commit()?;
        let saved = if edits_conflicted {
            let name = format!("{SAVED_PREFIX}{branch}");
            save_edits(repo, &name, wip.commit)?;
            Some(name)
        } else {
            None
        };
        Ok(Brought::Merged {
            from: head,
            new_head,
            fast_forward,
            files,
            sides,
            saved,
        })
    }
}

/// Puts the staged asset changes `staged` (against HEAD) into `target`, the index of the
/// new tip; refuses when the upstream changed a staged path too.
fn keep_staged(target: &mut gix::index::File, staged: &[worktree::PathChange]) -> Result<()> {
    let stage = gix::index::entry::Stage::Unconflicted;
    let changed_upstream: Vec<String> = staged
        .iter()
        .filter(|c| {
            target
                .entry_by_path(c.path.as_bstr())
                .map(|e| (e.id, e.mode))
                != c.old
        })
        .map(|c| c.path.to_str_lossy().into_owned())
        .collect();
    if !changed_upstream.is_empty() {
        return Err(Error::Refused {
            message: "the upstream changed files you have staged; commit them to let sync merge"
                .into(),
            paths: changed_upstream,
        });
    }
    let mut added = false;
    for c in staged {
        let Some((id, mode)) = c.new else { continue };
        match target.entry_mut_by_path_and_stage(c.path.as_bstr(), stage) {
            Some(e) => {
                e.id = id;
                e.mode = mode;
                e.stat = Stat::default();
            }
            None => {
                target.dangerously_push_entry(
                    Stat::default(),
                    id,
                    gix::index::entry::Flags::empty(),
                    mode,
                    c.path.as_bstr(),
                );
                added = true;
            }
        }
    }
    if added {
        target.sort_entries();
    }
    Ok(())
}

/// Where the uncommitted edits are kept when a merge resolved a conflict against them:
/// `refs/assetvc/saved/<branch>`, with a reflog of every earlier such version.
pub const SAVED_PREFIX: &str = "refs/assetvc/saved/";

fn save_edits(repo: &gix::Repository, name: &str, wip: ObjectId) -> Result<()> {
    use gix::refs::transaction::{Change, LogChange, PreviousValue, RefEdit, RefLog};
    repo.edit_reference(RefEdit {
        change: Change::Update {
            log: LogChange {
                mode: RefLog::AndReference,
                force_create_reflog: true,
                message: "assetvc sync: uncommitted edits before a conflicting merge".into(),
            },
            expected: PreviousValue::Any,
            new: gix::refs::Target::Object(wip),
        },
        name: name.try_into().map_err(Error::git)?,
        deref: false,
    })?;
    Ok(())
}

/// Clears the stat data of every index entry whose content differs from what the worktree
/// was given, so that git compares those files by content and sees them modified.
fn fix_stat(index: &mut gix::index::File, worktree: &gix::index::State) {
    let (entries, backing) = index.entries_mut_and_pathbacking();
    for e in entries.iter_mut() {
        let path = e.path_in(backing);
        let differs = match worktree.entry_by_path(path) {
            Some(w) => w.id != e.id || w.mode != e.mode,
            None => true,
        };
        if differs {
            e.stat = Stat::default();
        }
    }
}
