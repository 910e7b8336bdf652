//! The one-shot migration in git: every asset in the tree of a revision gets ids in its
//! arrays of objects ([`merge::migrate::add_ids`]), the changed blobs, one new tree and
//! one commit are written, and the branch (and, for HEAD in a worktree, the index and the
//! files) moves to it.
//!
//! Each asset is read and parsed once, in parallel; each edited text is parsed once more
//! before it is written, so that a file the migration would break is reported and left
//! as it was instead. Files that do not parse are reported and left as they were; the
//! others are migrated. Nothing is written for a dry run, and no commit is made when no
//! file needs ids (a second run finds nothing to do).

use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};

use gix::bstr::{BString, ByteSlice};
use gix::index::entry::{Mode, Stage};
use gix::objs::tree::EntryKind;
use gix::ObjectId;
use merge::migrate::{add_ids, MigrateOptions};
use rayon::prelude::*;
use sjson::{Dialect, Document, ParseError, ParseOptions};

use crate::commit::entry_kind;
use crate::error::{Error, Result};
use crate::{migrate_journal, repo, treemerge, worktree, Repo};

/// The stack size of the worker threads: the edit recurses once per nesting level.
const STACK_SIZE: usize = 64 * 1024 * 1024;

/// Which files are assets and how ids are added to them.
pub struct MigrateRules<'a> {
    /// The dialect of an asset path (repository-relative, `/`-separated), `None` for files
    /// that are not assets.
    pub dialect_of: &'a (dyn Fn(&str) -> Option<Dialect> + Sync),
    /// The id key written, the keys that already give an identity, `--all`.
    pub options: MigrateOptions,
    /// Makes each new id (its text, unquoted); [`new_uuid`] for real runs.
    pub new_id: &'a (dyn Fn() -> String + Sync),
}

/// A fresh random (version 4) UUID in its hyphenated lower-case form.
pub fn new_uuid() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// Progress over the asset files (a progress bar in the command line).
pub trait Progress: Sync {
    /// The work starts: `files` assets will be examined.
    fn start(&self, _files: usize) {}
    /// One more asset was examined.
    fn advance(&self) {}
    /// All assets were examined.
    fn finish(&self) {}
}

/// No progress reporting.
pub struct NoProgress;

impl Progress for NoProgress {}

/// An asset that got ids.
#[derive(Debug, Clone)]
pub struct MigratedFile {
    /// Repository-relative path.
    pub path: String,
    /// Arrays that got ids.
    pub arrays: usize,
    /// Elements that got ids.
    pub elements: usize,
    /// Each array that gets ids: its JSON Pointer and how many elements get one.
    pub places: Vec<(String, usize)>,
    /// The blob before.
    pub old: ObjectId,
    /// The blob after (written to the object database unless this was a dry run).
    pub new: ObjectId,
    /// The tree entry kind (kept from the old entry: the executable bit stays).
    pub kind: EntryKind,
    path_bytes: BString,
}

/// Why an asset was left as it was.
#[derive(Debug, Clone)]
pub enum ProblemKind {
    /// It does not parse.
    Unparsable {
        /// The parse error.
        error: ParseError,
        /// The text (lossy UTF-8), for the diagnostic's excerpt.
        text: String,
    },
    /// Its blob could not be read.
    Read(String),
    /// The migration would have broken it (a bug): it is left as it was.
    Internal(String),
}

/// An asset left as it was, and why.
#[derive(Debug, Clone)]
pub struct FileProblem {
    /// Repository-relative path.
    pub path: String,
    /// Why.
    pub kind: ProblemKind,
}

impl fmt::Display for FileProblem {
    /// `path:line:col: reason` (`path: reason` without a position).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ProblemKind::Unparsable { error, .. } => {
                write!(
                    f,
                    "{}:{}:{}: {}",
                    self.path, error.line, error.col, error.kind
                )
            }
            ProblemKind::Read(e) => write!(f, "{}: cannot read the blob: {e}", self.path),
            ProblemKind::Internal(e) => write!(f, "{}: {e}; left as it was", self.path),
        }
    }
}

/// What the migration of a tree found and (unless a dry run) wrote: the blobs.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The commit whose tree was migrated.
    pub commit: ObjectId,
    /// Its tree.
    pub tree: ObjectId,
    /// How many asset files were examined.
    pub assets: usize,
    /// The assets that got ids, in path order.
    pub files: Vec<MigratedFile>,
    /// The assets left as they were, in path order.
    pub problems: Vec<FileProblem>,
}

