//! The members of an object by identity. A member's identity is its key and, where an
//! object repeats a key (real files do: Minecraft lang files repeat `"_comment"`), which of
//! base's members with that key it is. Objects with distinct keys (almost all) have every
//! identity's number 0 and are looked up by key alone.
//!
//! A side is read against base ([`KeyIndex::against`]):
//!
//! - a key that base holds at most once and the side writes more than once is read as
//!   JSON readers read it (`JSON.parse`, Gson, serde_json, Python keep the last): one
//!   member, the last occurrence, whose earlier copies are dead; the merge writes it once
//!   and reports the collapse ([`Collapsed`]);
//! - a key that base repeats keeps every occurrence, and a side's occurrences are aligned
//!   with base's: equal values first (a longest common subsequence), then by order between
//!   them; an occurrence paired with none of base's is new. A side inserting a repeat
//!   before the existing ones therefore adds one, instead of shifting every pairing.

use std::borrow::Cow;

use crate::hashing::SeededMap;
use sjson::Value;

use crate::repeats;
use crate::Side;

pub(crate) use crate::repeats::Collapsed;

/// Objects with more members than this are looked up through a hash map.
const FEW: usize = 12;

/// A member's identity in its object: its key and which of base's members with that key
/// it is (0 for a key the object holds once).
pub(crate) type MemberId<'a> = (Cow<'a, str>, u32);

/// Members of an object by key: a linear scan for small objects, a hash map for large.
pub(crate) struct KeyIndex<'a> {
    members: Vec<(Cow<'a, str>, Value<'a>)>,
    /// Whether there is an object at all (`KeyIndex::new(None)` has none).
    present: bool,
    /// The first member of each key (large objects only).
    map: Option<SeededMap<Cow<'a, str>, usize>>,
    /// Each member's number among equal keys, when the object repeats a key (or is read
    /// against a base that does).
    nth: Option<Vec<u32>>,
    /// Each member's position by identity, when `nth` is set.
    by_id: Option<SeededMap<MemberId<'a>, usize>>,
}

impl<'a> KeyIndex<'a> {
    /// The members of `v` (none for `None`), a repeated key's members numbered by
    /// occurrence.
    pub(crate) fn new(v: Option<Value<'a>>) -> Self {
        let members: Vec<_> = v.map(|v| v.members().collect()).unwrap_or_default();
        let repeats = if members.len() > FEW {
            let mut seen = crate::hashing::SeededSet::default();
            !members.iter().all(|(k, _)| seen.insert(k))
        } else {
            (1..members.len()).any(|j| members[..j].iter().any(|m| m.0 == members[j].0))
        };
        let nth = repeats.then(|| repeats::occurrences(&members));
        Self::with_ids(members, v.is_some(), nth)
    }

    /// A side's members read against base's ([`crate::members`]): a key base holds at
    /// most once and the side repeats becomes its last occurrence (each such collapse is
    /// returned); a key base repeats is aligned with base's occurrences. `side` keeps the
    /// two sides' new occurrences of a repeated key apart (both are kept).
    pub(crate) fn against(
        v: Option<Value<'a>>,
        base: &KeyIndex<'a>,
        side: Side,
    ) -> (Self, Vec<Collapsed<'a>>) {
        let index = Self::new(v);
        if index.nth.is_none() && base.nth.is_none() {
            return (index, Vec::new());
        }
        let (mut members, present) = (index.members, index.present);
        let base_counts = base.nth.as_ref().map(|_| repeats::counts(&base.members));
        let collapsed = match index.nth.is_some() && base.present {
            true => repeats::collapse(&mut members, base_counts.as_ref()),
            false => Vec::new(),
        };
        let nth = match &base_counts {
            Some(counts) => repeats::aligned(&members, &base.members, counts, side),
            None => repeats::occurrences(&members),
        };
        (Self::with_ids(members, present, Some(nth)), collapsed)
    }

