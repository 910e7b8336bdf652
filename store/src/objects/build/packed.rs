//! Reading blobs straight from the repository's pack files, keeping every delta base
//! decoded on the way. A repacked repository (a clone) stores one version of a large file
//! whole and the others as a tree of deltas up to fifty deep: most versions hang off a
//! shared spine of intermediate versions that are never asked for themselves. gix's
//! delta-base cache keeps only the objects asked for, so each version rebuilt its spine
//! from the whole version: up to fifty deltas of megabytes each. Here each link of the
//! chain is decoded on its own, base first, and kept (least recently used first out,
//! within a byte budget), so a version costs the deltas between it and the nearest kept
//! base: usually one.

use gix::odb::pack::cache::DecodeEntry;
use gix::odb::pack::data::decode::entry::ResolvedBase;
use gix::odb::pack::data::entry::Header;
use gix::odb::pack::Bundle;
use gix::ObjectId;

/// Bytes of decoded objects kept: the versions of a few large files (a 10,000-entity
/// level is about 2 MB) and the spine of their delta tree.
const BASES_BYTES: usize = 128 * 1024 * 1024;

/// Links of a delta chain followed at most (git writes 50 by default; a longer or cyclic
/// chain is left to gix).
const MAX_CHAIN: usize = 10_000;

/// The repository's packs, opened for reading blobs with their delta bases kept.
pub(super) struct Packs {
    bundles: Vec<Bundle>,
    bases: Bases,
    inflate: gix::zlib::Inflate,
    /// The buffer entries are decoded in.
    work: Vec<u8>,
}

impl Packs {
    /// The packs of `repo`'s own object directory (none if it cannot be listed: every
    /// blob is then read through gix).
    pub(super) fn open(repo: &gix::Repository) -> Packs {
        Self::with_budget(repo, BASES_BYTES)
    }

    fn with_budget(repo: &gix::Repository, budget: usize) -> Packs {
        let dir = repo.objects.store_ref().path().join("pack");
        let mut bundles = Vec::new();
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "idx") {
                if let Ok(bundle) = Bundle::at(&path, repo.object_hash()) {
                    bundles.push(bundle);
                }
            }
        }
        Packs {
            bundles,
            bases: Bases::new(budget),
            inflate: gix::zlib::Inflate::default(),
            work: Vec::new(),
        }
    }

    /// The bytes of blob `oid`, if a pack holds it and it decodes as a blob; `None`
    /// otherwise (read it through gix, which reports what is wrong).
    pub(super) fn blob(&mut self, oid: &ObjectId) -> Option<Vec<u8>> {
        let (at, offset) = self.bundles.iter().enumerate().find_map(|(i, b)| {
            let index = b.index.lookup(oid)?;
            Some((i, b.index.pack_offset_at_index(index)))
        })?;
        let chain = self.chain(at, offset)?;
        let bundle = &self.bundles[at];
        let pack = &bundle.pack;
        let resolve = |id: &gix::hash::oid, _: &mut Vec<u8>| {
            Ok(bundle.index.lookup(id).and_then(|i| {
                let offset = bundle.index.pack_offset_at_index(i);
                pack.entry(offset).ok().map(ResolvedBase::InPack)
            }))
        };
        // Decoded in a buffer kept from read to read (no fresh pages, no growing copies).
        let out = &mut self.work;
        // Base first: each link's base is kept by then, so it costs one delta.
        for (n, link) in chain.iter().rev().enumerate() {
            let last = n + 1 == chain.len();
            if !last && self.bases.contains(pack.id, *link) {
                continue;
            }
            let entry = pack.entry(*link).ok()?;
            let outcome = pack
                .decode_entry(entry, out, &mut self.inflate, &resolve, &mut self.bases)
                .ok()?;
            if last {
                return (outcome.kind == gix::object::Kind::Blob).then(|| out.to_vec());
            }
            if !self.bases.contains(pack.id, *link) {
                // A whole object: decoding it does not keep it.
                let size = outcome.compressed_size;
                self.bases.put(pack.id, *link, out, outcome.kind, size);
            }
        }
        None
    }

    /// The pack offsets of the chain of bundle `at`'s entry at `offset`: that entry
    /// first, then its delta bases down to a kept one, a whole object, or a base named by
    /// id (left to the decoder).
    fn chain(&self, at: usize, offset: u64) -> Option<Vec<u64>> {
        let pack = &self.bundles[at].pack;
        let mut chain = vec![offset];
        let mut entry = pack.entry(offset).ok()?;
        while let Header::OfsDelta { base_distance } = entry.header {
            if self.bases.contains(pack.id, *chain.last()?) || chain.len() >= MAX_CHAIN {
                break;
            }
            let base = entry.checked_base_pack_offset(base_distance)?;
            chain.push(base);
            entry = pack.entry(base).ok()?;
        }
        Some(chain)
    }
}

/// Decoded pack entries kept within a byte budget, least recently used first out.
struct Bases {
    entries: Vec<Base>,
    used: usize,
    budget: usize,
    clock: u64,
    /// The buffer of the last entry let go, reused for the next one (no fresh pages).
    spare: Vec<u8>,
}

