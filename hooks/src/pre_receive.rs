//! The server side: `assetvc hook pre-receive`, run by git in a bare repository with the
//! pushed objects in quarantine.
//!
//! For every updated ref it checks, by default, the blobs that differ between the old
//! and the new tip. A created ref is measured from its branch point: the first commit
//! on its first-parent chain that some existing ref already reaches (or the empty tree
//! when there is none, as in the first push to an empty repository). With
//! `git config assetvc.hook.everyCommit true` it checks instead the blobs that each new
//! commit (reachable from the new tip, not from any existing ref) introduces: those
//! that differ from every parent. A deleted ref is accepted; a ref (a tag) naming a tree
//! or a blob is accepted without checks. Tags are peeled to their commit.
//!
//! The policy comes from the server only: `git config assetvc.config PATH`, else an
//! `assetvc.toml` in the repository directory, else the defaults; external checkers
//! from the repository's, the global and the system git config. Never from the push.
//!
//! It fails closed: an unreadable object, an invalid policy, a crash or running past
//! `assetvc.hook.timeout` (default 600 s) rejects the push with the reason.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use store::{Error as StoreError, ObjectDirs, ObjectId, Repo, Target};

use crate::engine::{check_jobs, Job, STACK_SIZE};
use crate::external::GitSettings;
use crate::policy::Policy;
use crate::problem::{Check, Problem};
use config::{Config, ConfigError, FILE_NAME};

/// The most problems printed in a report; the rest are counted.
const MAX_SHOWN: usize = 200;

/// One line of the hook's input: `old new ref`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefUpdate {
    /// The old value (`None`: the ref is created).
    pub old: Option<ObjectId>,
    /// The new value (`None`: the ref is deleted).
    pub new: Option<ObjectId>,
    /// The ref's full name.
    pub name: String,
}

/// Parses the hook's standard input (blank lines ignored).
pub fn parse_updates(input: &str) -> Result<Vec<RefUpdate>, String> {
    let id = |hex: &str| -> Result<Option<ObjectId>, String> {
        let id = ObjectId::from_hex(hex.as_bytes())
            .map_err(|e| format!("bad object id {hex:?} on standard input: {e}"))?;
        Ok((!id.is_null()).then_some(id))
    };
    let mut out = Vec::new();
    for line in input.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let mut parts = line.splitn(3, ' ');
        let (Some(old), Some(new), Some(name)) = (parts.next(), parts.next(), parts.next()) else {
            return Err(format!(
                "expected `old new ref` on standard input, got {line:?}"
            ));
        };
        out.push(RefUpdate {
            old: id(old)?,
            new: id(new)?,
            name: name.to_string(),
        });
    }
    Ok(out)
}

/// A problem, with where the push brought it in.
#[derive(Debug, Clone)]
pub struct Located {
    /// The ref.
    pub refname: String,
    /// The commit holding the blob (the new tip, or with everyCommit the commit that
    /// introduced it).
    pub commit: ObjectId,
    /// The commit's first message line.
    pub summary: String,
    /// The problem.
    pub problem: Problem,
}

/// What the hook decided.
#[derive(Debug, Default)]
pub struct Report {
    /// Remarks for the pusher (refs not checked and why).
    pub notes: Vec<String>,
    /// Problems found; any rejects the push.
    pub problems: Vec<Located>,
    /// Why the push could not be checked; rejects the push.
    pub fatal: Option<String>,
    /// Work-in-progress refs pushed by someone other than their owner; rejects the push.
    pub refused: Vec<String>,
    /// Distinct blobs read and checked.
    pub blobs_checked: usize,
    /// Wall time.
    pub elapsed: Duration,
}

impl Report {
    fn fatal(message: impl Into<String>, start: Instant) -> Report {
        Report {
            fatal: Some(message.into()),
            elapsed: start.elapsed(),
            ..Report::default()
        }
    }

    /// Whether the push may go in.
    pub fn accepted(&self) -> bool {
        self.fatal.is_none() && self.problems.is_empty() && self.refused.is_empty()
    }

