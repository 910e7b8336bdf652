//! What a push brings in, read from a pre-receive hook inside git's quarantine: the tips
//! of existing refs, the commits a push adds, the blobs that changed, trusted config.
//!
//! During `pre-receive` git keeps the pushed objects in a quarantine directory and tells
//! the hook where through `GIT_OBJECT_DIRECTORY` (the quarantine) and
//! `GIT_ALTERNATE_OBJECT_DIRECTORIES` (the repository's own object directory). gix 0.90
//! does not read these variables, so [`ServerRepo::open`] builds an object database in a
//! scratch directory *outside* the repository whose `info/alternates` lists both: every
//! object, old or pushed, is then readable, and nothing is ever written into the
//! quarantine (git would refuse to migrate it, or worse, accept a modified one).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use gix::bstr::ByteSlice;
pub use gix::ObjectId;

/// Errors reading a repository; each says what could not be read.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The repository cannot be opened.
    #[error("cannot open the repository at {path}: {message}")]
    Open {
        /// The directory given.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// The scratch object database over the quarantine cannot be set up.
    #[error("cannot open the quarantined objects: {0}")]
    Quarantine(String),
    /// An object is missing, unreadable or of the wrong kind.
    #[error("cannot read object {id}: {message}")]
    Object {
        /// The object.
        id: ObjectId,
        /// Why.
        message: String,
    },
    /// The references cannot be listed.
    #[error("cannot list references: {0}")]
    Refs(String),
    /// The history cannot be walked.
    #[error("cannot walk the history of {id}: {message}")]
    Walk {
        /// The tip.
        id: ObjectId,
        /// Why.
        message: String,
    },
    /// The index cannot be read.
    #[error("cannot read the index: {0}")]
    Index(String),
}

fn object_error(id: ObjectId, e: impl std::fmt::Display) -> Error {
    Error::Object {
        id,
        message: e.to_string(),
    }
}

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
pub fn split_alternates(value: &str) -> Vec<PathBuf> {
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

/// One entry of the `assetvc` section of git config, from a fully trusted file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigEntry {
    /// The subsection (`check.glsl` in `assetvc.check.glsl.command`), case kept.
    pub subsection: Option<String>,
    /// The value name, lowercased (git names are case-insensitive).
    pub name: String,
    /// The value; `None` for a bare `name` line, which git reads as `true`.
    pub value: Option<String>,
}

/// The `assetvc.*` entries of a repository's configuration — system, global, the
/// repository's own file and `git -c` — in the order git reads them (later wins). Only
/// fully trusted sources count: never a file from a tree, never an untrusted owner's.
pub(crate) fn trusted_assetvc_config(repo: &gix::Repository) -> Vec<ConfigEntry> {
    let snapshot = repo.config_snapshot();
    let file = snapshot.plumbing();
    let mut out = Vec::new();
    let Some(sections) = file.sections_by_name("assetvc") else {
        return out;
    };
    for section in sections {
        if section.meta().trust != gix::sec::Trust::Full {
            continue;
        }
        let subsection = section
            .header()
            .subsection_name()
            .map(|s| s.to_str_lossy().into_owned());
        let mut names: Vec<String> = section.value_names().collect();
        names.dedup();
        let mut seen = std::collections::HashSet::new();
        for name in names {
            let lower = name.to_ascii_lowercase();
            if !seen.insert(lower.clone()) {
                continue;
            }
            let values = section.values(&name);
            if values.is_empty() {
                if let Some(None) = section.value_implicit(&name) {
                    out.push(ConfigEntry {
                        subsection: subsection.clone(),
                        name: lower.clone(),
                        value: None,
                    });
                }
            }
            for v in values {
                out.push(ConfigEntry {
                    subsection: subsection.clone(),
                    name: lower.clone(),
                    value: Some(v.to_str_lossy().into_owned()),
                });
            }
        }
    }
    out
}

