//! The client side: `assetvc hook pre-commit`, run by git before it records a commit.
//!
//! It checks the staged blobs (the index git is about to commit, `GIT_INDEX_FILE`
//! included, so `git commit -a` and `git commit PATH` are checked as committed) whose
//! content differs from `HEAD`, with `HEAD`'s blob as the base. The policy is the
//! worktree's `assetvc.toml`; external checkers come from the repository's, the global
//! and the system git config. `git commit --no-verify` skips the hook, as for any hook.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::time::{Duration, Instant};

use store::Repo;

use crate::engine::{check_jobs, Job};
use crate::external::GitSettings;
use crate::policy::Policy;
use crate::problem::Problem;
use config::Config;

/// What the pre-commit check found.
#[derive(Debug, Default)]
pub struct CommitReport {
    /// Problems in staged files; any blocks the commit.
    pub problems: Vec<Problem>,
    /// Why the commit could not be checked (blocks it too).
    pub fatal: Option<String>,
    /// Distinct blobs checked.
    pub blobs_checked: usize,
    /// Wall time.
    pub elapsed: Duration,
}

impl CommitReport {
    /// Whether the commit may go ahead.
    pub fn accepted(&self) -> bool {
        self.fatal.is_none() && !self.problems.iter().any(Problem::is_error)
    }
}

/// Checks what the repository containing `dir` has staged.
pub fn run(dir: &Path) -> CommitReport {
    let start = Instant::now();
    let mut report = catch_unwind(AssertUnwindSafe(|| check_staged(dir)))
        .unwrap_or_else(|_| Err("internal error (a crash); please report it".to_string()))
        .unwrap_or_else(|fatal| CommitReport {
            fatal: Some(fatal),
            ..CommitReport::default()
        });
    report.elapsed = start.elapsed();
    report
}

fn check_staged(dir: &Path) -> Result<CommitReport, String> {
    let repo = Repo::discover(dir).map_err(|e| e.to_string())?;
    let settings = GitSettings::from_entries(&repo.assetvc_config())
        .map_err(|e| format!("git config: {e}"))?;
    let root = repo
        .workdir()
        .map_or_else(|| dir.to_path_buf(), Path::to_path_buf);
    let config = Config::at_root(&root).map_err(|e| e.to_string())?;
    let mut policy = Policy::new(&config)
        .map_err(|e| e.to_string())?
        .with_checkers(settings.checkers);
    if policy.checks_resources() {
        let staged = repo.staged_paths().map_err(|e| e.to_string())?;
        policy = policy.with_tree(crate::checks::resources::TreePaths::new(move |p| {
            staged.contains(p)
        }));
    }
    let jobs: Vec<Job> = repo
        .staged_changes()
        .map_err(|e| e.to_string())?
        .into_iter()
        .map(|c| Job {
            path: c.path,
            id: c.id,
            base: c.base,
        })
        .collect();
    let outcome = check_jobs(&jobs, &policy, &repo.readers());
    Ok(CommitReport {
        problems: outcome.problems.into_iter().flatten().collect(),
        fatal: None,
        blobs_checked: outcome.blobs_checked,
        elapsed: Duration::ZERO,
    })
}
