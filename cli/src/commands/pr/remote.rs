//! `assetvc pr update` and `assetvc pr land`: merges computed in memory, written as merge
//! commits that move no local ref, and pushed with `git push` (gix has no push) so that
//! the remote's branch moves only from the commit the merge was made on.
//!
//! A pull request from a fork: `update --push-to FORK` reads the branch from the fork and
//! pushes it back there (the fork's branch moves only from the commit merged); `land
//! --head refs/pull/N/head` (GitHub) or `refs/merge-requests/N/head` (GitLab) reads the
//! head from the base repository's own pull-request ref (or `--from FORK`'s branch) and
//! pushes only the base. What is fetched this way is data: nothing of it is run.

use std::process::Command;

use crate::exit::{bail, Context};
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
    /// Where the branch lives and is pushed to: a remote name or URL (a fork); default the
    /// branch's upstream (`branch.BRANCH.pushRemote`, `branch.BRANCH.remote`), else
    /// `--remote`.
    #[arg(long, value_name = "REMOTE_OR_URL")]
    push_to: Option<String>,
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
    /// The ref the pull request's head is fetched from (`refs/pull/N/head` on GitHub,
    /// `refs/merge-requests/N/head` on GitLab); default the branch itself.
    #[arg(long, value_name = "REF")]
    head: Option<String>,
    /// Where the head is fetched from: a remote name or URL (a fork); default `--remote`.
    /// Only the base is pushed, to `--remote`.
    #[arg(long, value_name = "REMOTE_OR_URL")]
    from: Option<String>,
    /// The pull request's branch (its name in the merge commit).
    branch: String,
}

/// Runs `pr update`: 0 the branch holds the base (pushed, or already), 1 the merge cannot
/// be made by structure (nothing pushed), 2 an error (the push was refused…).
pub fn update(args: &UpdateArgs) -> crate::exit::Result<Outcome> {
    let (repo, root) = open()?;
    names_ok(&[&args.remote, &args.base, &args.branch])?;
    let target = push_target(&repo, args);
    names_ok(&[&target])?;
    fetch(&args.remote)?;
    let branch = if target == args.remote {
        remote_branch(&repo, &args.remote, &args.branch)?
    } else {
        fetch_head(
            &repo,
            &target,
            &format!("refs/heads/{}", args.branch),
            &args.branch,
        )?
    };
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
    if let Err(e) = push(&target, commit, &args.branch, branch) {
        return Err(Error::Failed(format!(
            "{e} (the branch moved? run `assetvc pr update` again)"
        )));
    }
    outln!(
        "Updated {}/{}: {} merges {} ({})",
        crate::report::safe(&without_credentials(&target)),
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
pub fn land(args: &LandArgs) -> crate::exit::Result<Outcome> {
    let (repo, root) = open()?;
    names_ok(&[&args.remote, &args.into, &args.branch])?;
    let source = args.from.as_deref().unwrap_or(&args.remote);
    names_ok(&[source])?;
    if let Some(head) = &args.head {
        names_ok(&[head])?;
    }
    let tries = args.tries.max(1);
    for attempt in 1..=tries {
        fetch(&args.remote)?;
        let base = remote_branch(&repo, &args.remote, &args.into)?;
        let branch = if args.head.is_none() && source == args.remote {
            remote_branch(&repo, &args.remote, &args.branch)?
        } else {
            let head = (args.head.clone()).unwrap_or_else(|| format!("refs/heads/{}", args.branch));
            fetch_head(&repo, source, &head, &args.branch)?
        };
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
    )))
}

/// Refuses names git would read as options.
fn names_ok(names: &[&str]) -> crate::exit::Result<()> {
    for n in names {
        if n.is_empty() || n.starts_with('-') {
            bail!("{n:?} is not a remote or branch name");
        }
    }
    Ok(())
}

/// `git fetch --quiet REMOTE`: the remote-tracking branches as the host has them now.
fn fetch(remote: &str) -> crate::exit::Result<()> {
    let status = Command::new("git")
        .args(["fetch", "--quiet", "--", remote])
        .status()
        .context("cannot run git")?;
    if !status.success() {
        bail!("git fetch {remote} failed");
    }
    Ok(())
}

