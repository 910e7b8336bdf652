//! `git-merge-assetvc`: the merge strategy git runs once per merge step when
//! `pull.twohead = assetvc` (`git merge`, `git pull`, and through the sequencer
//! `git rebase` and `git cherry-pick`), or with `-s assetvc`:
//! `git-merge-assetvc [--OPTION...] BASE... -- HEAD REMOTE`.
//!
//! It merges the three trees it is given — assets by structure in process, every other
//! path by git's own merge-ort (`git merge-tree --write-tree`) — and writes the worktree
//! and the index under the index lock: exit 0 clean, 1 when paths are left for the user (unmerged index
//! entries with stages 1–3, conflict markers or the structured result in their files, as
//! the driver leaves them), 2 when it did nothing (local changes in the way, an octopus).
//! It never commits nor touches `MERGE_HEAD`/`MERGE_MSG`: git does that around it. Each
//! run appends its files to the merge journal, as the driver does, for `assetvc
//! conflicts`, `assetvc resolve` and the `prepare-commit-msg` hook.

use std::ffi::OsString;

use crate::exit::failure;
use merge::Policy;
use store::{Journal, MergeTrees, ObjectId, StrategyMerge};

use super::merging::{self, Sides};
use super::porcelain;
use crate::exit::Outcome;

/// How to call the strategy.
const USAGE: &str = "usage: git-merge-assetvc [--OPTION...] BASE... -- HEAD REMOTE";

/// The arguments git passes, as read.
#[derive(Debug, PartialEq, Eq)]
struct StrategyArgs {
    /// `--OPTION`s (`-X OPTION` of git): `--ours`, `--theirs` and `--policy=NAME` choose
    /// the policy; the others are reported and ignored.
    options: Vec<String>,
    /// The merge bases (none for unrelated histories).
    bases: Vec<String>,
    /// HEAD (`HEAD`, or a commit id from the sequencer).
    head: String,
    /// The merged or replayed commits (one; more is an octopus, not handled).
    remotes: Vec<String>,
}

/// Reads `[--OPTION...] BASE... -- HEAD REMOTE...`.
fn parse(args: Vec<String>) -> crate::exit::Result<StrategyArgs> {
    let Some(dash) = args.iter().position(|a| a == "--") else {
        return Err(failure!("no `--` among the arguments\n{USAGE}"));
    };
    let (before, after) = args.split_at(dash);
    let (options, bases): (Vec<String>, Vec<String>) =
        before.iter().cloned().partition(|a| a.starts_with("--"));
    let mut after = after[1..].iter().cloned();
    let head = after
        .next()
        .ok_or_else(|| failure!("no HEAD after `--`\n{USAGE}"))?;
    let remotes: Vec<String> = after.collect();
    if remotes.is_empty() {
        return Err(failure!("no REMOTE after HEAD\n{USAGE}"));
    }
    Ok(StrategyArgs {
        options,
        bases,
        head,
        remotes,
    })
}

/// The `git-merge-assetvc` binary's command line (read without clap: git starts it once
/// per merge step).
pub fn main(args: impl Iterator<Item = OsString>) -> crate::exit::Result<Outcome> {
    let args: Vec<String> = args
        .map(|a| {
            a.into_string()
                .map_err(|a| failure!("argument is not UTF-8: {}", a.to_string_lossy()))
        })
        .collect::<crate::exit::Result<_>>()?;
    match args.first().map(String::as_str) {
        Some("-h" | "--help") => {
            outln!("The merge strategy git runs with pull.twohead = assetvc.\n{USAGE}");
            return Ok(Outcome::Done);
        }
        Some("-V" | "--version") => {
            outln!("git-merge-assetvc {}", crate::VERSION);
            return Ok(Outcome::Done);
        }
        _ => {}
    }
    run(&parse(args)?)
}

/// The policy the strategy options choose, if any: `-X ours` / `-X theirs` (git passes
/// `--ours` / `--theirs`) or `-X policy=NAME`; other options are reported and ignored.
fn policy_option(options: &[String]) -> crate::exit::Result<Option<Policy>> {
    let mut chosen = None;
    for o in options {
        let name = match o.as_str() {
            "--ours" => "ours",
            "--theirs" => "theirs",
            other => match other.strip_prefix("--policy=") {
                Some(name) => name,
                None => {
                    eprintln!(
                        "assetvc: note: strategy option {} ignored",
                        crate::report::safe_line(o)
                    );
                    continue;
                }
            },
        };
        chosen = Some(super::merge_file::parse_policy(name).map_err(|e| failure!(e))?);
    }
    Ok(chosen)
}

