//! The members of an object by identity. A member's identity is its key and, where an
//! object repeats a key (real files do: Minecraft lang files repeat `"_comment"`), its
//! occurrence among the members with that key: the k-th `"_comment"` of base pairs with
//! the k-th of ours and of theirs. Objects with distinct keys (almost all) have every
//! occurrence 0 and are looked up by key alone.

use std::borrow::Cow;

use rustc_hash::FxHashMap;
use sjson::Value;

/// Objects with more members than this are looked up through a hash map.
const FEW: usize = 12;

/// A member's identity in its object: its key and its occurrence among equal keys.
pub(crate) type MemberId<'a> = (Cow<'a, str>, u32);

/// Members of an object by key: a linear scan for small objects, a hash map for large.
pub(crate) struct KeyIndex<'a> {
    members: Vec<(Cow<'a, str>, Value<'a>)>,
    /// The first member of each key (large objects only).
    map: Option<FxHashMap<Cow<'a, str>, usize>>,
    /// Each member's occurrence among equal keys, when the object repeats a key.
    nth: Option<Vec<u32>>,
}

impl<'a> KeyIndex<'a> {
    pub(crate) fn new(v: Option<Value<'a>>) -> Self {
        let members: Vec<_> = v.map(|v| v.members().collect()).unwrap_or_default();
        let mut repeats = false;
        let map = if members.len() > FEW {
            let mut map = FxHashMap::with_capacity_and_hasher(members.len(), Default::default());
            for (i, (k, _)) in members.iter().enumerate() {
                repeats |= map.insert(k.clone(), i).is_some();
            }
            if repeats {
                // Back to the first member of each key.
                for (i, (k, _)) in members.iter().enumerate().rev() {
                    map.insert(k.clone(), i);
                }
            }
            Some(map)
        } else {
            repeats = (1..members.len()).any(|j| members[..j].iter().any(|m| m.0 == members[j].0));
            None
        };
        let nth = repeats.then(|| occurrences(&members));
        KeyIndex { members, map, nth }
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
        if nth == 0 {
            return self.get(key);
        }
        self.nth.as_ref()?;
        self.members
            .iter()
            .filter(|(k, _)| k == key)
            .nth(nth as usize)
            .map(|(_, v)| *v)
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

/// Each member's occurrence among the members with its key.
fn occurrences(members: &[(Cow<'_, str>, Value<'_>)]) -> Vec<u32> {
    let mut seen: FxHashMap<&str, u32> = FxHashMap::default();
    members
        .iter()
        .map(|(k, _)| {
            let n = seen.entry(k).or_default();
            *n += 1;
            *n - 1
        })
        .collect()
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
