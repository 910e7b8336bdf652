//! `assetvc restore OBJECT --source REV [FILE]`: puts one object of the worktree back as it
//! was at REV — a deleted one is re-created at its place — changing only that object's
//! nodes, in the file's own style, atomically. A file that does not parse is refused.

use std::path::Path;

use crate::exit::{bail, Context};

use clap::Args;
use serde_json::json;
use sjson::{Document, ParseOptions};
use store::{restore_object, Restored};

use super::show::blob;
use super::{object_name, open, print_json, resolve};
use crate::exit::Outcome;
use crate::report;

/// Arguments of `assetvc restore`.
#[derive(Debug, Args)]
pub struct RestoreArgs {
    /// FILE#ID, an id, a unique id prefix, or a unique name, as at the source revision.
    pub object: String,
    /// The revision to take the object from.
    #[arg(long, value_name = "REV")]
    pub source: String,
    /// The worktree file to restore it into (default: where it is in HEAD, else where it
    /// was at REV).
    pub file: Option<String>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// Runs `assetvc restore`.
pub fn run(args: &RestoreArgs) -> crate::exit::Result<Outcome> {
    restore(args)?;
    Ok(Outcome::Done)
}

fn restore(args: &RestoreArgs) -> crate::exit::Result<()> {
    let repo = open()?;
    let root = repo
        .root
        .clone()
        .context("the repository has no worktree; restore needs one")?;
    let mut index = repo.index();
    let source = index.resolve_commit(&args.source)?;
    let source_tree = index.commit_index(source)?;
    let found = resolve(&source_tree, &repo.spec(&args.object))?;
    let target = match &args.file {
        Some(f) => repo.rela(f),
        None => {
            let head = index.resolve_commit("HEAD").ok();
            let now = match head {
                Some(h) => Some(index.commit_index(h)?),
                None => None,
            };
            now.and_then(|t| {
                t.objects()
                    .find(|(_, id, _)| *id == found.id)
                    .map(|(p, _, _)| p.to_string())
            })
            .unwrap_or_else(|| found.path.clone())
        }
    };
    // Only a path inside the worktree (a tree's path never climbs out; a typed one may).
    if !Path::new(&target)
        .components()
        .all(|c| matches!(c, std::path::Component::Normal(_)))
    {
        bail!("{target}: not a file inside the worktree");
    }
    let dialect = repo
        .matcher
        .dialect(Path::new(&target))
        .with_context(|| format!("{target}: not an asset file (see [assets] in assetvc.toml)"))?;
    let file = root.join(&target);
    let text = std::fs::read(&file).with_context(|| target.clone())?;
    let current = Document::parse_bytes(text.clone(), ParseOptions::new(dialect)).map_err(|e| {
        crate::exit::failure!(
            "{}\nnothing was changed",
            report::parse_error(&target, &String::from_utf8_lossy(&text), &e)
        )
    })?;
    if merge::cocos::is_cocos(&current) {
        bail!(
            "{target}: a Cocos scene's objects name each other by position; restoring one \
             object alone is not supported (nothing was changed)"
        );
    }
    let source_dialect = repo
        .matcher
        .dialect(Path::new(&found.path))
        .unwrap_or(dialect);
    let old = Document::parse_bytes(
        blob(&repo.repo, source, &found.path)?,
        ParseOptions::new(source_dialect),
    )
    .map_err(|e| {
        crate::exit::failure!(
            "{}:{}:{}: {} (at {})",
            found.path,
            e.line,
            e.col,
            e.kind,
            args.source
        )
    })?;
    let outcome = restore_object(&current, &old, &found.id, &repo.config.merge.id_keys)
        .with_context(|| target.clone())?;
    let (result, new_text) = match outcome {
        Restored::Unchanged => ("unchanged", None),
        Restored::Changed(t) => ("restored", Some(t)),
        Restored::Recreated(t) => ("re-created", Some(t)),
    };
    if let Some(t) = new_text {
        // Compare-and-swap: a file saved since it was read is left alone.
        store::write_atomic_if_unchanged(&file, &text, t.as_bytes())
            .with_context(|| target.clone())?;
    }
    let name = object_name(found.name.as_deref(), &found.id);
    if args.json {
        print_json(&json!({
            "id": found.id,
            "name": found.name,
            "path": target,
            "source": args.source,
            "result": result,
        }))?;
    } else if result == "unchanged" {
        outln!("{name} in {target} is already as at {}", args.source);
    } else {
        outln!("{result} {name} in {target} as at {}", args.source);
    }
    Ok(())
}
