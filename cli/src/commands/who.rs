//! `assetvc who [PATH...] [--json]`: who else is editing which objects, from the WIP refs
//! that `assetvc sync` fetched — for each other user's WIP fresher than `sync.stale` (git
//! config `assetvc.sync.stale`, else assetvc.toml `[sync] stale`, default 15 minutes), the
//! objects it changes against the upstream, and a warning for each object that you edit
//! too. `--json` gives editor plugins what they need to draw markers.

use std::path::PathBuf;
use std::time::Duration;

use crate::exit::bail;
use clap::Args;
use merge::diff::DiffOptions;
use serde_json::json;
use store::{ObjectChange, WhoReport, WhoRequest};

use super::porcelain;
use super::sync::target;
use crate::exit::Outcome;
use crate::report;

/// Arguments of `assetvc who`.
#[derive(Debug, Args)]
pub struct WhoArgs {
    /// Only objects in files under these paths.
    pub paths: Vec<PathBuf>,
    /// Print the report as JSON on stdout.
    #[arg(long)]
    pub json: bool,
    /// The remote whose WIP refs to read; default: the branch's upstream remote, or `origin`.
    #[arg(long)]
    pub remote: Option<String>,
    /// Write a review page (a card per object someone else edits, a map of each level) to
    /// FILE instead of printing.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
}

/// Runs `assetvc who`: 0 reported, 2 bad usage.
pub fn run(args: &WhoArgs) -> crate::exit::Result<Outcome> {
    let (repo, root) = porcelain::open_worktree()?;
    let target = target(&repo, args.remote.as_deref())?;
    let (options, config) = porcelain::settings(&root, None)?;
    let rules = porcelain::asset_rules(&config, options.clone())?;
    let dialect_of = |path: &str| rules.dialect_of(path);
    let from_git = repo
        .config_value("assetvc.sync.stale")
        .map(|v| (v, "git config assetvc.sync.stale"));
    let (stale_text, stale_source) =
        from_git.unwrap_or_else(|| (config.sync.stale.clone(), "assetvc.toml: sync.stale"));
    let Some(stale) = store::parse_duration(&stale_text) else {
        bail!("{stale_source}: {stale_text:?} is not a duration (900, 90s, 15m, 1h)");
    };
    let mut paths = Vec::new();
    for p in &args.paths {
        match store::rela_path(&root, p) {
            Some(r) => paths.push(r.to_string()),
            None => bail!("{}: outside the repository", p.display()),
        }
    }
    // Your own edits, recorded in memory: `who` writes nothing.
    let memory = repo.in_memory();
    let (mine, edited) = match memory.record_wip(&dialect_of, None, &target.user) {
        Ok(w) => (Some(w.commit), w.edited_paths()),
        Err(store::Error::Usage(_)) => (None, Vec::new()),
        Err(e) => return Err(porcelain::fail(e)),
    };
    let request = WhoRequest {
        wip_prefix: target.wip_prefix(),
        me: target.user.clone(),
        mine,
        upstream: repo.resolve_commit(&target.tracking).ok(),
        stale,
        paths,
        dialect_of: &dialect_of,
        options: DiffOptions::from(&options),
        now: now_seconds(),
    };
    let who = memory.who(&request).map_err(porcelain::fail)?;
    if let Some(out) = &args.html {
        super::who_page::write(&root, &config, &who, age_text, out)?;
        return Ok(Outcome::Done);
    }
    for (name, why) in &who.skipped {
        eprintln!(
            "assetvc: warning: {}: skipped, {}",
            report::safe_line(name),
            report::safe_line(why)
        );
    }
    let text = if args.json {
        let pending = super::sync::pending::recorded(&repo, &edited);
        format!("{}\n", json_report(&who, stale, pending))
    } else {
        // Names, keys and ids come from other people's work: escaped, each line on its own
        // so that a name holding a line feed cannot forge a line (#30 items 7 and 6).
        text_report(&who)
            .iter()
            .map(|line| format!("{}\n", report::safe_line(line)))
            .collect()
    };
    std::io::Write::write_all(&mut crate::output::stdout(), text.as_bytes())?;
    Ok(Outcome::Done)
}

fn now_seconds() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or_default()
}

