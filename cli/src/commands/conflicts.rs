//! `assetvc conflicts [--json]`: what the last merge (by the merge driver under `git merge`,
//! `git pull` or `git rebase`, or by `assetvc merge`/`pull`) resolved by policy, and the
//! paths it left for the user, from `.git/assetvc/last-merge.json`.

use clap::Args;
use merge::ConflictKind;

use super::merge_driver::LastMerge;
use super::porcelain;
use crate::report;

/// Arguments of `assetvc conflicts`.
#[derive(Debug, Args)]
pub struct ConflictsArgs {
    /// Print the report as JSON (the stored file: one entry per merged file).
    #[arg(long)]
    pub json: bool,
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
    ]
    .into_iter()
    .find(|k| k.name() == kind)
    .map(|k| k.describe().to_string())
    .unwrap_or_else(|| kind.replace('-', " "))
}

/// The report's lines for people: `level.sjson /settings/fog: both modified, took theirs`.
pub fn lines(last: &LastMerge) -> Vec<String> {
    let mut out = Vec::new();
    for file in &last.files {
        let path = file["path"].as_str().unwrap_or("?");
        for c in file["conflicts"].as_array().into_iter().flatten() {
            let at = c["path"].as_str().filter(|p| !p.is_empty()).unwrap_or("/");
            out.push(format!(
                "{path} {at}: {}, took {}",
                describe(c["kind"].as_str().unwrap_or("?")),
                c["taken"].as_str().unwrap_or("?")
            ));
        }
        if let Some(reason) = file["unresolved"].as_str() {
            out.push(format!(
                "{path}: not merged, left for you to resolve: {reason}"
            ));
        }
    }
    out
}

/// Runs `assetvc conflicts`: 0 (also when no merge was recorded), 2 outside a repository or
/// when the report cannot be read.
pub fn run(args: &ConflictsArgs) -> i32 {
    let repo = match store::repo::open(std::path::Path::new(".")) {
        Ok(r) => r,
        Err(e) => return porcelain::fail(&e),
    };
    let path = porcelain::state_dir(&repo).join(porcelain::LAST_MERGE);
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if let Some(out) = &args.html {
                return super::conflicts_page::write(&worktree(&repo), None, out);
            }
            if args.json {
                println!("{}", serde_json::json!({"merge": "", "files": []}));
            } else {
                eprintln!("assetvc: no merge recorded in this clone");
            }
            return 0;
        }
        Err(e) => {
            report::error(format!("{}: {e}", path.display()));
            return 2;
        }
    };
    let last: LastMerge = match serde_json::from_slice(&bytes) {
        Ok(l) => l,
        Err(e) => {
            report::error(format!("{}: {e}", path.display()));
            return 2;
        }
    };
    if let Some(out) = &args.html {
        return super::conflicts_page::write(&worktree(&repo), Some(&last), out);
    }
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&last).unwrap_or_default()
        );
        return 0;
    }
    let lines = lines(&last);
    if lines.is_empty() {
        eprintln!("assetvc: the last merge resolved no conflicts");
    }
    for line in lines {
        println!("{line}");
    }
    0
}

/// The worktree's root (the current directory in a bare repository).
fn worktree(repo: &store::gix::Repository) -> std::path::PathBuf {
    repo.workdir()
        .map(std::path::Path::to_path_buf)
        .unwrap_or_else(|| std::path::PathBuf::from("."))
}
