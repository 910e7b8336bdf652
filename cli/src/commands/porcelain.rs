//! What the git porcelain commands (`install`, `commit`, `merge`, `pull`, `push`,
//! `conflicts`) share: opening the repository, the asset rules, reporting store errors and
//! merges.

use std::path::{Path, PathBuf};

use merge::Policy;
use store::Error;
use store::{AssetRules, MergeReport, PathRules, UnresolvedKind};

use super::merging;
use crate::exit::Outcome;
use crate::report;
use config::Config;

/// The failure for a store error (exit 2: nothing was done); a refusal lists the paths
/// it names under its message.
pub fn fail(e: Error) -> crate::exit::Error {
    let Error::Refused { paths, .. } = &e else {
        return e.into();
    };
    let mut message = e.to_string();
    for p in paths.iter().take(50) {
        message.push_str(&format!("\n    {p}"));
    }
    if paths.len() > 50 {
        message.push_str(&format!("\n    … and {} more", paths.len() - 50));
    }
    crate::exit::Error::Failed(message)
}

/// The repository around the current directory and its worktree root.
pub fn open_worktree() -> crate::exit::Result<(store::Repo, PathBuf)> {
    let repo = store::Repo::discover_worktree(Path::new(".")).map_err(fail)?;
    let root = repo.worktree_root().map_err(fail)?.to_path_buf();
    Ok((repo, root))
}

/// The repository's `assetvc.toml` and merge options (policy overridden by `policy`).
pub fn settings(
    root: &Path,
    policy: Option<Policy>,
) -> crate::exit::Result<(merge::MergeOptions, Config)> {
    merging::options(root, policy).map_err(crate::exit::Error::Config)
}

/// How the repository configured by `config` merges each path, with the merge settings
/// `options`: which paths are assets and their dialect (the asset patterns), and each
/// asset's engine profile (`[profiles]`, else its file name; [`config::Profiles::format_of`]).
/// The one place the porcelain's merges (`merge`, `pull`, `sync`, the merge strategy,
/// `pr`) learn it.
pub fn asset_rules(
    config: &Config,
    options: merge::MergeOptions,
) -> crate::exit::Result<AssetRules> {
    let matcher = config.matcher()?;
    let profiles = config.profiles.clone();
    let of_path = move |path: &str| {
        let path = Path::new(path);
        let dialect = matcher.dialect(path)?;
        let profile = profiles.format_of(path);
        Some(PathRules { dialect, profile })
    };
    Ok(AssetRules::new(of_path, options))
}

/// Prints what a merge did to stderr: one summary per merged asset and its conflicts, and
/// a diagnostic for every path left for the user.
pub fn print_merge(report: &MergeReport, policy: Policy) {
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
                    policy.name()
                }
            ),
        };
        eprintln!("assetvc: {}", report::safe_line(&summary));
        for i in 0..f.conflicts.len() {
            eprintln!("assetvc:   {}", report::safe_line(&f.line(i)));
        }
        for v in &f.violations {
            let line = format!("not merged cleanly, the result breaks what its inputs kept: {v}");
            eprintln!("assetvc:   {}", report::safe(&line));
        }
    }
    for u in &report.unresolved {
        match &u.kind {
            UnresolvedKind::Unparsable { side, error, text } => {
                let shown = format!("{} ({side})", u.path);
                let message = report::parse_error(&shown, text, error);
                eprintln!("{}", report::safe(&message));
                eprintln!(
                    "assetvc: {}: not merged, left for you to resolve (ours kept)",
                    report::safe_line(&u.path)
                );
            }
            UnresolvedKind::Gate(_) => {
                let line = format!(
                    "{}: not committed: the merged result breaks what its inputs kept \
                     (written to the worktree; fix it, then commit)",
                    u.path
                );
                eprintln!("assetvc: {}", report::safe(&line));
            }
            other => {
                let line = format!("{}: conflict: {other}", u.path);
                eprintln!("assetvc: {}", report::safe_line(&line));
            }
        }
    }
    print_left_alone(&report.left_alone);
}

/// One line per file saved while a merge wrote the worktree: left as it was saved, so it
/// does not hold the merge's changes to it.
pub fn print_left_alone(paths: &[String]) {
    for path in paths {
        let line = format!(
            "{path}: saved while the merge was writing it; left as you saved it, without \
             the merge's changes to it (`git diff -- {path}` shows them undone: bring them \
             back before you commit)"
        );
        eprintln!("assetvc: {}", report::safe(&line));
    }
}

/// The exit status of a finished merge: 1 when paths are left for the user, as conflicts
/// or as files saved while the merge wrote them (left alone: they do not hold the merge).
pub fn merge_status(report: &MergeReport) -> Outcome {
    if !report.unresolved.is_empty() {
        Outcome::Conflicts
    } else {
        Outcome::done_unless(!report.left_alone.is_empty(), Outcome::LeftAlone)
    }
}
