//! The hash tables of the merge crate: foldhash under a seed drawn from the operating
//! system's randomness once per process, varied for every table (as the standard
//! library's `RandomState` is). Keys come from repository content (ids, member names):
//! no file can be written whose keys all collide and make a merge quadratic, as under an
//! unseeded hash (rustc-hash's, before).
//!
//! No order of the merge's output may come from iterating one of these tables: each table
//! iterates in its own order, which changes from table to table and from run to run, so a
//! test that merges the same input twice and compares finds any that does
//! (`merge/tests/determinism.rs`). Output order comes from the documents (document order,
//! or a sort).

use std::cell::Cell;
use std::hash::BuildHasher;
use std::sync::OnceLock;

use foldhash::fast::SeedableRandomState;
use foldhash::SharedSeed;

/// A hash map under a [`Seeded`] hash.
pub(crate) type SeededMap<K, V> = std::collections::HashMap<K, V, Seeded>;

/// A hash set under a [`Seeded`] hash.
pub(crate) type SeededSet<K> = std::collections::HashSet<K, Seeded>;

/// A table's hash state: foldhash under the process's random seed and a per-table seed
/// (each new state takes the next one, so that two tables iterate in different orders).
#[derive(Clone, Debug)]
pub(crate) struct Seeded(SeedableRandomState);

/// The process's seeds, drawn once from the standard library's randomly keyed hasher
/// (the operating system's randomness): the first per-table seed and the shared seed.
fn process_seed() -> &'static (u64, SharedSeed) {
    static SEED: OnceLock<(u64, SharedSeed)> = OnceLock::new();
    SEED.get_or_init(|| {
        let random = std::hash::RandomState::new();
        (
            random.hash_one(2u8),
            SharedSeed::from_u64(random.hash_one(1u8)),
        )
    })
}

thread_local! {
    /// The next per-table seed of this thread (0: not drawn yet).
    static NEXT: Cell<u64> = const { Cell::new(0) };
}

impl Default for Seeded {
    fn default() -> Self {
        let (first, shared) = process_seed();
        let per_table = NEXT.with(|next| {
            // Threads start apart by the address of their own counter.
            let current = match next.get() {
                0 => first ^ (next as *const Cell<u64> as u64).rotate_left(32),
                n => n,
            };
            // An odd step visits every u64 before repeating; foldhash mixes the seed.
            next.set(current.wrapping_add(0x9E37_79B9_7F4A_7C15) | 1);
            current
        });
        Seeded(SeedableRandomState::with_seed(per_table, shared))
    }
}

impl BuildHasher for Seeded {
    type Hasher = <SeedableRandomState as BuildHasher>::Hasher;

    fn build_hasher(&self) -> Self::Hasher {
        self.0.build_hasher()
    }
}

/// Names made unique by a suffix (`name#2`, `name[2]`: the caller's `suffix`), for the
/// identities a Cocos graph's objects get (`cocos::keys`, `naming::cocos`). No name is ever
/// released, so the suffixes below a name's counter stay taken and the search for a free one
/// resumes there: linear, not quadratic, in the number of objects of one name.
pub(crate) struct UniqueNames {
    names: SeededSet<String>,
    next: SeededMap<String, u64>,
    suffix: fn(&str, u64) -> String,
}

impl UniqueNames {
    /// The names in `taken` are taken; a repeated name gets `suffix(name, n)` for the first
    /// free `n` from 2 on.
    pub(crate) fn new(
        taken: impl IntoIterator<Item = String>,
        suffix: fn(&str, u64) -> String,
    ) -> UniqueNames {
        UniqueNames {
            names: taken.into_iter().collect(),
            next: SeededMap::default(),
            suffix,
        }
    }

    /// `name`, or `name` with the first suffix not yet taken (then taken).
    pub(crate) fn unique(&mut self, name: String) -> String {
        if self.names.insert(name.clone()) {
            return name;
        }
        let next = self.next.entry(name.clone()).or_insert(2);
        loop {
            let candidate = (self.suffix)(&name, *next);
            *next += 1;
            if self.names.insert(candidate.clone()) {
                return candidate;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::SeededSet;

    #[test]
    fn two_tables_iterate_in_different_orders() {
        let order = || -> Vec<u32> {
            let set: SeededSet<u32> = (0..64).collect();
            set.into_iter().collect()
        };
        let first = order();
        assert!((0..8).any(|_| order() != first), "every table hashed alike");
    }
}
