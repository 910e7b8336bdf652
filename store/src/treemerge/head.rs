//! Merging into HEAD like `git merge`: up to date, fast-forward, or a merge whose result
//! goes to the worktree, the index and a merge commit (or `MERGE_HEAD`/`MERGE_MSG` when
//! paths are left for the user); the merge message; moving HEAD. The tree is merged as
//! the merge strategy merges it (git's merge-ort, `strategy::merge_explicit`), or by gix's
//! tree merge when the installed git is too old for that ([`TreeMerger`]).

use gix::ObjectId;

use super::{merge_commits, AssetRules, MergeTrees, MergedFile, Unresolved};
use crate::error::{Error, Result};
use crate::worktree;
use crate::Repo;
use crate::{failpoint, head_journal, repo};

/// Which tree merge [`Repo::merge_into_head`](crate::Repo::merge_into_head) runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TreeMerger {
    /// git's merge-ort (`git merge-tree --write-tree`, git 2.41 or later), the merge
    /// strategy's: renames, rename/delete, binary files and modes end as `git merge` ends
    /// them.
    GitOrt,
    /// gix's tree merge, in process (any git): renames and binary files may end unlike
    /// `git merge`.
    Gix,
}

/// How a merge into HEAD ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MergeResult {
    /// Theirs is already contained in HEAD.
    UpToDate,
    /// HEAD moved forward to theirs; no commit was made.
    FastForward {
        /// The previous HEAD commit (`None` on an unborn branch).
        from: Option<ObjectId>,
    },
    /// The merge commit was written.
    Merged {
        /// The merge commit.
        commit: ObjectId,
    },
    /// Paths are left for the user: the worktree and index hold the merge in progress,
    /// `MERGE_HEAD` and `MERGE_MSG` are written for `git commit` / `assetvc commit`.
    Conflicted,
}

/// The outcome of [`Repo::merge_into_head`](crate::Repo::merge_into_head).
#[derive(Debug, Clone)]
pub struct MergeReport {
    /// How it ended.
    pub result: MergeResult,
    /// HEAD before the merge.
    pub ours: Option<ObjectId>,
    /// The merged commit.
    pub theirs: ObjectId,
    /// Every asset merged by structure.
    pub files: Vec<MergedFile>,
    /// Paths left for the user.
    pub unresolved: Vec<Unresolved>,
    /// Paths saved (by an editor) while the merge wrote the worktree: left as they were
    /// saved, so they do not hold the merge's content (git shows them modified, the
    /// merge's changes to them undone); compare-and-swap, see `worktree::checkout`.
    pub left_alone: Vec<String>,
    /// The merge commit's message (or `MERGE_MSG`'s).
    pub message: String,
}

/// The lines of a merge message that list the conflicts resolved by policy, objects named
/// the way people do: `level.sjson entities[crate #f341].position: both modified, took theirs`.
pub fn conflict_lines(files: &[MergedFile]) -> Vec<String> {
    files
        .iter()
        .flat_map(|f| (0..f.conflicts.len()).map(move |i| format!("{} {}", f.path, f.line(i))))
        .collect()
}

fn merge_message(
    title: &str,
    files: &[MergedFile],
    unresolved: &[Unresolved],
    policy: merge::Policy,
) -> String {
    let mut message = format!("{title}\n");
    let lines = conflict_lines(files);
    if !lines.is_empty() {
        let n = lines.len();
        message.push_str(&format!(
            "\nassetvc resolved {n} conflict{} by policy {}:\n",
            if n == 1 { "" } else { "s" },
            policy.name()
        ));
        for line in lines {
            message.push_str(&line);
            message.push('\n');
        }
    }
    if !unresolved.is_empty() {
        message.push_str("\n# Conflicts:\n");
        for u in unresolved {
            message.push_str(&format!("#\t{}\n", u.path));
        }
    }
    message
}