/// A blob at a path that a change brought in, with the blob it replaced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// The path in the tree (`/`-separated; lossily decoded if not UTF-8).
    pub path: String,
    /// The new blob.
    pub id: ObjectId,
    /// The blob at the same path before, if it was one.
    pub base: Option<ObjectId>,
}

/// What a ref update's new value names, after peeling tags.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A commit (possibly through one or more annotated tags).
    Commit(ObjectId),
    /// A tree or a blob (a tag may name one): no history to check.
    Other {
        /// The object after peeling.
        id: ObjectId,
        /// `tree` or `blob`.
        kind: String,
    },
}

/// A commit's tree, parents and first message line.
#[derive(Debug, Clone)]
pub struct CommitInfo {
    /// The commit.
    pub id: ObjectId,
    /// Its tree.
    pub tree: ObjectId,
    /// Its parents, in order.
    pub parents: Vec<ObjectId>,
    /// The first line of its message.
    pub summary: String,
}

/// Hands out blob readers, one per thread (it is `Sync`; readers are not).
#[derive(Clone)]
pub struct Readers {
    pub(crate) repo: gix::ThreadSafeRepository,
}

impl Readers {
    /// A reader for the current thread.
    pub fn reader(&self) -> BlobReader {
        BlobReader {
            repo: self.repo.to_thread_local(),
        }
    }
}

/// Reads blobs; create one per thread with [`Readers::reader`].
pub struct BlobReader {
    repo: gix::Repository,
}

impl BlobReader {
    /// The content of blob `id`; an error if it is missing or not a blob.
    pub fn read(&self, id: ObjectId) -> Result<Vec<u8>, Error> {
        let mut object = self.repo.find_object(id).map_err(|e| object_error(id, e))?;
        if object.kind != gix::object::Kind::Blob {
            return Err(object_error(id, format!("a {}, not a blob", object.kind)));
        }
        Ok(std::mem::take(&mut object.data))
    }
}

/// A tree entry that git would refuse to check out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnsafeEntry {
    /// Its path from the root tree.
    pub path: String,
    /// Why it is refused.
    pub reason: String,
}

/// The repository a pre-receive hook runs in, with the pushed objects readable.
pub struct ServerRepo {
    shared: gix::ThreadSafeRepository,
    repo: gix::Repository,
}

impl ServerRepo {
    /// Opens the repository at `git_dir`. With `quarantine`, objects are read through an
    /// object database created in `scratch` (an empty directory outside the repository,
    /// which must outlive the returned value) whose `info/alternates` lists the
    /// quarantine and its alternates.
    pub fn open(
        git_dir: &Path,
        quarantine: Option<&ObjectDirs>,
        scratch: &Path,
    ) -> Result<ServerRepo, Error> {
        let open_error = |e: &dyn std::fmt::Display| Error::Open {
            path: git_dir.to_path_buf(),
            message: e.to_string(),
        };
        let mut shared =
            gix::ThreadSafeRepository::open_opts(git_dir, gix::open::Options::default())
                .map_err(|e| open_error(&e))?;
        if let Some(dirs) = quarantine {
            let object_hash = shared.to_thread_local().object_hash();
            let objects = scratch.join("objects");
            let q = |e: std::io::Error| Error::Quarantine(format!("{}: {e}", objects.display()));
            std::fs::create_dir_all(objects.join("info")).map_err(q)?;
            let mut list = String::new();
            for dir in std::iter::once(&dirs.objects).chain(&dirs.alternates) {
                if !dir.is_dir() {
                    return Err(Error::Quarantine(format!(
                        "{} is not a directory",
                        dir.display()
                    )));
                }
                list.push_str(&dir.to_string_lossy());
                list.push('\n');
            }
            std::fs::write(objects.join("info").join("alternates"), list).map_err(q)?;
            let store = gix::odb::Store::at_opts(
                objects.clone(),
                object_hash,
                &mut std::iter::empty(),
                gix::odb::store::init::Options::default(),
            )
            .map_err(q)?;
            shared.objects = std::sync::Arc::new(store);
        }
        let mut repo = shared.to_thread_local();
        repo.object_cache_size_if_unset(16 * 1024 * 1024);
        Ok(ServerRepo { shared, repo })
    }