impl Plan {
    /// Arrays that got ids, over all files.
    pub fn arrays(&self) -> usize {
        self.files.iter().map(|f| f.arrays).sum()
    }

    /// Elements that got ids, over all files.
    pub fn elements(&self) -> usize {
        self.files.iter().map(|f| f.elements).sum()
    }

    /// The default commit message: `assetvc migrate: ids for N arrays in M files`.
    pub fn default_message(&self) -> String {
        let (n, m, e) = (self.arrays(), self.files.len(), self.elements());
        format!(
            "assetvc migrate: ids for {n} array{} in {m} file{}\n\n{e} element{} got an id.\n",
            plural(n),
            plural(m),
            plural(e)
        )
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// Where the migration commit goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Destination {
    /// HEAD (and the branch it names) moves; the index and the worktree follow.
    Worktree,
    /// A ref moves (`HEAD` of a bare repository, or a branch not checked out here).
    Ref(String),
    /// Nothing moves: the revision is not HEAD or a branch; the commit is only reported.
    Nothing,
}

/// Where a migration of `rev` (which names `commit`) goes: HEAD and branches move, other
/// revisions do not; HEAD, or the branch checked out, moves the worktree along in a
/// repository that has one.
fn destination(repo: &gix::Repository, rev: &str, commit: ObjectId) -> Result<Destination> {
    let has_worktree = repo.workdir().is_some();
    if rev == "HEAD" || rev == "@" {
        return Ok(if has_worktree {
            Destination::Worktree
        } else {
            Destination::Ref("HEAD".into())
        });
    }
    let full = if rev.starts_with("refs/heads/") {
        rev.to_string()
    } else {
        format!("refs/heads/{rev}")
    };
    let Some(mut reference) = repo.try_find_reference(full.as_str()).map_err(Error::git)? else {
        return Ok(Destination::Nothing);
    };
    // A tag or another ref of the same short name may be what `rev` names.
    let target = reference.peel_to_id().map_err(Error::git)?.detach();
    if target != commit {
        return Ok(Destination::Nothing);
    }
    let checked_out = repo
        .head_name()?
        .is_some_and(|name| name.as_bstr() == full.as_bytes().as_bstr());
    Ok(if checked_out && has_worktree {
        Destination::Worktree
    } else {
        Destination::Ref(full)
    })
}

/// The outcome of [`Repo::migrate`](crate::Repo::migrate).
#[derive(Debug, Clone)]
pub struct Outcome {
    /// What was found (and, unless a dry run, written).
    pub plan: Plan,
    /// Where the commit went (or would have gone).
    pub destination: Destination,
    /// The migration commit; `None` for a dry run or when no file needed ids.
    pub commit: Option<ObjectId>,
    /// Whether this run finished an interrupted migration
    /// instead of starting one: `commit` is that migration's.
    pub resumed: bool,
}

impl Repo {
    /// Where a migration of revision `rev` (commit `commit`) puts its commit.
    pub fn migration_destination(&self, rev: &str, commit: ObjectId) -> Result<Destination> {
        destination(&self.git, rev, commit)
    }

