//! The object index: for every tree, each id'd object of its asset files — id → (path,
//! JSON Pointer, content hash, name, a hash per property) — so that history queries
//! (`log`, `blame`) and object lookups (`show`, `restore`, `resolve`) do not re-parse
//! unchanged blobs.
//!
//! On disk (under `.git/assetvc/object-index/`, see [`cache`]) a tree is stored as a
//! [`Delta`] against a parent tree: only the objects that changed, each with its old and
//! new entry, which is exactly what `log` and `blame` read; every
//! [`cache::SNAPSHOT_EVERY`] steps of a delta chain a full [`TreeIndex`] is stored so that
//! rebuilding one tree's index reads a bounded number of files. Deltas are built parents
//! first ([`ObjectIndex::ensure`]), from the tree diff of a commit against its parent:
//! only the changed blobs are parsed.
//!
//! Submodules: `scan` (a blob's objects), `cache` (files and their format), `build`
//! (deltas and full indexes), `history` (the log walk, and the commit walk it shares with
//! `blame`), `blame` (the blame walk), `resolve` (OBJECT specs),
//! `restore` (re-creating one object in a document).

pub mod at_path;
mod blame;
mod build;
mod cache;
mod deleted;
mod delta;
mod history;
mod incremental;
mod memo;
mod resolve;
mod restore;
mod scan;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use sjson::Dialect;

pub use blame::{blame, BlameLine, BlameObject};
pub use build::ObjectIndex;
pub use deleted::{close_names, find_deleted};
pub use history::{day, iso_time, log, log_each, Commit, Followed, LogEntry, LogKind};
pub use resolve::Candidate;
pub use restore::{restore_object, Restored};

/// The dialect of an asset path (repository-relative, `/`-separated), `None` for other files.
pub type DialectOf = Arc<dyn Fn(&str) -> Option<Dialect> + Send + Sync>;

/// Called with (done, total) while commits are indexed.
pub type Progress = Arc<dyn Fn(usize, usize) + Send + Sync>;

/// Which files are assets and how objects are identified; `fingerprint` names the cache
/// directory, so a change of settings never reads an index built with other settings.
#[derive(Clone)]
pub struct IndexSettings {
    /// The dialect of an asset path (repository-relative, `/`-separated), `None` for other files.
    pub dialect: DialectOf,
    /// Member names that give array elements an identity (`merge`'s id keys).
    pub id_keys: Vec<String>,
    /// A stable hash of everything above (asset patterns and id keys).
    pub fingerprint: u64,
    /// Called with (done, total) while many commits are indexed (a progress bar).
    pub progress: Option<Progress>,
}

/// One object as the index knows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// Its JSON Pointer, itself named by id: `/entities/[id=f341]` (a Cocos object
    /// without an `_id` of its own: its position, `/12`).
    pub pointer: String,
    /// Hash of its value (not its formatting).
    pub hash: u64,
    /// Its `name` member, when a string; a Cocos object's node path
    /// (`Canvas/Menu/Start`, `Canvas/Menu/Start<cc.Label>`).
    pub name: Option<String>,
    /// Each leaf property's name and value hash, in document order: members, nested
    /// objects flattened (`light.intensity`, [`merge::objects::leaf_properties`]).
    pub props: Vec<(String, u64)>,
}

impl Entry {
    /// The hash of leaf property `prop`, if the object has it.
    pub fn prop(&self, prop: &str) -> Option<u64> {
        self.props.iter().find(|(k, _)| k == prop).map(|(_, h)| *h)
    }

    /// [`Entry::prop`], looked for first at position `at` (where another version of the
    /// object has it: versions mostly list the same properties in the same order).
    pub fn prop_near(&self, at: usize, prop: &str) -> Option<u64> {
        match self.props.get(at) {
            Some((k, h)) if k == prop => Some(*h),
            _ => self.prop(prop),
        }
    }
}

/// An entry with the file it is in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Located {
    /// The file, repository-relative.
    pub path: String,
    /// The object there.
    pub entry: Entry,
}

