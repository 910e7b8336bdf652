//! `$GIT_COMMON_DIR/info/attributes` against the strategy's attribute override.
//!
//! git reads attributes from `info/attributes` before any `.gitattributes` (it has the
//! highest precedence, above `--attr-source`), so `*.level merge=assetvc` there outranks
//! the `merge=binary` lines the strategy appends for the assets both sides changed: git's
//! merge-ort would start the `merge.assetvc` driver once per file inside `git
//! merge-tree`. No configuration makes a named driver run in process (git looks a
//! `merge=NAME` up among the configured drivers before its built-in ones, and a
//! configured driver always runs its command line), so when that file holds anything,
//! `git merge-tree` runs in a private git directory, the merge's scratch directory
//! (`assetvc/merge-tree-XXXXXX`, removed after, `scratch.rs`): the scratch's objects with
//! the repository's as their alternate, its configuration (included), its `shallow`
//! file, no `info/attributes`. The lines of `info/attributes` go at the top of the root
//! `.gitattributes` of the attribute tree instead, before the strategy's own lines: they
//! still decide every path the strategy does not take (below a subdirectory's
//! `.gitattributes` there, the one difference).

use std::path::{Path, PathBuf};
use std::process::Command;

use gix::ObjectId;

use crate::error::{Error, Result};

/// `info/attributes`' text, when it holds a line that is not a comment.
pub(super) fn local_attributes(repo: &gix::Repository) -> Result<Option<Vec<u8>>> {
    let path = repo.common_dir().join("info").join("attributes");
    let text = match std::fs::read(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io(path.display().to_string(), e)),
    };
    let meaningful = text.split(|&b| b == b'\n').any(|line| {
        let line = line.trim_ascii();
        !line.is_empty() && !line.starts_with(b"#")
    });
    Ok(meaningful.then_some(text))
}

/// A private git directory for one `git merge-tree`: the merge's scratch directory.
pub(super) struct Private<'s> {
    dir: &'s Path,
}

impl<'s> Private<'s> {
    /// Makes the scratch directory `dir` a git directory, `ours` as its detached `HEAD`
    /// (its objects are the scratch's, set by [`super::scratch::Scratch::apply`]).
    pub(super) fn new(
        repo: &gix::Repository,
        dir: &'s Path,
        ours: ObjectId,
    ) -> Result<Private<'s>> {
        let common = repo.common_dir();
        let io = |p: &Path, e| Error::io(p.display().to_string(), e);
        std::fs::create_dir(dir.join("refs")).map_err(|e| io(dir, e))?;
        std::fs::write(dir.join("HEAD"), format!("{ours}\n")).map_err(|e| io(dir, e))?;
        let config = include_of(&absolute(&common.join("config")))
            .ok_or_else(|| Error::git_in("git merge-tree", "the git directory's path"))?;
        std::fs::write(dir.join("config"), config).map_err(|e| io(dir, e))?;
        let shallow = common.join("shallow");
        if shallow.is_file() {
            std::fs::copy(&shallow, dir.join("shallow")).map_err(|e| io(&shallow, e))?;
        }
        Ok(Private { dir })
    }

    /// Makes `cmd` run in the private directory.
    pub(super) fn apply(&self, cmd: &mut Command) {
        cmd.arg("--git-dir").arg(self.dir);
    }

    /// `label` as the private directory resolves it to `id` (a ref written for it), or
    /// `id` itself when `label` cannot be a ref name.
    pub(super) fn label(&self, label: String, id: ObjectId) -> String {
        if label == "HEAD" || ObjectId::from_hex(label.as_bytes()).is_ok_and(|l| l == id) {
            return label;
        }
        let (full, file) = match label.strip_prefix("refs/") {
            Some(_) => (label.clone(), self.dir.join(&label)),
            None => (format!("refs/{label}"), self.dir.join("refs").join(&label)),
        };
        let valid = gix::refs::FullName::try_from(full.as_str()).is_ok()
            && !label.split('/').any(|c| c.is_empty() || c.starts_with('.'));
        let written = valid
            && file
                .parent()
                .is_some_and(|p| std::fs::create_dir_all(p).is_ok())
            && std::fs::write(&file, format!("{id}\n")).is_ok();
        if written {
            label
        } else {
            id.to_string()
        }
    }
}

/// A configuration that includes the file at `path` (`None` for a path git's syntax
/// cannot hold: a line break).
fn include_of(path: &Path) -> Option<String> {
    let text = path.to_str()?;
    if text.contains(['\n', '\r']) {
        return None;
    }
    let quoted = text.replace('\\', "\\\\").replace('"', "\\\"");
    Some(format!("[include]\n\tpath = \"{quoted}\"\n"))
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn includes_quote_the_path() {
        assert_eq!(
            include_of(Path::new("/r/.git/config")).unwrap(),
            "[include]\n\tpath = \"/r/.git/config\"\n"
        );
        assert_eq!(
            include_of(Path::new("/a \"b\"\\c")).unwrap(),
            "[include]\n\tpath = \"/a \\\"b\\\"\\\\c\"\n"
        );
        assert!(include_of(Path::new("/a\nb")).is_none());
    }

    proptest! {
        /// Any path gives one `path =` line whose unescaped value is the path, or none.
        #[test]
        fn include_round_trips(path in "[ -~]{0,30}") {
            let text = include_of(Path::new(&path)).unwrap();
            let line = text.lines().nth(1).unwrap();
            let value = line.strip_prefix("\tpath = \"").unwrap().strip_suffix('"').unwrap();
            let mut out = String::new();
            let mut chars = value.chars();
            while let Some(c) = chars.next() {
                out.push(if c == '\\' { chars.next().unwrap() } else { c });
            }
            prop_assert_eq!(out, path);
        }
    }
}
