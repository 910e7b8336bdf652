//! The one index of a keyed array: each element's identity — its id, or the value of a
//! natural key such as `name` — mapped to its position, with repeated identities detected.
//! The merge of keyed arrays (`keyed.rs`), move detection (`moves.rs`), the diff
//! (`diff/keyed.rs`) and the pairing of unkeyed objects (`pairing.rs`) all use it.

use std::borrow::Cow;
use std::num::NonZeroU32;

use sjson::{NodeId, Value};

use crate::id::{id_of, id_text};
use crate::id_list::IdList;
use crate::id_table::IdTable;

/// The keyed-array ids of arrays by (document address, node).
pub(crate) type KeyedCache<'a> = std::cell::RefCell<KeyedIndexes<'a>>;

/// Keyed-array indexes (`None`: not a keyed array) by (document address, node); shared
/// (`Arc`) because move detection builds them on two threads for large documents.
pub(crate) type KeyedIndexes<'a> =
    crate::hashing::SeededMap<(usize, sjson::NodeId), Option<std::sync::Arc<KeyedIndex<'a>>>>;

/// The identities of an array's elements, each unique, and the position of each.
pub(crate) struct KeyedIndex<'a> {
    /// The id key as written in the first element (`None` for an empty array and for an
    /// index by natural key).
    pub(crate) key: Option<Cow<'a, str>>,
    /// Each element's id key as written, when one differs from the first's (empty when
    /// all are written alike, and for an index by natural key).
    keys: Vec<Cow<'a, str>>,
    /// Each element's identity text, in order (numbers marked, see `id_text`).
    pub(crate) ids: IdList<'a>,
    /// Each element's node, for an index built from the array ([`KeyedIndex::by_id`]):
    /// the elements by position without walking the array again.
    nodes: Vec<NodeId>,
    /// The position of each identity (a [`IdTable`] over `ids`: a 100,000-element array's
    /// index is built for each version).
    index: IdTable,
}

impl<'a> KeyedIndex<'a> {
    /// The index of `arr` by id if every element is an object with an id under the same
    /// id key (one of `id_keys_lower`, case-insensitive) and no id repeats.
    pub(crate) fn by_id(id_keys_lower: &[String], arr: Value<'a>) -> Option<Self> {
        let mut key: Option<Cow<'a, str>> = None;
        let mut keys: Vec<Cow<'a, str>> = Vec::new();
        let mut ids = IdList::with_capacity(arr.doc().text(), arr.len());
        let mut nodes = Vec::with_capacity(arr.len());
        for (i, el) in arr.children().enumerate() {
            let (k, id) = id_of(id_keys_lower, el)?;
            match &key {
                Some(first) if !first.eq_ignore_ascii_case(&k) => return None,
                Some(first) if *first != k || !keys.is_empty() => {
                    // The first element written another way: every key is kept.
                    if keys.is_empty() {
                        keys = vec![first.clone(); i];
                    }
                    keys.push(k);
                }
                Some(_) => {}
                None => key = Some(k),
            }
            ids.push(id);
            nodes.push(el.id());
        }
        // The table is built whole once the ids are known: a long array's in parts that
        // stay in the cache (see `IdTable`).
        let index = IdTable::first_of_each(&ids, ids.len()).ok()?;
        Some(KeyedIndex {
            key,
            keys,
            ids,
            nodes,
            index,
        })
    }