    /// The report for the pusher (git relays the hook's stderr as `remote: …`).
    pub fn render(&self) -> String {
        let mut out = String::new();
        for note in &self.notes {
            let _ = writeln!(out, "assetvc: note: {note}");
        }
        for refused in &self.refused {
            let _ = writeln!(out, "assetvc: push rejected: {refused}");
        }
        if let Some(fatal) = &self.fatal {
            let _ = writeln!(out, "assetvc: push rejected: cannot check it: {fatal}");
        } else if !self.problems.is_empty() {
            let n = self.problems.len();
            let _ = writeln!(
                out,
                "assetvc: push rejected: {n} problem{} (fix them, commit and push again)",
                if n == 1 { "" } else { "s" }
            );
            let mut last: Option<(&str, ObjectId)> = None;
            for located in self.problems.iter().take(MAX_SHOWN) {
                if last != Some((&located.refname, located.commit)) {
                    let hex = located.commit.to_hex_with_len(12);
                    let _ = writeln!(
                        out,
                        "{} at commit {hex} ({}):",
                        located.refname, located.summary
                    );
                    last = Some((&located.refname, located.commit));
                }
                for line in located.problem.render().lines() {
                    let _ = writeln!(out, "  {line}");
                }
            }
            if n > MAX_SHOWN {
                let _ = writeln!(out, "  … and {} more", n - MAX_SHOWN);
            }
        }
        let _ = writeln!(
            out,
            "assetvc: checked {} blob{} in {:.2} s",
            self.blobs_checked,
            if self.blobs_checked == 1 { "" } else { "s" },
            self.elapsed.as_secs_f64()
        );
        out
    }
}

/// The server's policy: `assetvc.config`, else `<git dir>/assetvc.toml`, else defaults.
pub fn server_policy(git_dir: &Path, settings: &GitSettings) -> Result<Policy, ConfigError> {
    let config = match &settings.config_file {
        Some(path) => Config::load(&git_dir.join(path))?,
        None => {
            let path = git_dir.join(FILE_NAME);
            if path.is_file() {
                Config::load(&path)?
            } else {
                Config::default()
            }
        }
    };
    Ok(Policy::new(&config)?.with_checkers(settings.checkers.clone()))
}

/// The WIP refs of `wips` refused for not pointing at a commit.
fn wip_objects_refused(
    git_dir: &Path,
    quarantine: Option<&ObjectDirs>,
    wips: &[RefUpdate],
) -> Result<Vec<String>, String> {
    let scratch = tempfile::Builder::new()
        .prefix("assetvc-pre-receive-")
        .tempdir()
        .map_err(|e| format!("cannot create a scratch directory: {e}"))?;
    let repo =
        Repo::open_quarantine(git_dir, quarantine, scratch.path()).map_err(|e| e.to_string())?;
    Ok(crate::wip_refs::not_commits(&repo, wips))
}

/// Runs the hook: `input` is its standard input, `git_dir` the repository, `quarantine`
/// where git put the pushed objects (see [`ObjectDirs::from_env`]).
pub fn run(input: &str, git_dir: &Path, quarantine: Option<&ObjectDirs>) -> Report {
    let start = Instant::now();
    let updates = match parse_updates(input) {
        Ok(u) => u,
        Err(e) => return Report::fatal(e, start),
    };
    // Work in progress passes unchecked, but only to its owner (crate::wip_refs).
    let pusher = crate::wip_refs::pusher_from_env();
    let (updates, wips, mut refused) = crate::wip_refs::split(updates, pusher.as_deref());
    if refused.is_empty() && wips.iter().any(|w| w.new.is_some()) {
        match wip_objects_refused(git_dir, quarantine, &wips) {
            Ok(why) => refused.extend(why),
            Err(e) => return Report::fatal(e, start),
        }
    }
    if !refused.is_empty() || updates.is_empty() {
        // Refused, or only work in progress: nothing to open or check.
        return Report {
            refused,
            elapsed: start.elapsed(),
            ..Report::default()
        };
    }
    let scratch = match tempfile::Builder::new()
        .prefix("assetvc-pre-receive-")
        .tempdir()
    {
        Ok(d) => d,
        Err(e) => return Report::fatal(format!("cannot create a scratch directory: {e}"), start),
    };
    let repo = match Repo::open_quarantine(git_dir, quarantine, scratch.path()) {
        Ok(r) => r,
        Err(e) => return Report::fatal(e.to_string(), start),
    };
    let settings = match GitSettings::from_entries(&repo.assetvc_config()) {
        Ok(s) => s,
        Err(e) => return Report::fatal(format!("git config: {e}"), start),
    };
    let policy = match server_policy(repo.git_dir(), &settings) {
        Ok(p) => p,
        Err(e) => return Report::fatal(format!("server policy: {e}"), start),
    };
    let every_commit = settings.every_commit;
    let (tx, rx) = mpsc::channel();
    let worker = std::thread::Builder::new()
        .name("assetvc-pre-receive".into())
        .stack_size(STACK_SIZE)
        .spawn(move || {
            let result = catch_unwind(AssertUnwindSafe(|| {
                check_updates(&repo, &updates, &policy, every_commit)
            }));
            let _ = tx.send(result);
        });
    if let Err(e) = worker {
        return Report::fatal(format!("cannot start a thread: {e}"), start);
    }
    let mut report = match rx.recv_timeout(settings.hook_timeout) {
        Ok(Ok(Ok(report))) => report,
        Ok(Ok(Err(e))) => Report::fatal(e.to_string(), start),
        Ok(Err(_)) => Report::fatal("internal error (a crash); please report it", start),
        Err(mpsc::RecvTimeoutError::Timeout) => {
            crate::external::kill_running();
            Report::fatal(
                format!(
                    "timed out after {} s (git config assetvc.hook.timeout)",
                    settings.hook_timeout.as_secs_f64()
                ),
                start,
            )
        }
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            Report::fatal("internal error (the checking thread vanished)", start)
        }
    };
    report.elapsed = start.elapsed();
    report
}

