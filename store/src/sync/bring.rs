//! Bringing the upstream into the branch and the worktree by structure, the uncommitted
//! asset edits being "ours" — `git pull --autostash` without conflict markers, ever.
//!
//! Only a fast-forward moves the branch: with local commits not yet pushed, nothing is
//! merged or committed (the branch has diverged; the work in progress is still shared).
//! The branch moves to the upstream U; the worktree gets the merge of the WIP commit (HEAD
//! and the edits) and U, whose merge base is HEAD, the person at the keyboard winning every
//! true conflict (those stay *pending*: the local value in the worktree, uncommitted, on
//! top of U); the index gets U's tree, so the edits stay uncommitted. The branch and HEAD
//! the WIP was recorded on are checked again under the index lock: if either moved,
//! nothing is changed. Every file is written compare-and-swap: one typed into since sync
//! read it is left alone, and then nothing else moves either (the next cycle merges it).

use gix::bstr::ByteSlice;
use gix::index::entry::Stat;
use gix::ObjectId;
use merge::Policy;

use super::Wip;
use crate::error::{Error, Result};
use crate::treemerge::{merge_commits, AssetRules, MergedFile, Unresolved};
use crate::worktree::{self, diff_indexes};
use crate::Repo;
use crate::{head_journal, repo};

/// Why the upstream was not brought in: the branch, HEAD and the index did not move.
#[derive(Debug, Clone)]
pub enum Postponed {
    /// Paths that cannot be merged automatically (a side that does not parse yet, policy
    /// `fail` meeting a conflict, a tree conflict…).
    Unresolved(Vec<Unresolved>),
    /// The branch has commits the upstream does not have: sync merges and commits nothing
    /// on its own (push, or `assetvc pull`).
    Diverged {
        /// HEAD.
        head: ObjectId,
        /// The upstream commit.
        upstream: ObjectId,
    },
    /// Files changed on disk while sync was writing them (an editor saved them): they were
    /// left as saved, the branch, HEAD and the index did not move, and the next cycle
    /// merges again. The files already written hold the merge's content.
    ChangedWhileWriting(Vec<String>),
}

/// What [`Repo::bring_upstream`](crate::Repo::bring_upstream) did.
#[derive(Debug, Clone)]
pub enum Brought {
    /// HEAD already contains the upstream.
    UpToDate,
    /// The branch fast-forwarded to `new_head` and the worktree got the upstream's
    /// changes, the uncommitted edits kept.
    Merged {
        /// HEAD before.
        from: ObjectId,
        /// HEAD now: the upstream.
        new_head: ObjectId,
        /// Assets merged by structure (the uncommitted edits with the upstream). Their
        /// conflicts were all resolved for the local value, which is what the worktree
        /// holds: they are pending, the upstream's value one `resolve --take upstream` away.
        files: Vec<MergedFile>,
        /// The commits each file of `files` was merged from, in the same order: (ours =
        /// the WIP commit, theirs = the upstream), so that the three versions of a conflict
        /// can be read back.
        sides: Vec<(ObjectId, ObjectId)>,
        /// The paths whose file sync rewrote or removed (an editor reloads them).
        changed: Vec<String>,
        /// When a conflict touched the uncommitted edits: the ref that also keeps them as
        /// they were before the merge (the WIP commit).
        saved: Option<String>,
    },
    /// Nothing was changed, and why.
    Postponed(Postponed),
}

impl Brought {
    /// The number of pending conflicts (local value kept over the upstream's).
    pub fn pending(&self) -> usize {
        match self {
            Brought::Merged { files, .. } => files.iter().map(|f| f.conflicts.len()).sum(),
            _ => 0,
        }
    }
}