    /// The elements of `arr`, the array this index was made for, by position: from the
    /// nodes the index holds, or collected when it holds none (an index by natural key or
    /// of aligned ids).
    pub(crate) fn elements<'i>(&'i self, arr: Value<'a>) -> Elements<'i, 'a> {
        if self.nodes.len() == arr.len() && !self.nodes.is_empty() {
            Elements::Indexed(arr.doc(), &self.nodes)
        } else {
            Elements::Collected(arr.children().collect())
        }
    }

    /// Frees the table that finds a position by id: [`KeyedIndex::get`] and the lookups
    /// after it find nothing. For an index its owner no longer looks up by id.
    pub(crate) fn drop_lookup(&mut self) {
        self.index = IdTable::default();
    }

    /// Frees the ids and the table that finds them, keeping the elements' nodes
    /// ([`KeyedIndex::elements`]): the index then holds no id. For an index its owner
    /// reads elements of by position only.
    pub(crate) fn keep_only_nodes(&mut self) {
        self.drop_lookup();
        self.ids = IdList::from_ids("", std::iter::empty());
    }

    /// The id key of element `i` as written (empty for an index by natural key).
    pub(crate) fn key_at(&self, i: usize) -> &str {
        self.keys.get(i).or(self.key.as_ref()).map_or("", |k| k)
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
        Self::from_ids(None, IdList::from_ids(els[0].doc().text(), ids))
    }

    /// The index of identities given in order (`None` if one repeats).
    pub(crate) fn from_ids(key: Option<Cow<'a, str>>, ids: IdList<'a>) -> Option<Self> {
        let (index, unique) = Self::build(key, ids);
        unique.then_some(index)
    }

    /// The index of identities unique by construction (aligned ids: each counterpart's id
    /// used once, the others made from their position); were one repeated, its last
    /// position would count.
    pub(crate) fn aligned(key: Option<Cow<'a, str>>, ids: IdList<'a>) -> Self {
        Self::build(key, ids).0
    }

    fn build(key: Option<Cow<'a, str>>, ids: IdList<'a>) -> (Self, bool) {
        let mut index = IdTable::with_capacity(ids.len());
        let mut unique = true;
        for i in 0..ids.len() {
            unique &= index.insert_last(&ids, i).is_none();
        }
        let keyed = KeyedIndex {
            key,
            keys: Vec::new(),
            ids,
            nodes: Vec::new(),
            index,
        };
        (keyed, unique)
    }

    /// The position of the element with identity `id`.
    pub(crate) fn get(&self, id: &str) -> Option<usize> {
        self.index.find(&self.ids, id)
    }

    /// Whether an element has identity `id`.
    pub(crate) fn contains(&self, id: &str) -> bool {
        self.get(id).is_some()
    }

    /// The position of the element with identity `id`, looked for first at `guess`: the
    /// versions of an array mostly keep their order, so the element after the one found
    /// at `p` is mostly at `p + 1`, and comparing the id there reads memory in order
    /// where a hash lookup jumps.
    fn get_near(&self, id: &str, guess: usize) -> Option<usize> {
        if guess < self.ids.len() && self.ids.get(guess) == id {
            Some(guess)
        } else {
            self.get(id)
        }
    }

    /// The position here of each of `ids` in turn, each looked for first just after the
    /// one found before ([`KeyedIndex::get_near`]): the ids of another version of the
    /// array, mostly in the same order.
    pub(crate) fn find_each<'s>(
        &'s self,
        ids: impl IntoIterator<Item = &'s str> + 's,
    ) -> impl Iterator<Item = Option<usize>> + 's {
        let mut guess = 0;
        ids.into_iter().map(move |id| {
            let found = self.get_near(id, guess);
            guess = found.map_or(guess + 1, |p| p + 1);
            found
        })
    }

    /// For each element here, the position of the element with the same identity in
    /// `other`: one lookup per element, so that later steps compare positions instead of
    /// hashing identities again.
    pub(crate) fn positions_in(&self, other: &KeyedIndex<'_>) -> Vec<Option<Pos>> {
        other
            .find_each(self.ids.iter())
            .map(|found| found.map(Pos::new))
            .collect()
    }
}

/// An indexed array's elements by position (see [`KeyedIndex::elements`]).
pub(crate) enum Elements<'i, 'a> {
    /// The array's document and its elements' nodes, from the index.
    Indexed(&'a sjson::Document, &'i [NodeId]),
    /// The elements, collected.
    Collected(Vec<Value<'a>>),
}

impl<'a> Elements<'_, 'a> {
    /// How many elements there are.
    pub(crate) fn len(&self) -> usize {
        match self {
            Elements::Indexed(_, nodes) => nodes.len(),
            Elements::Collected(values) => values.len(),
        }
    }

    /// Element `i`.
    pub(crate) fn at(&self, i: usize) -> Value<'a> {
        match self {
            Elements::Indexed(doc, nodes) => doc.value(nodes[i]),
            Elements::Collected(values) => values[i],
        }
    }
}

