//! Resource references a merge created (`[references] resources`): after `assetvc merge`
//! or `pull`, every asset of the worktree whose reference names a file the merged tree
//! lacks, where ours (HEAD before the merge) had no such broken reference.

use std::path::Path;

use hooks::checks::resources::resource_references;
use sjson::{Document, ParseOptions};
use store::ObjectId;

use config::Config;

/// `path:line:col: unit units/crate.unit does not exist` for each reference to a missing
/// file that the merge of `ours` created in the worktree at `root`.
pub fn created_by_merge(
    repo: &store::Repo,
    root: &Path,
    ours: Option<ObjectId>,
    config: &Config,
) -> Vec<String> {
    let resources: Vec<(String, String)> = config
        .references
        .resources
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    if resources.is_empty() {
        return Vec::new();
    }
    let Ok(matcher) = config.matcher() else {
        return Vec::new();
    };
    let Ok(files) = crate::files::files_under(&[root.to_path_buf()], |_| true) else {
        return Vec::new();
    };
    let ours_tree = ours.and_then(|o| repo.tree(&o.to_string()).ok());
    let in_ours = |path: &str| -> Option<Vec<u8>> { repo.blob_in(ours_tree?, path).ok()? };
    let mut out = Vec::new();
    for file in files {
        let Some(dialect) = matcher.dialect(&file) else {
            continue;
        };
        let rel = file.strip_prefix(root).unwrap_or(&file);
        let rel = rel.to_string_lossy().replace('\\', "/");
        let Ok(bytes) = std::fs::read(&file) else {
            continue;
        };
        let Ok(doc) = Document::parse_bytes(bytes, ParseOptions::new(dialect)) else {
            continue;
        };
        let broken: Vec<_> = resource_references(&doc, &resources)
            .into_iter()
            .filter(|r| !root.join(&r.file).is_file())
            .collect();
        if broken.is_empty() {
            continue;
        }
        // The references ours already had broken are not the merge's doing.
        let ours_broken: Vec<String> = in_ours(&rel)
            .and_then(|b| Document::parse_bytes(b, ParseOptions::new(dialect)).ok())
            .map(|d| {
                resource_references(&d, &resources)
                    .into_iter()
                    .filter(|r| in_ours(&r.file).is_none())
                    .map(|r| r.file)
                    .collect()
            })
            .unwrap_or_default();
        for r in broken
            .into_iter()
            .filter(|r| !ours_broken.contains(&r.file))
        {
            let (line, col) = sjson::line_col(doc.text(), r.offset);
            out.push(format!(
                "{rel}:{line}:{col}: {} {} does not exist",
                r.kind, r.file
            ));
        }
    }
    out
}