/// `12 s`, `4 min`, `2 h`.
fn age_text(seconds: i64) -> String {
    match seconds {
        s if s < 60 => format!("{s} s"),
        s if s < 3600 => format!("{} min", s / 60),
        s => format!("{} h", s / 3600),
    }
}

/// `level.sjson  entities[crate #e1]  changed: tint, light.intensity`.
fn object_line(o: &ObjectChange) -> String {
    let mut line = format!("{}  {}  {}", o.file, named(o), o.change);
    if !o.properties.is_empty() {
        let properties: Vec<String> = o
            .properties
            .iter()
            .map(|p| merge::naming::bare_pointer(p))
            .collect();
        line.push_str(": ");
        line.push_str(&properties.join(", "));
    }
    line
}

/// The object the way other reports name it: `entities[crate #e1]`; a Cocos object by
/// its node path, `Canvas/Menu/Start<cc.Label>`.
fn named(o: &ObjectChange) -> String {
    match (&o.name, o.id.is_none() && o.pointer.is_empty()) {
        (Some(name), true) => sjson::string::terminal_safe_line(name).into_owned(),
        _ => merge::naming::object_pointer(&o.pointer, o.name.as_deref()),
    }
}

/// The report for people, one entry per line of output (not yet escaped).
fn text_report(who: &WhoReport) -> Vec<String> {
    let mut out = Vec::new();
    if who.others.is_empty() {
        out.push("nobody else is editing (no fresh work in progress; run `assetvc sync`)".into());
    }
    for other in &who.others {
        out.push(format!(
            "{} on {}, {} ago:",
            other.user,
            other.branch,
            age_text(other.age)
        ));
        if other.objects.is_empty() && other.unparsable.is_empty() {
            out.push("  no asset changes".into());
        }
        for o in &other.objects {
            out.push(format!("  {}", object_line(o)));
        }
        for f in &other.unparsable {
            out.push(format!("  {f}  (being edited: does not parse yet)"));
        }
    }
    for (user, o) in &who.overlaps {
        out.push(format!(
            "warning: {user} is editing {} {}, which you are editing too",
            o.file,
            named(o)
        ));
    }
    for (users, o) in &who.shared {
        out.push(format!(
            "warning: {} are each editing {} {}: whoever pushes last merges",
            and_list(users),
            o.file,
            named(o)
        ));
    }
    out
}

/// `bob and carol`, `bob, carol and dave`.
fn and_list(users: &[String]) -> String {
    match users.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        Some((last, _)) => last.clone(),
        None => String::new(),
    }
}

fn object_json(o: &ObjectChange) -> serde_json::Value {
    json!({
        "file": o.file,
        "pointer": o.pointer,
        "id": o.id,
        "short_id": o.id.as_deref().map(store::short_id),
        "name": o.name,
        "change": o.change,
        "properties": o.properties,
    })
}

/// The report for editor plugins; `pending`: the conflicts sync left pending (the local
/// value kept in the worktree, the upstream's one `resolve --take upstream` away).
fn json_report(who: &WhoReport, stale: Duration, pending: Vec<serde_json::Value>) -> String {
    let users: Vec<_> = who
        .others
        .iter()
        .map(|w| {
            json!({
                "user": w.user,
                "branch": w.branch,
                "commit": w.commit.to_string(),
                "age_seconds": w.age,
                "objects": w.objects.iter().map(object_json).collect::<Vec<_>>(),
                "unparsable": w.unparsable,
            })
        })
        .collect();
    let overlaps: Vec<_> = who
        .overlaps
        .iter()
        .map(|(user, o)| {
            let mut v = object_json(o);
            v["user"] = json!(user);
            v
        })
        .collect();
    let shared: Vec<_> = who
        .shared
        .iter()
        .map(|(users, o)| {
            let mut v = object_json(o);
            v["users"] = json!(users);
            v
        })
        .collect();
    let value = json!({
        "stale_seconds": stale.as_secs(),
        "shared": shared,
        "users": users,
        "mine": who.mine.iter().map(object_json).collect::<Vec<_>>(),
        "overlaps": overlaps,
        "pending": pending,
        "skipped": who.skipped.iter().map(|(r, why)| json!({"ref": r, "why": why})).collect::<Vec<_>>(),
    });
    serde_json::to_string_pretty(&value).unwrap_or_default()
}
