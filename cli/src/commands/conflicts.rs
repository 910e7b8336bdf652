//! `assetvc conflicts [--all] [--json]`: what merges resolved by policy and the paths they
//! left for the user, from the merge journal (`.git/assetvc/journal/`): the last operation
//! with all its steps (a whole `git rebase`, not only its last commit), or with `--all`
//! every recorded operation, oldest first.

use std::process::ExitCode;

use clap::Args;
use merge::ConflictKind;
use store::{Journal, OperationKind, Recorded};

use super::porcelain;
use crate::report;

/// Arguments of `assetvc conflicts`.
#[derive(Debug, Args)]
pub struct ConflictsArgs {
    /// Show every recorded operation (oldest first), not only the last.
    #[arg(long)]
    pub all: bool,
    /// Print the report as JSON: `{operation, merge, files}` (files: one entry per merged
    /// file and step); with `--all`, `{operations: [...]}`.
    #[arg(long)]
    pub json: bool,
    /// Append the last merge's conflicts to this commit message file, for git's
    /// `prepare-commit-msg` hook (only when a merge is being committed).
    #[arg(long, value_name = "FILE", hide = true)]
    pub commit_msg: Option<std::path::PathBuf>,
    /// Write a review page (one self-contained HTML file: a card per object, the three
    /// values of each conflict and the side taken, a map of each level) to FILE.
    #[arg(long, value_name = "FILE")]
    pub html: Option<std::path::PathBuf>,
}

/// `both-modified` → `both modified`, as `Conflict`'s Display writes it.
fn describe(kind: &str) -> String {
    [
        ConflictKind::BothModified,
        ConflictKind::DeleteModify,
        ConflictKind::ModifyDelete,
        ConflictKind::BothAdded,
        ConflictKind::Order,
        ConflictKind::DanglingReference,
        ConflictKind::Cycle,
        ConflictKind::Orphan,
    ]
    .into_iter()
    .find(|k| k.name() == kind)
    .map(|k| k.describe().to_string())
    .unwrap_or_else(|| kind.replace('-', " "))
}

/// A coherence repair of the stored report, to print as the merge printed it.
fn repair(c: &serde_json::Value) -> Option<merge::Conflict> {
    let kind = [
        ConflictKind::DanglingReference,
        ConflictKind::Cycle,
        ConflictKind::Orphan,
    ]
    .into_iter()
    .find(|k| Some(k.name()) == c["kind"].as_str())?;
    let text = |k: &str| c[k].as_str().map(str::to_string);
    Some(merge::Conflict {
        path: text("path").unwrap_or_default(),
        kind,
        base: None,
        ours: None,
        theirs: None,
        taken: match c["taken"].as_str() {
            Some("ours") => merge::Side::Ours,
            _ => merge::Side::Theirs,
        },
        object: text("object"),
        referrer: text("referrer"),
    })
}

/// How a conflict's side reads: `took theirs`, or for the policies `upstream` and `local`
/// `kept local (theirs in this rebase)`.
fn taken(file: &serde_json::Value, c: &serde_json::Value) -> String {
    let side = c["taken"].as_str().unwrap_or("?");
    match (file["policy"].as_str(), c["kept"].as_str()) {
        (Some("upstream" | "local"), Some(kept)) => format!(
            "kept {kept} ({side} in this {})",
            file["operation"].as_str().unwrap_or("merge")
        ),
        _ => format!("took {side}"),
    }
}

/// What a pending conflict of a sync adds to its line: the upstream's value, who made
/// it, and how to take it.
fn pending(path: &str, c: &serde_json::Value) -> String {
    let by = c["by"]
        .as_str()
        .map_or(String::new(), |b| format!(" by {b}"));
    let upstream = match &c["theirs"] {
        serde_json::Value::Null => "(deleted)".to_string(),
        v => v.to_string(),
    };
    format!(
        "; pending: the upstream's {upstream}{by} (assetvc resolve {path} --all --take upstream)"
    )
}

/// The lines of the steps for people: `level.sjson /settings/fog: both modified, took
/// theirs`, a rebase's steps prefixed with the commit: `[2/3 1b7122a] level.sjson …`.
pub fn lines(steps: &[serde_json::Value]) -> Vec<String> {
    let mut out = Vec::new();
    for file in steps {
        let path = file["path"].as_str().unwrap_or("?");
        let prefix = match (file["step"].as_str(), file["commit"].as_str()) {
            (Some(s), Some(c)) => format!("[{s} {}] ", c.get(..7).unwrap_or(c)),
            (Some(s), None) => format!("[{s}] "),
            (None, Some(c)) => format!("[{}] ", c.get(..7).unwrap_or(c)),
            (None, None) => String::new(),
        };
        for c in file["conflicts"].as_array().into_iter().flatten() {
            if let Some(repair) = repair(c) {
                out.push(format!("{prefix}{path} {repair}"));
                continue;
            }
            // The name for people when the merge recorded one, else the pointer.
            let at = c["name"]
                .as_str()
                .or(c["path"].as_str())
                .filter(|p| !p.is_empty())
                .unwrap_or("/");
            let mut line = format!(
                "{prefix}{path} {at}: {}, {}",
                describe(c["kind"].as_str().unwrap_or("?")),
                taken(file, c)
            );
            if c["pending"] == true {
                line.push_str(&pending(path, c));
            }
            out.push(line);
        }
        if let Some(reason) = file["unresolved"].as_str() {
            out.push(format!(
                "{prefix}{path}: not merged, left for you to resolve: {reason}"
            ));
        }
    }
    out
}

