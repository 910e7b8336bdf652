//! Opening a repository inside a pre-receive quarantine.
//!
//! During `pre-receive` git keeps the pushed objects in a quarantine directory and tells
//! the hook where through `GIT_OBJECT_DIRECTORY` (the quarantine) and
//! `GIT_ALTERNATE_OBJECT_DIRECTORIES` (the repository's own object directory). gix 0.90
//! does not read these variables, so [`Repo::open_quarantine`] builds an object database in
//! a scratch directory *outside* the repository whose `info/alternates` lists both: every
//! object, old or pushed, is then readable, and nothing is ever written into the
//! quarantine (git would refuse to migrate it, or worse, accept a modified one).

use std::path::{Path, PathBuf};

use super::Repo;
use crate::error::{Error, Result};

/// Where a pre-receive hook finds objects: the quarantine directory and its alternates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectDirs {
    /// `GIT_OBJECT_DIRECTORY`: the quarantine holding the pushed objects.
    pub objects: PathBuf,
    /// `GIT_ALTERNATE_OBJECT_DIRECTORIES`: the repository's own objects (and its alternates).
    pub alternates: Vec<PathBuf>,
}

impl ObjectDirs {
    /// The object directories git announced in the environment, made absolute against
    /// the current directory; `None` outside a quarantine.
    pub fn from_env() -> Option<ObjectDirs> {
        let objects = std::env::var_os("GIT_OBJECT_DIRECTORY")?;
        let alternates = std::env::var_os("GIT_ALTERNATE_OBJECT_DIRECTORIES")
            .map(|v| split_alternates(&v.to_string_lossy()))
            .unwrap_or_default();
        let cwd = std::env::current_dir().unwrap_or_default();
        Some(ObjectDirs {
            objects: cwd.join(objects),
            alternates: alternates.into_iter().map(|p| cwd.join(p)).collect(),
        })
    }
}

/// Splits `GIT_ALTERNATE_OBJECT_DIRECTORIES`: colon-separated paths, each possibly
/// C-quoted (`"…"`, as git writes paths that contain a colon or a quote).
fn split_alternates(value: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut chars = value.chars().peekable();
    while chars.peek().is_some() {
        let mut path = String::new();
        if chars.peek() == Some(&'"') {
            chars.next();
            while let Some(c) = chars.next() {
                match c {
                    '"' => break,
                    '\\' => match chars.next() {
                        Some('n') => path.push('\n'),
                        Some('t') => path.push('\t'),
                        Some(d @ '0'..='7') => {
                            // Octal byte: git quotes non-ASCII bytes this way.
                            let mut v = d.to_digit(8).unwrap_or(0);
                            for _ in 0..2 {
                                if let Some(d) = chars.peek().and_then(|c| c.to_digit(8)) {
                                    v = v * 8 + d;
                                    chars.next();
                                }
                            }
                            path.push(char::from_u32(v).unwrap_or('?'));
                        }
                        Some(other) => path.push(other),
                        None => {}
                    },
                    c => path.push(c),
                }
            }
            // Skip anything up to the separator.
            for c in chars.by_ref() {
                if c == ':' {
                    break;
                }
            }
        } else {
            for c in chars.by_ref() {
                if c == ':' {
                    break;
                }
                path.push(c);
            }
        }
        if !path.is_empty() {
            out.push(PathBuf::from(path));
        }
    }
    out
}

impl Repo {
    /// Opens the repository at `git_dir` as a pre-receive hook sees it: with `quarantine`,
    /// objects are read through an object database created in `scratch` (an empty
    /// directory outside the repository, which must outlive the returned value) whose
    /// `info/alternates` lists the quarantine and its alternates. Without, as
    /// [`Repo::open_bare`].
    pub fn open_quarantine(
        git_dir: &Path,
        quarantine: Option<&ObjectDirs>,
        scratch: &Path,
    ) -> Result<Repo> {
        let mut repo = Repo::open_bare(git_dir)?;
        if let Some(dirs) = quarantine {
            let object_hash = repo.git.object_hash();
            let objects = scratch.join("objects");
            let q = |path: &Path| {
                let path = path.to_path_buf();
                move |source| Error::Quarantine { path, source }
            };
            std::fs::create_dir_all(objects.join("info")).map_err(q(&objects))?;
            let mut list = String::new();
            for dir in std::iter::once(&dirs.objects).chain(&dirs.alternates) {
                if !dir.is_dir() {
                    return Err(q(dir)(std::io::Error::other("not a directory")));
                }
                list.push_str(&dir.to_string_lossy());
                list.push('\n');
            }
            std::fs::write(objects.join("info").join("alternates"), list).map_err(q(&objects))?;
            let store = gix::odb::Store::at_opts(
                objects.clone(),
                object_hash,
                &mut std::iter::empty(),
                gix::odb::store::init::Options::default(),
            )
            .map_err(q(&objects))?;
            repo.shared.objects = std::sync::Arc::new(store);
            repo.git = repo.shared.to_thread_local();
        }
        repo.git.object_cache_size_if_unset(16 * 1024 * 1024);
        Ok(repo)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alternates_split_on_colons_and_unquote() {
        assert_eq!(
            split_alternates("/a/objects:/b/objects"),
            [PathBuf::from("/a/objects"), PathBuf::from("/b/objects")]
        );
        assert_eq!(
            split_alternates("\"/x:y/objects\":/z"),
            [PathBuf::from("/x:y/objects"), PathBuf::from("/z")]
        );
        assert_eq!(
            split_alternates("\"/q\\\"t\\\\u\""),
            [PathBuf::from("/q\"t\\u")]
        );
        assert!(split_alternates("").is_empty());
    }
}
