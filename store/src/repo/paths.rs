//! Paths: repository-relative (`/`-separated, as git writes them) and on disk.

use std::path::{Path, PathBuf};

use gix::bstr::{BStr, BString, ByteSlice};

/// A repository-relative path as git writes it (`/`-separated) from a path on disk,
/// absolute or relative to the current directory. `None` if it is outside `root`.
pub fn rela_path(root: &Path, path: &Path) -> Option<String> {
    rela_bpath(root, path).map(|p| p.to_str_lossy().into_owned())
}

/// [`rela_path`] as gix's paths are.
pub(crate) fn rela_bpath(root: &Path, path: &Path) -> Option<BString> {
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().ok()?.join(path)
    };
    let abs = normalize(&abs);
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    // Canonicalize the deepest existing ancestor so that symlinked temp dirs compare equal.
    let mut existing = abs.clone();
    let mut rest = Vec::new();
    while !existing.exists() {
        rest.push(existing.file_name()?.to_os_string());
        if !existing.pop() {
            return None;
        }
    }
    let mut full = existing.canonicalize().ok()?;
    for part in rest.iter().rev() {
        full.push(part);
    }
    let rel = full.strip_prefix(&root).ok()?;
    let mut out = BString::default();
    for (i, c) in rel.components().enumerate() {
        if i > 0 {
            out.push(b'/');
        }
        let part = c.as_os_str().to_string_lossy();
        out.extend_from_slice(part.as_bytes());
    }
    Some(out)
}

/// Removes `.` and resolves `..` lexically.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// A repository-relative path as a file system path under `root`.
pub(crate) fn worktree_path(root: &Path, rela: &BStr) -> PathBuf {
    root.join(to_path(rela))
}

/// A `/`-separated repository path as a relative file system path.
pub(crate) fn to_path(rela: &BStr) -> PathBuf {
    gix::path::from_bstr(rela)
        .map(|p| p.into_owned())
        .unwrap_or_else(|_| PathBuf::from(rela.to_str_lossy().as_ref()))
}

/// The proper ancestors (folders) of a `/`-separated path, nearest first.
pub(crate) fn ancestors(path: &BStr) -> impl Iterator<Item = &BStr> {
    use gix::bstr::ByteSlice;
    let mut end = path.len();
    std::iter::from_fn(move || {
        let slash = path[..end].rfind_byte(b'/')?;
        end = slash;
        Some(path[..slash].as_bstr())
    })
}

#[cfg(test)]
mod ancestors_tests {
    use super::*;
    use gix::bstr::ByteSlice;

    #[test]
    fn ancestors_nearest_first() {
        let a: Vec<_> = ancestors(b"a/b/c.txt".as_bstr()).collect();
        assert_eq!(a, vec![b"a/b".as_bstr(), b"a".as_bstr()]);
        assert_eq!(ancestors(b"top".as_bstr()).count(), 0);
    }
}
