//! The one index of a keyed array: each element's identity — its id, or the value of a
//! natural key such as `name` — mapped to its position, with repeated identities detected.
//! The merge of keyed arrays (`keyed.rs`), move detection (`moves.rs`), the diff
//! (`diff/keyed.rs`) and the pairing of unkeyed objects (`pairing.rs`) all use it.

use std::borrow::Cow;

use rustc_hash::FxHashMap;
use sjson::Value;

use crate::merger::{id_of, id_text};

/// The identities of an array's elements, each unique, and the position of each.
pub(crate) struct KeyedIndex<'a> {
    /// The id key as written in the first element (`None` for an empty array and for an
    /// index by natural key).
    pub(crate) key: Option<Cow<'a, str>>,
    /// Each element's id key as written (empty for an index by natural key).
    pub(crate) keys: Vec<Cow<'a, str>>,
    /// Each element's identity text, in order (numbers marked, see `id_text`).
    pub(crate) ids: Vec<Cow<'a, str>>,
    /// Position of each identity.
    index: FxHashMap<Cow<'a, str>, u32>,
}

impl<'a> KeyedIndex<'a> {
    /// The index of `arr` by id if every element is an object with an id under the same
    /// id key (one of `id_keys_lower`, case-insensitive) and no id repeats.
    pub(crate) fn by_id(id_keys_lower: &[String], arr: Value<'a>) -> Option<Self> {
        let mut key: Option<Cow<'a, str>> = None;
        let mut keys = Vec::with_capacity(arr.len());
        let mut ids = Vec::with_capacity(arr.len());
        let mut index = FxHashMap::default();
        index.reserve(arr.len());
        for (i, el) in arr.children().enumerate() {
            let (k, id) = id_of(id_keys_lower, el)?;
            match &key {
                Some(first) if !first.eq_ignore_ascii_case(&k) => return None,
                Some(_) => {}
                None => key = Some(k.clone()),
            }
            if index.insert(id.clone(), position(i)).is_some() {
                return None;
            }
            keys.push(k);
            ids.push(id);
        }
        Some(KeyedIndex {
            key,
            keys,
            ids,
            index,
        })
    }

    /// The index of `els` by natural key `key` if the list is not empty and every element
    /// holds `key` with a string or number value that no other element repeats.
    pub(crate) fn by_natural_key(els: &[Value<'a>], key: &str) -> Option<Self> {
        if els.is_empty() {
            return None;
        }
        let ids = els
            .iter()
            .map(|el| id_text(el.get(key)?))
            .collect::<Option<Vec<_>>>()?;
        Self::from_ids(None, ids)
    }

    /// The index of identities given in order (`None` if one repeats).
    pub(crate) fn from_ids(key: Option<Cow<'a, str>>, ids: Vec<Cow<'a, str>>) -> Option<Self> {
        let (index, unique) = Self::build(key, ids);
        unique.then_some(index)
    }

    /// The index of identities unique by construction (aligned ids: each counterpart's id
    /// used once, the others made from their position); were one repeated, its last
    /// position would count.
    pub(crate) fn aligned(key: Option<Cow<'a, str>>, ids: Vec<Cow<'a, str>>) -> Self {
        Self::build(key, ids).0
    }

    fn build(key: Option<Cow<'a, str>>, ids: Vec<Cow<'a, str>>) -> (Self, bool) {
        let mut index = FxHashMap::default();
        index.reserve(ids.len());
        let mut unique = true;
        for (i, id) in ids.iter().enumerate() {
            unique &= index.insert(id.clone(), position(i)).is_none();
        }
        let keyed = KeyedIndex {
            key,
            keys: Vec::new(),
            ids,
            index,
        };
        (keyed, unique)
    }

    /// The position of the element with identity `id`.
    pub(crate) fn get(&self, id: &str) -> Option<usize> {
        self.index.get(id).map(|&i| i as usize)
    }

    /// Whether an element has identity `id`.
    pub(crate) fn contains(&self, id: &str) -> bool {
        self.index.contains_key(id)
    }

    /// For each element here, the position of the element with the same identity in
    /// `other`: one lookup per element, so that later steps compare positions instead of
    /// hashing identities again.
    pub(crate) fn positions_in(&self, other: &KeyedIndex<'_>) -> Vec<Option<u32>> {
        self.ids
            .iter()
            .map(|id| other.index.get(id.as_ref()).copied())
            .collect()
    }
}

/// A position as stored (arrays hold fewer than 2³² elements: a document's nodes are
/// numbered by `u32`).
fn position(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

/// The inverse of a partial map from `0..n` into `0..m` that is one-to-one.
pub(crate) fn invert(map: &[Option<u32>], m: usize) -> Vec<Option<u32>> {
    let mut inverse = vec![None; m];
    for (i, j) in map.iter().enumerate() {
        if let Some(j) = j {
            inverse[*j as usize] = Some(position(i));
        }
    }
    inverse
}

#[cfg(test)]
mod tests {
    use sjson::{Dialect, Document};

    use super::*;

    fn elements<'d>(d: &'d Document, key: &str) -> Vec<Value<'d>> {
        d.root().get(key).unwrap().children().collect()
    }

    #[test]
    fn natural_keys_must_be_present_unique_and_scalar() {
        let d = Document::parse(
            "a = [{ name = x } { name = 2 } { name = 2.0 }] b = [{ name = x } { v = 1 }] \
             c = [{ name = x } { name = y }] e = [] f = [{ name = [1] }]",
            Dialect::Sjson,
        )
        .unwrap();
        // 2 and 2.0 are one value.
        assert!(KeyedIndex::by_natural_key(&elements(&d, "a"), "name").is_none());
        assert!(KeyedIndex::by_natural_key(&elements(&d, "b"), "name").is_none());
        assert!(KeyedIndex::by_natural_key(&elements(&d, "e"), "name").is_none());
        assert!(KeyedIndex::by_natural_key(&elements(&d, "f"), "name").is_none());
        let c = KeyedIndex::by_natural_key(&elements(&d, "c"), "name").unwrap();
        assert_eq!(
            (c.get("x"), c.get("y"), c.get("z")),
            (Some(0), Some(1), None)
        );
    }

    #[test]
    fn positions_map_between_versions_and_invert() {
        let ids = |list: &[&'static str]| {
            KeyedIndex::from_ids(None, list.iter().map(|s| Cow::Borrowed(*s)).collect()).unwrap()
        };
        let (a, b) = (ids(&["p", "q", "r"]), ids(&["r", "s", "p"]));
        let ab = a.positions_in(&b);
        assert_eq!(ab, [Some(2), None, Some(0)]);
        assert_eq!(invert(&ab, 3), [Some(2), None, Some(0)]);
        assert!(KeyedIndex::from_ids(None, vec![Cow::Borrowed("p"); 2]).is_none());
    }
}
