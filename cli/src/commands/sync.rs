//! `assetvc sync [REMOTE] [--watch [SECONDS]] [--json]`: live collaboration over a plain
//! git remote. One cycle records the uncommitted asset edits on
//! `refs/assetvc/wip/<user>/<branch>` (HEAD, the index and the worktree untouched), pushes
//! that ref, fetches the upstream branch and everyone's WIP refs, and merges the upstream
//! into the branch and the worktree by structure, the uncommitted edits being "ours".
//! `--watch` repeats until Ctrl-C or SIGTERM, retrying with backoff when the remote is
//! down; an interrupted cycle is abandoned before the merge, never half-written.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context};
use clap::Args;
use merge::Policy;
use serde_json::json;
use store::Error;
use store::{AssetRules, UnresolvedKind};
use store::{Brought, Limits, Postponed, Wip};

use super::merge_file::parse_policy;
use super::porcelain;

/// Arguments of `assetvc sync`.
#[derive(Debug, Args)]
pub struct SyncArgs {
    /// The remote (a configured remote's name); default: the branch's upstream remote,
    /// or `origin`.
    pub remote: Option<String>,
    /// Repeat every SECONDS (default 5) until interrupted (Ctrl-C, SIGTERM).
    #[arg(long, value_name = "SECONDS", num_args = 0..=1, default_missing_value = "5")]
    pub watch: Option<f64>,
    /// Print one JSON object per cycle on stdout (with the time of each step).
    #[arg(long)]
    pub json: bool,
    /// How true conflicts in assets are resolved (default from assetvc.toml).
    #[arg(long, value_parser = parse_policy)]
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
pub fn target(repo: &store::Repo, remote: Option<&str>) -> anyhow::Result<Target> {
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
    /// The exit status of a one-shot sync without [`Cycle::error`].
    status: u8,
    /// Why the cycle failed (reported by `main`, or by the watch loop that goes on).
    error: Option<anyhow::Error>,
    /// Whether the remote could not be reached (retry with backoff).
    unreachable: bool,
    /// The cycle as JSON.
    json: serde_json::Value,
}

/// Runs `assetvc sync`: 0 synced, 1 the upstream could not be merged automatically
/// (reported), 2 bad usage or the remote failed (one-shot).
pub fn run(args: &SyncArgs) -> anyhow::Result<ExitCode> {
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
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
            None => Ok(ExitCode::from(cycle.status)),
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
            crate::exit::failure(e);
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
    Ok(ExitCode::SUCCESS)
}

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

/// The asset rules' dialect function.
type DialectFn = Box<dyn Fn(&str) -> Option<sjson::Dialect>>;

/// The repository (opened afresh each cycle: config and refs may have changed), its root,
/// the merge options and the asset dialects.
fn open(
    policy: Option<Policy>,
) -> anyhow::Result<(store::Repo, PathBuf, merge::MergeOptions, DialectFn)> {
    let (repo, root) = porcelain::open_worktree()?;
    let (options, config) = porcelain::settings(&root, policy)?;
    let dialect_of = porcelain::dialect_fn(&config)?;
    Ok((repo, root, options, Box::new(dialect_of)))
}

/// One sync cycle; everything it has to say goes to stderr (and into its JSON).
fn cycle(args: &SyncArgs, stop: &AtomicBool) -> Cycle {
    let mut timings = serde_json::Map::new();
    let mut out = Cycle {
        status: 0,
        error: None,
        unreachable: false,
        json: json!({}),
    };
    let finish =
        |mut out: Cycle, status: &str, timings: serde_json::Map<String, serde_json::Value>| {
            out.json["status"] = json!(status);
            out.json["ms"] = serde_json::Value::Object(timings);
            out
        };
    let (repo, _, options, dialect_of) = match open(args.policy) {
        Ok(opened) => opened,
        Err(e) => {
            out.error = Some(e);
            return finish(out, "error", timings);
        }
    };
    // Resolved every cycle: the user may switch branches while watching.
    let target = match target(&repo, args.remote.as_deref()) {
        Ok(t) => t,
        Err(e) => {
            out.error = Some(e);
            return finish(out, "error", timings);
        }
    };
    out.json = json!({"user": target.user, "branch": target.branch, "remote": target.remote});
    let policy = options.policy;
    let rules = AssetRules {
        dialect_of: &dialect_of,
        options,
    };
    // 1. Record the work in progress.
    let start = Instant::now();
    let wip_ref = target.wip_ref();
    let wip = match repo.record_wip(&dialect_of, Some(&wip_ref), &target.user) {
        Ok(w) => w,
        Err(e) => {
            out.error = Some(porcelain::fail(e));
            return finish(out, "error", timings);
        }
    };
    lap(&mut timings, "record", start);
    report_wip(&wip, &mut out);
    // 2. Push it, unless the remote already has it (as of the last fetch).
    let limits = Limits {
        timeout: Duration::from_secs_f64(args.timeout),
        stop,
    };
    let start = Instant::now();
    let pushed_copy = format!("{}{}/{}", target.wip_prefix(), target.user, target.branch);
    if repo.resolve_commit(&pushed_copy).ok() != Some(wip.commit) {
        if let Err(e) = repo.push_wip(&target.remote, &wip_ref, limits) {
            return unreachable(out, "push", &e, timings, stop);
        }
        out.json["pushed"] = json!(true);
    }
    lap(&mut timings, "push", start);
    // 3. Fetch the upstream and everyone's WIP.
    if stop.load(Ordering::Relaxed) {
        return finish(out, "interrupted", timings);
    }
    let start = Instant::now();
    if let Err(e) = repo.fetch_wip(
        &target.remote,
        &target.upstream_branch,
        &target.tracking,
        &target.wip_prefix(),
        limits,
    ) {
        return unreachable(out, "fetch", &e, timings, stop);
    }
    lap(&mut timings, "fetch", start);
    if stop.load(Ordering::Relaxed) {
        return finish(out, "interrupted", timings);
    }
    // 4. Bring the upstream in.
    let start = Instant::now();
    let upstream = match repo.resolve_commit(&target.tracking) {
        Ok(id) => id,
        Err(e) => {
            out.error = Some(porcelain::fail(e));
            return finish(out, "error", timings);
        }
    };
    let label = format!("{}/{}", target.remote, target.upstream_branch);
    let brought = repo.bring_upstream(&target.branch, &wip, upstream, &label, &rules);
    lap(&mut timings, "merge", start);
    let context = Merging {
        repo: &repo,
        wip: &wip,
        label: &label,
        upstream,
        policy,
    };
    let status = report_brought(brought, &context, &mut out);
    if std::env::var_os("ASSETVC_SYNC_TIMINGS").is_some() {
        eprintln!(
            "assetvc: sync timings (ms): {}",
            serde_json::Value::Object(timings.clone())
        );
    }
    finish(out, status, timings)
}

/// What the report of the merge step needs.
struct Merging<'a> {
    repo: &'a store::Repo,
    wip: &'a Wip,
    label: &'a str,
    upstream: store::ObjectId,
    policy: Policy,
}