/// The number of conflicts resolved by policy in `steps`.
fn count(steps: &[serde_json::Value]) -> usize {
    steps
        .iter()
        .map(|f| f["conflicts"].as_array().map_or(0, Vec::len))
        .sum()
}

/// `rebase of feature onto 1b7122a: 2 steps, 1 conflict resolved by policy`.
fn heading(r: &Recorded) -> String {
    let n = count(&r.steps);
    let steps = r.steps.len();
    format!(
        "{}: {steps} file merge{}, {n} conflict{} resolved by policy",
        r.operation.label,
        if steps == 1 { "" } else { "s" },
        if n == 1 { "" } else { "s" }
    )
}

fn json_of(r: &Recorded) -> serde_json::Value {
    serde_json::json!({
        "operation": {
            "kind": r.operation.kind,
            "label": r.operation.label,
            "branch": r.operation.branch,
            "swapped": r.operation.swapped,
            "started": r.started,
        },
        "merge": r.operation.label,
        "files": r.steps,
    })
}

/// Runs `assetvc conflicts`: 0 (also when no merge was recorded), 2 outside a repository or
/// when the journal cannot be read.
pub fn run(args: &ConflictsArgs) -> anyhow::Result<ExitCode> {
    let repo = store::Repo::discover(std::path::Path::new(".")).map_err(porcelain::fail)?;
    let journal = Journal::at(repo.git_dir());
    if let Some(file) = &args.commit_msg {
        let head = repo.head_commit().ok().flatten().map(|id| id.to_string());
        append_to_message(&journal, head.as_deref(), file);
        return Ok(ExitCode::SUCCESS);
    }
    let operations = if args.all {
        journal.operations()?
    } else {
        journal.last()?.into_iter().collect()
    };
    if let Some(out) = &args.html {
        let last = operations.first().map(|r| r.steps.as_slice());
        super::conflicts_page::write(&worktree(&repo), last, out)?;
        return Ok(ExitCode::SUCCESS);
    }
    // Paths git itself left unmerged (a binary file, a file no driver merges): the user
    // must resolve them whatever the journal says.
    let unmerged = repo.unmerged_paths().unwrap_or_default();
    if args.json {
        let mut value = if args.all {
            let all = operations.iter().map(|r| {
                let mut v = json_of(r);
                v["undone"] = serde_json::json!(repo.merge_undone(&r.operation));
                v
            });
            serde_json::json!({"operations": all.collect::<Vec<_>>()})
        } else {
            operations
                .first()
                .map(json_of)
                .unwrap_or_else(|| serde_json::json!({"operation": null, "merge": "", "files": []}))
        };
        value["unmerged"] = serde_json::json!(unmerged);
        outln!(
            "{}",
            serde_json::to_string_pretty(&value).unwrap_or_default()
        );
        return Ok(ExitCode::SUCCESS);
    }
    if operations.is_empty() && unmerged.is_empty() {
        eprintln!("assetvc: no merge recorded in this clone");
        return Ok(ExitCode::SUCCESS);
    }
    for r in &operations {
        if repo.merge_undone(&r.operation) {
            outln!(
                "{} (undone: not in HEAD; git merge --abort or a reset)",
                heading(r)
            );
            continue;
        }
        outln!("{}", heading(r));
        for line in lines(&r.steps) {
            outln!("{}", report::safe_line(&line));
        }
    }
    for path in &unmerged {
        outln!(
            "{}: unmerged in the index, left for you to resolve (git add it when done)",
            report::safe_line(path)
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The `prepare-commit-msg` hook's work: when git is committing a merge (`MERGE_HEAD`
/// present) that the last recorded operation made, appends the conflicts resolved by policy
/// to the message, like the merge commits of `assetvc merge`. Never fails the commit.
fn append_to_message(journal: &Journal, head: Option<&str>, file: &std::path::Path) {
    let Ok(Some(last)) = journal.last() else {
        return;
    };
    // Only a merge into this very HEAD (its key is `merge ORIG_HEAD THEIRS…`).
    let merging_here = matches!(
        last.operation.kind,
        OperationKind::Merge | OperationKind::Pull
    ) && head.is_some()
        && last.operation.key.split(' ').nth(1) == head;
    if !merging_here {
        return;
    }
    let lines = lines(&last.steps);
    let n = count(&last.steps);
    if lines.is_empty() || n == 0 {
        return;
    }
    let Ok(message) = std::fs::read_to_string(file) else {
        return;
    };
    if message.contains("assetvc resolved ") {
        return;
    }
    let policy = last
        .steps
        .iter()
        .find_map(|s| s["policy"].as_str())
        .unwrap_or("theirs");
    let mut block = format!(
        "\nassetvc resolved {n} conflict{} by policy {policy}:\n",
        if n == 1 { "" } else { "s" }
    );
    for line in lines {
        block.push_str(&line);
        block.push('\n');
    }
    // The block goes before git's comment lines, like a message written by hand.
    let cut = message.find("\n#").map(|i| i + 1).unwrap_or(message.len());
    let (head, tail) = message.split_at(cut);
    let head = head.trim_end_matches('\n');
    let out = format!(
        "{head}\n{block}{}{tail}",
        if tail.is_empty() { "" } else { "\n" }
    );
    if let Err(e) = crate::files::write_atomic(file, out.as_bytes()) {
        eprintln!("assetvc: warning: {}: {e}", file.display());
    }
}

/// The worktree's root (the current directory in a bare repository).
fn worktree(repo: &store::Repo) -> std::path::PathBuf {
    repo.workdir()
        .map(std::path::Path::to_path_buf)
        .unwrap_or_else(|| std::path::PathBuf::from("."))
}