impl Repo {
    /// Merges commit `theirs` into HEAD like `git merge`: up to date, fast-forward, or a merge
    /// in memory (structured for assets) whose result goes to the worktree and the index and,
    /// when nothing is left for the user, into a merge commit with two parents whose message
    /// (`title` followed by one line per conflict resolved by policy) lists every automatic
    /// choice. Refuses, changing nothing, when a merge or rebase is in progress, the index has
    /// staged changes, or a local change would be overwritten. `merger` merges the tree.
    pub fn merge_into_head(
        &self,
        theirs: ObjectId,
        theirs_label: &str,
        title: &str,
        rules: &AssetRules,
        merger: TreeMerger,
    ) -> Result<MergeReport> {
        let repo = &self.git;
        if let Some(head_journal::Resumed::Conflicted(merging)) = head_journal::resume(repo)? {
            if merging == theirs {
                return resumed_conflicted(repo, theirs);
            }
        }
        refuse_if_in_progress(repo)?;
        // git's discipline: the index lock first, then the index and HEAD read under it.
        let mut lock = worktree::IndexLock::acquire(repo)?;
        let ours = repo::head_commit(repo)?;
        let policy = rules.options.policy;
        let mut report = MergeReport {
            result: MergeResult::UpToDate,
            ours,
            theirs,
            files: Vec::new(),
            unresolved: Vec::new(),
            left_alone: Vec::new(),
            message: String::new(),
        };
        let head_index = repo.index_from_tree(&repo::tree_of(repo, ours)?)?;
        let Some(ours_id) = ours else {
            // An unborn branch: check theirs out.
            report.left_alone =
                fast_forward(repo, lock, &head_index, (None, theirs), theirs_label)?;
            report.result = MergeResult::FastForward { from: None };
            return Ok(report);
        };
        let base = repo.merge_base(ours_id, theirs)?.map(|id| id.detach());
        match base {
            None => {
                return Err(Error::Usage(format!(
                "refusing to merge unrelated histories ({theirs_label} shares no commit with HEAD)"
            )))
            }
            Some(b) if b == theirs => return Ok(report),
            Some(b) if b == ours_id => {
                report.left_alone = fast_forward(
                    repo,
                    lock,
                    &head_index,
                    (Some(ours_id), theirs),
                    theirs_label,
                )?;
                write_orig_head(repo, ours_id)?;
                report.result = MergeResult::FastForward {
                    from: Some(ours_id),
                };
                return Ok(report);
            }
            Some(_) => {}
        }
        let labels = ("HEAD", theirs_label);
        let merged = match merger {
            TreeMerger::GitOrt => {
                let bases: Vec<ObjectId> = repo
                    .merge_bases_many(ours_id, &[theirs])?
                    .into_iter()
                    .map(|id| id.detach())
                    .collect();
                let trees = MergeTrees {
                    bases: &bases,
                    ours: ours_id,
                    theirs,
                    labels,
                };
                super::strategy::merge_explicit(repo, &trees, rules)?
            }
            TreeMerger::Gix => merge_commits(repo, ours_id, theirs, labels, rules)?,
        };
        let message = merge_message(title, &merged.files, &merged.unresolved, policy);
        let conflicted = !merged.unresolved.is_empty();
        // The commit is written before anything moves, and the move is journaled, so that a
        // kill anywhere leaves a state a rerun finishes (see `head_journal`).
        let new = if conflicted {
            theirs
        } else {
            repo.new_commit(message.as_str(), merged.tree, [ours_id, theirs])?
                .id
        };
        let head_move = head_journal::HeadMove {
            old: ours_id,
            new,
            conflicted,
        };
        head_journal::begin(repo, head_move)?;
        report.left_alone = worktree::checkout(
            repo,
            &mut lock,
            &head_index,
            &merged.worktree_index,
            merged.index,
        )?;
        report.files = merged.files;
        report.unresolved = merged.unresolved;
        write_orig_head(repo, ours_id)?;
        if conflicted {
            write_conflicted_merge(repo, lock, theirs, &message)?;
            report.result = MergeResult::Conflicted;
        } else {
            let reflog = format!("merge {theirs_label}: Merge made by assetvc");
            head_journal::commit_then_move_head(repo, lock, head_move, &reflog)?;
            report.result = MergeResult::Merged { commit: new };
        }
        report.message = message;
        Ok(report)
    }
}

/// Leaves the merge of `theirs` in progress for the user: `MERGE_MSG` and `MERGE_MODE`,
/// then the index with its conflict stages (from `lock`), and `MERGE_HEAD` last, so that
/// git never sees a merge in progress over the old index.
fn write_conflicted_merge(
    repo: &gix::Repository,
    lock: worktree::IndexLock,
    theirs: ObjectId,
    message: &str,
) -> Result<()> {
    let git_dir = repo.git_dir();
    let write =
        |name: &str, text: &str| crate::atomic::write_atomic(&git_dir.join(name), text.as_bytes());
    write("MERGE_MSG", message)?;
    write("MERGE_MODE", "")?;
    let head_move = head_journal::HeadMove {
        old: repo::head_commit(repo)?.ok_or_else(|| Error::Usage("HEAD is unborn".into()))?,
        new: theirs,
        conflicted: true,
    };
    head_journal::commit_index(repo, lock, head_move)?;
    failpoint::hit("merge-before-merge-head");
    write("MERGE_HEAD", &format!("{theirs}\n"))?;
    head_journal::finish(repo)
}