/// A position in an array as stored in the maps between versions: 4 bytes, and 4 bytes
/// as an `Option` too (the position plus one is held, never zero). Arrays hold fewer than
/// 2³² - 1 elements: a document's nodes are numbered by `u32`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Pos(NonZeroU32);

impl Pos {
    /// Position `i`.
    pub(crate) fn new(i: usize) -> Self {
        Pos(u32::try_from(i + 1)
            .ok()
            .and_then(NonZeroU32::new)
            .unwrap_or(NonZeroU32::MAX))
    }

    /// The position.
    pub(crate) fn get(self) -> usize {
        self.0.get() as usize - 1
    }
}

/// The inverse of a partial map from `0..n` into `0..m` that is one-to-one.
pub(crate) fn invert(map: &[Option<Pos>], m: usize) -> Vec<Option<Pos>> {
    let mut inverse = vec![None; m];
    for (i, j) in map.iter().enumerate() {
        if let Some(j) = j {
            inverse[j.get()] = Some(Pos::new(i));
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
    fn each_element_keeps_its_id_key_as_written() {
        let d = Document::parse(
            "a = [{ id = x } { id = y }] b = [{ id = x } { ID = y } { Id = z }] \
             c = [{ id = x } { id = x }] d = [{ id = x } { guid = y }]",
            Dialect::Sjson,
        )
        .unwrap();
        let keys = ["id".to_string(), "guid".to_string()];
        let by_id = |name| KeyedIndex::by_id(&keys, d.root().get(name).unwrap());
        let a = by_id("a").unwrap();
        assert_eq!((a.key_at(0), a.key_at(1)), ("id", "id"));
        assert!(a.keys.is_empty(), "written alike: no key kept per element");
        let b = by_id("b").unwrap();
        assert_eq!((b.key_at(0), b.key_at(1), b.key_at(2)), ("id", "ID", "Id"));
        assert_eq!(
            (b.get("x"), b.get("y"), b.get("z"), b.get("w")),
            (Some(0), Some(1), Some(2), None)
        );
        assert!(by_id("c").is_none(), "a repeated id");
        assert!(by_id("d").is_none(), "two id keys");
    }

    #[test]
    fn positions_map_between_versions_and_invert() {
        let ids = |list: &[&'static str]| {
            KeyedIndex::from_ids(
                None,
                IdList::from_ids("", list.iter().map(|s| Cow::Borrowed(*s))),
            )
            .unwrap()
        };
        let (a, b) = (ids(&["p", "q", "r"]), ids(&["r", "s", "p"]));
        let get = |map: &[Option<Pos>]| map.iter().map(|p| p.map(Pos::get)).collect::<Vec<_>>();
        let ab = a.positions_in(&b);
        assert_eq!(get(&ab), [Some(2), None, Some(0)]);
        assert_eq!(get(&invert(&ab, 3)), [Some(2), None, Some(0)]);
        assert_eq!(std::mem::size_of::<Option<Pos>>(), 4);
        let twice = IdList::from_ids("", vec![Cow::Borrowed("p"); 2]);
        assert!(KeyedIndex::from_ids(None, twice).is_none());
        // A guess is checked, then the table asked.
        assert_eq!(b.get_near("s", 1), Some(1));
        assert_eq!(b.get_near("s", 0), Some(1));
        assert_eq!(b.get_near("s", 9), Some(1));
        assert_eq!(b.get_near("q", 1), None);
        // Ids in order, in reverse, missing and repeated: each found wherever it is.
        let found: Vec<_> = b.find_each(["r", "s", "p", "p", "s", "x", "r"]).collect();
        assert_eq!(
            found,
            [Some(0), Some(1), Some(2), Some(2), Some(1), None, Some(0)]
        );
        // Aligned ids repeated: the last position counts.
        let aligned = KeyedIndex::aligned(
            None,
            IdList::from_ids("", ["p", "q", "p"].map(Cow::Borrowed)),
        );
        assert_eq!((aligned.get("p"), aligned.get("q")), (Some(2), Some(1)));
        assert!(aligned.contains("q") && !aligned.contains("r"));
    }
}
