//! `assetvc pr check | update | land`: pull requests over plain git, in CI, where the
//! host's merge button never runs a merge driver (GitHub, GitLab.com) and its merge queue
//! drops a pull request that conflicts as text.
//!
//! * `check BASE HEAD`: the structured merge of HEAD into BASE, in memory, and the guards
//!   on what it would land: clean (0), or the conflicts the policy would decide (objects
//!   named) and what it cannot merge or what breaks a level (1); `--html` writes the
//!   review page as a CI artifact.
//! * `update BRANCH --base BASE`: merges the base into the branch by structure and pushes
//!   the branch with a lease, so that the host's own merge of it is conflict-free.
//! * `land BRANCH --into BASE`: one merge-queue step: the structured merge onto the
//!   current base, the checks, then a push of the base that succeeds only if the base has
//!   not moved (else again from the new base, up to `--tries` times).
//!
//! Every merge is computed in memory (`store::Repo::merge_trees`): the worktree is never
//! touched, so a CI checkout of any commit serves.

mod check;
mod remote;

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use merge::Policy;
use store::{MergeTrees, ObjectId, StrategyMerge};

use super::merge_file::parse_policy;
use super::porcelain;
use crate::exit::Outcome;

/// Arguments of `assetvc pr`.
#[derive(Debug, Args)]
pub struct PrArgs {
    #[command(subcommand)]
    command: PrCommand,
}

#[derive(Debug, Subcommand)]
enum PrCommand {
    /// Whether HEAD merges into BASE by structure and passes the guards (exit 0 / 1 / 2).
    Check(check::CheckArgs),
    /// Merge the base into the branch by structure and push the branch with a lease.
    Update(remote::UpdateArgs),
    /// One merge-queue step: merge the branch onto the current base, check, push the base.
    Land(remote::LandArgs),
}

/// Runs `assetvc pr …`.
pub fn run(args: &PrArgs) -> crate::exit::Result<Outcome> {
    match &args.command {
        PrCommand::Check(a) => check::run(a),
        PrCommand::Update(a) => remote::update(a),
        PrCommand::Land(a) => remote::land(a),
    }
}

/// Options every `pr` command shares.
#[derive(Debug, Args)]
struct Common {
    /// How true conflicts in assets are resolved (default from assetvc.toml).
    #[arg(long, value_parser = parse_policy)]
    policy: Option<Policy>,
}

/// The structured merge of `theirs` into `ours` (in memory), with the guards' verdict on
/// what it would bring into ours.
struct PrMerge {
    /// Ours: the commit merged into.
    ours: ObjectId,
    /// Theirs: the commit merged.
    theirs: ObjectId,
    /// Theirs is already contained in ours: nothing to merge.
    up_to_date: bool,
    /// The merge (empty when up to date).
    merged: StrategyMerge,
    /// The guards' problems in what the merge changes in ours, rendered.
    problems: Vec<String>,
    /// The policy conflicts were resolved by.
    policy: Policy,
}

impl PrMerge {
    /// Whether the merge can land: merged, nothing left, no problem.
    fn clean(&self) -> bool {
        self.merged.unresolved.is_empty() && self.problems.is_empty()
    }

    /// The lines listing what the policy decided: `level.sjson entities[crate #e1].tint: both
    /// modified, took theirs`.
    fn decided(&self) -> Vec<String> {
        store::conflict_lines(&self.merged.files)
    }

    /// A merge commit message: `title`, then what the policy decided.
    fn message(&self, title: &str) -> String {
        let mut message = format!("{title}\n");
        let lines = self.decided();
        if !lines.is_empty() {
            let n = lines.len();
            message.push_str(&format!(
                "\nassetvc resolved {n} conflict{} by policy {}:\n",
                if n == 1 { "" } else { "s" },
                self.policy.name()
            ));
            for line in lines {
                message.push_str(&line);
                message.push('\n');
            }
        }
        message
    }

    /// Prints the outcome for people (stderr), repository data escaped.
    fn print(&self, what: &str) {
        let safe = crate::report::safe;
        if self.up_to_date {
            eprintln!("assetvc: {what}: already merged");
            return;
        }
        for line in self.decided() {
            eprintln!(
                "assetvc: decided by policy {}: {}",
                self.policy.name(),
                safe(&line)
            );
        }
        for u in &self.merged.unresolved {
            eprintln!(
                "assetvc: not merged: {}: {}",
                safe(&u.path),
                safe(&u.kind.to_string())
            );
        }
        for p in &self.problems {
            eprintln!("{p}");
        }
        let verdict = if self.clean() {
            "merges cleanly by structure"
        } else {
            "cannot land as it is"
        };
        eprintln!("assetvc: {what}: {verdict}");
    }
}