/// A ref and commit that problems are reported under.
struct Site {
    refname: String,
    commit: ObjectId,
    /// The commit's tree.
    tree: ObjectId,
    summary: String,
}

fn check_updates(
    repo: &Repo,
    updates: &[RefUpdate],
    policy: &Policy,
    every_commit: bool,
) -> Result<Report, StoreError> {
    let mut report = Report::default();
    let incoming = Incoming::collect(repo, updates, every_commit, &mut report)?;
    // Resource references are checked against the trees of the commits checked (the
    // pushed tips, or with `every_commit` every new commit), each tree listed once.
    let with_tree;
    let policy = if policy.checks_resources() {
        let mut paths = HashSet::new();
        let trees: HashSet<ObjectId> = incoming.sites.iter().map(|site| site.tree).collect();
        for tree in trees {
            paths.extend(repo.diff_trees(None, tree)?.into_iter().map(|c| c.path));
        }
        with_tree = policy
            .clone()
            .with_tree(crate::checks::resources::TreePaths::new(move |p| {
                paths.contains(p)
            }));
        &with_tree
    } else {
        policy
    };
    let outcome = check_jobs(&incoming.jobs, policy, &repo.readers());
    report.blobs_checked = outcome.blobs_checked;
    for (problems, &site) in outcome.problems.into_iter().zip(&incoming.job_site) {
        let site = &incoming.sites[site];
        // Warnings never block a push.
        for problem in problems.into_iter().filter(Problem::is_error) {
            report.problems.push(Located {
                refname: site.refname.clone(),
                commit: site.commit,
                summary: site.summary.clone(),
                problem,
            });
        }
    }
    Ok(report)
}

/// The blobs a push brings in, to check, each with the site it is reported under.
#[derive(Default)]
struct Incoming {
    sites: Vec<Site>,
    jobs: Vec<Job>,
    /// The site of each job.
    job_site: Vec<usize>,
    /// Commits already collected (reached from two updated refs).
    seen_commits: HashSet<ObjectId>,
    /// Trees already checked for entries git refuses to check out.
    checked_trees: HashSet<ObjectId>,
}

impl Incoming {
    /// What `updates` bring in: with `every_commit`, the changes each new commit
    /// introduces; else each tip's changes against the ref's old commit (or where it
    /// branched off). Unsafe tree entries and refs naming no commit go into `report`.
    fn collect(
        repo: &Repo,
        updates: &[RefUpdate],
        every_commit: bool,
        report: &mut Report,
    ) -> Result<Incoming, StoreError> {
        let mut incoming = Incoming::default();
        let mut tips: Option<Vec<ObjectId>> = None;
        for update in updates {
            let Some(new) = update.new else {
                continue; // deleted: nothing comes in
            };
            let tip = match repo.peel(new)? {
                Target::Commit(c) => c,
                Target::Other { kind, .. } => {
                    report.notes.push(format!(
                        "{} names a {kind}, not a commit: not checked",
                        update.name
                    ));
                    continue;
                }
            };
            if tips.is_none() {
                tips = Some(repo.ref_tips()?);
            }
            let tips = tips.as_deref().unwrap_or_default();
            if every_commit {
                incoming.new_commits(repo, &update.name, tip, tips, report)?;
            } else {
                let old = update.old.and_then(|o| match repo.peel(o) {
                    Ok(Target::Commit(c)) => Some(c),
                    _ => None,
                });
                incoming.tip(repo, &update.name, (old, tip), tips, report)?;
            }
        }
        Ok(incoming)
    }

