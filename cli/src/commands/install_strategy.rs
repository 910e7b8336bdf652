//! The part of `assetvc install` and `doctor` that concerns the merge strategy
//! `git-merge-assetvc` (`commands::merge_strategy`): `pull.twohead = assetvc` makes it the
//! default of `git merge`, `git pull`, `git rebase` and `git cherry-pick`, which then merge
//! the whole tree in one process instead of starting the driver once per file.
//!
//! git finds a strategy as `git-merge-NAME` on `PATH` (or in its exec path); with
//! `pull.twohead` naming a strategy git cannot find, every merge fails. So install sets
//! it only when `git-merge-assetvc` is on `PATH`, and doctor reports a setting whose
//! program is gone. `assetvc install --no-strategy` opts out (`assetvc.strategy = false`,
//! and `pull.twohead = assetvc` removed): the driver alone merges, file by file.

use std::path::PathBuf;

use super::install::{is_executable_file, Item};
use super::porcelain;

/// The strategy's program, as git looks it up.
pub const STRATEGY_PROGRAM: &str = "git-merge-assetvc";
/// The name git knows the strategy by (`-s assetvc`, `pull.twohead = assetvc`).
const STRATEGY: &str = "assetvc";
/// The local setting that records an opt-out.
const OPT_OUT_KEY: &str = "assetvc.strategy";

/// The strategy's program where git would find it on `PATH`, if anywhere.
fn on_path() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(STRATEGY_PROGRAM))
        .find(|p| is_executable_file(p))
}

/// Whether the clone opted out of the strategy.
fn opted_out(repo: &store::Repo) -> bool {
    repo.config_value(OPT_OUT_KEY)
        .is_some_and(|v| matches!(v.as_str(), "false" | "no" | "off" | "0"))
}

/// Sets `pull.twohead = assetvc` when git can find the strategy, or records the opt-out
/// (`opt_out`) and removes the setting. Prints what it did.
pub fn install(repo: &store::Repo, opt_out: bool) -> crate::exit::Result<()> {
    if opt_out {
        let changed = repo
            .set_local_config(&[("assetvc", None, "strategy", "false")])
            .map_err(porcelain::fail)?;
        if repo.config_value("pull.twohead").as_deref() == Some(STRATEGY) {
            unset_twohead(repo)?;
            eprintln!("assetvc: git config: removed pull.twohead = {STRATEGY} (--no-strategy)");
        } else if !changed.is_empty() {
            eprintln!("assetvc: git config: set {OPT_OUT_KEY} = false: merges use the driver");
        }
        return Ok(());
    }
    if opted_out(repo) {
        let changed = repo
            .set_local_config(&[("assetvc", None, "strategy", "true")])
            .map_err(porcelain::fail)?;
        if !changed.is_empty() {
            eprintln!("assetvc: git config: {OPT_OUT_KEY} = true (opt-out withdrawn)");
        }
    }
    if on_path().is_none() {
        eprintln!(
            "assetvc: note: {STRATEGY_PROGRAM} is not on PATH: pull.twohead not set, git merges \
             assets with the driver, one process per file (`cargo install --path .` installs both)"
        );
        return Ok(());
    }
    if let Err(reason) = super::git_version::strategy_git() {
        eprintln!(
            "assetvc: note: {reason}: pull.twohead not set, git merges assets with the \
             driver, one process per file"
        );
        return Ok(());
    }
    let changed = repo
        .set_local_config(&[("pull", None, "twohead", STRATEGY)])
        .map_err(porcelain::fail)?;
    if !changed.is_empty() {
        eprintln!(
            "assetvc: git config: set pull.twohead = {STRATEGY}: git merge, pull, rebase and \
             cherry-pick merge the whole tree with {STRATEGY_PROGRAM}"
        );
    }
    Ok(())
}

/// Removes `pull.twohead` from the clone's local configuration (with git itself: the
/// store writes settings, it does not remove them).
fn unset_twohead(repo: &store::Repo) -> crate::exit::Result<()> {
    let config = repo.common_dir().join("config");
    let status = std::process::Command::new("git")
        .arg("config")
        .arg("--file")
        .arg(&config)
        .args(["--unset", "pull.twohead"])
        .status()?;
    if !status.success() {
        crate::exit::bail!("{}: could not remove pull.twohead", config.display());
    }
    Ok(())
}

/// doctor's item `strategy`: missing when `pull.twohead = assetvc` names a program git
/// cannot find (every merge would fail), or when the strategy is on `PATH` but not the
/// default and the clone did not opt out.
pub fn inspect(repo: &store::Repo) -> Item {
    let twohead = repo.config_value("pull.twohead");
    let found = on_path();
    let git = super::git_version::strategy_git();
    let (ok, detail) = match (twohead.as_deref(), &found) {
        (_, Some(_)) if git.is_err() => (
            twohead.as_deref() != Some(STRATEGY),
            format!(
                "{}{}",
                git.as_ref()
                    .err()
                    .map(ToString::to_string)
                    .unwrap_or_default(),
                if twohead.as_deref() == Some(STRATEGY) {
                    ": every merge fails (pull.twohead = assetvc): upgrade git or run \
                     `assetvc install --no-strategy`"
                } else {
                    ": merges use the driver, file by file"
                }
            ),
        ),
        (Some(STRATEGY), Some(p)) => (
            true,
            format!(
                "pull.twohead = {STRATEGY} ({}, git {})",
                p.display(),
                git.as_ref().map(ToString::to_string).unwrap_or_default()
            ),
        ),
        (Some(STRATEGY), None) => (
            false,
            format!(
                "pull.twohead = {STRATEGY} but {STRATEGY_PROGRAM} is not on PATH: git cannot merge"
            ),
        ),
        _ if opted_out(repo) => (
            true,
            format!("{OPT_OUT_KEY} = false: merges use the driver (install --no-strategy)"),
        ),
        (Some(other), _) => (
            true,
            format!("pull.twohead = {other}: merges of assets use the driver"),
        ),
        (None, Some(_)) => (
            false,
            "pull.twohead is not set (run `assetvc install`, or opt out with --no-strategy)".into(),
        ),
        (None, None) => (
            true,
            format!("{STRATEGY_PROGRAM} is not on PATH: merges use the driver, file by file"),
        ),
    };
    Item {
        name: "strategy",
        ok,
        detail,
    }
}

/// doctor's item `git`: the version of the git on `PATH` and whether it can run the
/// strategy (never missing: an older git merges with the driver).
pub fn inspect_git() -> Item {
    let detail = match super::git_version::GitVersion::installed() {
        Ok(v) if v.missing().is_empty() => format!("git {v}: runs the merge strategy"),
        Ok(v) => format!(
            "git {v}: too old for the merge strategy (git {} or later), merges use the driver",
            super::git_version::GitVersion::minimum()
        ),
        Err(e) => e.to_string(),
    };
    Item {
        name: "git",
        ok: true,
        detail,
    }
}