    fn with_ids(
        members: Vec<(Cow<'a, str>, Value<'a>)>,
        present: bool,
        nth: Option<Vec<u32>>,
    ) -> Self {
        let map = (members.len() > FEW).then(|| {
            let mut map = SeededMap::with_capacity_and_hasher(members.len(), Default::default());
            for (i, (k, _)) in members.iter().enumerate() {
                map.entry(k.clone()).or_insert(i);
            }
            map
        });
        let by_id = nth.as_ref().map(|nth| {
            let ids = members.iter().zip(nth).enumerate();
            ids.map(|(i, ((k, _), n))| ((k.clone(), *n), i)).collect()
        });
        KeyIndex {
            members,
            present,
            map,
            nth,
            by_id,
        }
    }

    /// Whether the object repeats a key.
    #[cfg(test)]
    pub(crate) fn repeats(&self) -> bool {
        self.nth.is_some()
    }

    /// The members in order, each with its identity.
    pub(crate) fn entries(&self) -> impl Iterator<Item = (MemberId<'a>, Value<'a>)> + '_ {
        self.members.iter().enumerate().map(|(i, (k, v))| {
            let nth = self.nth.as_ref().map_or(0, |n| n[i]);
            ((k.clone(), nth), *v)
        })
    }

    /// The first member with `key`.
    pub(crate) fn get(&self, key: &str) -> Option<Value<'a>> {
        self.position(key).map(|i| self.members[i].1)
    }

    /// The member with identity `(key, nth)`.
    pub(crate) fn get_nth(&self, key: &str, nth: u32) -> Option<Value<'a>> {
        match &self.by_id {
            None if nth == 0 => self.get(key),
            None => None,
            Some(by_id) => by_id
                .get(&(Cow::Borrowed(key), nth))
                .map(|&i| self.members[i].1),
        }
    }

    /// Whether a member has `key`.
    #[cfg(test)]
    pub(crate) fn contains(&self, key: &str) -> bool {
        self.position(key).is_some()
    }

    /// Whether a member has identity `(key, nth)`.
    pub(crate) fn contains_nth(&self, key: &str, nth: u32) -> bool {
        self.get_nth(key, nth).is_some()
    }

    /// The index of the first member with `key`.
    pub(crate) fn position(&self, key: &str) -> Option<usize> {
        match &self.map {
            Some(m) => m.get(key).copied(),
            None => self.members.iter().position(|(k, _)| k == key),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::KeyIndex;
    use sjson::{Dialect, Document};

    #[test]
    fn repeated_keys_are_told_apart_by_occurrence() {
        let many: String = (0..20).map(|i| format!("\"k{i}\": {i}, ")).collect();
        for text in [
            r#"{"_c": 1, "a": 2, "_c": 3, "_c": 4}"#.to_string(),
            format!(r#"{{"_c": 1, {many}"a": 2, "_c": 3, "_c": 4}}"#),
        ] {
            let d = Document::parse(text, Dialect::Json).unwrap();
            let ki = KeyIndex::new(Some(d.root()));
            assert!(ki.repeats());
            let value = |n| ki.get_nth("_c", n).map(|v| v.text().to_string());
            assert_eq!(value(0).as_deref(), Some("1"));
            assert_eq!(value(1).as_deref(), Some("3"));
            assert_eq!(value(2).as_deref(), Some("4"));
            assert_eq!(value(3), None);
            assert_eq!(ki.get("_c").unwrap().text(), "1");
            let ids: Vec<u32> = ki
                .entries()
                .filter(|e| e.0 .0 == "_c")
                .map(|e| e.0 .1)
                .collect();
            assert_eq!(ids, [0, 1, 2]);
        }
    }

    #[test]
    fn distinct_keys_have_occurrence_zero() {
        let d = Document::parse(r#"{"a": 1, "b": 2}"#, Dialect::Json).unwrap();
        let ki = KeyIndex::new(Some(d.root()));
        assert!(!ki.repeats());
        assert!(ki.entries().all(|e| e.0 .1 == 0));
        assert!(ki.get_nth("a", 1).is_none());
    }
}