/// Merges, updates the worktree and the index, records and reports.
fn run(args: &StrategyArgs) -> crate::exit::Result<Outcome> {
    if args.remotes.len() > 1 {
        return Err(failure!(
            "merging {} heads at once (an octopus) is not handled; merge them one by one",
            args.remotes.len()
        ));
    }
    let chosen = policy_option(&args.options)?;
    let (repo, root) = porcelain::open_worktree()?;
    let resolve = |spec: &str| repo.resolve_object(spec).map_err(porcelain::fail);
    let ours = resolve(&args.head)?;
    let theirs = resolve(&args.remotes[0])?;
    let bases: Vec<ObjectId> = args
        .bases
        .iter()
        .map(|b| resolve(b))
        .collect::<crate::exit::Result<_>>()?;
    let env: Vec<(String, String)> = std::env::vars()
        .filter(|(k, _)| k.starts_with("GIT"))
        .collect();
    let (operation, place) = store::detect_operation(repo.git_dir(), &env);
    let (mut options, config) = porcelain::settings(&root, chosen)?;
    let configured = options.policy;
    options.policy = configured.for_operation(operation.swapped);
    let rules = porcelain::asset_rules(&config, options)?;
    let theirs_label = std::env::var(format!("GITHEAD_{theirs}"))
        .unwrap_or_else(|_| theirs.to_hex_with_len(7).to_string());
    let trees = MergeTrees {
        bases: &bases,
        ours,
        theirs,
        labels: ("HEAD", &theirs_label),
    };
    // Checked first, not when git's merge fails: most merges need no `git merge-tree`
    // (store's `direct.rs`), and a strategy that works only for some merges on an old git
    // would be worse than one that says at once what it needs.
    if let Some(too_old) = git_too_old(bases.is_empty()) {
        return Err(too_old);
    }
    let merged = repo
        .merge_trees_into_worktree(&trees, &rules)
        .map_err(porcelain::fail)?;
    let sides = Sides::of(&operation);
    report(&merged, configured, &sides);
    for line in super::resources::created_by_merge(&repo, &root, Some(ours), &config) {
        eprintln!("assetvc: {line} (created by this merge)");
    }
    if merged.files.is_empty() && merged.unresolved.is_empty() {
        // No asset merged, nothing left: nothing for the journal.
        return Ok(Outcome::Done);
    }
    let base = (bases.len() == 1).then(|| bases[0]);
    let journal = Journal::at(repo.git_dir()).begin(&operation);
    let recorded = journal.map_err(crate::exit::Error::from).and_then(|log| {
        record(
            &repo,
            &log,
            (base, ours, theirs),
            &merged,
            configured,
            &sides,
        )
        .map(|steps| (log, steps))
    });
    match recorded {
        Ok((log, steps)) => super::merge_driver::append_all(&log, steps, &place),
        Err(e) => eprintln!("assetvc: warning: could not record the merge: {e}"),
    }
    Ok(Outcome::done_unless(
        !merged.unresolved.is_empty(),
        Outcome::Conflicts,
    ))
}

/// Why the installed git is too old for the strategy, if it is (one `git --version`, about
/// a millisecond). Unrelated histories (no base) need git 2.45.
fn git_too_old(unrelated: bool) -> Option<crate::exit::Error> {
    use super::git_version::{strategy_git, TREES_AS_BASE};
    match strategy_git() {
        Err(reason) => Some(not_handled(reason.to_string())),
        Ok(git) if unrelated && git < TREES_AS_BASE => Some(not_handled(format!(
            "git {git} cannot merge unrelated histories with the strategy (git {TREES_AS_BASE} \
             or later can); merge with `git merge -s ort`"
        ))),
        Ok(_) => None,
    }
}

/// Exit 2, "not handled" (git then reports the strategy failed, or tries the next one),
/// with `reason` and what to do about it.
fn not_handled(reason: String) -> crate::exit::Error {
    crate::exit::Error::Failed(format!(
        "{reason}; nothing merged. Upgrade git, or merge with the driver: \
         `assetvc install --no-strategy`"
    ))
}

