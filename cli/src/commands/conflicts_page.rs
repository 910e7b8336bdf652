//! `assetvc conflicts --html FILE`: the last merge's conflicts and repairs as a review
//! page, each merged level's map drawn from the file in the worktree.

use std::path::Path;

use review::{report_section, FileSection, ObjectKeys, Page};
use sjson::{Document, ParseOptions};

use super::merging;
use config::Config;

/// The section of one report entry; the merged file is read from `root` (no map when it
/// is missing or does not parse).
fn section(
    root: &Path,
    config: &Config,
    keys: &ObjectKeys,
    entry: &store::FileStep,
) -> FileSection {
    let path = entry.path.as_str();
    // Only paths inside the worktree: the report is data, never a way out of it.
    let inside = !path.is_empty()
        && Path::new(path)
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)));
    let doc = inside
        .then(|| std::fs::read(root.join(path)).ok())
        .flatten()
        .and_then(|bytes| {
            let dialect = merging::dialect_of(config, Path::new(path));
            Document::parse_bytes(bytes, ParseOptions::new(dialect)).ok()
        });
    let mut s = report_section(entry, doc.as_ref().map(Document::root), keys);
    if doc.is_none() && inside {
        s.notes
            .push("The merged file is not in the worktree or does not parse: no map.".into());
    }
    s
}

/// Writes the page of the last merge operation's file reports `last` (its journal steps;
/// `None`: no merge recorded) to `out`.
pub fn write(root: &Path, last: Option<&[store::FileStep]>, out: &Path) -> crate::exit::Result<()> {
    let config = crate::repo_config::at_root(root)?;
    let keys = ObjectKeys {
        id_keys: config.merge.id_keys.clone(),
        position_keys: config.review.position_keys.clone(),
    };
    let files: Vec<FileSection> = last
        .map(|l| l.iter().map(|e| section(root, &config, &keys, e)).collect())
        .unwrap_or_default();
    let subtitle = match last {
        None => "no merge recorded in this clone".to_string(),
        Some(_) => "what the last merge resolved by policy, and what it repaired".to_string(),
    };
    let changed = files.iter().map(|f| f.cards.len()).sum();
    let count = files.len();
    let html = review::render(&Page {
        title: "Review · last merge".into(),
        subtitle,
        files,
    });
    super::diff::write_page(out, &html, changed, count)
}
