//! `assetvc sync [REMOTE] [--watch [SECONDS]] [--json]`: live collaboration over a plain
//! git remote. One cycle records the uncommitted asset edits on
//! `refs/assetvc/wip/<user>/<branch>` (HEAD, the index and the worktree untouched), pushes
//! that ref, fetches the upstream branch and everyone's WIP refs, and merges the upstream
//! into the branch and the worktree by structure, the uncommitted edits being "ours".
//! `--watch` repeats until Ctrl-C, SIGTERM or SIGHUP, retrying with backoff when the remote is
//! down; an interrupted cycle is abandoned before the merge, never half-written.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::exit::{bail, failure, Context};
use clap::Args;
use merge::Policy;
use serde_json::json;
use store::Error;
use store::{AssetRules, UnresolvedKind};
use store::{Brought, Limits, Postponed, Wip};

use super::merge_file::parse_policy;
use super::porcelain;
use crate::exit::Outcome;
use crate::report;

pub mod pending;

/// Arguments of `assetvc sync`.
#[derive(Debug, Args)]
pub struct SyncArgs {
    /// The remote (a configured remote's name); default: the branch's upstream remote,
    /// or `origin`.
    pub remote: Option<String>,
    /// Repeat every SECONDS (default 5) until interrupted (Ctrl-C, SIGTERM, SIGHUP).
    #[arg(long, value_name = "SECONDS", num_args = 0..=1, default_missing_value = "5")]
    pub watch: Option<f64>,
    /// Print one JSON object per cycle on stdout (with the time of each step).
    #[arg(long)]
    pub json: bool,
    /// Accepted for compatibility and ignored: on a true conflict sync always keeps your
    /// uncommitted value in the worktree (pending; `resolve --take upstream` takes the
    /// upstream's), and it never merges diverged branches.
    #[arg(long, value_parser = parse_policy, hide = true)]
    pub policy: Option<Policy>,
    /// Give up on a push or fetch after this many seconds (the remote is down or slow).
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    pub timeout: f64,
}

/// Who syncs what with where: resolved once, from HEAD and git config.
pub struct Target {
    /// The sync user, as a ref component.
    pub user: String,
    /// The checked-out branch.
    pub branch: String,
    /// The remote's name.
    pub remote: String,
    /// The upstream branch on the remote.
    pub upstream_branch: String,
    /// The remote-tracking ref of the upstream branch.
    pub tracking: String,
}

impl Target {
    /// `refs/assetvc/wip/<user>/<branch>`.
    pub fn wip_ref(&self) -> String {
        store::wip_ref(&self.user, &self.branch)
    }

    /// Where the remote's WIP refs are fetched to.
    pub fn wip_prefix(&self) -> String {
        store::remote_wip_prefix(&self.remote)
    }
}

/// Resolves user, branch, remote and upstream; an error says which one is missing.
pub fn target(repo: &store::Repo, remote: Option<&str>) -> crate::exit::Result<Target> {
    let Some(branch) = repo.current_branch().map_err(porcelain::fail)? else {
        bail!("HEAD is detached: check out a branch to sync");
    };
    let user = repo
        .sync_user()
        .context("who are you? set `git config assetvc.user NAME` (or user.email)")?;
    let upstream = repo.upstream(&branch);
    let remote = remote
        .map(str::to_string)
        .or_else(|| upstream.as_ref().map(|u| u.0.clone()))
        .unwrap_or_else(|| "origin".into());
    if store::ref_component(&remote).as_deref() != Some(remote.as_str())
        || !repo.has_remote(&remote)
    {
        bail!("{remote}: not a configured remote (git remote add {remote} URL)");
    }
    let upstream_branch = match upstream {
        Some((r, b)) if r == remote => b,
        _ => branch.clone(),
    };
    let tracking = format!("refs/remotes/{remote}/{upstream_branch}");
    Ok(Target {
        user,
        branch,
        remote,
        upstream_branch,
        tracking,
    })
}

