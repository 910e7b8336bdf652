//! File system helpers: atomic writes and walking asset trees.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::config::AssetMatcher;

/// Writes `contents` to `path` atomically: a temporary file in the same directory is
/// written, flushed and renamed over `path`, so readers see the old or the new content,
/// never a mix. The file's permissions are kept; a new file gets 0666 less the umask.
pub fn write_atomic(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let existing = std::fs::metadata(path).ok();
    let mut builder = tempfile::Builder::new();
    builder.prefix(".assetvc-").suffix(".tmp");
    if existing.is_none() {
        // A new file gets the usual mode (0666 less the umask), not a temporary file's 0600.
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut tmp = builder.tempfile_in(dir)?;
    tmp.write_all(contents)?;
    tmp.as_file().sync_all()?;
    if let Some(meta) = existing {
        tmp.as_file().set_permissions(meta.permissions())?;
    }
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// The asset files under `paths` (files are taken as given; directories are walked,
/// honouring `.gitignore`, for files the matcher knows), sorted. A path that does not
/// exist is an error.
pub fn asset_files(paths: &[PathBuf], matcher: &AssetMatcher) -> anyhow::Result<Vec<PathBuf>> {
    files_under(paths, |p| matcher.dialect(p).is_some())
}

/// The files under `paths`: files as given, directories walked (honouring `.gitignore`,
/// skipping `.git`) for the files `keep` accepts; sorted, without duplicates. A path that
/// does not exist is an error.
pub fn files_under(
    paths: &[PathBuf],
    keep: impl Fn(&Path) -> bool,
) -> anyhow::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_file() {
            out.push(p.clone());
        } else if p.is_dir() {
            for entry in ignore::WalkBuilder::new(p)
                .hidden(false)
                .filter_entry(|e| e.file_name() != ".git")
                .build()
            {
                let entry = entry?;
                if entry.file_type().is_some_and(|t| t.is_file()) && keep(entry.path()) {
                    out.push(entry.into_path());
                }
            }
        } else {
            anyhow::bail!("{}: no such file or directory", p.display());
        }
    }
    out.sort();
    out.dedup();
    Ok(out)
}
