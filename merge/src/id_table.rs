//! A hash table of positions in a list of ids: 4 bytes a slot where a map from id to
//! position takes 32 (a 24-byte `Cow` key and the position), the ids hashed from the list
//! when they are looked up or the table grows. The keyed index, naming and the checks'
//! duplicate-id search each index 100,000 ids of a level this way.

use std::hash::BuildHasher;

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

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
#[derive(Default, Debug)]
pub struct IdTable(HashTable<u32>);

fn hash(id: &str) -> u64 {
    FxBuildHasher.hash_one(id)
}

/// A position as stored (lists hold fewer than 2³² ids: a document's nodes are numbered
/// by `u32`).
fn stored(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

impl IdTable {
    /// A table with room for `n` ids.
    pub fn with_capacity(n: usize) -> Self {
        IdTable(HashTable::with_capacity(n))
    }

    /// The position of `id` in `ids`, if the table holds one.
    pub fn find<L: IdSource + ?Sized>(&self, ids: &L, id: &str) -> Option<usize> {
        self.0
            .find(hash(id), |&p| ids.id_at(p as usize) == id)
            .map(|&p| p as usize)
    }

    /// Records position `at` of `ids` unless its id is held already: then the earlier
    /// position is kept and returned.
    pub fn insert_first<L: IdSource + ?Sized>(&mut self, ids: &L, at: usize) -> Option<usize> {
        let id = ids.id_at(at);
        let h = hash(id);
        if let Some(&p) = self.0.find(h, |&p| ids.id_at(p as usize) == id) {
            return Some(p as usize);
        }
        self.0
            .insert_unique(h, stored(at), |&p| hash(ids.id_at(p as usize)));
        None
    }

    /// Records position `at` of `ids`, in place of an earlier position of its id, which is
    /// returned.
    pub fn insert_last<L: IdSource + ?Sized>(&mut self, ids: &L, at: usize) -> Option<usize> {
        let id = ids.id_at(at);
        let h = hash(id);
        if let Some(p) = self.0.find_mut(h, |&p| ids.id_at(p as usize) == id) {
            return Some(std::mem::replace(p, stored(at)) as usize);
        }
        self.0
            .insert_unique(h, stored(at), |&p| hash(ids.id_at(p as usize)));
        None
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
}