/// How one cycle ended.
struct Cycle {
    /// The outcome of a one-shot sync without [`Cycle::error`].
    status: Outcome,
    /// Why the cycle failed (reported by `main`, or by the watch loop that goes on).
    error: Option<crate::exit::Error>,
    /// Whether the remote could not be reached (retry with backoff).
    unreachable: bool,
    /// The cycle as JSON.
    json: serde_json::Value,
}

/// Runs `assetvc sync`: 0 synced, 1 the upstream was not brought in (reported: a file
/// that does not parse yet, a diverged branch, a file saved while sync wrote it), 2 bad
/// usage or the remote failed (one-shot).
pub fn run(args: &SyncArgs) -> crate::exit::Result<Outcome> {
    let stop = Arc::new(AtomicBool::new(false));
    // Ctrl-C, SIGTERM and a closed terminal (SIGHUP) all end sync cleanly, between steps.
    for signal in [
        signal_hook::consts::SIGINT,
        signal_hook::consts::SIGTERM,
        signal_hook::consts::SIGHUP,
    ] {
        signal_hook::flag::register(signal, Arc::clone(&stop))
            .context("cannot watch for Ctrl-C")?;
    }
    let (repo, _root) = porcelain::open_worktree()?;
    let target = target(&repo, args.remote.as_deref())?;
    drop(repo);
    if !(args.timeout > 0.0 && args.timeout.is_finite()) {
        bail!("--timeout must be a positive number of seconds");
    }
    let Some(every) = args.watch else {
        let cycle = cycle(args, &stop);
        if args.json {
            print_line(&cycle.json)?;
        }
        return match cycle.error {
            Some(e) => Err(e),
            None => Ok(cycle.status),
        };
    };
    if !(every > 0.0 && every.is_finite() && every <= 86_400.0) {
        bail!("--watch takes a number of seconds between 0 and 86400");
    }
    let every = Duration::from_secs_f64(every);
    if !args.json {
        eprintln!(
            "assetvc: syncing {} with {}/{} every {:.1} s as {} (Ctrl-C stops)",
            target.branch,
            target.remote,
            target.upstream_branch,
            every.as_secs_f64(),
            target.user
        );
    }
    let mut pause = every;
    while !stop.load(Ordering::Relaxed) {
        let cycle = cycle(args, &stop);
        if let Some(e) = &cycle.error {
            crate::exit::report(e);
        }
        if args.json {
            print_line(&cycle.json)?;
        }
        if cycle.unreachable {
            pause = (pause * 2).min(Duration::from_secs(60)).max(every);
            if !stop.load(Ordering::Relaxed) {
                eprintln!("assetvc: retrying in {:.0} s", pause.as_secs_f64().ceil());
            }
        } else {
            pause = every;
        }
        sleep_unless_stopped(pause, &stop);
    }
    eprintln!("assetvc: sync stopped");
    Ok(Outcome::Done)
}

/// How many times a cycle records and merges again when a file was saved while sync
/// wrote it.
const RETRIES: usize = 4;

/// One JSON line on stdout.
fn print_line(value: &serde_json::Value) -> std::io::Result<()> {
    use std::io::Write;
    let mut out = crate::output::stdout();
    writeln!(out, "{value}")?;
    out.flush()
}

fn sleep_unless_stopped(pause: Duration, stop: &AtomicBool) {
    let until = Instant::now() + pause;
    while !stop.load(Ordering::Relaxed) {
        let now = Instant::now();
        if now >= until {
            break;
        }
        std::thread::sleep((until - now).min(Duration::from_millis(50)));
    }
}

/// The repository (opened afresh each cycle: config and refs may have changed), its root
/// and how its assets merge.
fn open(policy: Option<Policy>) -> crate::exit::Result<(store::Repo, PathBuf, AssetRules)> {
    let (repo, root) = porcelain::open_worktree()?;
    let (options, config) = porcelain::settings(&root, policy)?;
    let rules = porcelain::asset_rules(&config, options)?;
    Ok((repo, root, rules))
}

