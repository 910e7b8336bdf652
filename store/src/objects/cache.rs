//! The object index on disk, under `.git/assetvc/object-index/v4-<settings>/`:
//!
//! - `d/<tree[..2]>/<tree[2..]>.<base tree>`: a [`Delta`] of a tree against a base tree
//!   (one per parent of a commit);
//! - `s/<tree[..2]>/<tree[2..]>`: a full [`TreeIndex`] (every [`SNAPSHOT_EVERY`] deltas);
//! - `c/<commit[..2]>/<commit[2..]>`: a mark that the commit and all its ancestors are
//!   indexed (a build from it has finished: later builds stop there).
//!
//! Each file is a magic line, an 8-byte checksum of the rest (FNV-1a, little-endian: any
//! changed byte changes it, so a flipped bit never yields a wrong `log` or `blame`, issue
//! #30 item 12), then postcard (serde, variable-length integers): compact —
//! a delta of a commit that changed three objects of a 10,000-entity level is a few
//! hundred bytes — and fast to decode. Files are written to a temporary file in their
//! directory and renamed into place, so a reader sees a whole file or none; a file that
//! does not decode (a crash on a file system that lost the data, a foreign file) is
//! ignored, removed and rebuilt. The whole directory may be deleted at any time. No
//! fsync: this is a cache, and a lost file is only work to redo.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::Serialize;

use super::{Delta, TreeIndex};

/// A full index is stored when a delta chain reaches this length.
pub const SNAPSHOT_EVERY: u32 = 512;

const MAGIC: &[u8] = b"assetvc-object-index 2\n";

