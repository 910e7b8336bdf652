//! `assetvc diff --html FILE`: the diff as a review page (cards per changed object,
//! a map of each level) instead of text.

use std::path::Path;

use crate::exit::Context;

use merge::diff::{diff, DiffOptions};
use review::{diff_section, FileSection, ObjectKeys, Page};
use sjson::{Dialect, Document};

use super::{diff_docs, empty_like, parse, Status};
use crate::commands::merging::LoadError;
use crate::files;

/// The page being built, one file at a time.
pub(super) struct ReviewPage {
    keys: ObjectKeys,
    options: DiffOptions,
    files: Vec<FileSection>,
}

impl ReviewPage {
    /// A page with the repository's (or `dir`'s) settings: the diff's id keys and
    /// `[review] position_keys`.
    pub fn new(dir: &Path, options: &DiffOptions) -> crate::exit::Result<ReviewPage> {
        let config = crate::repo_config::for_dir(dir)?;
        Ok(ReviewPage {
            keys: ObjectKeys {
                id_keys: options.id_keys.clone(),
                position_keys: config.review.position_keys,
            },
            options: options.clone(),
            files: Vec::new(),
        })
    }

    /// Adds an asset's section from both sides' bytes (`None`: the side has no such
    /// file); the error says which side does not parse, and where.
    pub fn add_asset(
        &mut self,
        path: &str,
        old: Option<&[u8]>,
        new: Option<&[u8]>,
        shown: (&str, &str),
        dialects: (Dialect, Dialect),
    ) -> Result<(), LoadError> {
        let od = old.map(|b| parse(b, shown.0, dialects.0)).transpose()?;
        let nd = new.map(|b| parse(b, shown.1, dialects.1)).transpose()?;
        let (eo, en) = (
            nd.as_ref().and_then(empty_like),
            od.as_ref().and_then(empty_like),
        );
        let status = Status::of(old, new).name();
        // A Cocos scene or prefab: objects by identity and node path, as in the text diff.
        if let (Some(o), Some(n)) = (&od, &nd) {
            if let Some(changes) = merge::cocos::diff::graph_changes(o, n, &self.options) {
                self.files
                    .push(review::graph_section(path, status, &changes));
                return Ok(());
            }
        }
        let d = match (&od, &nd) {
            (Some(o), Some(n)) => diff(o.root(), n.root(), &self.options),
            _ => diff_docs(
                od.as_ref(),
                nd.as_ref(),
                eo.as_ref(),
                en.as_ref(),
                &self.options,
            ),
        };
        self.files.push(diff_section(
            path,
            status,
            od.as_ref().map(Document::root),
            nd.as_ref().map(Document::root),
            &d.changes,
            &self.keys,
        ));
        Ok(())
    }

    /// Adds a file that is not an asset (or could not be read) with a sentence about it.
    pub fn add_note(&mut self, path: &str, status: &str, note: String) {
        self.files.push(FileSection {
            path: path.to_string(),
            status: status.to_string(),
            notes: vec![note],
            ..FileSection::default()
        });
    }

    /// Writes the page to `out` atomically.
    pub fn write(self, out: &Path, title: String, subtitle: String) -> crate::exit::Result<()> {
        let changed: usize = self.files.iter().map(|f| f.cards.len()).sum();
        let count = self.files.len();
        let html = review::render(&Page {
            title,
            subtitle,
            files: self.files,
        });
        write_page(out, &html, changed, count)
    }
}

/// Writes a rendered page atomically and says so on stderr.
pub(crate) fn write_page(
    out: &Path,
    html: &str,
    changed: usize,
    files_count: usize,
) -> crate::exit::Result<()> {
    files::write_atomic(out, html.as_bytes()).with_context(|| out.display().to_string())?;
    eprintln!(
        "assetvc: wrote {} ({changed} changed object{} in {files_count} file{})",
        out.display(),
        if changed == 1 { "" } else { "s" },
        if files_count == 1 { "" } else { "s" }
    );
    Ok(())
}
