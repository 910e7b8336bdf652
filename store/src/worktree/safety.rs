//! git's checkout protections: paths that `git fsck` would flag are refused before anything
//! is written (a `.git` component in any spelling that a file system may fold to it, `..`,
//! empty components, a path that is both a file and a directory, the same path twice), and
//! nothing is ever written through a symbolic link in the worktree.

use std::collections::HashSet;
use std::path::Path;

use gix::bstr::{BStr, ByteSlice};
use gix::index::entry::{Mode, Stage};

use crate::error::{Error, Result};

/// The component checks: `.git` and its HFS+ and NTFS aliases everywhere (as `git fsck`
/// does), a symlinked `.gitmodules`; Windows device names only matter on Windows.
fn options() -> gix::validate::path::component::Options {
    gix::validate::path::component::Options {
        protect_windows: cfg!(windows),
        protect_hfs: true,
        protect_ntfs: true,
    }
}

/// Why `path` (of an entry with `mode`) may not be written to a worktree, if it may not.
pub fn path_problem(path: &BStr, mode: Mode) -> Option<String> {
    let mut parts = path.split_str("/").peekable();
    while let Some(part) = parts.next() {
        let leaf_mode = (parts.peek().is_none() && mode == Mode::SYMLINK)
            .then_some(gix::validate::path::component::Mode::Symlink);
        if let Err(e) = gix::validate::path::component(part.as_bstr(), leaf_mode, options()) {
            return Some(e.to_string());
        }
    }
    None
}

/// Refuses an index (usually made from a tree about to be checked out) holding a path that
/// git would not write: see the module documentation.
pub fn validate_index(index: &gix::index::State) -> Result<()> {
    let mut files: HashSet<&BStr> = HashSet::new();
    for e in index.entries() {
        let path = e.path(index);
        if let Some(reason) = path_problem(path, e.mode) {
            return Err(unsafe_path(path, reason));
        }
        if e.stage() == Stage::Unconflicted && !files.insert(path) {
            return Err(unsafe_path(path, "the tree holds this path twice".into()));
        }
    }
    for e in index.entries() {
        let path = e.path(index);
        let mut end = path.len();
        while let Some(slash) = path[..end].rfind_byte(b'/') {
            end = slash;
            if files.contains(path[..slash].as_bstr()) {
                return Err(unsafe_path(
                    path,
                    format!(
                        "{} is a file or symbolic link in the same tree",
                        path[..slash].as_bstr()
                    ),
                ));
            }
        }
    }
    Ok(())
}

fn unsafe_path(path: &BStr, reason: String) -> Error {
    Error::UnsafePath {
        path: path.to_str_lossy().into_owned(),
        reason,
    }
}