    /// Migrates the tree of revision `rev` (see the module documentation): with `dry_run`
    /// nothing is written; otherwise the blobs, the tree and one commit (`message`, or
    /// [`Plan::default_message`]) whose parent is `rev`'s commit, and the `destination`
    /// moves to it. For [`Destination::Worktree`] the index and the files are updated as
    /// `git checkout` would, refusing (before any ref or file changes) when a merge is in
    /// progress, changes are staged, or a file it would touch has local changes.
    pub fn migrate(
        &self,
        rev: &str,
        rules: &MigrateRules<'_>,
        dry_run: bool,
        message: Option<&str>,
        progress: &dyn Progress,
    ) -> Result<Outcome> {
        let repo = &self.git;
        let commit = repo::resolve_commit(repo, rev)?;
        let destination = destination(repo, rev, commit)?;
        if !dry_run {
            if repo.committer().is_none() || repo.author().is_none() {
                return Err(Error::Usage(
                    "who are you? set user.name and user.email (git config user.name …)".into(),
                ));
            }
            if destination == Destination::Worktree {
                if let Some(done) = migrate_journal::resume(repo, commit)? {
                    return Ok(Outcome {
                        plan: plan(repo, commit, rules, false, progress)?,
                        destination,
                        commit: Some(done),
                        resumed: true,
                    });
                }
                check_worktree_state(repo, commit)?;
            }
        }
        let plan = plan(repo, commit, rules, !dry_run, progress)?;
        let mut outcome = Outcome {
            plan,
            destination,
            commit: None,
            resumed: false,
        };
        if dry_run || outcome.plan.files.is_empty() {
            return Ok(outcome);
        }
        let plan = &outcome.plan;
        let mut editor = repo.edit_tree(plan.tree)?;
        for f in &plan.files {
            editor.upsert(f.path_bytes.as_bstr(), f.kind, f.new)?;
        }
        let new_tree = editor.write()?.detach();
        let mut text = message.map_or_else(|| plan.default_message(), str::to_string);
        if !text.ends_with('\n') {
            text.push('\n');
        }
        let new_commit = repo.new_commit(&text, new_tree, [commit])?.id;
        let reflog = format!(
            "assetvc migrate: {}",
            text.lines().next().unwrap_or_default()
        );
        match &outcome.destination {
            Destination::Worktree => {
                let mut lock = worktree::IndexLock::acquire(repo)?;
                let head_index = repo.index_from_tree(&plan.tree)?;
                let target = repo.index_from_tree(&new_tree)?;
                migrate_journal::begin(repo, commit, new_commit)?;
                crate::failpoint::hit("migrate-after-journal");
                let moved =
                    worktree::checkout(repo, &mut lock, &head_index, &target.clone(), target);
                if let Err(e @ Error::Refused { .. }) = moved {
                    // Refused before anything was written: nothing to resume.
                    migrate_journal::finish(repo)?;
                    return Err(e);
                }
                moved?;
                crate::failpoint::hit("migrate-after-checkout");
                lock.commit()?;
                crate::failpoint::hit("migrate-after-index");
                move_ref(repo, "HEAD", commit, new_commit, &reflog)?;
                migrate_journal::finish(repo)?;
            }
            Destination::Ref(name) => move_ref(repo, name, commit, new_commit, &reflog)?,
            Destination::Nothing => {}
        }
        outcome.commit = Some(new_commit);
        Ok(outcome)
    }
}

/// Refuses early, before any work, what the checkout would refuse anyway: an operation
/// in progress, unmerged paths, staged changes.
fn check_worktree_state(repo: &gix::Repository, head: ObjectId) -> Result<()> {
    if repo.state().is_some() {
        return Err(Error::Refused {
            message: "a merge, rebase or similar operation is in progress: finish or abort it \
                      before migrating"
                .into(),
            paths: Vec::new(),
        });
    }
    let current = treemerge::current_index(repo)?;
    let unmerged = worktree::unmerged_paths(&current);
    if !unmerged.is_empty() {
        return Err(Error::Refused {
            message: "you have unmerged paths; resolve them and commit first".into(),
            paths: unmerged,
        });
    }
    let head_index = repo.index_from_tree(&repo::tree_of(repo, Some(head))?)?;
    let staged: Vec<String> = worktree::diff_indexes(&head_index, &current)
        .into_iter()
        .map(|c| c.path.to_str_lossy().into_owned())
        .collect();
    if !staged.is_empty() {
        return Err(Error::Refused {
            message: "you have staged changes; commit them (or unstage them) before migrating"
                .into(),
            paths: staged,
        });
    }
    Ok(())
}

/// Points `name` (`HEAD` follows to its branch) at `new`, expecting it at `old`.
pub(crate) fn move_ref(
    repo: &gix::Repository,
    name: &str,
    old: ObjectId,
    new: ObjectId,
    reflog: &str,
) -> Result<()> {
    use gix::refs::transaction::{Change, LogChange, PreviousValue, RefEdit, RefLog};
    use gix::refs::Target;
    let edit = RefEdit {
        change: Change::Update {
            log: LogChange {
                mode: RefLog::AndReference,
                force_create_reflog: false,
                message: reflog.into(),
            },
            expected: PreviousValue::MustExistAndMatch(Target::Object(old)),
            new: Target::Object(new),
        },
        name: name.try_into().map_err(Error::git)?,
        deref: true,
    };
    crate::ref_lock::guarded(repo, || repo.edit_reference(edit))?;
    Ok(())
}

/// One asset to examine.
struct Job {
    path: BString,
    id: ObjectId,
    mode: Mode,
    dialect: Dialect,
}

enum JobResult {
    Unchanged,
    Migrated(MigratedFile),
    Problem(FileProblem),
    Failed(Error),
}

/// Examines every asset of `commit`'s tree in parallel: each blob is read and parsed once
/// and edited; with `write` the edited blobs are written to the object database. No tree,
/// commit or ref is written.
pub fn plan(
    repo: &gix::Repository,
    commit: ObjectId,
    rules: &MigrateRules<'_>,
    write: bool,
    progress: &dyn Progress,
) -> Result<Plan> {
    let tree = repo::tree_of(repo, Some(commit))?;
    let listing = repo.index_from_tree(&tree)?;
    let jobs: Vec<Job> = listing
        .entries()
        .iter()
        .filter(|e| {
            e.stage() == Stage::Unconflicted
                && (e.mode == Mode::FILE || e.mode == Mode::FILE_EXECUTABLE)
        })
        .filter_map(|e| {
            let path = e.path(&listing);
            let dialect = (rules.dialect_of)(&path.to_str_lossy())?;
            Some(Job {
                path: path.to_owned(),
                id: e.id,
                mode: e.mode,
                dialect,
            })
        })
        .collect();
    drop(listing);
    progress.start(jobs.len());
    let shared = repo.clone().into_sync();
    let work = || -> Vec<JobResult> {
        jobs.par_iter()
            .map_init(
                || shared.to_thread_local(),
                |local, job| {
                    let result =
                        catch_unwind(AssertUnwindSafe(|| migrate_blob(local, job, rules, write)))
                            .unwrap_or_else(|_| {
                                JobResult::Problem(FileProblem {
                                    path: job.path.to_str_lossy().into_owned(),
                                    kind: ProblemKind::Internal(
                                        "internal error: the migration crashed on this file".into(),
                                    ),
                                })
                            });
                    progress.advance();
                    result
                },
            )
            .collect()
    };
    let results = match rayon::ThreadPoolBuilder::new()
        .stack_size(STACK_SIZE)
        .thread_name(|i| format!("assetvc-migrate-{i}"))
        .build()
    {
        Ok(pool) => pool.install(work),
        Err(_) => work(),
    };
    progress.finish();
    let mut plan = Plan {
        commit,
        tree,
        assets: jobs.len(),
        files: Vec::new(),
        problems: Vec::new(),
    };
    for r in results {
        match r {
            JobResult::Unchanged => {}
            JobResult::Migrated(f) => plan.files.push(f),
            JobResult::Problem(p) => plan.problems.push(p),
            JobResult::Failed(e) => return Err(e),
        }
    }
    Ok(plan)
}

/// Reads, parses and edits one asset; writes the new blob with `write`.
fn migrate_blob(
    repo: &gix::Repository,
    job: &Job,
    rules: &MigrateRules<'_>,
    write: bool,
) -> JobResult {
    let path = || job.path.to_str_lossy().into_owned();
    let problem = |kind| JobResult::Problem(FileProblem { path: path(), kind });
    let read = |id: ObjectId| repo.find_blob(id).map(|mut b| b.take_data());
    let data = match read(job.id) {
        Ok(d) => d,
        Err(e) => return problem(ProblemKind::Read(e.to_string())),
    };
    let options = ParseOptions::new(job.dialect);
    let doc = match Document::parse_bytes(data, options) {
        Ok(d) => d,
        Err(error) => {
            // Rare: read the blob again for the diagnostic's excerpt.
            let text = read(job.id)
                .map(|d| String::from_utf8_lossy(&d).into_owned())
                .unwrap_or_default();
            return problem(ProblemKind::Unparsable { error, text });
        }
    };
    let mut new_id = || (rules.new_id)();
    let Some(migration) = add_ids(&doc, &rules.options, &mut new_id) else {
        return JobResult::Unchanged;
    };
    drop(doc);
    let text = match Document::parse_with(migration.text, options) {
        Ok(d) => d.into_text(),
        Err(e) => {
            return problem(ProblemKind::Internal(format!(
                "internal error: the migrated document does not parse ({e})"
            )))
        }
    };
    let new = if write {
        match repo.write_blob(text.as_bytes()) {
            Ok(id) => id.detach(),
            Err(e) => return JobResult::Failed(Error::git_in(path(), e)),
        }
    } else {
        match gix::objs::compute_hash(repo.object_hash(), gix::objs::Kind::Blob, text.as_bytes()) {
            Ok(id) => id,
            Err(e) => return JobResult::Failed(Error::git_in(path(), e)),
        }
    };
    JobResult::Migrated(MigratedFile {
        path: path(),
        arrays: migration.arrays,
        elements: migration.elements,
        places: migration.places,
        old: job.id,
        new,
        kind: entry_kind(job.mode),
        path_bytes: job.path.clone(),
    })
}
