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
///
/// A table built whole from a long list ([`IdTable::first_of_each`]) is split in parts by
/// a few bits of each id's hash, each part small enough to stay in the processor's cache
/// while it is filled: one table of a million ids missed the cache at nearly every
/// insertion, which made building it take twice as long per id as one of 100,000.
#[derive(Debug)]
pub struct IdTable {
    /// The positions, in parts by [`IdTable::part`] (one part unless built whole).
    parts: Vec<HashTable<u32>>,
    /// `parts.len() - 1`: the parts are a power of two.
    mask: u64,
    /// This table's seeded hash of an id.
    seed: Seeded,
}

/// A position as stored (lists hold fewer than 2³² ids: a document's nodes are numbered
/// by `u32`).
fn stored(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

/// The fewest ids [`IdTable::first_of_each`] builds a table of in parts.
#[cfg(not(test))]
const PARTS_FROM: usize = 1 << 18;
#[cfg(test)]
const PARTS_FROM: usize = 64;

/// About how many ids a part holds (4 bytes a slot and a control byte: some 150 KB).
#[cfg(not(test))]
const PART_IDS: usize = 1 << 14;
#[cfg(test)]
const PART_IDS: usize = 8;

/// The hash's bits that choose a part: above those hashbrown takes for a slot in tables
/// of a part's size, below the seven it keeps as a tag.
const PART_SHIFT: u32 = 40;

impl Default for IdTable {
    fn default() -> Self {
        IdTable::with_capacity(0)
    }
}

impl IdTable {
    /// A table with room for `n` ids.
    pub fn with_capacity(n: usize) -> Self {
        IdTable {
            parts: vec![HashTable::with_capacity(n)],
            mask: 0,
            seed: Seeded::default(),
        }
    }

    /// The table of the first position of each id of `ids[..n]`, or the first position
    /// whose id an earlier one holds. A long list is hashed once, its positions grouped by
    /// part, and each part filled in turn (see [`IdTable`]).
    pub fn first_of_each<L: IdSource + ?Sized>(ids: &L, n: usize) -> Result<IdTable, usize> {
        let mut repeated: Option<usize> = None;
        let table = IdTable::first_of_each_noting(ids, n, |i| {
            repeated = Some(repeated.map_or(i, |r| r.min(i)));
            true
        });
        match repeated {
            Some(repeated) => Err(repeated),
            None => Ok(table),
        }
    }

    /// The table of the first position of each id of `ids[..n]`, built as
    /// [`IdTable::first_of_each`] builds it; `repeated` is told each later position of an
    /// id (in no particular order) and answers whether to go on (the table is then
    /// incomplete).
    pub fn first_of_each_noting<L: IdSource + ?Sized>(
        ids: &L,
        n: usize,
        mut repeated: impl FnMut(usize) -> bool,
    ) -> IdTable {
        if n < PARTS_FROM {
            let mut table = IdTable::with_capacity(n);
            for i in 0..n {
                if table.insert_first(ids, i).is_some() && !repeated(i) {
                    break;
                }
            }
            return table;
        }
        // (At most 2^16 parts: their bits stay below the tag's for any list.)
        let parts = (n / PART_IDS).next_power_of_two().min(1 << 16);
        let mask = parts as u64 - 1;
        let seed = Seeded::default();
        let hashes: Vec<u64> = (0..n).map(|i| seed.hash_one(ids.id_at(i))).collect();
        let part = |h: u64| ((h >> PART_SHIFT) & mask) as usize;
        // The positions grouped by part, in order within each (a counting sort).
        let mut starts = vec![0usize; parts + 1];
        for &h in &hashes {
            starts[part(h) + 1] += 1;
        }
        for p in 0..parts {
            starts[p + 1] += starts[p];
        }
        let mut next = starts.clone();
        // Each position with its hash, so that filling a part reads them in order; an id's
        // text is read only when a slot's tag matches its hash's.
        let mut grouped = vec![(0u64, 0u32); n];
        for (i, &h) in hashes.iter().enumerate() {
            grouped[next[part(h)]] = (h, stored(i));
            next[part(h)] += 1;
        }
        drop(hashes);
        let mut tables = Vec::with_capacity(parts);
        let mut going = true;
        for p in 0..parts {
            let positions = &grouped[starts[p]..starts[p + 1]];
            let mut table = HashTable::with_capacity(positions.len());
            for &(h, i) in positions {
                if !going {
                    break;
                }
                // (The table has room for the part: the rehash is never called.)
                match table.entry(
                    h,
                    |&q| ids.id_at(q as usize) == ids.id_at(i as usize),
                    |&q| seed.hash_one(ids.id_at(q as usize)),
                ) {
                    Entry::Occupied(_) => going = repeated(i as usize),
                    Entry::Vacant(slot) => {
                        slot.insert(i);
                    }
                }
            }
            tables.push(table);
        }
        IdTable {
            parts: tables,
            mask,
            seed,
        }
    }

    /// The part that holds ids of hash `h`.
    fn part(&self, h: u64) -> usize {
        ((h >> PART_SHIFT) & self.mask) as usize
    }

    /// The position of `id` in `ids`, if the table holds one.
    pub fn find<L: IdSource + ?Sized>(&self, ids: &L, id: &str) -> Option<usize> {
        let h = self.seed.hash_one(id);
        self.parts[self.part(h)]
            .find(h, |&p| ids.id_at(p as usize) == id)
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
        let h = self.seed.hash_one(id);
        let part = self.part(h);
        let IdTable { parts, seed, .. } = self;
        parts[part].entry(
            h,
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
        /// A table built whole, in parts or not, answers as one filled an id at a time:
        /// the first position of each id, or the first position whose id repeats one.
        #[test]
        fn a_table_built_whole_is_one_filled_in_turn(
            ids in proptest::collection::vec("[abc]{0,4}", 0..400),
            then in proptest::collection::vec("[abcd]{0,4}", 0..20),
        ) {
            let mut one = IdTable::default();
            let repeats: Vec<usize> = (0..ids.len()).filter(|&i| one.insert_first(&ids, i).is_some()).collect();
            let repeated = repeats.first().copied();
            let mut noted = Vec::new();
            IdTable::first_of_each_noting(&ids, ids.len(), |i| {
                noted.push(i);
                true
            });
            noted.sort_unstable();
            proptest::prop_assert_eq!(&noted, &repeats);
            match IdTable::first_of_each(&ids, ids.len()) {
                Err(at) => proptest::prop_assert_eq!(Some(at), repeated),
                Ok(mut whole) => {
                    proptest::prop_assert_eq!(repeated, None);
                    let mut all = ids.clone();
                    all.extend(then);
                    for id in &all {
                        proptest::prop_assert_eq!(whole.find(&ids, id), one.find(&ids, id));
                    }
                    // Later insertions go on as in a table filled in turn.
                    for i in ids.len()..all.len() {
                        proptest::prop_assert_eq!(whole.insert_first(&all, i), one.insert_first(&all, i));
                    }
                }
            }
        }

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