    /// The git directory.
    pub fn git_dir(&self) -> &Path {
        self.repo.git_dir()
    }

    /// Blob readers for worker threads.
    pub fn readers(&self) -> Readers {
        Readers {
            repo: self.shared.clone(),
        }
    }

    /// The trusted `assetvc.*` git config entries (system, global, this repository's).
    pub fn assetvc_config(&self) -> Vec<ConfigEntry> {
        trusted_assetvc_config(&self.repo)
    }

    /// The commit that `id` names, peeling annotated tags.
    pub fn peel(&self, id: ObjectId) -> Result<Target, Error> {
        let object = self
            .repo
            .find_object(id)
            .map_err(|e| object_error(id, e))?
            .peel_tags_to_end()
            .map_err(|e| object_error(id, e))?;
        Ok(match object.kind {
            gix::object::Kind::Commit => Target::Commit(object.id),
            kind => Target::Other {
                id: object.id,
                kind: kind.to_string(),
            },
        })
    }

    /// The commits that the existing references name (tags peeled; references to
    /// trees or blobs left out): the history a push is measured against.
    pub fn ref_tips(&self) -> Result<Vec<ObjectId>, Error> {
        let refs = |e: &dyn std::fmt::Display| Error::Refs(e.to_string());
        let platform = self.repo.references().map_err(|e| refs(&e))?;
        let mut tips = Vec::new();
        for r in platform.all().map_err(|e| refs(&e))? {
            let mut r = r.map_err(|e| refs(&e))?;
            let Ok(id) = r.peel_to_id() else {
                continue; // a dangling symbolic ref (an unborn HEAD)
            };
            if let Ok(Target::Commit(c)) = self.peel(id.detach()) {
                tips.push(c);
            }
        }
        tips.sort();
        tips.dedup();
        Ok(tips)
    }

    /// The commits reachable from `tip` but from none of `hidden`.
    pub fn new_commits(&self, tip: ObjectId, hidden: &[ObjectId]) -> Result<Vec<ObjectId>, Error> {
        let walk_error = |e: &dyn std::fmt::Display| Error::Walk {
            id: tip,
            message: e.to_string(),
        };
        let walk = self
            .repo
            .rev_walk([tip])
            .with_hidden(hidden.iter().copied())
            .all()
            .map_err(|e| walk_error(&e))?;
        let mut out = Vec::new();
        for info in walk {
            out.push(info.map_err(|e| walk_error(&e))?.id);
        }
        Ok(out)
    }

    /// A commit's tree, parents and summary.
    pub fn commit(&self, id: ObjectId) -> Result<CommitInfo, Error> {
        let commit = self.repo.find_commit(id).map_err(|e| object_error(id, e))?;
        let tree = commit.tree_id().map_err(|e| object_error(id, e))?.detach();
        let parents = commit.parent_ids().map(|p| p.detach()).collect();
        let summary = commit
            .message_raw()
            .map(|m| {
                m.lines()
                    .next()
                    .unwrap_or_default()
                    .to_str_lossy()
                    .into_owned()
            })
            .unwrap_or_default();
        Ok(CommitInfo {
            id,
            tree,
            parents,
            summary,
        })
    }