/// The repository around the current directory and where its `assetvc.toml` is read
/// (the worktree's root; the git directory of a bare clone).
fn open() -> crate::exit::Result<(store::Repo, PathBuf)> {
    let repo = store::Repo::discover(Path::new(".")).map_err(porcelain::fail)?;
    let root = repo.workdir().unwrap_or(repo.git_dir()).to_path_buf();
    Ok((repo, root))
}

/// Merges `theirs` into `ours` in memory (labels name them in conflict markers) and runs
/// the guards on what the merge changes in ours.
fn merge_pr(
    repo: &store::Repo,
    root: &Path,
    (ours, theirs): (ObjectId, ObjectId),
    labels: (&str, &str),
    policy: Option<Policy>,
) -> crate::exit::Result<PrMerge> {
    super::git_version::merge_tree_git("`assetvc pr`")
        .map_err(|e| crate::exit::Error::Failed(e.to_string()))?;
    let (options, config) = porcelain::settings(root, policy)?;
    let policy = options.policy;
    let rules = porcelain::asset_rules(&config, options)?;
    let base = repo.merge_base_of(ours, theirs).map_err(porcelain::fail)?;
    let mut out = PrMerge {
        ours,
        theirs,
        up_to_date: base == Some(theirs),
        merged: StrategyMerge {
            tree: repo.tree_of(Some(ours)).map_err(porcelain::fail)?,
            files: Vec::new(),
            unresolved: Vec::new(),
        },
        problems: Vec::new(),
        policy,
    };
    if out.up_to_date {
        return Ok(out);
    }
    let bases: Vec<ObjectId> = base.into_iter().collect();
    let trees = MergeTrees {
        bases: &bases,
        ours,
        theirs,
        labels,
    };
    out.merged = repo.merge_trees(&trees, &rules).map_err(porcelain::fail)?;
    out.problems = guards(repo, &config, out.merged.tree, ours)?;
    Ok(out)
}

/// The guards' problems in the blobs tree `merged` adds or changes against `ours`' tree;
/// with `[references] resources`, also the references to files the merge deletes from
/// ours, in assets the merge does not change (a unit deleted by the pull request that a
/// level of the base still places).
fn guards(
    repo: &store::Repo,
    config: &config::Config,
    merged: ObjectId,
    ours: ObjectId,
) -> crate::exit::Result<Vec<String>> {
    use std::collections::HashSet;
    let mut policy = hooks::Policy::new(config)?;
    let old = repo.tree_of(Some(ours)).map_err(porcelain::fail)?;
    let job = |c: store::Change| hooks::engine::Job {
        path: c.path,
        id: c.id,
        base: c.base,
    };
    let mut jobs: Vec<hooks::engine::Job> = repo
        .diff_trees(Some(old), merged)
        .map_err(porcelain::fail)?
        .into_iter()
        .map(job)
        .collect();
    let changed = jobs.len();
    let mut deleted: Vec<String> = Vec::new();
    if policy.checks_resources() {
        let all = repo.diff_trees(None, merged).map_err(porcelain::fail)?;
        let paths: HashSet<String> = all.iter().map(|c| c.path.clone()).collect();
        deleted = repo
            .diff_trees(None, old)
            .map_err(porcelain::fail)?
            .into_iter()
            .map(|c| c.path)
            .filter(|p| !paths.contains(p))
            .collect();
        if !deleted.is_empty() {
            let seen: HashSet<String> = jobs.iter().map(|j| j.path.clone()).collect();
            jobs.extend(all.into_iter().filter(|c| !seen.contains(&c.path)).map(job));
        }
        policy = policy.with_tree(hooks::checks::resources::TreePaths::new(move |p| {
            paths.contains(p)
        }));
    }
    let readers = repo.readers();
    let outcome = hooks::engine::in_pool(|| hooks::engine::check_jobs(&jobs, &policy, &readers));
    Ok(outcome
        .problems
        .into_iter()
        .enumerate()
        .flat_map(|(i, problems)| {
            // An unchanged asset counts only for its references to what the merge deletes.
            let unchanged = i >= changed;
            let deleted = &deleted;
            problems.into_iter().filter(move |p| {
                !unchanged || deleted.iter().any(|d| p.reason.contains(d.as_str()))
            })
        })
        .filter(hooks::Problem::is_error)
        .map(|p| p.render())
        .collect())
}

/// `abc1234`.
fn short(id: &ObjectId) -> String {
    id.to_hex_with_len(7).to_string()
}
