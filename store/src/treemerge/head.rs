//! Merging into HEAD like `git merge`: up to date, fast-forward, or a merge whose result
//! goes to the worktree, the index and a merge commit (or `MERGE_HEAD`/`MERGE_MSG` when
//! paths are left for the user); the merge message; moving HEAD.

use gix::ObjectId;

use super::{merge_commits, AssetRules, MergedFile, Unresolved};
use crate::error::{Error, Result};
use crate::repo;
use crate::worktree;
use crate::Repo;

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
    /// The merge commit's message (or `MERGE_MSG`'s).
    pub message: String,
}

/// The lines of a merge message that list the conflicts resolved by policy, objects named
/// the way people do: `level.sjson entities[crate #f341].position: both modified, took theirs`.
pub fn conflict_lines(files: &[MergedFile]) -> Vec<String> {
    files
        .iter()
        .flat_map(|f| {
            f.conflicts
                .iter()
                .zip(f.places_or_none())
                .map(move |(c, place)| format!("{} {}", f.path, c.line_at(place)))
        })
        .collect()
}

fn merge_message(
    title: &str,
    files: &[MergedFile],
    unresolved: &[Unresolved],
    policy: &str,
) -> String {
    let mut message = format!("{title}\n");
    let lines = conflict_lines(files);
    if !lines.is_empty() {
        let n = lines.len();
        message.push_str(&format!(
            "\nassetvc resolved {n} conflict{} by policy {policy}:\n",
            if n == 1 { "" } else { "s" }
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
    /// staged changes, or a local change would be overwritten.
    pub fn merge_into_head(
        &self,
        theirs: ObjectId,
        theirs_label: &str,
        title: &str,
        rules: &AssetRules<'_>,
    ) -> Result<MergeReport> {
        let repo = &self.git;
        refuse_if_in_progress(repo)?;
        // git's discipline: the index lock first, then the index and HEAD read under it.
        let mut lock = worktree::IndexLock::acquire(repo)?;
        let ours = repo::head_commit(repo)?;
        let policy = rules.options.policy.name();
        let mut report = MergeReport {
            result: MergeResult::UpToDate,
            ours,
            theirs,
            files: Vec::new(),
            unresolved: Vec::new(),
            message: String::new(),
        };
        let head_index = repo.index_from_tree(&repo::tree_of(repo, ours)?)?;
        let Some(ours_id) = ours else {
            // An unborn branch: check theirs out.
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
                fast_forward(
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
        let merged = merge_commits(repo, ours_id, theirs, ("HEAD", theirs_label), rules)?;
        let message = merge_message(title, &merged.files, &merged.unresolved, policy);
        let worktree_target = repo.index_from_tree(&merged.worktree_tree)?;
        worktree::checkout(repo, &mut lock, &head_index, &worktree_target, merged.index)?;
        report.files = merged.files;
        report.unresolved = merged.unresolved;
        write_orig_head(repo, ours_id)?;
        if report.unresolved.is_empty() {
            let commit = repo.commit("HEAD", &message, merged.tree, [ours_id, theirs])?;
            lock.commit()?;
            report.result = MergeResult::Merged {
                commit: commit.detach(),
            };
        } else {
            let git_dir = repo.git_dir();
            let write = |name: &str, text: &str| {
                std::fs::write(git_dir.join(name), text)
                    .map_err(|e| Error::io(git_dir.join(name).display().to_string(), e))
            };
            write("MERGE_HEAD", &format!("{theirs}\n"))?;
            write("MERGE_MSG", &message)?;
            write("MERGE_MODE", "")?;
            lock.commit()?;
            report.result = MergeResult::Conflicted;
        }
        report.message = message;
        Ok(report)
    }
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
/// `head_index` under `lock`, which it commits.
fn fast_forward(
    repo: &gix::Repository,
    mut lock: worktree::IndexLock,
    head_index: &gix::index::State,
    (from, to): (Option<ObjectId>, ObjectId),
    label: &str,
) -> Result<()> {
    let target = repo.index_from_tree(&repo::tree_of(repo, Some(to))?)?;
    worktree::checkout(repo, &mut lock, head_index, &target.clone(), target)?;
    update_head(repo, from, to, &format!("merge {label}: Fast-forward"))?;
    lock.commit()
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
    repo.edit_reference(RefEdit {
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
    })?;
    Ok(())
}
