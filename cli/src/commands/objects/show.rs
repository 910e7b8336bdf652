//! `assetvc show OBJECT [--rev REV] [--json]`: an object's content and where it lives.
//! Without `--rev`, the object is looked up in HEAD and shown as it is in the worktree.
//! Only the revision's own tree is read (its index cached, or its asset files parsed):
//! never the history before it.

use std::path::Path;

use crate::exit::{bail, Context};

use clap::Args;
use serde_json::json;
use sjson::{Document, ParseOptions};

use super::{object_name, open, print_json, resolve};
use crate::exit::Outcome;

/// Arguments of `assetvc show`.
#[derive(Debug, Args)]
pub struct ShowArgs {
    /// FILE#ID, an id, a unique id prefix, or a unique name (a Cocos node by its path,
    /// `Canvas/Menu/Start`, a component as `Canvas/Menu/Start<cc.Label>`).
    pub object: String,
    /// Show it as in this revision (default: HEAD's object, as in the worktree).
    #[arg(long)]
    pub rev: Option<String>,
    /// Print JSON: id, name, path, pointer, revision, value.
    #[arg(long)]
    pub json: bool,
}

/// Runs `assetvc show`.
pub fn run(args: &ShowArgs) -> crate::exit::Result<Outcome> {
    show(args)?;
    Ok(Outcome::Done)
}

fn show(args: &ShowArgs) -> crate::exit::Result<()> {
    let repo = open()?;
    let mut index = repo.index();
    let rev = args.rev.as_deref().unwrap_or("HEAD");
    let commit = index.resolve_commit(rev)?;
    let tree = index.tree_index(index.commit_info(commit)?.tree)?;
    let found = resolve(&tree, &repo.spec(&args.object))?;
    let dialect = repo
        .matcher
        .dialect(Path::new(&found.path))
        .unwrap_or(sjson::Dialect::Sjson);
    let in_worktree = args.rev.is_none() && repo.root.is_some();
    let (bytes, shown_rev) = match (in_worktree, &repo.root) {
        (true, Some(root)) => match std::fs::read(root.join(&found.path)) {
            Ok(b) => (b, "worktree".to_string()),
            Err(_) => (blob(&repo.repo, commit, &found.path)?, rev.to_string()),
        },
        _ => (blob(&repo.repo, commit, &found.path)?, rev.to_string()),
    };
    let doc = Document::parse_bytes(bytes, ParseOptions::new(dialect)).map_err(|e| {
        crate::exit::failure!(
            "{}:{}:{}: {} ({shown_rev})",
            found.path,
            e.line,
            e.col,
            e.kind
        )
    })?;
    let objects = merge::objects::keyed_objects(doc.root(), &repo.config.merge.id_keys);
    let Some(obj) = objects.iter().find(|o| o.id == found.id) else {
        bail!(
            "{} is not in {} any more ({shown_rev}); try --rev HEAD",
            object_name(found.name.as_deref(), &found.id),
            found.path
        );
    };
    if args.json {
        let value: serde_json::Value =
            serde_json::from_str(&merge::compact_json(obj.value)).unwrap_or_default();
        print_json(&json!({
            "id": found.id,
            "name": found.name,
            "path": found.path,
            "pointer": obj.path.to_string(),
            "revision": shown_rev,
            "value": value,
        }))?;
    } else {
        let safe = crate::report::safe_line;
        outln!(
            "{} in {} at {} ({})",
            object_name(found.name.as_deref(), &found.id),
            safe(&found.path),
            safe(&obj.path.to_string()),
            safe(&shown_rev)
        );
        // The object's lines without the indentation of the line it starts on.
        let indent = doc.line_indent(obj.value.span().start);
        for line in obj.value.text().lines() {
            outln!("{}", safe(line.strip_prefix(indent).unwrap_or(line)));
        }
    }
    Ok(())
}

/// The blob at `path` in `commit`.
pub(super) fn blob(
    repo: &store::Repo,
    commit: store::ObjectId,
    path: &str,
) -> crate::exit::Result<Vec<u8>> {
    let tree = repo.commit_tree(commit)?;
    repo.blob_in(tree, path)?
        .with_context(|| format!("{path}: not in {commit}"))
}