impl Repo {
    /// Fast-forwards `branch` to `upstream` and merges the upstream into the worktree,
    /// keeping the uncommitted edits that `wip` recorded on `branch` and the local value of
    /// every true conflict (see the module documentation). Refuses, changing nothing, when
    /// a merge is in progress, the index holds unmerged paths or staged changes the WIP
    /// does not carry, HEAD or the checked-out branch moved since `wip` was recorded;
    /// postpones, changing nothing, when the branch has diverged or a file changed while
    /// it was being written.
    pub fn bring_upstream(
        &self,
        branch: &str,
        wip: &Wip,
        upstream: ObjectId,
        upstream_label: &str,
        rules: &AssetRules,
    ) -> Result<Brought> {
        let repo = &self.git;
        let head = wip.head;
        refuse_if_moved(repo, branch, head)?;
        let Some(base) = repo.merge_base(head, upstream)?.map(|b| b.detach()) else {
            return Err(Error::Usage(format!(
                "refusing to merge unrelated histories ({upstream_label} shares no commit with HEAD)"
            )));
        };
        if base == upstream {
            return Ok(Brought::UpToDate);
        }
        if base != head {
            return Ok(Brought::Postponed(Postponed::Diverged { head, upstream }));
        }
        if repo.state().is_some() {
            return Err(Error::Refused {
                message: "a merge, rebase or similar is in progress: finish it before syncing"
                    .into(),
                paths: Vec::new(),
            });
        }
        // git's discipline: the index lock first, the index and HEAD read under it.
        let lock = worktree::IndexLock::acquire(repo)?;
        refuse_if_moved(repo, branch, head)?;
        let index = lock.index().clone();
        let staged = carried_staged_changes(repo, wip, &index, rules)?;
        // The worktree gets the edits merged onto the upstream, the local value winning.
        let new_head = upstream;
        let new_tree = repo::tree_of(repo, Some(new_head))?;
        let (worktree_tree, files, sides) = if wip.is_clean() {
            (new_tree, Vec::new(), Vec::new())
        } else {
            let local_wins = rules.with_options(merge::MergeOptions {
                policy: Policy::Ours,
                ..rules.options.clone()
            });
            let labels = ("your uncommitted edits", upstream_label);
            let merged = merge_commits(repo, wip.commit, new_head, labels, &local_wins)?;
            if !merged.unresolved.is_empty() {
                return Ok(Brought::Postponed(Postponed::Unresolved(merged.unresolved)));
            }
            let sides = vec![(wip.commit, new_head); merged.files.len()];
            (merged.tree, merged.files, sides)
        };
        let (before, after) = (
            repo.index_from_tree(&wip.tree)?,
            repo.index_from_tree(&worktree_tree)?,
        );
        let changed: Vec<String> = diff_indexes(&before, &after)
            .iter()
            .map(|c| c.path.to_str_lossy().into_owned())
            .collect();
        let reflog = format!("assetvc sync: fast-forward to {upstream_label}");
        let trees = (new_tree, worktree_tree);
        let left_alone =
            write_worktree_and_head(repo, lock, wip, (&index, &staged), trees, new_head, &reflog)?;
        if !left_alone.is_empty() {
            return Ok(Brought::Postponed(Postponed::ChangedWhileWriting(
                left_alone,
            )));
        }
        let saved = if files.iter().any(|f| !f.conflicts.is_empty()) {
            let name = format!("{SAVED_PREFIX}{branch}");
            save_edits(repo, &name, wip.commit)?;
            Some(name)
        } else {
            None
        };
        Ok(Brought::Merged {
            from: head,
            new_head,
            files,
            sides,
            changed,
            saved,
        })
    }
}

/// Refuses (nothing changed) when the checked-out branch is no longer `branch` or HEAD is
/// no longer `head`, the commit the WIP was recorded on.
fn refuse_if_moved(repo: &gix::Repository, branch: &str, head: ObjectId) -> Result<()> {
    if repo::current_branch(repo)?.as_deref() != Some(branch) {
        return Err(Error::Refused {
            message: format!(
                "the branch was switched from {branch} while syncing; nothing was changed, \
                 the next cycle syncs the branch checked out"
            ),
            paths: Vec::new(),
        });
    }
    if repo::head_commit(repo)? != Some(head) {
        return Err(Error::Refused {
            message: "HEAD moved while syncing; nothing was changed, the next cycle will catch up"
                .into(),
            paths: Vec::new(),
        });
    }
    Ok(())
}

/// The changes staged in `index` against HEAD (the WIP's head tree). Refuses when the
/// index holds unmerged paths, or staged changes the WIP does not carry (deletions, files
/// that are not assets); staged assets are in the WIP and stay staged.
fn carried_staged_changes(
    repo: &gix::Repository,
    wip: &Wip,
    index: &gix::index::File,
    rules: &AssetRules,
) -> Result<Vec<worktree::PathChange>> {
    let unmerged = worktree::unmerged_paths(index);
    if !unmerged.is_empty() {
        return Err(Error::Refused {
            message: "you have unmerged paths; resolve them and commit first".into(),
            paths: unmerged,
        });
    }
    let head_index = repo.index_from_tree(&wip.head_tree)?;
    let staged = diff_indexes(&head_index, index);
    let not_carried: Vec<String> = staged
        .iter()
        .filter(|c| c.new.is_none() || rules.dialect_of(&c.path.to_str_lossy()).is_none())
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
    Ok(staged)
}

