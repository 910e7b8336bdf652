//! The three versions of a resolved file kept as git blobs, not as copies: each version
//! is written to the repository's object database (zlib-compressed, and shared with the
//! blob git already has when the content is a committed version), and the journal keeps
//! only their ids (`versions/NAME.ids`, three lines: base, ours, theirs). A journal
//! directory that is not inside a repository (a test's) keeps copies as before.
//!
//! The ref `refs/assetvc/journal` keeps them reachable while their operation is in the
//! journal (`reachable.rs`): `git gc` never prunes the versions of a live step.

use std::path::{Path, PathBuf};

use gix::ObjectId;

use super::{io, OperationLog, Recorded, Versions};
use crate::error::{Error, Result};

/// The file of a step's blob ids.
fn ids_path(versions_dir: &Path, name: &str) -> PathBuf {
    versions_dir.join(format!("{name}.ids"))
}

/// The git directory of an operation directory (`GIT_DIR/assetvc/journal/NNNNNN`).
fn git_dir_of(op_dir: &Path) -> Option<&Path> {
    op_dir.ancestors().nth(3)
}

fn open(op_dir: &Path) -> Option<gix::Repository> {
    let git_dir = git_dir_of(op_dir)?;
    gix::open_opts(git_dir, gix::open::Options::isolated()).ok()
}

/// The repository of an operation directory (`GIT_DIR/assetvc/journal/NNNNNN`).
pub(super) fn open_repo(op_dir: &Path) -> Option<gix::Repository> {
    open(op_dir)
}

/// The blob ids kept in `versions_dir`: (name, [base, ours, theirs]) per saved step.
pub(super) fn blob_ids(versions_dir: &Path) -> Vec<(String, Vec<ObjectId>)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(versions_dir)
        .into_iter()
        .flatten()
        .flatten()
    {
        let file_name = e.file_name();
        let Some(name) = file_name.to_str().and_then(|n| n.strip_suffix(".ids")) else {
            continue;
        };
        let Ok(text) = std::fs::read_to_string(e.path()) else {
            continue;
        };
        let ids: Vec<ObjectId> = text
            .lines()
            .filter_map(|hex| ObjectId::from_hex(hex.trim().as_bytes()).ok())
            .collect();
        out.push((name.to_string(), ids));
    }
    out
}

impl OperationLog {
    /// Writes the three versions as blobs and their ids under a new name; `None` when the
    /// journal is not in a repository or a blob cannot be written (the caller copies).
    pub(super) fn save_as_blobs(&self, sides: [&[u8]; 3]) -> Result<Option<String>> {
        let Some(repo) = open(&self.dir) else {
            return Ok(None);
        };
        let mut ids = String::new();
        for bytes in sides {
            let Ok(id) = repo.write_blob(bytes) else {
                return Ok(None);
            };
            ids.push_str(&id.to_string());
            ids.push('\n');
        }
        let (name, dir) = self.version_name()?;
        let path = ids_path(&dir, &name);
        io(&path, std::fs::write(&path, ids))?;
        Ok(Some(name))
    }
}

impl Recorded {
    /// The versions saved as blobs under `name`, if that is how they were saved.
    pub(super) fn versions_from_blobs(&self, name: &str) -> Option<Result<Versions>> {
        let text = std::fs::read_to_string(ids_path(&self.dir.join("versions"), name)).ok()?;
        let missing = || Error::MissingVersions(name.to_string());
        let read = || -> Result<Versions> {
            let repo = open(&self.dir).ok_or_else(missing)?;
            let mut sides = text.lines().map(|hex| {
                let id = ObjectId::from_hex(hex.trim().as_bytes()).map_err(|_| missing())?;
                let mut blob = repo.find_blob(id).map_err(|_| missing())?;
                Ok::<_, Error>(blob.take_data())
            });
            let mut next = || sides.next().unwrap_or_else(|| Err(missing()));
            Ok(Versions {
                base: next()?,
                ours: next()?,
                theirs: next()?,
            })
        };
        Some(read())
    }
}

/// The most the journal's own files (steps, blob ids, copied versions) take: beyond it, the
/// oldest operations are removed (the newest is always kept).
pub const MAX_BYTES: u64 = 64 << 20;

/// The bytes of the files under `dir`.
fn size_of(dir: &Path) -> u64 {
    let mut total = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            match e.metadata() {
                Ok(m) if m.is_dir() => stack.push(e.path()),
                Ok(m) => total += m.len(),
                Err(_) => {}
            }
        }
    }
    total
}

impl super::Journal {
    /// Removes the oldest operations until the journal takes at most `max` bytes; the
    /// newest operation stays whatever its size.
    pub(super) fn prune_to_size(&self, max: u64) {
        let Ok(numbers) = self.numbers() else { return };
        let sizes: Vec<(u64, u64)> = numbers
            .iter()
            .map(|n| (*n, size_of(&self.op_dir(*n))))
            .collect();
        let mut total: u64 = sizes.iter().map(|(_, s)| s).sum();
        let mut removed = false;
        for (n, size) in &sizes[..sizes.len().saturating_sub(1)] {
            if total <= max {
                break;
            }
            if std::fs::remove_dir_all(self.op_dir(*n)).is_ok() {
                total -= size;
                removed = true;
            }
        }
        if removed {
            self.keep_reachable();
        }
    }
}