/// The objects of one asset file of a tree.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileObjects {
    /// The blob id (hex).
    pub blob: String,
    /// Whether the blob parsed (an unparsable asset has no objects).
    pub parsed: bool,
    /// Its objects by id.
    pub objects: BTreeMap<String, Entry>,
}

/// The full index of one tree: its asset files by path.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TreeIndex {
    /// Asset files, repository-relative paths.
    pub files: BTreeMap<String, FileObjects>,
}

impl TreeIndex {
    /// The object `spec` names: `FILE#ID` (the id or a unique prefix of it in that file),
    /// else an exact id, else an exact `name`, else a unique id prefix;
    /// [`Error::NoSuchObject`](crate::Error::NoSuchObject) or
    /// [`Error::AmbiguousObject`](crate::Error::AmbiguousObject) otherwise.
    pub fn resolve(&self, spec: &str) -> crate::Result<Candidate> {
        resolve::resolve_spec(self, spec)
    }

    /// Every object: (path, id, entry).
    pub fn objects(&self) -> impl Iterator<Item = (&str, &str, &Entry)> {
        self.files.iter().flat_map(|(path, f)| {
            f.objects
                .iter()
                .map(move |(id, e)| (path.as_str(), id.as_str(), e))
        })
    }

    /// The object `id` in file `path`.
    pub fn get(&self, path: &str, id: &str) -> Option<&Entry> {
        self.files.get(path)?.objects.get(id)
    }

    /// Applies a delta computed against this index.
    pub fn apply(&mut self, delta: &Delta) {
        for change in &delta.changes {
            if let Some(old) = &change.old {
                if let Some(f) = self.files.get_mut(&old.path) {
                    f.objects.remove(&change.id);
                }
            }
        }
        for (path, blob) in &delta.blobs {
            match blob {
                Some((blob, parsed)) => {
                    let f = self.files.entry(path.clone()).or_default();
                    f.blob = blob.clone();
                    f.parsed = *parsed;
                }
                None => {
                    self.files.remove(path);
                }
            }
        }
        for change in &delta.changes {
            if let Some(new) = &change.new {
                self.files
                    .entry(new.path.clone())
                    .or_default()
                    .objects
                    .insert(change.id.clone(), new.entry.clone());
            }
        }
    }
}

/// One object that differs between two trees: created (`old` is `None`), deleted (`new`
/// is `None`), changed or moved (both; the paths differ when it moved between files).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ObjectChange {
    /// The object's id.
    pub id: String,
    /// Where and what it was in the base tree.
    pub old: Option<Located>,
    /// Where and what it is in the tree.
    pub new: Option<Located>,
}

/// A tree's index as the difference from a base tree's.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Delta {
    /// The base tree (hex); the empty tree for a root commit.
    pub base: String,
    /// Deltas between this tree and the nearest snapshot (0: a snapshot is stored).
    pub depth: u32,
    /// Asset files whose blob changed: the new blob id and whether it parsed, or `None`
    /// when removed.
    pub blobs: Vec<(String, Option<(String, bool)>)>,
    /// The objects that differ.
    pub changes: Vec<ObjectChange>,
}

impl Delta {
    /// The change of the object that is at (`path`, `id`) in the tree (`present`), or that
    /// was there in the base and is deleted in the tree (`!present`).
    pub fn find(&self, path: &str, id: &str, present: bool) -> Option<&ObjectChange> {
        self.changes.iter().find(|c| {
            c.id == id
                && if present {
                    c.new.as_ref().is_some_and(|n| n.path == path)
                } else {
                    c.new.is_none() && c.old.as_ref().is_some_and(|o| o.path == path)
                }
        })
    }
}

/// The directory of the object index in a repository.
pub(crate) fn index_dir(repo: &gix::Repository, settings: &IndexSettings) -> PathBuf {
    repo.common_dir()
        .join("assetvc")
        .join("object-index")
        .join(format!("v4-{:016x}", settings.fingerprint))
}