/// Prints what the merge did to stderr, the way the driver does.
fn report(merged: &StrategyMerge, configured: Policy, sides: &Sides) {
    for f in merged.files.iter().filter(|f| !f.conflicts.is_empty()) {
        let n = f.conflicts.len();
        eprintln!(
            "assetvc: {}: merged, {n} conflict{} resolved ({})",
            crate::report::safe_line(&f.path),
            if n == 1 { "" } else { "s" },
            configured.name()
        );
        for (i, (c, place)) in f.conflicts.iter().zip(f.places_or_none()).enumerate() {
            let referrer = f.referrers.get(i).and_then(|r| r.as_deref());
            eprintln!(
                "assetvc:   {}",
                merging::conflict_line(c, configured, sides, (place, referrer))
            );
        }
    }
    for u in &merged.unresolved {
        eprintln!(
            "assetvc: {}: conflict: {}",
            crate::report::safe_line(&u.path),
            crate::report::safe_line(&u.kind.to_string())
        );
    }
}

/// The journal steps of the merge: one per merged asset (with its three versions when it
/// had conflicts) and one per other path left for the user.
fn record(
    repo: &store::Repo,
    log: &store::OperationLog,
    versions_from: (Option<ObjectId>, ObjectId, ObjectId),
    merged: &StrategyMerge,
    configured: Policy,
    sides: &Sides,
) -> crate::exit::Result<Vec<store::FileStep>> {
    let with_conflicts: Vec<&str> = merged
        .files
        .iter()
        .filter(|f| !f.conflicts.is_empty())
        .map(|f| f.path.as_str())
        .collect();
    let mut versions = repo
        .versions_in(versions_from, &with_conflicts)?
        .into_iter();
    let mut steps = Vec::new();
    for f in &merged.files {
        let mut step = merging::step_report(&f.path, configured, sides, &f.conflicts, &f.places)
            .with_referrers(&f.referrers);
        if !f.conflicts.is_empty() {
            if let Some(Some(v)) = versions.next() {
                step.versions = Some(log.save_versions(&v)?);
            }
        }
        if let Some(u) = merged.unresolved.iter().find(|u| u.path == f.path) {
            step.unresolved = Some(u.kind.to_string());
        }
        steps.push(step);
    }
    for u in &merged.unresolved {
        if merged.files.iter().all(|f| f.path != u.path) {
            steps.push(merging::unresolved_step(
                &u.path,
                configured,
                &u.kind.to_string(),
            ));
        }
    }
    Ok(steps)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn reads_what_git_passes() {
        let a = parse(strings(&["--theirs", "b1", "b2", "--", "HEAD", "abc"])).unwrap();
        assert_eq!(a.options, ["--theirs"]);
        assert_eq!(a.bases, ["b1", "b2"]);
        assert_eq!(a.head, "HEAD");
        assert_eq!(a.remotes, ["abc"]);
        let unrelated = parse(strings(&["--", "HEAD", "abc"])).unwrap();
        assert!(unrelated.bases.is_empty());
    }

    #[test]
    fn refuses_incomplete_arguments() {
        assert!(parse(strings(&["b", "HEAD", "abc"])).is_err());
        assert!(parse(strings(&["b", "--", "HEAD"])).is_err());
        assert!(parse(strings(&["b", "--"])).is_err());
    }

    #[test]
    fn x_options_choose_the_policy() {
        assert_eq!(
            policy_option(&strings(&["--ours"])).unwrap(),
            Some(Policy::Ours)
        );
        assert_eq!(
            policy_option(&strings(&["--ours", "--theirs"])).unwrap(),
            Some(Policy::Theirs)
        );
        assert_eq!(
            policy_option(&strings(&["--policy=fail"])).unwrap(),
            Some(Policy::Fail)
        );
        assert_eq!(policy_option(&strings(&["--renormalize"])).unwrap(), None);
        assert!(policy_option(&strings(&["--policy=nonsense"])).is_err());
    }

    proptest! {
        /// Any argument list parses or is refused, never panics; what parses keeps every
        /// argument in its place.
        #[test]
        fn parse_never_panics(args in proptest::collection::vec("(--)?[a-z0-9-]{0,4}", 0..8)) {
            if let Ok(a) = parse(args.clone()) {
                let n = a.options.len() + a.bases.len() + 2 + a.remotes.len();
                prop_assert_eq!(n, args.len());
                prop_assert!(!a.remotes.is_empty());
            }
        }
    }
}
