//! What `assetvc install` finds of engine files in the worktree: the JSON-based engine
//! extensions (`.fire`, `.prefab`, `.scene`, `.ldtk`, `.ldtkl`, `.tmj`, `.tsj`; never
//! `.tmx`, which is XML) that no asset pattern covers get attributes too, and the profile
//! the merge will choose for them is offered.

use std::path::Path;

use merge::profile::Format;

/// JSON-based engine extensions, with the profile they name (`None`: the content
/// decides, as for Cocos' `.prefab` and `.scene`, 2.x or 3.x).
pub const ENGINE_EXTENSIONS: [(&str, Option<Format>); 7] = [
    ("fire", Some(Format::Cocos2)),
    ("prefab", None),
    ("scene", None),
    ("ldtk", Some(Format::Ldtk)),
    ("ldtkl", Some(Format::Ldtk)),
    ("tmj", Some(Format::Tiled)),
    ("tsj", Some(Format::Tiled)),
];

/// The engine extensions of files under `root` (the worktree; `.git` and ignored files
/// left out), each once, in [`ENGINE_EXTENSIONS`]' order.
pub fn found(root: &Path) -> Vec<(&'static str, Option<Format>)> {
    let mut seen = [false; ENGINE_EXTENSIONS.len()];
    let walk = ignore::WalkBuilder::new(root)
        .hidden(false)
        .filter_entry(|e| e.file_name() != ".git")
        .build();
    for entry in walk.flatten() {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let Some(ext) = entry.path().extension().and_then(|e| e.to_str()) else {
            continue;
        };
        if let Some(i) = ENGINE_EXTENSIONS
            .iter()
            .position(|(e, _)| ext.eq_ignore_ascii_case(e))
        {
            seen[i] = true;
        }
    }
    ENGINE_EXTENSIONS
        .into_iter()
        .zip(seen)
        .filter_map(|(e, seen)| seen.then_some(e))
        .collect()
}

/// The line offering the profile of `*.ext` files: what the merge chooses, and how to
/// pin it in `assetvc.toml`.
pub fn offer(ext: &str, format: Option<Format>) -> String {
    match format {
        Some(f) => format!(
            "assetvc: *.{ext}: merged with the {f} profile (see `assetvc check --explain FILE`)"
        ),
        None => format!(
            "assetvc: *.{ext}: profile chosen by content (cocos2 or cocos3); to pin it, add \
             [profiles] \"*.{ext}\" = \"cocos3\" to assetvc.toml"
        ),
    }
}
