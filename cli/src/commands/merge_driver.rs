//! `assetvc merge-driver %O %A %B %P`: the merge driver git calls
//! (`merge.assetvc.driver = assetvc merge-driver %O %A %B %P`).
//!
//! The result goes into %A. On unparsable input %A is left untouched and the exit status
//! is 2, so git marks the path conflicted and nothing is lost. During a rebase git swaps
//! the sides: %A is the branch being rebased onto (upstream) and %B the commit being
//! replayed, so "theirs" is the replayed commit, as with git's own `-X theirs`.

use std::path::{Path, PathBuf};

use clap::Args;
use serde::{Deserialize, Serialize};

use super::{merging, porcelain};
use crate::{files, report};

/// Arguments of `assetvc merge-driver`.
#[derive(Debug, Args)]
pub struct MergeDriverArgs {
    /// %O: the common ancestor's temporary file.
    pub base: PathBuf,
    /// %A: ours' temporary file; receives the result.
    pub current: PathBuf,
    /// %B: theirs' temporary file.
    pub other: PathBuf,
    /// %P: the path of the file in the repository.
    pub path: String,
}

/// The report kept in `.git/assetvc/last-merge.json` for `assetvc conflicts`.
#[derive(Serialize, Deserialize, Default)]
pub struct LastMerge {
    /// Identifies the merge (git's `GITHEAD_*` variables); a new merge starts a new report.
    pub merge: String,
    /// One report per merged file.
    pub files: Vec<serde_json::Value>,
}

/// Runs the driver: 0 merged, 1 policy fail met a conflict (git marks the path
/// conflicted; %A holds the theirs-resolved result), 2 cannot merge (%A untouched).
pub fn run(args: &MergeDriverArgs) -> i32 {
    let (options, config) = match merging::options(Path::new("."), None) {
        Ok(o) => o,
        Err(e) => {
            report::error(e);
            return 2;
        }
    };
    let dialect = merging::dialect_of(&config, Path::new(&args.path));
    let shown = |side: &str| format!("{} ({side})", args.path);
    let docs = merging::load_three(
        [
            (args.current.as_path(), shown("ours")),
            (args.base.as_path(), shown("base")),
            (args.other.as_path(), shown("theirs")),
        ],
        dialect,
    );
    let (ours, base, theirs) = match docs {
        Ok(d) => d,
        Err(message) => {
            eprintln!("{message}");
            eprintln!(
                "assetvc: {}: not merged, left for you to resolve",
                args.path
            );
            return 2;
        }
    };
    let outcome = match merging::merge_docs(base, ours, theirs, &options) {
        Ok(o) => o,
        Err(e) => {
            report::error(format!("{}: {e}", args.path));
            return 2;
        }
    };
    if let Err(e) = files::write_atomic(&args.current, outcome.text.as_bytes()) {
        report::error(e);
        return 2;
    }
    eprintln!(
        "assetvc: {}",
        merging::summary(&args.path, &outcome, options.policy)
    );
    for c in &outcome.conflicts {
        eprintln!("assetvc:   {c}");
    }
    let file_report = merging::file_report(&args.path, options.policy, &outcome.conflicts);
    if let Err(e) = append_report(&file_report) {
        eprintln!("assetvc: warning: could not write the conflict report: {e}");
    }
    i32::from(outcome.failed(options.policy))
}

/// A key that names the merge in progress, from git's `GITHEAD_<oid>` variables.
fn merge_key() -> String {
    let mut heads: Vec<String> = std::env::vars()
        .filter(|(k, _)| k.starts_with("GITHEAD_"))
        .map(|(k, _)| k)
        .collect();
    heads.sort();
    heads.join(" ")
}

fn append_report(file_report: &merging::FileReport<'_>) -> anyhow::Result<()> {
    // Outside a repository (a driver run by hand) there is nowhere to keep the report.
    let Ok(repo) = store::repo::open(Path::new(".")) else {
        return Ok(());
    };
    let path = porcelain::last_merge_path(&repo)?;
    let key = merge_key();
    let mut last: LastMerge = std::fs::read(&path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    if last.merge != key {
        last = LastMerge {
            merge: key,
            files: Vec::new(),
        };
    }
    let value = serde_json::to_value(file_report)?;
    let path_str = value.get("path").cloned();
    last.files.retain(|f| f.get("path") != path_str.as_ref());
    last.files.push(value);
    files::write_atomic(&path, serde_json::to_string_pretty(&last)?.as_bytes())?;
    Ok(())
}
