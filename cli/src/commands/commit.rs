//! `assetvc commit -m MSG [-a] [PATH...]`: stages PATHs (or, with `-a`, every tracked file
//! that changed), checks the assets about to be committed, then writes blobs, tree, commit,
//! ref and index through gix. Concludes a merge in progress (`MERGE_HEAD`) with a merge
//! commit. The client pre-commit hook is not run: its checks are these checks.

use std::path::PathBuf;

use crate::exit::bail;
use clap::Args;

use super::porcelain;
use crate::exit::{Error, Outcome};
use config::Config;

/// Arguments of `assetvc commit`.
#[derive(Debug, Args)]
pub struct CommitArgs {
    /// The commit message; several are joined as paragraphs. Optional when concluding a
    /// merge (the merge's message is used).
    #[arg(short = 'm', long = "message", value_name = "MSG")]
    pub message: Vec<String>,
    /// Stage every tracked file that changed or was deleted.
    #[arg(short = 'a', long = "all")]
    pub all: bool,
    /// Print the outcome as JSON on stdout (`commit`, `parents`, `changed`, `problems`).
    #[arg(long)]
    pub json: bool,
    /// Files or directories to stage before committing.
    pub paths: Vec<PathBuf>,
}

/// A staged blob to check: repository-relative path and contents as git stores them.
pub struct StagedBlob {
    /// Repository-relative path.
    pub path: String,
    /// The blob's bytes.
    pub data: Vec<u8>,
    /// The content at the same path in HEAD, if any (for `check.require_ids`).
    pub base: Option<Vec<u8>>,
}

/// The asset checks a commit runs on what it commits (the hooks crate's full set: parse,
/// conflict markers, unique ids, code assets, trusted external checkers); each problem is
/// one rendered `path:line:col: reason` diagnostic. Warnings (repeated keys) are printed
/// on stderr here and never block: only errors are returned.
pub fn check_blobs(
    blobs: &[StagedBlob],
    config: &Config,
    root: &std::path::Path,
) -> crate::exit::Result<Vec<String>> {
    let mut policy = hooks::policy_with_checkers(config, root)?;
    if policy.checks_resources() {
        // Resource references name files of the worktree being committed.
        let root = root.to_path_buf();
        policy = policy.with_tree(hooks::checks::resources::TreePaths::new(move |p| {
            root.join(p).is_file()
        }));
    }
    let files: Vec<hooks::checks::FileVersion<'_>> = blobs
        .iter()
        .map(|b| (b.path.as_str(), b.data.as_slice(), b.base.as_deref()))
        .collect();
    let (errors, warnings): (Vec<_>, Vec<_>) = hooks::check_many(&files, &policy)
        .into_iter()
        .partition(hooks::Problem::is_error);
    for w in &warnings {
        eprintln!("{w}");
    }
    Ok(errors.iter().map(|p| p.render()).collect())
}

/// Runs `assetvc commit`: 0 committed, 1 checks failed or nothing to commit (nothing is
/// written then), 2 bad usage or a repository error.
pub fn run(args: &CommitArgs) -> crate::exit::Result<Outcome> {
    // git refuses an empty message: say so before touching anything.
    if !args.message.is_empty() && args.message.iter().all(|m| m.trim().is_empty()) {
        bail!("empty commit message: give one with -m MSG");
    }
    let (repo, root) = porcelain::open_worktree()?;
    let config = crate::repo_config::at_root(&root)?;
    let mut staging = store::Staging::open(&repo).map_err(porcelain::fail)?;
    let message = if args.message.is_empty() {
        match repo.merge_message() {
            Some(m) if !repo.merge_heads().unwrap_or_default().is_empty() => m,
            _ => bail!("a commit message is needed: assetvc commit -m MSG"),
        }
    } else {
        args.message.join("\n\n")
    };
    if args.all {
        staging.add_tracked().map_err(porcelain::fail)?;
    }
    for path in &args.paths {
        let Some(rela) = store::rela_path(&root, path) else {
            bail!("{}: outside the repository", path.display());
        };
        staging.add_path(&rela).map_err(porcelain::fail)?;
    }
    let changes = staging.changes();
    let mut blobs = Vec::new();
    for change in &changes {
        let Some(id) = change.new_id() else {
            continue;
        };
        if change.is_submodule() {
            continue;
        }
        let base = match change.old_id() {
            Some(old_id) => Some(staging.blob(&old_id).map_err(porcelain::fail)?),
            None => None,
        };
        blobs.push(StagedBlob {
            path: change.path_lossy(),
            data: staging.blob(&id).map_err(porcelain::fail)?,
            base,
        });
    }
    let problems = check_blobs(&blobs, &config, &root)?;
    if !problems.is_empty() {
        if args.json {
            outln!(
                "{}",
                serde_json::json!({"commit": null, "problems": problems})
            );
        }
        for p in &problems {
            eprintln!("{p}");
        }
        let problems = problems.len();
        return Err(Error::CommitAborted { problems });
    }
    let branch = repo
        .current_branch()
        .ok()
        .flatten()
        .unwrap_or_else(|| "HEAD".into());
    match staging.commit(&message) {
        Ok(Some(c)) => {
            if args.json {
                let changed: Vec<String> = c.changes.iter().map(|ch| ch.path_lossy()).collect();
                let parents: Vec<String> = c.parents.iter().map(|p| p.to_string()).collect();
                outln!(
                    "{}",
                    serde_json::json!({
                        "commit": c.id.to_string(),
                        "parents": parents,
                        "changed": changed,
                        "problems": [],
                    })
                );
                return Ok(Outcome::Done);
            }
            let first = message.lines().next().unwrap_or_default();
            let merge = if c.parents.len() > 1 { " (merge)" } else { "" };
            outln!("[{branch} {}{merge}] {first}", c.id.to_hex_with_len(7));
            outln!(
                " {} file{} changed",
                c.changes.len(),
                if c.changes.len() == 1 { "" } else { "s" }
            );
            Ok(Outcome::Done)
        }
        Ok(None) => {
            eprintln!("assetvc: nothing to commit");
            Ok(Outcome::NothingToCommit)
        }
        Err(e) => Err(porcelain::fail(e)),
    }
}