    /// The blobs (regular or executable files) added or modified from tree `old`
    /// (`None`: the empty tree) to tree `new`; renames count as additions.
    pub fn diff_trees(&self, old: Option<ObjectId>, new: ObjectId) -> Result<Vec<Change>, Error> {
        let hash = self.repo.object_hash();
        let tree_data = |id: ObjectId| -> Result<Vec<u8>, Error> {
            let object = self.repo.find_object(id).map_err(|e| object_error(id, e))?;
            if object.kind != gix::object::Kind::Tree {
                return Err(object_error(id, format!("a {}, not a tree", object.kind)));
            }
            Ok(object.detach().data)
        };
        let old_data = match old {
            Some(id) => tree_data(id)?,
            None => Vec::new(),
        };
        let new_data = tree_data(new)?;
        let mut recorder = gix::diff::tree::Recorder::default();
        gix::diff::tree(
            gix::objs::TreeRefIter::from_bytes(&old_data, hash),
            gix::objs::TreeRefIter::from_bytes(&new_data, hash),
            gix::diff::tree::State::default(),
            &self.repo.objects,
            &mut recorder,
        )
        .map_err(|e| object_error(new, e))?;
        let mut out = Vec::new();
        for change in recorder.records {
            use gix::diff::tree::recorder::Change as C;
            match change {
                C::Addition {
                    entry_mode,
                    oid,
                    path,
                    ..
                } if entry_mode.is_blob() => out.push(Change {
                    path: path.to_str_lossy().into_owned(),
                    id: oid,
                    base: None,
                }),
                C::Modification {
                    previous_entry_mode,
                    previous_oid,
                    entry_mode,
                    oid,
                    path,
                } if entry_mode.is_blob() => out.push(Change {
                    path: path.to_str_lossy().into_owned(),
                    id: oid,
                    base: previous_entry_mode.is_blob().then_some(previous_oid),
                }),
                _ => {}
            }
        }
        Ok(out)
    }

    /// The entries of tree `root` and its subtrees that git would refuse to check out (`git
    /// fsck` flags them): a `.git` component in any spelling, `.`/`..`, a name given twice
    /// in one tree (a symlink and a folder of one name lead writes through the link). Each
    /// tree object is examined once; `checked` holds the ids already examined.
    pub fn unsafe_entries(
        &self,
        root: ObjectId,
        checked: &mut std::collections::HashSet<ObjectId>,
    ) -> Result<Vec<UnsafeEntry>, Error> {
        let mut out = Vec::new();
        let mut stack = vec![(root, String::new())];
        while let Some((id, prefix)) = stack.pop() {
            if !checked.insert(id) {
                continue;
            }
            let object = self.repo.find_object(id).map_err(|e| object_error(id, e))?;
            if object.kind != gix::object::Kind::Tree {
                return Err(object_error(id, format!("a {}, not a tree", object.kind)));
            }
            let tree = gix::objs::TreeRef::from_bytes(&object.data, self.repo.object_hash())
                .map_err(|e| object_error(id, e))?;
            let mut names = std::collections::HashSet::new();
            for entry in &tree.entries {
                let path = format!("{prefix}{}", entry.filename.to_str_lossy());
                let mode = if entry.mode.is_link() {
                    gix::index::entry::Mode::SYMLINK
                } else {
                    gix::index::entry::Mode::FILE
                };
                if let Some(reason) = crate::worktree::path_problem(entry.filename, mode) {
                    out.push(UnsafeEntry { path, reason });
                    continue;
                }
                if !names.insert(entry.filename) {
                    out.push(UnsafeEntry {
                        path,
                        reason: "the tree holds this name twice (git fsck: duplicateEntries)"
                            .into(),
                    });
                    continue;
                }
                if entry.mode.is_tree() {
                    stack.push((entry.oid.to_owned(), format!("{path}/")));
                }
            }
        }
        Ok(out)
    }

    /// The blobs commit `id` introduces: those that differ from every parent (all of
    /// a root commit's blobs). Content a merge takes unchanged from one parent is
    /// not the merge's own; its base is the first parent's blob.
    pub fn introduced(&self, info: &CommitInfo) -> Result<Vec<Change>, Error> {
        let Some((first, others)) = info.parents.split_first() else {
            return self.diff_trees(None, info.tree);
        };
        let first_tree = self.commit(*first)?.tree;
        let mut changes = self.diff_trees(Some(first_tree), info.tree)?;
        for parent in others {
            let tree = self.commit(*parent)?.tree;
            let differs: HashMap<String, ObjectId> = self
                .diff_trees(Some(tree), info.tree)?
                .into_iter()
                .map(|c| (c.path, c.id))
                .collect();
            changes.retain(|c| differs.get(&c.path) == Some(&c.id));
        }
        Ok(changes)
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