/// Where `pr update` reads and pushes the branch: `--push-to`, else the branch's upstream
/// in this clone's configuration, else `--remote`.
fn push_target(repo: &store::Repo, args: &UpdateArgs) -> String {
    let upstream = || {
        ["pushRemote", "remote"]
            .iter()
            .find_map(|k| repo.config_value(&format!("branch.{}.{k}", args.branch)))
            .filter(|r| r != ".")
    };
    args.push_to
        .clone()
        .or_else(upstream)
        .unwrap_or_else(|| args.remote.clone())
}

/// Fetches `reference` (`refs/pull/1/head`, `refs/heads/feature`) from `source` (a remote
/// or a URL) into the clone's private ref `refs/assetvc/pr/NAME` and returns its commit.
fn fetch_head(
    repo: &store::Repo,
    source: &str,
    reference: &str,
    name: &str,
) -> crate::exit::Result<ObjectId> {
    let local = format!("refs/assetvc/pr/{name}");
    let status = Command::new("git")
        .args([
            "fetch",
            "--quiet",
            "--no-tags",
            "--no-write-fetch-head",
            "--",
        ])
        .arg(source)
        .arg(format!("+{reference}:{local}"))
        .status()
        .context("cannot run git")?;
    if !status.success() {
        bail!(
            "git fetch {} {} failed",
            crate::report::safe(&without_credentials(source)),
            crate::report::safe(reference)
        );
    }
    repo.resolve_commit(&local).map_err(porcelain::fail)
}

/// `source` to show: a URL without its credentials (`https://x-access-token:SECRET@host/r`
/// shows as `https://host/r`), anything else as it is.
fn without_credentials(source: &str) -> String {
    let Some((scheme, rest)) = source.split_once("://") else {
        return source.to_string();
    };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => format!("{scheme}://{}", &rest[at + 1..]),
        None => source.to_string(),
    }
}

/// `line` with every URL in it shown [`without_credentials`].
fn line_without_credentials(line: &str) -> String {
    let mut out = line.to_string();
    for word in line.split(|c: char| c.is_whitespace() || c == '\'' || c == '"') {
        if word.contains("://") {
            out = out.replace(word, &without_credentials(word));
        }
    }
    out
}

/// The commit of `REMOTE/NAME` as last fetched.
fn remote_branch(repo: &store::Repo, remote: &str, name: &str) -> crate::exit::Result<ObjectId> {
    repo.resolve_commit(&format!("refs/remotes/{remote}/{name}"))
        .map_err(porcelain::fail)
}

/// Pushes `commit` to `REMOTE`'s branch `name` only if the branch is still at `expected`.
fn push(remote: &str, commit: ObjectId, name: &str, expected: ObjectId) -> crate::exit::Result<()> {
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
        bail!(
            "{}",
            crate::report::safe(&line_without_credentials(first.trim()))
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn urls_are_shown_without_credentials() {
        let shown = without_credentials("https://x-access-token:s3cr3t@github.com/o/r.git");
        assert_eq!(shown, "https://github.com/o/r.git");
        assert_eq!(
            without_credentials("https://oauth2:t@h:8443/g/p.git"),
            "https://h:8443/g/p.git"
        );
        assert_eq!(without_credentials("fork"), "fork");
        assert_eq!(
            without_credentials("git@github.com:o/r.git"),
            "git@github.com:o/r.git"
        );
        assert_eq!(without_credentials("https://h/a@b"), "https://h/a@b");
        assert_eq!(without_credentials("/srv/fork.git"), "/srv/fork.git");
        assert_eq!(
            line_without_credentials("error: failed to push some refs to 'https://u:p@h/r.git'"),
            "error: failed to push some refs to 'https://h/r.git'"
        );
    }

    proptest! {
        /// Never panics; a URL's password never shows.
        #[test]
        fn credentials_never_show(user in "[a-z]{1,8}", secret in "[A-Za-z0-9]{8,16}", host in "[a-z]{1,8}", path in "[a-z/@]{0,12}", any in ".{0,30}") {
            let _ = without_credentials(&any);
            let url = format!("https://{user}:{secret}@{host}/{path}");
            let shown = without_credentials(&url);
            prop_assert!(!shown.contains(&format!(":{secret}@")), "{}", shown);
            prop_assert_eq!(shown, format!("https://{host}/{path}"));
        }
    }
}