/// Makes sure the directories leading to `rela` under `root` are real directories (creating
/// the missing ones when `create` is set), never symbolic links, so that writing or
/// removing `rela` cannot reach outside the worktree.
pub fn prepare_leading_dirs(root: &Path, rela: &BStr, create: bool) -> Result<()> {
    let Some(slash) = rela.rfind_byte(b'/') else {
        return Ok(());
    };
    let mut dir = root.to_path_buf();
    for part in rela[..slash].split_str("/") {
        dir.push(crate::repo::to_path(part.as_bstr()));
        match std::fs::symlink_metadata(&dir) {
            Ok(m) if m.is_dir() => {}
            Ok(m) if m.file_type().is_symlink() => {
                return Err(unsafe_path(
                    rela,
                    format!(
                        "{} is a symbolic link; assetvc never writes through one",
                        dir.strip_prefix(root).unwrap_or(&dir).display()
                    ),
                ))
            }
            Ok(_) => {
                return Err(Error::Refused {
                    message: format!(
                        "{} is a file where a directory is needed",
                        dir.strip_prefix(root).unwrap_or(&dir).display()
                    ),
                    paths: vec![rela.to_str_lossy().into_owned()],
                })
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && create => {
                std::fs::create_dir(&dir).map_err(|e| Error::io(dir.display().to_string(), e))?
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(Error::io(dir.display().to_string(), e)),
        }
    }
    Ok(())
}

/// The file `rela` (repository-relative, `/`-separated, from untrusted input such as a
/// change set) under the worktree `root`, refused unless writing it stays inside the
/// worktree: no `.git` component in any spelling (nor `..`, empty or absolute parts), no
/// symbolic link among its folders, and the file itself no symbolic link.
pub fn worktree_file(root: &Path, rela: &str) -> Result<std::path::PathBuf> {
    let bytes: &BStr = rela.as_bytes().as_bstr();
    if rela.is_empty() || rela.starts_with('/') || rela.contains('\\') {
        return Err(unsafe_path(bytes, "not a relative /-separated path".into()));
    }
    if let Some(reason) = path_problem(bytes, Mode::FILE) {
        return Err(unsafe_path(bytes, reason));
    }
    prepare_leading_dirs(root, bytes, false)?;
    let path = root.join(crate::repo::to_path(bytes));
    if std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(unsafe_path(
            bytes,
            "a symbolic link; assetvc never writes through one".into(),
        ));
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_dirs_in_any_spelling_are_refused() {
        for bad in [
            ".git/hooks/post-commit",
            "a/.GIT/config",
            "a/.git./x",
            "git~1/config",
            "a/../b",
            "a//b",
        ] {
            assert!(
                path_problem(bad.into(), Mode::FILE).is_some(),
                "{bad} should be refused"
            );
        }
        assert!(path_problem(".gitmodules".into(), Mode::SYMLINK).is_some());
        for good in [
            "levels/a.level",
            ".gitattributes",
            "a/.gitignore",
            "x.git/y",
        ] {
            assert_eq!(path_problem(good.into(), Mode::FILE), None, "{good}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn leading_symlinks_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("zz")).unwrap();
        let err = prepare_leading_dirs(dir.path(), "zz/post-commit".into(), true).unwrap_err();
        assert!(matches!(err, Error::UnsafePath { .. }), "{err}");
        prepare_leading_dirs(dir.path(), "a/b/c.level".into(), true).unwrap();
        assert!(dir.path().join("a/b").is_dir());
    }

    #[cfg(unix)]
    #[test]
    fn worktree_files_never_lead_outside_or_into_git() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("sub")).unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("linkdir")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("f"), dir.path().join("leaf.level"))
            .unwrap();
        for bad in [
            "linkdir/target.level",
            "linkdir/created.level",
            "sub/.git/hooks/post-checkout",
            "sub/.GIT/config",
            "git~1/hooks/x",
            ".git./config",
            "../x.level",
            "/etc/passwd",
            "a//b",
            "leaf.level",
            "",
        ] {
            assert!(
                worktree_file(dir.path(), bad).is_err(),
                "{bad} should be refused"
            );
        }
        let ok = worktree_file(dir.path(), "sub/new/a.level").unwrap();
        assert_eq!(ok, dir.path().join("sub/new/a.level"));
    }

    proptest::proptest! {
        /// Whatever the name, an accepted path stays under the root and never passes a
        /// `.git` folder.
        #[test]
        fn accepted_paths_stay_inside(rela in "[a-zA-Z.~/\\\\ 1]{0,24}") {
            let dir = tempfile::tempdir().unwrap();
            if let Ok(path) = worktree_file(dir.path(), &rela) {
                proptest::prop_assert!(path.starts_with(dir.path()));
                let inner = path.strip_prefix(dir.path()).unwrap();
                for c in inner.components() {
                    proptest::prop_assert!(matches!(c, std::path::Component::Normal(_)), "{rela}");
                    let lower = c.as_os_str().to_string_lossy().to_lowercase();
                    proptest::prop_assert!(!lower.trim_end_matches(['.', ' ']).eq(".git"), "{rela}");
                }
            }
        }
    }
}
