//! `assetvc who --html FILE`: who else is editing what, as a review page: a card per object
//! someone else edits (marked when you edit it too) and a map of each level, drawn from the
//! file in your worktree.

use std::collections::BTreeSet;
use std::path::Path;

use review::who::{WhoEdit, WhoPage, WhoUser};
use review::{LevelObjects, ObjectKeys};
use sjson::{Document, ParseOptions};
use store::WhoReport;

use super::merging;
use config::Config;

/// Writes the page of `who` to `out` (levels read from the worktree at `root`); the exit
/// status.
pub fn write(
    root: &Path,
    config: &Config,
    who: &WhoReport,
    age: fn(i64) -> String,
    out: &Path,
) -> crate::exit::Result<()> {
    let mine: BTreeSet<(&str, &str)> = who
        .mine
        .iter()
        .map(|o| (o.file.as_str(), o.key()))
        .collect();
    let users = who
        .others
        .iter()
        .map(|w| WhoUser {
            user: w.user.clone(),
            branch: w.branch.clone(),
            age: format!("{} ago", age(w.age)),
        })
        .collect();
    let edits: Vec<WhoEdit> = who
        .others
        .iter()
        .flat_map(|w| {
            w.objects.iter().map(|o| WhoEdit {
                user: w.user.clone(),
                file: o.file.clone(),
                pointer: o.pointer.clone(),
                name: o.name.clone(),
                kind: o.change.to_string(),
                properties: o.properties.clone(),
                mine_too: mine.contains(&(o.file.as_str(), o.key())),
            })
        })
        .collect();
    let keys = ObjectKeys {
        id_keys: config.merge.id_keys.clone(),
        position_keys: config.review.position_keys.clone(),
    };
    let files: BTreeSet<&str> = edits.iter().map(|e| e.file.as_str()).collect();
    // Every file someone edits, whether or not this worktree has it (not the levels read).
    let count = files.len();
    let levels = files
        .into_iter()
        // Only paths inside the worktree: refs are data, never a way out of it.
        .filter(|f| {
            Path::new(f)
                .components()
                .all(|c| matches!(c, std::path::Component::Normal(_)))
        })
        .filter_map(|f| {
            let bytes = std::fs::read(root.join(f)).ok()?;
            let dialect = merging::dialect_of(config, Path::new(f));
            let doc = Document::parse_bytes(bytes, ParseOptions::new(dialect)).ok()?;
            Some((f.to_string(), LevelObjects::of(doc.root(), &keys)))
        })
        .collect();
    let page = WhoPage {
        subtitle: format!(
            "{} other user{} with fresh work in progress",
            who.others.len(),
            if who.others.len() == 1 { "" } else { "s" }
        ),
        users,
        edits,
        levels,
    };
    let html = review::who::render_who(&page);
    let changed = page.edits.len();
    super::diff::write_page(out, &html, changed, count)
}