/// One sync cycle; everything it has to say goes to stderr (and into its JSON).
fn cycle(args: &SyncArgs, stop: &AtomicBool) -> Cycle {
    let mut timings = serde_json::Map::new();
    let mut out = Cycle {
        status: Outcome::Done,
        error: None,
        unreachable: false,
        json: json!({}),
    };
    let status = match cycle_steps(args, stop, &mut out, &mut timings) {
        Ok(status) => status,
        Err(Ended::Failed(e)) => {
            out.error = Some(e);
            "error"
        }
        Err(Ended::Interrupted) => "interrupted",
        Err(Ended::Unreachable(step, e)) => return unreachable(out, step, &e, timings, stop),
    };
    out.json["status"] = json!(status);
    out.json["ms"] = serde_json::Value::Object(timings);
    out
}

/// Why a sync cycle ended before its last step.
enum Ended {
    /// It failed (the repository, the settings, recording the WIP…).
    Failed(crate::exit::Error),
    /// Stopped between steps (Ctrl-C).
    Interrupted,
    /// The remote could not be reached at this step.
    Unreachable(&'static str, Error),
}

/// [`cycle`]'s steps: record the WIP, push it, fetch, bring the upstream in. The merge
/// step's status name, or why the cycle ended before it.
fn cycle_steps(
    args: &SyncArgs,
    stop: &AtomicBool,
    out: &mut Cycle,
    timings: &mut serde_json::Map<String, serde_json::Value>,
) -> Result<&'static str, Ended> {
    let (repo, _, rules) = open(args.policy).map_err(Ended::Failed)?;
    let dialect_of = |path: &str| rules.dialect_of(path);
    // Resolved every cycle: the user may switch branches while watching.
    let target = target(&repo, args.remote.as_deref()).map_err(Ended::Failed)?;
    out.json = json!({"user": target.user, "branch": target.branch, "remote": target.remote});
    let failed = |e: Error| Ended::Failed(porcelain::fail(e));
    // 1. Record the work in progress.
    let start = Instant::now();
    let wip_ref = target.wip_ref();
    let wip = repo
        .record_wip(&dialect_of, Some(&wip_ref), &target.user)
        .map_err(failed)?;
    lap(timings, "record", start);
    report_wip(&wip, out);
    // 2. Push it, unless the remote already has it (as of the last fetch).
    let limits = Limits {
        timeout: Duration::from_secs_f64(args.timeout),
        stop,
    };
    let start = Instant::now();
    push_step(&repo, &target, &wip, limits, out)?;
    lap(timings, "push", start);
    // 3. Fetch the upstream and everyone's WIP.
    let interrupted = || {
        if stop.load(Ordering::Relaxed) {
            Err(Ended::Interrupted)
        } else {
            Ok(())
        }
    };
    interrupted()?;
    let start = Instant::now();
    repo.fetch_wip(
        &target.remote,
        &target.upstream_branch,
        &target.tracking,
        &target.wip_prefix(),
        limits,
    )
    .map_err(|e| Ended::Unreachable("fetch", e))?;
    lap(timings, "fetch", start);
    interrupted()?;
    // 4. Bring the upstream in.
    let start = Instant::now();
    let upstream = repo.resolve_commit(&target.tracking).map_err(failed)?;
    let label = format!("{}/{}", target.remote, target.upstream_branch);
    let mut wip = wip;
    let mut brought = repo.bring_upstream(&target.branch, &wip, upstream, &label, &rules);
    // A file saved while sync wrote it (an editor saving often): the files already written
    // hold the merge, so recording the edits again and merging once more is quick; a few
    // tries, then the next cycle.
    for _ in 0..RETRIES {
        if !matches!(
            brought,
            Ok(Brought::Postponed(Postponed::ChangedWhileWriting(_)))
        ) || stop.load(Ordering::Relaxed)
        {
            break;
        }
        wip = repo
            .record_wip(&dialect_of, Some(&wip_ref), &target.user)
            .map_err(failed)?;
        brought = repo.bring_upstream(&target.branch, &wip, upstream, &label, &rules);
    }
    lap(timings, "merge", start);
    let context = Merging {
        repo: &repo,
        wip: &wip,
        label: &label,
        upstream,
    };
    let status = report_brought(brought, &context, out);
    if std::env::var_os("ASSETVC_SYNC_TIMINGS").is_some() {
        eprintln!(
            "assetvc: sync timings (ms): {}",
            serde_json::Value::Object(timings.clone())
        );
    }
    Ok(status)
}

