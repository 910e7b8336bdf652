//! File system helpers: atomic writes, walking asset trees, reading a file again
//! unchanged.

mod again;

use std::path::{Path, PathBuf};

use config::AssetMatcher;

pub use again::FileAgain;

/// The one file-writing helper (atomic for regular files, like `>` for fifos and devices,
/// refusing symlinks and directories); its errors name the path.
pub use store::write_atomic;

/// The asset files under `paths` (files are taken as given; directories are walked,
/// honouring `.gitignore`, for files the matcher knows), sorted. A path that does not
/// exist is an error.
pub fn asset_files(paths: &[PathBuf], matcher: &AssetMatcher) -> crate::exit::Result<Vec<PathBuf>> {
    files_under(paths, |p| matcher.dialect(p).is_some())
}

/// The files under `paths`: files as given, directories walked (honouring `.gitignore`,
/// skipping `.git`, never following a symbolic link) for the files `keep` accepts; sorted,
/// without duplicates. A path that does not exist, or that is or goes through a symbolic
/// link, is an error: assetvc never follows a link out of the repository.
pub fn files_under(
    paths: &[PathBuf],
    keep: impl Fn(&Path) -> bool,
) -> crate::exit::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in paths {
        if goes_through_symlink(p) {
            crate::exit::bail!(
                "{}: is a symbolic link or goes through one; assetvc does not follow links \
                 (name the file the link points to if it is inside the repository)",
                p.display()
            );
        }
        if p.is_file() {
            out.push(p.clone());
        } else if p.is_dir() {
            for entry in ignore::WalkBuilder::new(p)
                .hidden(false)
                .filter_entry(|e| e.file_name() != ".git")
                .build()
            {
                let entry = entry.map_err(|e| crate::exit::failure!(e))?;
                if entry.file_type().is_some_and(|t| t.is_file()) && keep(entry.path()) {
                    out.push(entry.into_path());
                }
            }
        } else {
            crate::exit::bail!("{}: no such file or directory", p.display());
        }
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// Whether `path` is a symbolic link or reaches its target through one (its real path
/// differs from its lexical absolute path; on Unix, where real paths are plain). A path
/// that does not exist is not.
pub fn goes_through_symlink(path: &Path) -> bool {
    use std::path::Component;
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        return true;
    }
    if cfg!(not(unix)) {
        return false;
    }
    let Ok(real) = std::fs::canonicalize(path) else {
        return false;
    };
    let start = if path.is_absolute() {
        PathBuf::new()
    } else {
        match std::env::current_dir().and_then(std::fs::canonicalize) {
            Ok(cwd) => cwd,
            Err(_) => return false,
        }
    };
    let mut lexical = start;
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                lexical.pop();
            }
            other => lexical.push(other),
        }
    }
    lexical != real
}
