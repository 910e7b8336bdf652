//! `assetvc pr check BASE HEAD [--json] [--html FILE]`: whether the pull request HEAD
//! merges into BASE by structure and passes the guards, computed in memory.

use std::path::{Path, PathBuf};

use clap::Args;
use review::{report_section, FileSection, ObjectKeys, Page};
use sjson::{Document, ParseOptions};

use super::{merge_pr, open, short, Common, PrMerge};
use crate::commands::{merging, porcelain};
use crate::exit::Outcome;

/// Arguments of `assetvc pr check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    #[command(flatten)]
    common: Common,
    /// Print the outcome as JSON on stdout.
    #[arg(long)]
    json: bool,
    /// Write the review page of the merge (what the policy decided, object by object).
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// The branch the pull request goes into (any revision).
    base: String,
    /// The pull request's head (any revision).
    head: String,
}

/// Runs `pr check`: 0 merges cleanly and passes the guards, 1 it does not, 2 an error.
pub fn run(args: &CheckArgs) -> crate::exit::Result<Outcome> {
    let (repo, root) = open()?;
    let base = repo.resolve_commit(&args.base).map_err(porcelain::fail)?;
    let head = repo.resolve_commit(&args.head).map_err(porcelain::fail)?;
    let pr = merge_pr(
        &repo,
        &root,
        (base, head),
        (&args.base, &args.head),
        args.common.policy,
    )?;
    let what = format!(
        "{} ({}) into {} ({})",
        crate::report::safe(&args.head),
        short(&head),
        crate::report::safe(&args.base),
        short(&base)
    );
    pr.print(&what);
    if args.json {
        outln!("{}", json(&pr));
    }
    if let Some(out) = &args.html {
        page(&repo, &root, &pr, &what, out)?;
    }
    Ok(Outcome::done_unless(!pr.clean(), Outcome::Problems))
}

/// The outcome as JSON: status, what the policy decided, what is left, the problems.
fn json(pr: &PrMerge) -> String {
    let status = match (pr.up_to_date, pr.clean()) {
        (true, _) => "up-to-date",
        (false, true) => "clean",
        (false, false) => "refused",
    };
    let sides = merging::Sides::merge();
    let files: Vec<store::FileStep> = pr
        .merged
        .files
        .iter()
        .map(|f| {
            merging::step_report(&f.path, pr.policy, &sides, &f.conflicts, &f.places)
                .with_referrers(&f.referrers)
        })
        .collect();
    let unresolved: Vec<serde_json::Value> = pr
        .merged
        .unresolved
        .iter()
        .map(|u| serde_json::json!({"path": u.path, "reason": u.kind.to_string()}))
        .collect();
    let value = serde_json::json!({
        "status": status,
        "base": pr.ours.to_string(),
        "head": pr.theirs.to_string(),
        "tree": pr.merged.tree.to_string(),
        "policy": pr.policy.name(),
        "decided": pr.decided(),
        "files": files,
        "unresolved": unresolved,
        "problems": pr.problems,
    });
    serde_json::to_string_pretty(&value).unwrap_or_default()
}

/// Writes the review page: one section per merged asset, its map drawn from the merged
/// tree.
fn page(
    repo: &store::Repo,
    root: &Path,
    pr: &PrMerge,
    what: &str,
    out: &Path,
) -> crate::exit::Result<()> {
    let config = crate::repo_config::at_root(root)?;
    let keys = ObjectKeys {
        id_keys: config.merge.id_keys.clone(),
        position_keys: config.review.position_keys.clone(),
    };
    let sides = merging::Sides::merge();
    let tree = repo
        .tree(&pr.merged.tree.to_string())
        .map_err(porcelain::fail)?;
    let files: Vec<FileSection> = pr
        .merged
        .files
        .iter()
        .map(|f| {
            let entry = merging::step_report(&f.path, pr.policy, &sides, &f.conflicts, &f.places)
                .with_referrers(&f.referrers);
            let dialect = merging::dialect_of(&config, Path::new(&f.path));
            let doc = repo
                .blob_in(tree, &f.path)
                .ok()
                .flatten()
                .and_then(|b| Document::parse_bytes(b, ParseOptions::new(dialect)).ok());
            report_section(&entry, doc.as_ref().map(Document::root), &keys)
        })
        .collect();
    let changed = files.iter().map(|f| f.cards.len()).sum();
    let count = files.len();
    let html = review::render(&Page {
        title: "Review · pull request".into(),
        subtitle: format!("the structured merge of {what}"),
        files,
    });
    crate::commands::diff::write_page(out, &html, changed, count)
}
