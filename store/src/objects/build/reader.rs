//! The repository handle the index build reads objects through: the same repository with
//! a delta-base cache. Without one (gix sets none unless built with `max-performance`)
//! every version of a file stored as a delta is rebuilt from the start of its chain:
//! the full base inflated and up to fifty deltas applied, megabytes copied for each of
//! the blobs of a large level that history touches. With it, a blob whose delta base was
//! read just before (the previous version of the file, read in history order) costs one
//! delta.

use gix::odb::pack::cache::lru::StaticLinkedList;

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
}
