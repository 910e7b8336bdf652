//! `assetvc check`: runs the repository guards' checks (the hooks crate's, the same as
//! `commit`, pre-commit and pre-receive) on the files of a worktree: assets parse, no
//! conflict markers in any text file, unique ids in keyed arrays, `check.require_ids`
//! (every array of objects counts as new here), Lua scripts parse, expressions compile,
//! resource references (`[references] resources`) name files of the worktree, external
//! checkers from trusted git config pass.

use std::path::{Path, PathBuf};

use clap::Args;
use hooks::Problem;
use serde::Serialize;

use crate::report;

/// Arguments of `assetvc check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Print a JSON report on stdout.
    #[arg(long)]
    pub json: bool,
    /// Files or directories (default: the current directory).
    pub paths: Vec<PathBuf>,
}

#[derive(Serialize)]
struct JsonReport<'a> {
    files_checked: usize,
    problems: &'a [Problem],
}

/// Runs `assetvc check`: 0 all good, 1 problems found, 2 bad usage, a missing path or an
/// invalid configuration.
pub fn run(args: &CheckArgs) -> i32 {
    let roots = if args.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.paths.clone()
    };
    let policy = match hooks::worktree_policy(Path::new(".")) {
        Ok(p) => p,
        Err(e) => {
            report::error(e);
            return 2;
        }
    };
    // Resource references name files from the repository root.
    let policy = match store::repo::open(Path::new(".")) {
        Ok(repo) if policy.checks_resources() => {
            let root = repo.workdir().map(Path::to_path_buf).unwrap_or_default();
            policy.with_tree(hooks::checks::resources::TreePaths::new(move |p| {
                root.join(p).is_file()
            }))
        }
        _ => policy,
    };
    let paths = match crate::files::files_under(&roots, |_| true) {
        Ok(p) => p,
        Err(e) => {
            report::error(e);
            return 2;
        }
    };
    let problems = hooks::worktree::check_files(&paths, &policy);
    if args.json {
        let report = JsonReport {
            files_checked: paths.len(),
            problems: &problems,
        };
        println!(
            "{}",
            serde_json::to_string_pretty(&report).unwrap_or_default()
        );
    } else {
        for p in &problems {
            println!("{}", p.render());
        }
        if problems.is_empty() {
            eprintln!("assetvc: {} files checked, no problems", paths.len());
        } else {
            eprintln!(
                "assetvc: {} files checked, {} problem{}",
                paths.len(),
                problems.len(),
                if problems.len() == 1 { "" } else { "s" }
            );
        }
    }
    i32::from(!problems.is_empty())
}