/// Reports the merge step on stderr and into the cycle's JSON; returns its status name.
fn report_brought(
    brought: Result<Brought, Error>,
    context: &Merging<'_>,
    out: &mut Cycle,
) -> &'static str {
    let Merging {
        repo,
        label,
        upstream,
        policy,
        ..
    } = *context;
    match brought {
        Ok(Brought::UpToDate) => "up-to-date",
        Ok(Brought::Merged {
            from,
            new_head,
            fast_forward,
            files,
            sides,
            saved,
        }) => {
            let short = |id: &store::ObjectId| id.to_hex_with_len(7).to_string();
            eprintln!(
                "assetvc: {} {}..{} from {label}{}",
                if fast_forward {
                    "fast-forward"
                } else {
                    "merged"
                },
                short(&from),
                short(&new_head),
                if context.wip.is_clean() {
                    String::new()
                } else {
                    format!(
                        " (your {} uncommitted asset edit{} kept)",
                        context.wip.edit_count(),
                        if context.wip.edit_count() == 1 {
                            ""
                        } else {
                            "s"
                        }
                    )
                }
            );
            for f in &files {
                for (c, place) in f.conflicts.iter().zip(f.places_or_none()) {
                    eprintln!("assetvc:   {} {}", f.path, c.line_at(place));
                }
            }
            if let Some(saved) = &saved {
                eprintln!(
                    "assetvc: your edits as they were before this merge are kept in {saved} \
                     (git show {saved}:PATH)"
                );
                out.json["saved"] = json!(saved);
            }
            let sync = super::record::SyncMerge {
                from,
                upstream,
                label,
                policy,
                sides: &sides,
            };
            if let Err(e) = super::record::sync_merge(repo, &sync, &files) {
                eprintln!("assetvc: warning: could not record the merge in the journal: {e}");
            }
            out.json["head"] = json!(new_head.to_string());
            out.json["files"] = json!(files
                .iter()
                .map(|f| super::merging::file_report(&f.path, policy, &f.conflicts))
                .collect::<Vec<_>>());
            if fast_forward {
                "fast-forward"
            } else {
                "merged"
            }
        }
        Ok(Brought::Postponed(Postponed::Unresolved(unresolved))) => {
            out.status = 1;
            for u in &unresolved {
                match &u.kind {
                    UnresolvedKind::Unparsable { side, error, .. } => {
                        eprintln!(
                        "assetvc: {}: {} does not parse yet ({}:{}: {}); {label} is not merged \
                         until it does (your bytes are kept)",
                        u.path,
                        if *side == "ours" { "your version" } else { side },
                        error.line,
                        error.col,
                        error.kind
                    )
                    }
                    other => eprintln!(
                        "assetvc: {}: {other}; {label} is not merged: commit, then `assetvc pull`",
                        u.path
                    ),
                }
            }
            out.json["unresolved"] = json!(unresolved
                .iter()
                .map(|u| json!({"path": u.path, "reason": u.kind.to_string()}))
                .collect::<Vec<_>>());
            "postponed"
        }
        Err(e) => {
            out.json["error"] = json!(e.to_string());
            out.error = Some(porcelain::fail(e));
            "refused"
        }
    }
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
            "assetvc: {path}:{}:{}: does not parse yet ({}); carried in your WIP as it is",
            e.line, e.col, e.kind
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
        out.error = Some(anyhow!("{step}: {e}"));
    }
    out.status = crate::exit::FAILED;
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