/// The report of an interrupted merge of `theirs` that a rerun found left for the user.
fn resumed_conflicted(repo: &gix::Repository, theirs: ObjectId) -> Result<MergeReport> {
    let index = current_index(repo)?;
    let unresolved = worktree::unmerged_paths(&index)
        .into_iter()
        .map(|path| super::Unresolved {
            path,
            kind: super::UnresolvedKind::Tree("left for you by the interrupted merge".into()),
        })
        .collect();
    let message = std::fs::read_to_string(repo.git_dir().join("MERGE_MSG")).unwrap_or_default();
    Ok(MergeReport {
        result: MergeResult::Conflicted,
        ours: repo::head_commit(repo)?,
        theirs,
        files: Vec::new(),
        unresolved,
        left_alone: Vec::new(),
        message,
    })
}

/// Refuses when a merge, rebase or similar is in progress.
fn refuse_if_in_progress(repo: &gix::Repository) -> Result<()> {
    use gix::state::InProgress;
    let Some(state) = repo.state() else {
        return Ok(());
    };
    let what = match state {
        InProgress::Merge => "a merge",
        InProgress::Rebase | InProgress::RebaseInteractive => "a rebase",
        InProgress::CherryPick | InProgress::CherryPickSequence => "a cherry-pick",
        InProgress::Revert | InProgress::RevertSequence => "a revert",
        InProgress::Bisect => "a bisect",
        InProgress::ApplyMailbox | InProgress::ApplyMailboxRebase => "git am",
    };
    Err(Error::Refused {
        message: format!("{what} is in progress: finish it (commit) or abort it before merging"),
        paths: Vec::new(),
    })
}

/// Moves HEAD (`from`; `None`: an unborn branch) to `to`, checking `to` out over
/// `head_index` under `lock`, which it commits. The answer: the paths left alone (saved
/// while they were being written).
fn fast_forward(
    repo: &gix::Repository,
    mut lock: worktree::IndexLock,
    head_index: &gix::index::State,
    (from, to): (Option<ObjectId>, ObjectId),
    label: &str,
) -> Result<Vec<String>> {
    let target = repo.index_from_tree(&repo::tree_of(repo, Some(to))?)?;
    let reflog = format!("merge {label}: Fast-forward");
    let Some(old) = from else {
        // An unborn branch: nothing to lose, nothing to resume.
        let left_alone = worktree::checkout(repo, &mut lock, head_index, &target.clone(), target)?;
        lock.commit()?;
        return update_head(repo, from, to, &reflog).map(|()| left_alone);
    };
    let head_move = head_journal::HeadMove {
        old,
        new: to,
        conflicted: false,
    };
    head_journal::begin(repo, head_move)?;
    let left_alone = worktree::checkout(repo, &mut lock, head_index, &target.clone(), target)?;
    head_journal::commit_then_move_head(repo, lock, head_move, &reflog)?;
    Ok(left_alone)
}

/// The index of the worktree, or an empty one if there is none yet.
pub fn current_index(repo: &gix::Repository) -> Result<gix::index::File> {
    if repo.index_path().exists() {
        Ok(repo.open_index()?)
    } else {
        Ok(gix::index::File::from_state(
            gix::index::State::new(repo.object_hash()),
            repo.index_path(),
        ))
    }
}

fn write_orig_head(repo: &gix::Repository, id: ObjectId) -> Result<()> {
    let path = repo.git_dir().join("ORIG_HEAD");
    std::fs::write(&path, format!("{id}\n")).map_err(|e| Error::io(path.display().to_string(), e))
}

/// Points HEAD (or the branch it names) at `new`, expecting it at `old`.
pub fn update_head(
    repo: &gix::Repository,
    old: Option<ObjectId>,
    new: ObjectId,
    reflog: &str,
) -> Result<()> {
    use gix::refs::transaction::{Change, LogChange, PreviousValue, RefEdit, RefLog};
    use gix::refs::Target;
    let expected = match old {
        Some(id) => PreviousValue::MustExistAndMatch(Target::Object(id)),
        None => PreviousValue::MustNotExist,
    };
    let edit = RefEdit {
        change: Change::Update {
            log: LogChange {
                mode: RefLog::AndReference,
                force_create_reflog: false,
                message: reflog.into(),
            },
            expected,
            new: Target::Object(new),
        },
        name: "HEAD".try_into().map_err(Error::git)?,
        deref: true,
    };
    crate::ref_lock::guarded(repo, || repo.edit_reference(edit))?;
    Ok(())
}
