//! `assetvc check`: runs the repository guards' checks (the hooks crate's, the same as
//! `commit`, pre-commit and pre-receive) on the files of a worktree: assets parse, no
//! conflict markers in any text file, unique ids in keyed arrays, `check.require_ids`
//! (every array of objects counts as new here), Lua scripts parse, expressions compile,
//! external checkers from trusted git config pass.

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
    let paths = match all_files(&roots) {
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

/// The files under `paths`: files as given, directories walked (honouring `.gitignore`,
/// skipping `.git`), sorted. A path that does not exist is an error.
fn all_files(paths: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_file() {
            out.push(p.clone());
        } else if p.is_dir() {
            for entry in ignore::WalkBuilder::new(p)
                .hidden(false)
                .filter_entry(|e| e.file_name() != ".git")
                .build()
            {
                let entry = entry?;
                if entry.file_type().is_some_and(|t| t.is_file()) {
                    out.push(entry.into_path());
                }
            }
        } else {
            anyhow::bail!("{}: no such file or directory", p.display());
        }
    }
    out.sort();
    out.dedup();
    Ok(out)
}