/// A decoded pack entry.
struct Base {
    pack: u32,
    offset: u64,
    data: Vec<u8>,
    kind: gix::object::Kind,
    compressed_size: usize,
    used_at: u64,
}

impl Bases {
    fn new(budget: usize) -> Bases {
        Bases {
            entries: Vec::new(),
            used: 0,
            budget,
            clock: 0,
            spare: Vec::new(),
        }
    }

    fn position(&self, pack: u32, offset: u64) -> Option<usize> {
        self.entries
            .iter()
            .position(|e| e.pack == pack && e.offset == offset)
    }

    fn contains(&self, pack: u32, offset: u64) -> bool {
        self.position(pack, offset).is_some()
    }

    fn remove(&mut self, at: usize) {
        let gone = self.entries.swap_remove(at);
        self.used -= gone.data.len();
        if gone.data.capacity() > self.spare.capacity() {
            self.spare = gone.data;
        }
    }
}

impl DecodeEntry for Bases {
    fn put(
        &mut self,
        pack: u32,
        offset: u64,
        data: &[u8],
        kind: gix::object::Kind,
        compressed_size: usize,
    ) {
        if let Some(at) = self.position(pack, offset) {
            self.remove(at);
        }
        if data.len() > self.budget {
            return;
        }
        while self.used + data.len() > self.budget {
            let Some(oldest) = (0..self.entries.len()).min_by_key(|i| self.entries[*i].used_at)
            else {
                break;
            };
            self.remove(oldest);
        }
        let mut buffer = std::mem::take(&mut self.spare);
        buffer.clear();
        buffer.extend_from_slice(data);
        self.clock += 1;
        self.used += buffer.len();
        self.entries.push(Base {
            pack,
            offset,
            data: buffer,
            kind,
            compressed_size,
            used_at: self.clock,
        });
    }

    fn get(
        &mut self,
        pack: u32,
        offset: u64,
        out: &mut Vec<u8>,
    ) -> Option<(gix::object::Kind, usize)> {
        let at = self.position(pack, offset)?;
        self.clock += 1;
        let base = &mut self.entries[at];
        base.used_at = self.clock;
        out.clear();
        out.extend_from_slice(&base.data);
        Some((base.kind, base.compressed_size))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_git::git;

    /// The file's blobs in a repacked repository, oldest first.
    fn repacked(dir: &std::path::Path, versions: usize) -> Vec<ObjectId> {
        git(dir, &["init", "-q", "-b", "main"]);
        let mut lines: Vec<String> = (0..300)
            .map(|i| format!("line {i} of a file long enough to delta\n"))
            .collect();
        let mut blobs = Vec::new();
        for n in 0..versions {
            // Edits spread over the file, so versions delta on one another in a tree.
            let at = (n * 37) % lines.len();
            lines[at] = format!("line {at} changed in version {n}\n");
            lines.push(format!("line added in version {n}\n"));
            std::fs::write(dir.join("a.level"), lines.concat()).unwrap();
            git(dir, &["add", "-A"]);
            git(dir, &["commit", "-q", "-m", &format!("c{n}")]);
            let id = git(dir, &["rev-parse", "HEAD:a.level"]);
            blobs.push(ObjectId::from_hex(id.trim().as_bytes()).unwrap());
        }
        git(dir, &["repack", "-adfq", "--depth=8", "--window=10"]);
        blobs
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(6))]

        /// Whatever the order blobs are read in and however small the budget, each reads
        /// back as the bytes gix gives; an object that is not a blob, or not in a pack,
        /// gives `None`.
        #[test]
        fn blobs_read_back_as_gix_reads_them(
            picks in proptest::collection::vec(0usize..24, 1..40),
            budget in 0usize..40_000,
        ) {
            let tmp = tempfile::tempdir().unwrap();
            let blobs = repacked(tmp.path(), 24);
            let repo = gix::open(tmp.path()).unwrap();
            let mut packs = Packs::with_budget(&repo, budget);
            for pick in picks {
                let blob = blobs[pick];
                let plain = repo.find_object(blob).unwrap().detach().data;
                proptest::prop_assert_eq!(packs.blob(&blob), Some(plain));
            }
            let commit = git(tmp.path(), &["rev-parse", "HEAD"]);
            let commit = ObjectId::from_hex(commit.trim().as_bytes()).unwrap();
            proptest::prop_assert_eq!(packs.blob(&commit), None);
            proptest::prop_assert_eq!(packs.blob(&ObjectId::from_bytes_or_panic(&[7; 20])), None);
        }
    }

    /// The kept bases never exceed the budget, and the most recently used stay.
    #[test]
    fn bases_stay_within_the_budget() {
        let mut bases = Bases::new(10);
        let kind = gix::object::Kind::Blob;
        bases.put(1, 1, &[0; 4], kind, 4);
        bases.put(1, 2, &[0; 4], kind, 4);
        let mut out = Vec::new();
        assert!(bases.get(1, 1, &mut out).is_some());
        bases.put(1, 3, &[0; 4], kind, 4);
        assert!(bases.used <= 10);
        assert!(bases.contains(1, 1) && bases.contains(1, 3) && !bases.contains(1, 2));
        bases.put(1, 4, &[0; 11], kind, 11);
        assert!(!bases.contains(1, 4));
        assert_eq!(out, vec![0; 4]);
    }
}
