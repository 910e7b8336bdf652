//! `assetvc pull [REMOTE [BRANCH]]`: fetches the branch (through gix for local, file, ssh
//! and git remotes; through `git fetch` for https and remote helpers) and merges it into
//! HEAD like `assetvc merge`.

use crate::exit::bail;
use clap::Args;
use merge::Policy;

use super::merge::{merge_into_head, with_into};
use super::merge_file::parse_policy;
use super::porcelain;
use crate::exit::Outcome;

/// Arguments of `assetvc pull`.
#[derive(Debug, Args)]
pub struct PullArgs {
    /// How true conflicts in assets are resolved (default from assetvc.toml).
    #[arg(long, value_parser = parse_policy)]
    pub policy: Option<Policy>,
    /// Print the merge report as JSON on stdout.
    #[arg(long)]
    pub json: bool,
    /// The remote (a name or a URL); default: the branch's upstream remote, or `origin`.
    pub remote: Option<String>,
    /// The remote branch; default: the branch's upstream, or the current branch's name.
    pub branch: Option<String>,
    /// Not supported: `assetvc pull` merges. Use `git pull --rebase`, which merges assets
    /// by structure through the driver `assetvc install` registers.
    #[arg(long, hide = true)]
    pub rebase: bool,
}

/// What `assetvc pull --rebase` says instead of rebasing.
const NO_REBASE: &str = "assetvc pull merges and does not rebase: use `git pull --rebase`;     the merge driver `assetvc install` registers merges the assets by structure at each     step, and `assetvc conflicts` lists what it resolved by policy";

/// Runs `assetvc pull`: the exit statuses of `assetvc merge`.
pub fn run(args: &PullArgs) -> crate::exit::Result<Outcome> {
    crate::interrupt::remove_locks_on_termination();
    if args.rebase {
        bail!(NO_REBASE);
    }
    let (repo, _root) = porcelain::open_worktree()?;
    let current = repo.current_branch().map_err(porcelain::fail)?;
    let upstream = current.as_deref().and_then(|b| repo.upstream(b));
    let remote = args
        .remote
        .clone()
        .or_else(|| upstream.as_ref().map(|u| u.0.clone()))
        .unwrap_or_else(|| "origin".to_string());
    let branch = match &args.branch {
        Some(b) => b.clone(),
        None => match (&upstream, &current) {
            (Some((r, b)), _) if *r == remote => b.clone(),
            (_, Some(c)) => c.clone(),
            (_, None) => {
                bail!("HEAD is detached: name the branch to pull (assetvc pull REMOTE BRANCH)")
            }
        },
    };
    let fetched = repo
        .fetch_branch(&remote, &branch)
        .map_err(porcelain::fail)?;
    if !args.json {
        eprintln!("From {}", fetched.url);
        eprintln!(
            " * branch {branch} -> {}",
            fetched.tracking_ref.as_deref().unwrap_or("FETCH_HEAD")
        );
    }
    let label = format!("{remote}/{branch}");
    let title = with_into(&repo, format!("Merge branch '{branch}' of {}", fetched.url));
    merge_into_head(&repo, fetched.id, &label, &title, args.policy, args.json)
}