/// Writes the worktree (`trees.1`; the writer checks each path against what the WIP
/// recorded, compare-and-swap), the index (the new tip's tree `trees.0`, with the staged
/// assets kept) and moves HEAD from the WIP's head to `new_head`, all under `lock`. When
/// some file changed while it was being written, it is left alone and neither the index
/// nor HEAD moves (the lock is dropped): the paths left alone.
fn write_worktree_and_head(
    repo: &gix::Repository,
    mut lock: worktree::IndexLock,
    wip: &Wip,
    (index, staged): (&gix::index::File, &[worktree::PathChange]),
    (new_tree, worktree_tree): (ObjectId, ObjectId),
    new_head: ObjectId,
    reflog: &str,
) -> Result<Vec<String>> {
    let recorded = recorded_index(index, wip);
    let recorded_state = repo.index_from_tree(&wip.tree)?;
    let worktree_target = repo.index_from_tree(&worktree_tree)?;
    let mut target = repo.index_from_tree(&new_tree)?;
    keep_staged(&mut target, staged)?;
    let head_move = head_journal::HeadMove {
        old: wip.head,
        new: new_head,
        conflicted: false,
    };
    head_journal::begin(repo, head_move)?;
    // Nothing moves when a file was saved meanwhile: the journal goes with it.
    let nothing_moved = |paths: Vec<String>| head_journal::finish(repo).map(|()| paths);
    let done = match worktree::checkout_against(
        repo,
        &recorded,
        &recorded_state,
        &worktree_target,
        target,
    ) {
        Ok(done) => done,
        // Files saved since the WIP read them: nothing was written, nothing moves.
        Err(Error::Refused { paths, .. }) if !paths.is_empty() => return nothing_moved(paths),
        Err(e) => return Err(e),
    };
    if !done.left_alone.is_empty() {
        return nothing_moved(done.left_alone);
    }
    // The edits the merge started from must still be on disk: one saved since (or read
    // half-written by an editor that writes in place) was merged from stale content.
    let stale = stale_edits(repo, wip, &worktree_target, &recorded)?;
    if !stale.is_empty() {
        return nothing_moved(stale);
    }
    let mut written = done.index;
    // Paths whose file is not the index's content must not look clean to git.
    fix_stat(&mut written, &worktree_target);
    lock.stage(&mut written)?;
    // The index first, HEAD last (issue #30 item 1).
    head_journal::commit_then_move_head(repo, lock, head_move, reflog)?;
    Ok(Vec::new())
}

/// The paths the WIP recorded as edited whose file no longer holds what the worktree was
/// given (`worktree`): the WIP's content where sync wrote nothing, the merge where it did.
fn stale_edits(
    repo: &gix::Repository,
    wip: &Wip,
    worktree: &gix::index::State,
    index: &gix::index::State,
) -> Result<Vec<String>> {
    let mut wt = worktree::Worktree::new(repo)?;
    let exec_bit = repo.filesystem_options()?.executable_bit;
    let mut stale = Vec::new();
    for (path, _) in &wip.edits {
        let on_disk = wt.probe(path.as_bstr(), index)?;
        let holds = match worktree.entry_by_path(path.as_bstr()) {
            Some(e) => on_disk.is(&e.id, e.mode, exec_bit),
            None => on_disk == worktree::OnDisk::Missing,
        };
        if !holds {
            stale.push(path.to_str_lossy().into_owned());
        }
    }
    Ok(stale)
}

/// `index` as the WIP recorded the worktree: each edited path's entry holds what the WIP
/// saw (no stat, so nothing looks clean), deleted paths are gone.
fn recorded_index(index: &gix::index::File, wip: &Wip) -> gix::index::File {
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
    recorded
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
    let edit = RefEdit {
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
    };
    crate::ref_lock::guarded(repo, || repo.edit_reference(edit))?;
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
