//! `assetvc conflicts [--all] [--json]`: what merges resolved by policy and the paths they
//! left for the user, from the merge journal (`.git/assetvc/journal/`): the last operation
//! with all its steps (a whole `git rebase`, not only its last commit), or with `--all`
//! every recorded operation, oldest first.

use clap::Args;
use merge::Policy;
use store::{ConflictRecord, FileStep, Journal, OperationKind, Recorded};

use super::porcelain;
use crate::exit::Outcome;
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

/// How a conflict's side reads: `took theirs`, or for the policies `upstream` and `local`
/// `kept local (theirs in this rebase)`.
fn taken(file: &FileStep, c: &ConflictRecord) -> String {
    let side = c.taken.name();
    match (file.policy, c.kept) {
        (Some(Policy::Upstream | Policy::Local), Some(kept)) => format!(
            "kept {} ({side} in this {})",
            kept.name(),
            file.operation.as_deref().unwrap_or("merge")
        ),
        _ => format!("took {side}"),
    }
}

/// What a pending conflict of a sync adds to its line: the upstream's value, who made
/// it, and how to take it.
fn pending(path: &str, c: &ConflictRecord) -> String {
    let by =
        c.by.as_deref()
            .map_or(String::new(), |b| format!(" by {b}"));
    let upstream = c.theirs.as_deref().unwrap_or("(deleted)");
    format!(
        "; pending: the upstream's {upstream}{by} (assetvc resolve {path} --all --take upstream)"
    )
}

/// `[2/3 1b7122a] `: where a step stands in its operation, empty for a single merge.
fn prefix(file: &FileStep) -> String {
    let short = |c: &str| c.get(..7).unwrap_or(c).to_string();
    match (file.step.as_deref(), file.commit.as_deref()) {
        (Some(s), Some(c)) => format!("[{s} {}] ", short(c)),
        (Some(s), None) => format!("[{s}] "),
        (None, Some(c)) => format!("[{}] ", short(c)),
        (None, None) => String::new(),
    }
}

/// The lines of the steps for people: `level.sjson /settings/fog: both modified, took
/// theirs`, a rebase's steps prefixed with the commit: `[2/3 1b7122a] level.sjson …`.
pub fn lines(steps: &[FileStep]) -> Vec<String> {
    let mut out = Vec::new();
    for file in steps {
        let path = file.path.as_str();
        let prefix = prefix(file);
        for c in &file.conflicts {
            if c.kind.is_repair() {
                let line = c.line();
                out.push(format!("{prefix}{path} {line}"));
                continue;
            }
            // The name for people when the merge recorded one, else the pointer.
            let mut line = format!(
                "{prefix}{path} {}: {}, {}",
                c.shown_place(),
                c.kind.describe(),
                taken(file, c)
            );
            if c.pending {
                line.push_str(&pending(path, c));
            }
            out.push(line);
        }
        if let Some(reason) = &file.unresolved {
            out.push(format!(
                "{prefix}{path}: not merged, left for you to resolve: {reason}"
            ));
        }
    }
    out
}

/// `rebase of feature onto 1b7122a: 2 steps, 1 conflict resolved by policy`.
fn heading(r: &Recorded) -> String {
    let n = FileStep::count(&r.steps);
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
pub fn run(args: &ConflictsArgs) -> crate::exit::Result<Outcome> {
    let repo = store::Repo::discover(std::path::Path::new(".")).map_err(porcelain::fail)?;
    let journal = Journal::at(repo.git_dir());
    if let Some(file) = &args.commit_msg {
        let head = repo.head_commit().ok().flatten().map(|id| id.to_string());
        append_to_message(&journal, head.as_deref(), file);
        return Ok(Outcome::Done);
    }
    let operations = if args.all {
        journal.operations()?
    } else {
        journal.last()?.into_iter().collect()
    };
    if let Some(out) = &args.html {
        let last = operations.first().map(|r| r.steps.as_slice());
        super::conflicts_page::write(&worktree(&repo), last, out)?;
        return Ok(Outcome::Done);
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
        return Ok(Outcome::Done);
    }
    if operations.is_empty() && unmerged.is_empty() {
        eprintln!("assetvc: no merge recorded in this clone");
        return Ok(Outcome::Done);
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
    Ok(Outcome::Done)
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
    let n = FileStep::count(&last.steps);
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
        .find_map(|s| s.policy)
        .unwrap_or_default()
        .name();
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