/// Pushes the WIP ref unless the remote already has it (as of the last fetch). A push the
/// remote refused is reported with its reason (exit 2 for a one-shot sync) and the cycle
/// goes on to bring the upstream in; an unreachable remote ends the cycle.
fn push_step(
    repo: &store::Repo,
    target: &Target,
    wip: &Wip,
    limits: Limits<'_>,
    out: &mut Cycle,
) -> Result<(), Ended> {
    let pushed_copy = format!("{}{}/{}", target.wip_prefix(), target.user, target.branch);
    if repo.resolve_commit(&pushed_copy).ok() == Some(wip.commit) {
        return Ok(());
    }
    let wip_ref = target.wip_ref();
    match repo.push_wip(&target.remote, &wip_ref, limits) {
        Ok(()) => out.json["pushed"] = json!(true),
        Err(e) => {
            let Some(reason) = store::push_refusal(&e) else {
                return Err(Ended::Unreachable("push", e));
            };
            eprintln!(
                "assetvc: the remote refused your work in progress ({}): {}",
                report::safe_line(&wip_ref),
                report::safe(&reason)
            );
            out.status = Outcome::ErrorsReported;
            out.json["pushed"] = json!(false);
            out.json["push_refused"] = json!(reason);
        }
    }
    Ok(())
}

/// What the report of the merge step needs.
struct Merging<'a> {
    repo: &'a store::Repo,
    wip: &'a Wip,
    label: &'a str,
    upstream: store::ObjectId,
}

/// Reports the merge step on stderr and into the cycle's JSON; returns its status name.
fn report_brought(
    brought: Result<Brought, Error>,
    context: &Merging<'_>,
    out: &mut Cycle,
) -> &'static str {
    match brought {
        Ok(Brought::UpToDate) => "up-to-date",
        Ok(Brought::Merged {
            from,
            new_head,
            files,
            sides,
            changed,
            saved,
        }) => {
            out.json["changed"] = json!(changed);
            report_merged(
                (from, new_head),
                (&files, &sides),
                saved.as_deref(),
                context,
                out,
            )
        }
        Ok(Brought::Postponed(Postponed::Unresolved(unresolved))) => {
            report_postponed(&unresolved, context.label, out);
            "postponed"
        }
        Ok(Brought::Postponed(Postponed::Diverged { head, upstream })) => {
            let short = |id: &store::ObjectId| id.to_hex_with_len(7).to_string();
            out.status = Outcome::NotBroughtIn;
            eprintln!(
                "assetvc: your branch has diverged from {} ({} here, {} there): sync merges \
                 and commits nothing on its own; your work in progress is shared. Push, or \
                 `assetvc pull` to merge",
                context.label,
                short(&head),
                short(&upstream)
            );
            "diverged"
        }
        Ok(Brought::Postponed(Postponed::ChangedWhileWriting(paths))) => {
            out.status = Outcome::LeftAlone;
            for path in &paths {
                eprintln!(
                    "assetvc: {}: saved while sync was writing it; left as you saved it, \
                     merged again next cycle",
                    report::safe_line(path)
                );
            }
            out.json["changed"] = json!(paths);
            out.json["left_alone"] = json!(paths);
            "retry"
        }
        Err(e) => {
            out.json["error"] = json!(e.to_string());
            out.error = Some(porcelain::fail(e));
            "refused"
        }
    }
}

