//! `assetvc blame FILE [--rev REV] [--json]`: for each object of FILE and each of its leaf
//! properties (nested objects flattened: `light.intensity`), the commit, author and date
//! of its last change.

use crate::exit::bail;
use clap::Args;
use serde_json::json;
use store::blame;

use super::{commit_json, commit_text, day, object_name, open, print_json, short_commit};
use crate::exit::Outcome;
use crate::report::safe_line;

/// Arguments of `assetvc blame`.
#[derive(Debug, Args)]
pub struct BlameArgs {
    /// The asset file.
    pub file: String,
    /// Blame the file as in this revision.
    #[arg(long, default_value = "HEAD")]
    pub rev: String,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// Runs `assetvc blame`.
pub fn run(args: &BlameArgs) -> crate::exit::Result<Outcome> {
    run_blame(args)?;
    Ok(Outcome::Done)
}

fn run_blame(args: &BlameArgs) -> crate::exit::Result<()> {
    let repo = open()?;
    let path = repo.rela(&args.file);
    if repo.matcher.dialect(std::path::Path::new(&path)).is_none() {
        bail!("{path}: not an asset file (see [assets] in assetvc.toml)");
    }
    let mut index = repo.index();
    let commit = index.resolve_commit(&args.rev)?;
    let tree = index.tree_index(index.commit_info(commit)?.tree)?;
    if !tree.files.contains_key(&path) {
        bail!("{path}: not in {}", args.rev);
    }
    let objects = blame(&mut index, commit, &path)?;
    if args.json {
        let objects: Vec<_> = objects
            .iter()
            .map(|o| {
                json!({
                    "id": o.id,
                    "name": o.name,
                    "pointer": o.pointer,
                    "properties": o.properties.iter().map(|l| {
                        let mut v = commit_json(&l.commit);
                        v["property"] = json!(l.property);
                        v
                    }).collect::<Vec<_>>(),
                })
            })
            .collect();
        print_json(&json!({"path": path, "revision": args.rev, "objects": objects}))?;
        return Ok(());
    }
    for o in &objects {
        outln!(
            "{}  {}",
            object_name(o.name.as_deref(), &o.id),
            safe_line(&o.pointer)
        );
        let width = o
            .properties
            .iter()
            .map(|l| l.property.chars().count())
            .max()
            .unwrap_or(0);
        for l in &o.properties {
            let (author, summary) = commit_text(&l.commit);
            outln!(
                "    {:width$}  {} {} {author}  {summary}",
                safe_line(&l.property),
                short_commit(&l.commit),
                day(l.commit.time),
            );
        }
    }
    Ok(())
}
