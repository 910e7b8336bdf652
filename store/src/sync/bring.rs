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
use crate::treemerge::{conflict_lines, merge_commits, AssetRules, MergedFile, Unresolved};
use crate::worktree::{self, diff_indexes};
use crate::Repo;
use crate::{head_journal, repo};

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
        refuse_if_head_moved(repo, head)?;
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
        let lock = worktree::IndexLock::acquire(repo)?;
        refuse_if_head_moved(repo, head)?;
        let index = lock.index().clone();
        let staged = carried_staged_changes(repo, wip, &index, rules)?;
        let mut merged = MergedSoFar::default();
        // 1. The new branch tip.
        let fast_forward = base == head;
        let new_head = if fast_forward {
            upstream
        } else {
            let tip = merged.merge(repo, (head, upstream), ("HEAD", upstream_label), rules)?;
            let tip = match tip {
                Ok(tip) => tip,
                Err(postponed) => return Ok(Brought::Postponed(postponed)),
            };
            let mut message = format!("Merge {upstream_label} (assetvc sync)\n");
            let lines = conflict_lines(&merged.files);
            if !lines.is_empty() {
                message.push_str("\nassetvc resolved these conflicts by policy:\n");
                for line in lines {
                    message.push_str(&line);
                    message.push('\n');
                }
            }
            repo.new_commit(message, tip, [head, upstream])?.id
        };
        // 2. What the worktree gets: the edits merged onto the new tip.
        let new_tree = repo::tree_of(repo, Some(new_head))?;
        let mut edits_conflicted = false;
        let worktree_tree = if wip.is_clean() {
            new_tree
        } else {
            let files_before = merged.files.len();
            let sides = (wip.commit, new_head);
            let labels = ("your uncommitted edits", upstream_label);
            let tree = match merged.merge(repo, sides, labels, rules)? {
                Ok(tree) => tree,
                Err(postponed) => return Ok(Brought::Postponed(postponed)),
            };
            edits_conflicted = merged.files[files_before..]
                .iter()
                .any(|f| !f.conflicts.is_empty());
            tree
        };
        // 3. Worktree, index and HEAD.
        let how = if fast_forward {
            "fast-forward to"
        } else {
            "merge"
        };
        let reflog = format!("assetvc sync: {how} {upstream_label}");
        let trees = (new_tree, worktree_tree);
        write_worktree_and_head(repo, lock, wip, (&index, &staged), trees, new_head, &reflog)?;
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
            files: merged.files,
            sides: merged.sides,
            saved,
        })
    }
}

/// Refuses (nothing changed) when HEAD is no longer `head`, the commit the WIP was
/// recorded on.
fn refuse_if_head_moved(repo: &gix::Repository, head: ObjectId) -> Result<()> {
    if repo::head_commit(repo)? != Some(head) {
        return Err(Error::Refused {
            message: "HEAD moved while syncing; the next cycle will catch up".into(),
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
    rules: &AssetRules<'_>,
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
    Ok(staged)
}

/// The assets merged by the steps of a sync so far, with the commits each was merged
/// from.
#[derive(Default)]
struct MergedSoFar {
    files: Vec<MergedFile>,
    sides: Vec<(ObjectId, ObjectId)>,
}

impl MergedSoFar {
    /// Merges commits `sides` (ours, theirs) in memory: the merged tree, or why not when
    /// some path cannot be merged automatically.
    fn merge(
        &mut self,
        repo: &gix::Repository,
        sides: (ObjectId, ObjectId),
        labels: (&str, &str),
        rules: &AssetRules<'_>,
    ) -> Result<std::result::Result<ObjectId, Postponed>> {
        let merged = merge_commits(repo, sides.0, sides.1, labels, rules)?;
        if !merged.unresolved.is_empty() {
            return Ok(Err(Postponed::Unresolved(merged.unresolved)));
        }
        self.sides.extend(merged.files.iter().map(|_| sides));
        self.files.extend(merged.files);
        Ok(Ok(merged.tree))
    }
}

/// Writes the worktree (`trees.1`; the writer checks each path against what the WIP
/// recorded), the index (the new tip's tree `trees.0`, with the staged assets kept) and
/// moves HEAD from the WIP's head to `new_head`, all under `lock`.
fn write_worktree_and_head(
    repo: &gix::Repository,
    mut lock: worktree::IndexLock,
    wip: &Wip,
    (index, staged): (&gix::index::File, &[worktree::PathChange]),
    (new_tree, worktree_tree): (ObjectId, ObjectId),
    new_head: ObjectId,
    reflog: &str,
) -> Result<()> {
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
    let mut written =
        worktree::checkout_against(repo, &recorded, &recorded_state, &worktree_target, target)?;
    // Paths whose file is not the index's content must not look clean to git.
    fix_stat(&mut written, &worktree_target);
    lock.stage(&mut written)?;
    // The index first, HEAD last (issue #30 item 1).
    head_journal::commit_then_move_head(repo, lock, head_move, reflog)
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