/// Reports an upstream brought in: the heads (`from`, `new_head`), the pending conflicts
/// in `files` (merged from `sides`: the local value kept), where the edits were `saved`;
/// records the merge in the journal.
fn report_merged(
    (from, new_head): (store::ObjectId, store::ObjectId),
    (files, sides): (&[store::MergedFile], &[(store::ObjectId, store::ObjectId)]),
    saved: Option<&str>,
    context: &Merging<'_>,
    out: &mut Cycle,
) -> &'static str {
    let Merging {
        repo,
        wip,
        label,
        upstream,
    } = *context;
    let short = |id: &store::ObjectId| id.to_hex_with_len(7).to_string();
    let kept = match wip.edit_count() {
        _ if wip.is_clean() => String::new(),
        1 => " (your 1 uncommitted asset edit kept)".to_string(),
        n => format!(" (your {n} uncommitted asset edits kept)"),
    };
    eprintln!(
        "assetvc: fast-forward {}..{} from {label}{kept}",
        short(&from),
        short(&new_head)
    );
    let pending = pending::report(repo, (from, upstream), files);
    if let Some(saved) = saved {
        out.json["saved"] = json!(saved);
    }
    // The journal records the local value as kept, by meaning: `resolve --take upstream`.
    let sync = super::record::SyncMerge {
        from,
        upstream,
        label,
        policy: Policy::Local,
        sides,
    };
    if let Err(e) = super::record::sync_merge(repo, &sync, files, &pending) {
        eprintln!("assetvc: warning: could not record the merge in the journal: {e}");
    }
    out.json["head"] = json!(new_head.to_string());
    out.json["files"] = json!(files
        .iter()
        .map(|f| super::merging::file_report(&f.path, Policy::Local, &f.conflicts))
        .collect::<Vec<_>>());
    out.json["pending"] = json!(pending);
    "fast-forward"
}

/// Reports the paths that kept the upstream (`label`) from being merged.
fn report_postponed(unresolved: &[store::Unresolved], label: &str, out: &mut Cycle) {
    out.status = Outcome::NotBroughtIn;
    for u in unresolved {
        match &u.kind {
            UnresolvedKind::Unparsable { side, error, .. } => eprintln!(
                "assetvc: {}: {} does not parse yet ({}:{}: {}); {label} is not merged \
                 until it does (your bytes are kept)",
                report::safe_line(&u.path),
                if *side == merge::Version::Ours {
                    "your version"
                } else {
                    side.name()
                },
                error.line,
                error.col,
                error.kind
            ),
            other => eprintln!(
                "assetvc: {}: {}; {label} is not merged: commit, then `assetvc pull`",
                report::safe_line(&u.path),
                report::safe_line(&other.to_string())
            ),
        }
    }
    out.json["unresolved"] = json!(unresolved
        .iter()
        .map(|u| json!({"path": u.path, "reason": u.kind.to_string()}))
        .collect::<Vec<_>>());
}

/// Records the milliseconds since `start` under `name`.
fn lap(timings: &mut serde_json::Map<String, serde_json::Value>, name: &str, start: Instant) {
    timings.insert(
        name.to_string(),
        json!((start.elapsed().as_secs_f64() * 1e6).round() / 1e3),
    );
}

fn report_wip(wip: &Wip, out: &mut Cycle) {
    for (path, e) in &wip.unparsable {
        eprintln!(
            "assetvc: {}:{}:{}: does not parse yet ({}); carried in your WIP as it is",
            report::safe_line(path),
            e.line,
            e.col,
            report::safe_line(&e.kind.to_string())
        );
    }
    out.json["wip"] = json!(wip.commit.to_string());
    out.json["edited"] = json!(wip.edited_paths());
    out.json["unparsable"] = json!(wip
        .unparsable
        .iter()
        .map(|(p, _)| p.as_str())
        .collect::<Vec<_>>());
}

fn unreachable(
    mut out: Cycle,
    step: &str,
    e: &Error,
    timings: serde_json::Map<String, serde_json::Value>,
    stop: &AtomicBool,
) -> Cycle {
    let interrupted = stop.load(Ordering::Relaxed);
    if !interrupted {
        out.error = Some(failure!("{step}: {e}"));
    }
    out.status = Outcome::ErrorsReported;
    out.unreachable = !interrupted;
    out.json["status"] = json!(if interrupted {
        "interrupted"
    } else {
        "unreachable"
    });
    out.json["error"] = json!(e.to_string());
    out.json["ms"] = serde_json::Value::Object(timings);
    out
}
