//! `assetvc check`: runs the repository guards' checks (the hooks crate's, the same as
//! `commit`, pre-commit and pre-receive) on the files of a worktree: assets parse, no
//! conflict markers in any text file, unique ids in keyed arrays, `check.require_ids`
//! (every array of objects counts as new here), Lua scripts parse, expressions compile,
//! resource references (`[references] resources`) name files of the worktree, external
//! checkers from trusted git config pass.

use std::path::{Path, PathBuf};

use clap::Args;
use config::{Config, ConfigError, FILE_NAME};
use hooks::Problem;
use serde::Serialize;

use crate::exit::Outcome;
use crate::repo_config;

/// Arguments of `assetvc check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Print a JSON report on stdout.
    #[arg(long)]
    pub json: bool,
    /// Instead of checking, print each file's engine profile: its format, why it was
    /// chosen, and where its identities, counters, grids, sets and references are.
    #[arg(long, conflicts_with = "json")]
    pub explain: bool,
    /// Files or directories (default: the current directory, inside a repository only).
    pub paths: Vec<PathBuf>,
}

#[derive(Serialize)]
struct JsonReport<'a> {
    files_checked: usize,
    problems: &'a [Problem],
}

/// Runs `assetvc check`: 0 all good, 1 problems found (an invalid `assetvc.toml` is one,
/// reported at its `line:col`, and then nothing else is checked), 2 bad usage, a missing
/// path or a configuration that cannot be read.
pub fn run(args: &CheckArgs) -> crate::exit::Result<Outcome> {
    if args.explain {
        return crate::commands::profile_explain::run(&args.paths);
    }
    if args.paths.is_empty() && store::Repo::discover_worktree(Path::new(".")).is_err() {
        // Outside a repository the current folder may be a home folder or a disk.
        crate::exit::bail!(
            "not in a git worktree: name the files or folders to check (`assetvc check PATH...`)"
        );
    }
    let roots = if args.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.paths.clone()
    };
    let config_root = repo_config::root_for(Path::new("."));
    let (paths, problems) = match worktree_policy(&config_root) {
        Ok(policy) => {
            // Resource references name files from the repository root.
            let policy = match store::Repo::discover(Path::new(".")) {
                Ok(repo) if policy.checks_resources() => {
                    let root = repo.workdir().map(Path::to_path_buf).unwrap_or_default();
                    policy.with_tree(hooks::checks::resources::TreePaths::new(move |p| {
                        root.join(p).is_file()
                    }))
                }
                _ => policy,
            };
            let paths = crate::files::files_under(&roots, |_| true)?;
            let problems = check_with_progress(&paths, &policy);
            (paths, problems)
        }
        Err(e @ ConfigError::Invalid { .. }) => match invalid_config(&config_root) {
            Some((path, problems)) => {
                eprintln!("assetvc: {FILE_NAME} is invalid: the other files were not checked");
                (vec![path], problems)
            }
            None => return Err(e.into()),
        },
        Err(e) => return Err(e.into()),
    };
    if args.json {
        let report = JsonReport {
            files_checked: paths.len(),
            problems: &problems,
        };
        outln!(
            "{}",
            serde_json::to_string_pretty(&report).unwrap_or_default()
        );
    } else {
        // Warnings (`file:line:col: warning: …`) on stderr; they never fail the check.
        for p in problems.iter().filter(|p| !p.is_error()) {
            eprintln!("{p}");
        }
        let errors = problems.iter().filter(|p| p.is_error()).count();
        for p in problems.iter().filter(|p| p.is_error()) {
            outln!("{}", p.render());
        }
        if errors == 0 {
            eprintln!("assetvc: {} files checked, no problems", paths.len());
        } else {
            eprintln!(
                "assetvc: {} files checked, {errors} problem{}",
                paths.len(),
                if errors == 1 { "" } else { "s" }
            );
        }
    }
    Ok(Outcome::done_unless(
        problems.iter().any(Problem::is_error),
        Outcome::Problems,
    ))
}

/// The policy here: the `assetvc.toml` at `config_root` (the repository's root) and the
/// external checkers of trusted git config.
fn worktree_policy(config_root: &Path) -> Result<hooks::Policy, ConfigError> {
    hooks::policy_with_checkers(&Config::at_root(config_root)?, Path::new("."))
}

/// The configuration at `config_root`, checked as a file like any other (`path:line:col:
/// reason` with its source line), named relative to the current directory when it can be.
fn invalid_config(config_root: &Path) -> Option<(PathBuf, Vec<Problem>)> {
    let path = config_root.join(FILE_NAME);
    let bytes = std::fs::read(&path).ok()?;
    let shown = std::env::current_dir()
        .ok()
        .and_then(|cwd| cwd.canonicalize().ok())
        .and_then(|cwd| path.strip_prefix(cwd).ok().map(Path::to_path_buf))
        .unwrap_or_else(|| path.clone());
    let policy = hooks::Policy::new(&Config::default()).ok()?;
    let problems = hooks::check_blob(&shown.display().to_string(), &bytes, &policy);
    (!problems.is_empty()).then_some((shown, problems))
}

/// Files checked between two updates of the progress bar (each batch in parallel).
const PROGRESS_BATCH: usize = 256;

/// Checks `paths`, with a progress bar on a terminal for long runs.
fn check_with_progress(paths: &[PathBuf], policy: &hooks::Policy) -> Vec<Problem> {
    let Some(bar) = crate::progress::files_bar("checking", paths.len()) else {
        return hooks::worktree::check_files(paths, policy);
    };
    let mut problems = Vec::new();
    for batch in paths.chunks(PROGRESS_BATCH) {
        problems.extend(hooks::worktree::check_files(batch, policy));
        bar.inc(batch.len() as u64);
    }
    bar.finish_and_clear();
    problems
}
