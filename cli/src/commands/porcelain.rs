//! What the git porcelain commands (`install`, `commit`, `merge`, `pull`, `push`,
//! `conflicts`) share: opening the repository, the asset rules, reporting store errors, the
//! merge report kept in `.git/assetvc/last-merge.json`.

use std::path::{Path, PathBuf};

use merge::Policy;
use store::error::Error;
use store::gix;
use store::treemerge::{MergeReport, MergedFile, Unresolved, UnresolvedKind};

use super::merge_driver::LastMerge;
use super::merging;
use crate::config::Config;
use crate::{files, report};

/// Prints a store error and returns the exit status for it (2: nothing was done).
pub fn fail(e: &Error) -> i32 {
    report::error(e);
    if let Error::Refused { paths, .. } = e {
        for p in paths.iter().take(50) {
            eprintln!("    {p}");
        }
        if paths.len() > 50 {
            eprintln!("    … and {} more", paths.len() - 50);
        }
    }
    2
}

/// The repository around the current directory and its worktree root, or the exit status.
pub fn open_worktree() -> Result<(gix::Repository, PathBuf), i32> {
    store::repo::open_worktree(Path::new(".")).map_err(|e| fail(&e))
}

/// The repository's `assetvc.toml` and merge options (policy overridden by `policy`).
pub fn settings(root: &Path, policy: Option<Policy>) -> Result<(merge::MergeOptions, Config), i32> {
    merging::options(root, policy).map_err(|e| {
        report::error(e);
        2
    })
}

/// The matcher's dialect for a repository path, for the store's asset rules.
pub fn dialect_fn(config: &Config) -> Result<impl Fn(&str) -> Option<sjson::Dialect>, i32> {
    let matcher = config.matcher().map_err(|e| {
        report::error(e);
        2
    })?;
    Ok(move |path: &str| matcher.dialect(Path::new(path)))
}

/// The directory for assetvc's own state, `.git/assetvc`.
pub fn state_dir(repo: &gix::Repository) -> PathBuf {
    repo.git_dir().join("assetvc")
}

/// The file name of the last merge's report in [`state_dir`].
pub const LAST_MERGE: &str = "last-merge.json";

/// `.git/assetvc/last-merge.json`, the report of the last merge (its directory created).
pub fn last_merge_path(repo: &gix::Repository) -> std::io::Result<PathBuf> {
    let dir = state_dir(repo);
    std::fs::create_dir_all(&dir)?;
    Ok(dir.join(LAST_MERGE))
}

/// Writes the report of a porcelain merge to `.git/assetvc/last-merge.json`, in the format
/// the merge driver uses; unresolved paths carry an `unresolved` reason.
pub fn write_last_merge(
    repo: &gix::Repository,
    key: String,
    policy: Policy,
    files_merged: &[MergedFile],
    unresolved: &[Unresolved],
) -> anyhow::Result<()> {
    let mut last = LastMerge {
        merge: key,
        files: Vec::new(),
    };
    for f in files_merged {
        let mut value = serde_json::to_value(merging::file_report(&f.path, policy, &f.conflicts))?;
        if let Some(u) = unresolved.iter().find(|u| u.path == f.path) {
            value["unresolved"] = serde_json::Value::String(u.kind.to_string());
        }
        last.files.push(value);
    }
    for u in unresolved {
        if files_merged.iter().any(|f| f.path == u.path) {
            continue;
        }
        let mut value = serde_json::to_value(merging::file_report(&u.path, policy, &[]))?;
        value["unresolved"] = serde_json::Value::String(u.kind.to_string());
        last.files.push(value);
    }
    files::write_atomic(
        &last_merge_path(repo)?,
        format!("{}\n", serde_json::to_string_pretty(&last)?).as_bytes(),
    )?;
    Ok(())
}

/// Prints what a merge did to stderr: one summary per merged asset and its conflicts, and
/// a diagnostic for every path left for the user.
/// `merged` gives a merged file's document (from the worktree), to name its objects the way
/// people do; `options` are the merge's id and natural keys.
pub fn print_merge(
    report: &MergeReport,
    policy: Policy,
    merged: &dyn Fn(&str) -> Option<sjson::Document>,
    options: &merge::MergeOptions,
) {
    for f in &report.files {
        let n = f.conflicts.len();
        let summary = match n {
            0 => format!("{}: merged cleanly", f.path),
            _ => format!(
                "{}: merged, {n} conflict{} resolved ({})",
                f.path,
                if n == 1 { "" } else { "s" },
                if policy == Policy::Fail {
                    "theirs; policy fail"
                } else {
                    merging::policy_name(policy)
                }
            ),
        };
        eprintln!("assetvc: {summary}");
        let doc = (!f.conflicts.is_empty()).then(|| merged(&f.path)).flatten();
        let names = doc.as_ref().map(|d| {
            merge::naming::Names::new(vec![d.root()], &options.id_keys, &options.natural_keys)
        });
        for c in &f.conflicts {
            match &names {
                Some(n) if !c.kind.is_repair() => eprintln!("assetvc:   {}", n.conflict(c)),
                _ => eprintln!("assetvc:   {c}"),
            }
        }
    }
    for u in &report.unresolved {
        match &u.kind {
            UnresolvedKind::Unparsable { side, error, text } => {
                eprintln!(
                    "{}",
                    report::parse_error(&format!("{} ({side})", u.path), text, error)
                );
                eprintln!(
                    "assetvc: {}: not merged, left for you to resolve (ours kept)",
                    u.path
                );
            }
            other => eprintln!("assetvc: {}: conflict: {other}", u.path),
        }
    }
}

/// The exit status of a finished merge: 1 when paths are left for the user.
pub fn merge_status(report: &MergeReport) -> i32 {
    i32::from(!report.unresolved.is_empty())
}
