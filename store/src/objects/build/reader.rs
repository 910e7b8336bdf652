//! The repository handle the index build reads objects through: the same repository with
//! a delta-base cache. Without one (gix sets none unless built with `max-performance`)
//! every version of a file stored as a delta is rebuilt from the start of its chain:
//! the full base inflated and up to fifty deltas applied, megabytes copied for each of
//! the blobs of a large level that history touches. With it, a blob whose delta base was
//! read just before (the previous version of the file, read in history order) costs one
//! delta.

use std::collections::HashSet;

use gix::odb::pack::cache::lru::StaticLinkedList;
use gix::odb::Header as _;
use gix::ObjectId;

/// Entries the delta-base cache holds (the most recently decoded objects).
const PACK_CACHE_ENTRIES: usize = 64;

/// Bytes the delta-base cache holds at most: room for the versions of a few large files
/// (a 10,000-entity level is about 2 MB).
const PACK_CACHE_BYTES: usize = 128 * 1024 * 1024;

/// A handle on `repo`'s objects with the delta-base cache the index build needs; `repo`
/// itself is not changed. No object cache: it would copy every large blob read into it,
/// and each blob is read once.
pub(super) fn reader(repo: &gix::Repository) -> gix::Repository {
    let mut reader = repo.clone();
    reader.objects.set_pack_cache(|| {
        Box::new(StaticLinkedList::<PACK_CACHE_ENTRIES>::new(
            PACK_CACHE_BYTES,
        ))
    });
    reader.object_cache_size(None);
    reader
}

/// `blobs` in an order that reads each delta base before the deltas on it: by the length
/// of their delta chain (a base's chain is shorter than that of any delta on it), ties in
/// the order given. History is indexed oldest first, but a repacked repository stores
/// the newest version of a file whole and the older ones as deltas against newer ones:
/// read oldest first, each version would rebuild its chain from the newest; read in this
/// order, each costs one delta. A blob whose header cannot be read keeps its place first.
pub(super) fn in_delta_order(reader: &gix::Repository, mut blobs: Vec<ObjectId>) -> Vec<ObjectId> {
    let mut seen = HashSet::with_capacity(blobs.len());
    blobs.retain(|b| seen.insert(*b));
    let depth = |oid: &ObjectId| {
        reader
            .objects
            .try_header(oid)
            .ok()
            .flatten()
            .and_then(|h| h.num_deltas())
            .unwrap_or(0)
    };
    let mut keyed: Vec<(u32, ObjectId)> = blobs.iter().map(|b| (depth(b), *b)).collect();
    keyed.sort_by_key(|(d, _)| *d);
    keyed.into_iter().map(|(_, b)| b).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_git::git;

    /// Every version of a file stored as a chain of deltas reads back, through the
    /// cache, as the bytes the repository itself gives, in history order and backwards.
    #[test]
    fn delta_chains_read_back_unchanged_through_the_cache() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        git(dir, &["init", "-q", "-b", "main"]);
        let mut text = String::new();
        let mut blobs = Vec::new();
        for n in 0..6 {
            for i in 0..200 {
                text.push_str(&format!("line {n} {i} of a file long enough to delta\n"));
            }
            std::fs::write(dir.join("a.level"), &text).unwrap();
            git(dir, &["add", "-A"]);
            git(dir, &["commit", "-q", "-m", &format!("c{n}")]);
            let id = git(dir, &["rev-parse", "HEAD:a.level"]);
            blobs.push(gix::ObjectId::from_hex(id.trim().as_bytes()).unwrap());
        }
        git(dir, &["repack", "-adfq", "--depth=50", "--window=10"]);
        let repo = gix::open(dir).unwrap();
        let reader = reader(&repo);
        let order: Vec<_> = blobs.iter().chain(blobs.iter().rev()).collect();
        for blob in order {
            let plain = repo.find_object(*blob).unwrap().detach().data;
            let cached = reader.find_object(*blob).unwrap().detach().data;
            assert_eq!(plain, cached);
        }
    }

    /// The file's blobs in a repacked repository, oldest first (see the test above).
    fn repacked(dir: &std::path::Path, versions: usize) -> Vec<ObjectId> {
        git(dir, &["init", "-q", "-b", "main"]);
        let mut text = String::new();
        let mut blobs = Vec::new();
        for n in 0..versions {
            for i in 0..200 {
                text.push_str(&format!("line {n} {i} of a file long enough to delta\n"));
            }
            std::fs::write(dir.join("a.level"), &text).unwrap();
            git(dir, &["add", "-A"]);
            git(dir, &["commit", "-q", "-m", &format!("c{n}")]);
            let id = git(dir, &["rev-parse", "HEAD:a.level"]);
            blobs.push(ObjectId::from_hex(id.trim().as_bytes()).unwrap());
        }
        git(dir, &["repack", "-adfq", "--depth=50", "--window=10"]);
        blobs
    }

    /// Repacked versions are deltas on one another, and the order reads bases first:
    /// chain lengths never decrease.
    #[test]
    fn bases_come_before_their_deltas() {
        let tmp = tempfile::tempdir().unwrap();
        let blobs = repacked(tmp.path(), 6);
        let repo = gix::open(tmp.path()).unwrap();
        let reader = reader(&repo);
        let depth = |oid: &ObjectId| {
            reader
                .objects
                .try_header(oid)
                .unwrap()
                .and_then(|h| h.num_deltas())
                .unwrap_or(0)
        };
        let order = in_delta_order(&reader, blobs);
        let depths: Vec<u32> = order.iter().map(depth).collect();
        assert!(depths.iter().any(|d| *d > 0), "no deltas: {depths:?}");
        assert!(depths.windows(2).all(|w| w[0] <= w[1]), "{depths:?}");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(8))]

        /// Whatever blobs are asked for (repeated, unknown), the order holds each once.
        #[test]
        fn the_order_is_a_permutation_without_repeats(
            picks in proptest::collection::vec(0usize..6, 0..12),
        ) {
            let tmp = tempfile::tempdir().unwrap();
            let mut blobs = repacked(tmp.path(), 4);
            blobs.push(ObjectId::from_bytes_or_panic(&[7; 20]));
            blobs.push(ObjectId::null(gix::hash::Kind::Sha1));
            let repo = gix::open(tmp.path()).unwrap();
            let asked: Vec<ObjectId> = picks.iter().map(|i| blobs[*i]).collect();
            let order = in_delta_order(&reader(&repo), asked.clone());
            let unique: HashSet<ObjectId> = asked.iter().copied().collect();
            proptest::prop_assert_eq!(order.len(), unique.len());
            proptest::prop_assert_eq!(order.iter().copied().collect::<HashSet<_>>(), unique);
        }
    }
}
