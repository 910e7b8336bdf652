//! `assetvc pr update` and `assetvc pr land`: merges computed in memory, written as merge
//! commits that move no local ref, and pushed with `git push` (gix has no push) so that
//! the remote's branch moves only from the commit the merge was made on.

use std::process::Command;

use anyhow::{bail, Context};
use clap::Args;
use store::ObjectId;

use super::{merge_pr, open, short, Common};
use crate::commands::porcelain;
use crate::exit::{Error, Outcome};

/// Arguments of `assetvc pr update`.
#[derive(Debug, Args)]
pub struct UpdateArgs {
    #[command(flatten)]
    common: Common,
    /// The remote that hosts both branches.
    #[arg(long, default_value = "origin")]
    remote: String,
    /// The branch the pull request goes into.
    #[arg(long)]
    base: String,
    /// The pull request's branch, which receives the merge.
    branch: String,
}

/// Arguments of `assetvc pr land`.
#[derive(Debug, Args)]
pub struct LandArgs {
    #[command(flatten)]
    common: Common,
    /// The remote that hosts both branches.
    #[arg(long, default_value = "origin")]
    remote: String,
    /// The branch the pull request goes into (it moves to the merge commit).
    #[arg(long)]
    into: String,
    /// How many times to merge again when the base moved before the push.
    #[arg(long, default_value_t = 5)]
    tries: u32,
    /// The pull request's branch.
    branch: String,
}

/// Runs `pr update`: 0 the branch holds the base (pushed, or already), 1 the merge cannot
/// be made by structure (nothing pushed), 2 an error (the push was refused…).
pub fn update(args: &UpdateArgs) -> anyhow::Result<Outcome> {
    let (repo, root) = open()?;
    names_ok(&[&args.remote, &args.base, &args.branch])?;
    fetch(&args.remote)?;
    let branch = remote_branch(&repo, &args.remote, &args.branch)?;
    let base = remote_branch(&repo, &args.remote, &args.base)?;
    let pr = merge_pr(
        &repo,
        &root,
        (branch, base),
        (&args.branch, &args.base),
        args.common.policy,
    )?;
    let what = format!("{} into {}", args.base, args.branch);
    pr.print(&crate::report::safe(&what));
    if pr.up_to_date {
        return Ok(Outcome::Done);
    }
    if !pr.clean() {
        return Ok(Outcome::Problems);
    }
    let title = format!("Merge branch '{}' into {}", args.base, args.branch);
    let commit = repo
        .write_commit(pr.merged.tree, &[branch, base], &pr.message(&title))
        .map_err(porcelain::fail)?;
    if let Err(e) = push(&args.remote, commit, &args.branch, branch) {
        return Err(Error::Failed(format!(
            "{e} (the branch moved? run `assetvc pr update` again)"
        ))
        .into());
    }
    outln!(
        "Updated {}/{}: {} merges {} ({})",
        args.remote,
        args.branch,
        short(&commit),
        args.base,
        short(&base)
    );
    Ok(Outcome::Done)
}

/// Runs `pr land`: 0 landed (or already in the base), 1 refused (cannot merge by
/// structure, or the checks fail; the reasons printed), 2 an error or the base kept
/// moving for `--tries` tries.
pub fn land(args: &LandArgs) -> anyhow::Result<Outcome> {
    let (repo, root) = open()?;
    names_ok(&[&args.remote, &args.into, &args.branch])?;
    let tries = args.tries.max(1);
    for attempt in 1..=tries {
        fetch(&args.remote)?;
        let base = remote_branch(&repo, &args.remote, &args.into)?;
        let branch = remote_branch(&repo, &args.remote, &args.branch)?;
        let pr = merge_pr(
            &repo,
            &root,
            (base, branch),
            (&args.into, &args.branch),
            args.common.policy,
        )?;
        let what = format!("{} into {}", args.branch, args.into);
        pr.print(&crate::report::safe(&what));
        if pr.up_to_date {
            return Ok(Outcome::Done);
        }
        if !pr.clean() {
            crate::report::error(format!(
                "{} not landed: fix the branch (or `assetvc pr update` it) and try again",
                crate::report::safe(&args.branch)
            ));
            return Ok(Outcome::Blocked);
        }
        let title = format!("Merge branch '{}' into {}", args.branch, args.into);
        let commit = repo
            .write_commit(pr.merged.tree, &[base, branch], &pr.message(&title))
            .map_err(porcelain::fail)?;
        match push(&args.remote, commit, &args.into, base) {
            Ok(()) => {
                outln!(
                    "Landed {} on {}/{}: {}",
                    args.branch,
                    args.remote,
                    args.into,
                    short(&commit)
                );
                return Ok(Outcome::Done);
            }
            Err(e) => eprintln!(
                "assetvc: try {attempt}/{tries}: {} moved or the push was refused ({e}); merging again",
                args.into
            ),
        }
    }
    Err(Error::Failed(format!(
        "gave up after {tries} tries: {} kept moving (or refuses the push)",
        args.into
    ))
    .into())
}

/// Refuses names git would read as options.
fn names_ok(names: &[&str]) -> anyhow::Result<()> {
    for n in names {
        if n.is_empty() || n.starts_with('-') {
            bail!("{n:?} is not a remote or branch name");
        }
    }
    Ok(())
}

/// `git fetch --quiet REMOTE`: the remote-tracking branches as the host has them now.
fn fetch(remote: &str) -> anyhow::Result<()> {
    let status = Command::new("git")
        .args(["fetch", "--quiet", "--", remote])
        .status()
        .context("cannot run git")?;
    if !status.success() {
        bail!("git fetch {remote} failed");
    }
    Ok(())
}

/// The commit of `REMOTE/NAME` as last fetched.
fn remote_branch(repo: &store::Repo, remote: &str, name: &str) -> anyhow::Result<ObjectId> {
    repo.resolve_commit(&format!("refs/remotes/{remote}/{name}"))
        .map_err(porcelain::fail)
}

/// Pushes `commit` to `REMOTE`'s branch `name` only if the branch is still at `expected`.
fn push(remote: &str, commit: ObjectId, name: &str, expected: ObjectId) -> anyhow::Result<()> {
    let out = Command::new("git")
        .arg("push")
        .arg("--quiet")
        .arg(format!("--force-with-lease=refs/heads/{name}:{expected}"))
        .arg("--")
        .arg(remote)
        .arg(format!("{commit}:refs/heads/{name}"))
        .output()
        .context("cannot run git")?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let first = stderr
            .lines()
            .find(|l| l.contains("rejected") || l.contains("error"))
            .unwrap_or("git push failed");
        bail!("{}", crate::report::safe(first.trim()));
    }
    Ok(())
}
