//! Walking back from a commit without the index of its history: the index of a parent
//! tree derived from its child's by re-scanning only the files the commit changed, and
//! the child's delta against the parent from the two. `log` and `blame` walk history this
//! way, newest first, and stop when answered: nothing older than what they read is
//! indexed, and the first answer needs only the tip's tree.

use gix::ObjectId;

use super::super::cache::SNAPSHOT_EVERY;
use super::super::delta::{delta_of, ChangedFile};
use super::super::{Delta, FileObjects};
use super::ObjectIndex;
use crate::error::Result;

/// The depth a delta made walking back is stored with: its base's chain is not known, so
/// a forward chain of known length is preferred when loading an index (see
/// [`Cache::any_delta`](super::super::cache::Cache::any_delta)).
const BACK_DEPTH: u32 = SNAPSHOT_EVERY - 1;

impl ObjectIndex<'_> {
    /// The delta of `tree` against `base`, computed from the full index of `tree` (kept
    /// in memory, cached, or scanned from `tree`'s blobs); `base`'s index, derived on the
    /// way, is kept in memory for the next step back. The delta is stored.
    pub(super) fn delta_back(&mut self, tree: ObjectId, base: ObjectId) -> Result<Delta> {
        let (index, depth) = self.load(tree)?;
        // The files that differ, with their blob in `base` (`None`: not in `base`).
        let changed = if base == self.empty {
            index.files.keys().map(|p| (p.clone(), None)).collect()
        } else {
            self.changed_files(tree, base)?
        };
        let in_base: Vec<(String, ObjectId)> = changed
            .iter()
            .filter_map(|(p, oid)| oid.map(|o| (p.clone(), o)))
            .collect();
        let mut base_index = index.clone();
        for (path, _) in &changed {
            base_index.files.remove(path);
        }
        for (path, oid, objects) in self.scan_blobs(in_base)? {
            base_index.files.insert(
                path,
                FileObjects {
                    blob: oid.to_string(),
                    parsed: objects.is_some(),
                    objects: objects.unwrap_or_default(),
                },
            );
        }
        let files: Vec<ChangedFile> = changed
            .into_iter()
            .map(|(path, _)| {
                let now = index.files.get(&path).map(|f| {
                    let objects = f.parsed.then(|| f.objects.clone());
                    (f.blob.clone(), objects)
                });
                (path, now)
            })
            .collect();
        let mut delta = delta_of(&base_index, base.to_string(), files, Vec::new());
        delta.depth = BACK_DEPTH;
        // Best effort: without the file, the next walk computes it again.
        let _ = self.cache.put_delta(&tree.to_string(), &delta);
        self.remember(tree, index, depth);
        if base != self.empty {
            self.remember(base, base_index, BACK_DEPTH);
        }
        Ok(delta)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::path::Path;
    use std::sync::Arc;

    use proptest::prelude::*;

    use super::super::super::IndexSettings;
    use super::*;
    use crate::test_git::git;
    use crate::Repo;

    /// One commit: for each of two files, its objects (id number → value), or absent.
    type Version = [Option<BTreeMap<u8, u8>>; 2];

    fn settings(fingerprint: u64) -> IndexSettings {
        IndexSettings {
            dialect: Arc::new(|p: &str| p.ends_with(".level").then_some(sjson::Dialect::Sjson)),
            id_keys: vec!["id".to_string()],
            fingerprint,
            progress: None,
        }
    }

    /// Commits each version in turn; the commits, oldest first.
    fn commit_all(dir: &Path, versions: &[Version]) -> Vec<ObjectId> {
        git(dir, &["init", "-q", "-b", "main"]);
        let mut commits = Vec::new();
        for (n, version) in versions.iter().enumerate() {
            for (i, file) in version.iter().enumerate() {
                let path = dir.join(format!("f{i}.level"));
                match file {
                    Some(objects) => {
                        let items: String = objects
                            .iter()
                            .map(|(id, v)| {
                                format!("\t{{ id = \"o{id}\" name = \"n{id}\" v = {v} }}\n")
                            })
                            .collect();
                        std::fs::write(path, format!("items = [\n{items}]\n")).unwrap();
                    }
                    None => {
                        let _ = std::fs::remove_file(path);
                    }
                }
            }
            git(dir, &["add", "-A"]);
            git(
                dir,
                &["commit", "-q", "--allow-empty", "-m", &format!("c{n}")],
            );
            let id = git(dir, &["rev-parse", "HEAD"]);
            commits.push(ObjectId::from_hex(id.trim().as_bytes()).unwrap());
        }
        commits
    }

    fn objects() -> impl Strategy<Value = Option<BTreeMap<u8, u8>>> {
        proptest::option::of(proptest::collection::btree_map(0u8..5, 0u8..3, 0..4))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(12))]

        /// Walking back from the tip gives, for every commit, the delta the build
        /// forward from the root gives (objects created, deleted, changed and moved
        /// between files alike).
        #[test]
        fn walking_back_gives_the_deltas_of_the_build_forward(
            versions in proptest::collection::vec([objects(), objects()], 1..5)
        ) {
            let tmp = tempfile::tempdir().unwrap();
            let commits = commit_all(tmp.path(), &versions);
            let repo = Repo::discover(tmp.path()).unwrap();
            let mut back = ObjectIndex::open(&repo, settings(1));
            let mut forward = ObjectIndex::open(&repo, settings(2));
            let tip = *commits.last().unwrap();
            forward.ensure(tip).unwrap();
            for commit in commits.iter().rev() {
                let info = back.commit_info(*commit).unwrap();
                let base = match info.parents.first() {
                    Some(p) => back.commit_info(*p).unwrap().tree,
                    None => ObjectId::empty_tree(gix::hash::Kind::Sha1),
                };
                let mut walked = back.delta(info.tree, base).unwrap();
                let mut built = forward.delta(info.tree, base).unwrap();
                walked.depth = 0;
                built.depth = 0;
                walked.changes.sort_by(|a, b| a.id.cmp(&b.id));
                built.changes.sort_by(|a, b| a.id.cmp(&b.id));
                // Which blobs changed is a set: the walk and the build list it in the
                // order they met the files.
                walked.blobs.sort();
                built.blobs.sort();
                prop_assert_eq!(walked, built);
            }
        }
    }
}