/// FNV-1a over `bytes`: every step is a bijection of the running value, so changing any
/// one byte always changes the result.
fn checksum(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The body of a cache file's bytes when its magic line and checksum hold.
fn verified(bytes: &[u8]) -> Option<&[u8]> {
    let rest = bytes.strip_prefix(MAGIC)?;
    let (sum, body) = rest.split_at_checked(8)?;
    (u64::from_le_bytes(sum.try_into().ok()?) == checksum(body)).then_some(body)
}

/// The files of one index directory.
#[derive(Debug, Clone)]
pub struct Cache {
    dir: PathBuf,
}

fn fanout(root: &Path, kind: &str, tree: &str) -> PathBuf {
    let split = tree.len().min(2);
    root.join(kind).join(&tree[..split]).join(&tree[split..])
}

impl Cache {
    /// The cache in `dir` (created on first write).
    pub fn new(dir: PathBuf) -> Cache {
        Cache { dir }
    }

    fn delta_path(&self, tree: &str, base: &str) -> PathBuf {
        let mut p = fanout(&self.dir, "d", tree).into_os_string();
        p.push(".");
        p.push(base);
        PathBuf::from(p)
    }

    fn snapshot_path(&self, tree: &str) -> PathBuf {
        fanout(&self.dir, "s", tree)
    }

    /// The delta of `tree` against `base`, if stored and readable.
    pub fn delta(&self, tree: &str, base: &str) -> Option<Delta> {
        read(&self.delta_path(tree, base))
    }

    /// Whether a delta of `tree` against `base` is stored (not read).
    pub fn has_delta(&self, tree: &str, base: &str) -> bool {
        self.delta_path(tree, base).is_file()
    }

    /// The stored delta of `tree` with the shortest chain, whatever its base.
    pub fn any_delta(&self, tree: &str) -> Option<Delta> {
        let path = fanout(&self.dir, "d", tree);
        let dir = path.parent()?;
        let prefix = format!("{}.", path.file_name()?.to_str()?);
        let mut best: Option<Delta> = None;
        for entry in std::fs::read_dir(dir).ok()?.flatten() {
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            if !name.starts_with(&prefix) {
                continue;
            }
            if let Some(d) = read::<Delta>(&entry.path()) {
                if best.as_ref().is_none_or(|b| d.depth < b.depth) {
                    best = Some(d);
                }
            }
        }
        best
    }

    /// The full index of `tree`, if stored and readable.
    pub fn snapshot(&self, tree: &str) -> Option<TreeIndex> {
        read(&self.snapshot_path(tree))
    }

    /// Stores the delta of `tree` against `delta.base`.
    pub fn put_delta(&self, tree: &str, delta: &Delta) -> std::io::Result<()> {
        write(&self.delta_path(tree, &delta.base), delta)
    }

    /// Whether `commit` and all its ancestors are marked indexed.
    pub fn is_complete(&self, commit: &str) -> bool {
        read::<()>(&fanout(&self.dir, "c", commit)).is_some()
    }

    /// Marks `commit` and all its ancestors indexed.
    pub fn put_complete(&self, commit: &str) -> std::io::Result<()> {
        write(&fanout(&self.dir, "c", commit), &())
    }

    /// Stores the full index of `tree`.
    pub fn put_snapshot(&self, tree: &str, index: &TreeIndex) -> std::io::Result<()> {
        write(&self.snapshot_path(tree), index)
    }
}

/// Reads and decodes a file; a missing file is `None`, one whose checksum does not hold or
/// that does not decode is removed (and rebuilt by the caller).
fn read<T: DeserializeOwned>(path: &Path) -> Option<T> {
    let bytes = std::fs::read(path).ok()?;
    let decoded = verified(&bytes).and_then(|body| postcard::from_bytes(body).ok());
    if decoded.is_none() {
        let _ = std::fs::remove_file(path);
    }
    decoded
}

/// Encodes and writes a file atomically (temporary file in the same directory + rename).
fn write<T: Serialize>(path: &Path, value: &T) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let body = postcard::to_stdvec(value).map_err(std::io::Error::other)?;
    let mut tmp = tempfile::Builder::new().prefix(".tmp-").tempfile_in(dir)?;
    tmp.write_all(MAGIC)?;
    tmp.write_all(&checksum(&body).to_le_bytes())?;
    tmp.write_all(&body)?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::{Entry, Located, ObjectChange};
    use super::*;

    fn delta(depth: u32) -> Delta {
        Delta {
            base: "b".repeat(40),
            depth,
            blobs: vec![("a.level".into(), Some(("c".repeat(40), true)))],
            changes: vec![ObjectChange {
                id: "x".into(),
                old: None,
                new: Some(Located {
                    path: "a.level".into(),
                    entry: Entry {
                        pointer: "/e/[id=x]".into(),
                        hash: u64::MAX,
                        name: Some("door".into()),
                        props: vec![("id".into(), 7)],
                    },
                }),
            }],
        }
    }

    #[test]
    fn round_trips_and_ignores_bad_files() {
        let tmp = tempfile::tempdir().unwrap();
        let cache = Cache::new(tmp.path().to_path_buf());
        let tree = "a".repeat(40);
        assert!(cache.any_delta(&tree).is_none());
        cache.put_delta(&tree, &delta(3)).unwrap();
        assert!(cache.has_delta(&tree, &"b".repeat(40)));
        assert_eq!(cache.delta(&tree, &"b".repeat(40)), Some(delta(3)));
        assert_eq!(cache.any_delta(&tree), Some(delta(3)));
        // A truncated file (a crash) is ignored and removed.
        let path = cache.delta_path(&tree, &"b".repeat(40));
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 5]).unwrap();
        assert_eq!(cache.delta(&tree, &"b".repeat(40)), None);
        assert!(!path.exists());
        cache.put_snapshot(&tree, &TreeIndex::default()).unwrap();
        assert!(!cache.is_complete(&tree));
        cache.put_complete(&tree).unwrap();
        assert!(cache.is_complete(&tree));
        assert_eq!(cache.snapshot(&tree), Some(TreeIndex::default()));
    }

    /// Issue #30 item 12: a file that still decodes but was changed (a flipped bit that
    /// moved a property's author) is not believed: it is removed.
    #[test]
    fn every_flipped_bit_is_caught() {
        let tmp = tempfile::tempdir().unwrap();
        let cache = Cache::new(tmp.path().to_path_buf());
        let (tree, base) = ("a".repeat(40), "b".repeat(40));
        cache.put_delta(&tree, &delta(3)).unwrap();
        let path = cache.delta_path(&tree, &base);
        let good = std::fs::read(&path).unwrap();
        for bit in 0..good.len() * 8 {
            let mut bad = good.clone();
            bad[bit / 8] ^= 1 << (bit % 8);
            std::fs::write(&path, &bad).unwrap();
            assert_eq!(cache.delta(&tree, &base), None, "bit {bit}");
            assert!(!path.exists(), "bit {bit}");
        }
    }

    proptest::proptest! {
        /// Whatever bytes a cache file holds, reading it never panics and never returns
        /// anything but what was written.
        #[test]
        fn any_bytes_read_safely(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..200)) {
            let tmp = tempfile::tempdir().unwrap();
            let cache = Cache::new(tmp.path().to_path_buf());
            let (tree, base) = ("a".repeat(40), "b".repeat(40));
            cache.put_delta(&tree, &delta(3)).unwrap();
            std::fs::write(cache.delta_path(&tree, &base), &bytes).unwrap();
            let read = cache.delta(&tree, &base);
            proptest::prop_assert!(read.is_none() || read == Some(delta(3)));
        }
    }
}