    /// Each commit of `tip` that no existing ref (`tips`) reaches, with what it introduces.
    fn new_commits(
        &mut self,
        repo: &Repo,
        refname: &str,
        tip: ObjectId,
        tips: &[ObjectId],
        report: &mut Report,
    ) -> Result<(), StoreError> {
        for commit in repo.new_commits(tip, tips)? {
            if !self.seen_commits.insert(commit) {
                continue;
            }
            let info = repo.commit_info(commit)?;
            let unsafe_paths = repo.unsafe_entries(info.tree, &mut self.checked_trees)?;
            report_unsafe(report, refname, &info, unsafe_paths);
            let changes = repo.introduced(&info)?;
            let site = Site {
                refname: refname.to_string(),
                commit,
                tree: info.tree,
                summary: info.summary,
            };
            self.add(site, changes);
        }
        Ok(())
    }

    /// The ref's new `tip` against its `old` commit (or, for a new ref, where it branched
    /// off the existing refs `tips`).
    fn tip(
        &mut self,
        repo: &Repo,
        refname: &str,
        (old, tip): (Option<ObjectId>, ObjectId),
        tips: &[ObjectId],
        report: &mut Report,
    ) -> Result<(), StoreError> {
        let base = match old {
            Some(o) => Some(o),
            None => branch_point(repo, tip, tips)?,
        };
        let info = repo.commit_info(tip)?;
        let unsafe_paths = repo.unsafe_entries(info.tree, &mut self.checked_trees)?;
        report_unsafe(report, refname, &info, unsafe_paths);
        let base_tree = match base {
            Some(b) => Some(repo.commit_info(b)?.tree),
            None => None,
        };
        if base_tree == Some(info.tree) {
            return Ok(());
        }
        let changes = repo.diff_trees(base_tree, info.tree)?;
        let site = Site {
            refname: refname.to_string(),
            commit: tip,
            tree: info.tree,
            summary: info.summary,
        };
        self.add(site, changes);
        Ok(())
    }

    /// Adds `changes`, reported under `site`.
    fn add(&mut self, site: Site, changes: Vec<store::Change>) {
        self.sites.push(site);
        for c in changes {
            self.jobs.push(Job {
                path: c.path,
                id: c.id,
                base: c.base,
            });
            self.job_site.push(self.sites.len() - 1);
        }
    }
}

/// Adds a problem for each tree entry of `info` that git would refuse to check out: such a
/// tree can plant files outside the worktree or in `.git` of whoever checks it out.
fn report_unsafe(
    report: &mut Report,
    refname: &str,
    info: &store::CommitInfo,
    entries: Vec<store::UnsafeEntry>,
) {
    for entry in entries {
        report.problems.push(Located {
            refname: refname.to_string(),
            commit: info.id,
            summary: info.summary.clone(),
            problem: Problem::whole_file(&entry.path, Check::UnsafePath, entry.reason),
        });
    }
}

/// The first commit on `tip`'s first-parent chain that an existing ref reaches.
fn branch_point(
    repo: &Repo,
    tip: ObjectId,
    tips: &[ObjectId],
) -> Result<Option<ObjectId>, StoreError> {
    let new: HashSet<ObjectId> = repo.new_commits(tip, tips)?.into_iter().collect();
    let mut cur = tip;
    loop {
        if !new.contains(&cur) {
            return Ok(Some(cur));
        }
        match repo.commit_info(cur)?.parents.first() {
            Some(&p) => cur = p,
            None => return Ok(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_ref_updates() {
        let zero = "0".repeat(40);
        let a = "a".repeat(40);
        let input = format!("{zero} {a} refs/heads/new\n\n{a} {zero} refs/heads/gone\n");
        let u = parse_updates(&input).unwrap();
        assert_eq!(u.len(), 2);
        assert_eq!(u[0].old, None);
        assert_eq!(u[0].new.unwrap().to_string(), a);
        assert_eq!(u[1].new, None);
        assert_eq!(u[1].name, "refs/heads/gone");
        assert!(parse_updates("abc def").is_err());
        assert!(parse_updates("xyz xyz refs/heads/x").is_err());
    }

    #[test]
    fn reports_name_ref_commit_path_and_line() {
        let mut r = Report {
            blobs_checked: 1,
            ..Report::default()
        };
        assert!(r.accepted());
        assert!(r.render().contains("assetvc: checked 1 blob in"));
        r.problems.push(Located {
            refname: "refs/heads/main".into(),
            commit: ObjectId::from_hex(b"0123456789abcdef0123456789abcdef01234567").unwrap(),
            summary: "Add a level".into(),
            problem: Problem::at("l/a.level", "a = [\n", 4, crate::Check::Parse, "bad"),
        });
        assert!(!r.accepted());
        let text = r.render();
        assert!(text.contains("push rejected: 1 problem"), "{text}");
        assert!(
            text.contains("refs/heads/main at commit 0123456789ab (Add a level):"),
            "{text}"
        );
        assert!(
            text.contains("  l/a.level:1:5: bad\n      a = [\n"),
            "{text}"
        );
    }
}
