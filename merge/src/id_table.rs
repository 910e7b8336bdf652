//! A hash table of positions in a list of ids: 4 bytes a slot where a map from id to
//! position takes 32 (a 24-byte `Cow` key and the position), the ids hashed from the list
//! when they are looked up or the table grows. The keyed index, naming and the checks'
//! duplicate-id search each index 100,000 ids of a level this way.
//!
//! The ids come from repository content: the tables hash with foldhash under a seed drawn
//! from the operating system's randomness (`merge/src/hashing.rs`), so that no file
//! can be written whose ids all collide and make a merge quadratic, as they could under
//! an unseeded hash (rustc-hash's, before).

use std::hash::BuildHasher;

use hashbrown::hash_table::Entry;
use hashbrown::HashTable;

use crate::hashing::Seeded;

/// A list of ids by position, as an [`IdTable`] reads it.
pub trait IdSource {
    /// The id at position `at`.
    fn id_at(&self, at: usize) -> &str;
}

impl<S: AsRef<str>> IdSource for [S] {
    fn id_at(&self, at: usize) -> &str {
        self[at].as_ref()
    }
}

impl<S: AsRef<str>> IdSource for Vec<S> {
    fn id_at(&self, at: usize) -> &str {
        self[at].as_ref()
    }
}

/// Positions in a list of ids, found by id. Every call passes the same list (grown only
/// at its end).
#[derive(Debug)]
pub struct IdTable {
    /// The positions.
    table: HashTable<u32>,
    /// This table's seeded hash of an id.
    seed: Seeded,
}

/// A position as stored (lists hold fewer than 2³² ids: a document's nodes are numbered
/// by `u32`).
fn stored(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

impl Default for IdTable {
    fn default() -> Self {
        IdTable::with_capacity(0)
    }
}

impl IdTable {
    /// A table with room for `n` ids.
    pub fn with_capacity(n: usize) -> Self {
        IdTable {
            table: HashTable::with_capacity(n),
            seed: Seeded::default(),
        }
    }

    /// The position of `id` in `ids`, if the table holds one.
    pub fn find<L: IdSource + ?Sized>(&self, ids: &L, id: &str) -> Option<usize> {
        self.table
            .find(self.seed.hash_one(id), |&p| ids.id_at(p as usize) == id)
            .map(|&p| p as usize)
    }

    /// Records position `at` of `ids` unless its id is held already: then the earlier
    /// position is kept and returned.
    pub fn insert_first<L: IdSource + ?Sized>(&mut self, ids: &L, at: usize) -> Option<usize> {
        match self.entry(ids, at) {
            Entry::Occupied(held) => Some(*held.get() as usize),
            Entry::Vacant(slot) => {
                slot.insert(stored(at));
                None
            }
        }
    }

    /// Records position `at` of `ids`, in place of an earlier position of its id, which is
    /// returned.
    pub fn insert_last<L: IdSource + ?Sized>(&mut self, ids: &L, at: usize) -> Option<usize> {
        match self.entry(ids, at) {
            Entry::Occupied(mut held) => {
                Some(std::mem::replace(held.get_mut(), stored(at)) as usize)
            }
            Entry::Vacant(slot) => {
                slot.insert(stored(at));
                None
            }
        }
    }

    /// The slot of the id at position `at` of `ids`: held, or where it goes. One probe
    /// of the table (a look-up then an insertion probed it twice).
    fn entry<'t, L: IdSource + ?Sized>(&'t mut self, ids: &L, at: usize) -> Entry<'t, u32> {
        let id = ids.id_at(at);
        let IdTable { table, seed } = self;
        table.entry(
            seed.hash_one(id),
            |&p| ids.id_at(p as usize) == id,
            |&p| seed.hash_one(ids.id_at(p as usize)),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_or_last_position_of_each_id() {
        let ids = ["a", "b", "a", "c", "b"].to_vec();
        let (mut first, mut last) = (IdTable::default(), IdTable::default());
        let firsts: Vec<_> = (0..ids.len())
            .map(|i| first.insert_first(&ids, i))
            .collect();
        assert_eq!(firsts, [None, None, Some(0), None, Some(1)]);
        let lasts: Vec<_> = (0..ids.len()).map(|i| last.insert_last(&ids, i)).collect();
        assert_eq!(lasts, [None, None, Some(0), None, Some(1)]);
        assert_eq!(
            (first.find(&ids, "a"), first.find(&ids, "b")),
            (Some(0), Some(1))
        );
        assert_eq!(
            (last.find(&ids, "a"), last.find(&ids, "b")),
            (Some(2), Some(4))
        );
        assert_eq!(first.find(&ids, "z"), None);
        // Growing past the capacity rehashes from the list.
        let many: Vec<String> = (0..5000).map(|i| format!("id{i}")).collect();
        let mut t = IdTable::with_capacity(1);
        for i in 0..many.len() {
            assert_eq!(t.insert_first(&many, i), None);
        }
        assert!((0..many.len()).all(|i| t.find(&many, &many[i]) == Some(i)));
    }

    proptest::proptest! {
        /// Each table answers as a map from id to its first (or last) position, whatever
        /// the ids and however far the table grows past its capacity.
        #[test]
        fn tables_answer_as_maps(
            ids in proptest::collection::vec("[ab\u{0}\u{1}]{0,3}", 0..200),
            capacity in 0usize..8,
        ) {
            let (mut first, mut last) = (IdTable::with_capacity(capacity), IdTable::default());
            let mut firsts = std::collections::HashMap::new();
            let mut lasts = std::collections::HashMap::new();
            for (i, id) in ids.iter().enumerate() {
                proptest::prop_assert_eq!(first.insert_first(&ids, i), firsts.get(id).copied());
                firsts.entry(id.clone()).or_insert(i);
                proptest::prop_assert_eq!(last.insert_last(&ids, i), lasts.insert(id.clone(), i));
            }
            for id in ids.iter().chain(["zz".to_string()].iter()) {
                proptest::prop_assert_eq!(first.find(&ids, id), firsts.get(id).copied());
                proptest::prop_assert_eq!(last.find(&ids, id), lasts.get(id).copied());
            }
        }
    }
}
