//! An object's members in order, found by key in constant time: a patch of 80 000 `add`s
//! to one object was quadratic when each looked its key up by scanning (issue #30 item 9).

use crate::hashing::SeededMap;

use super::Json;

/// Members in order; removed ones leave a hole until holes are half of the list.
#[derive(Debug, Clone, Default)]
pub struct Members {
    /// The members, `None` where one was removed.
    slots: Vec<Option<(String, Json)>>,
    /// The slot of each key's first member.
    index: SeededMap<String, usize>,
    /// How many slots hold a member.
    len: usize,
}

impl Members {
    /// The members of `list`, in its order (a repeated key is kept; lookups find its first).
    pub fn from_list(list: Vec<(String, Json)>) -> Members {
        let mut m = Members {
            slots: list.into_iter().map(Some).collect(),
            index: SeededMap::default(),
            len: 0,
        };
        m.reindex();
        m
    }

    fn reindex(&mut self) {
        self.index.clear();
        self.len = 0;
        for (i, slot) in self.slots.iter().enumerate() {
            if let Some((k, _)) = slot {
                self.index.entry(k.clone()).or_insert(i);
                self.len += 1;
            }
        }
    }

    /// How many members.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The members in order.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &Json)> {
        self.slots.iter().flatten().map(|(k, v)| (k, v))
    }

    /// The value of `key` (its first member).
    pub fn get(&self, key: &str) -> Option<&Json> {
        let i = *self.index.get(key)?;
        self.slots[i].as_ref().map(|(_, v)| v)
    }

    /// The value of `key`, to change.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Json> {
        let i = *self.index.get(key)?;
        self.slots[i].as_mut().map(|(_, v)| v)
    }

    /// Sets `key` to `value`: in its place if it is there, else at the end.
    pub fn set(&mut self, key: &str, value: Json) {
        if let Some(v) = self.get_mut(key) {
            *v = value;
            return;
        }
        self.index.insert(key.to_string(), self.slots.len());
        self.slots.push(Some((key.to_string(), value)));
        self.len += 1;
    }

    /// Removes `key` (its first member) and gives its value.
    pub fn remove(&mut self, key: &str) -> Option<Json> {
        let i = self.index.remove(key)?;
        let (_, value) = self.slots[i].take()?;
        self.len -= 1;
        if let Some(next) = self.slots[i + 1..]
            .iter()
            .position(|s| s.as_ref().is_some_and(|(k, _)| k == key))
        {
            // A repeated key (rare): its next member is found from now on.
            self.index.insert(key.to_string(), i + 1 + next);
        }
        if self.slots.len() > 16 && self.len * 2 < self.slots.len() {
            self.slots.retain(Option::is_some);
            self.reindex();
        }
        Some(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Members behave as the ordered list of pairs they stand for: set replaces the
        /// first member of a key in place or appends, remove takes the first.
        #[test]
        fn members_behave_as_an_ordered_list(
            start in proptest::collection::vec((0u8..6, 0u8..9), 0..12),
            ops in proptest::collection::vec((any::<bool>(), 0u8..6, 0u8..9), 0..60),
        ) {
            let pair = |k: u8, v: u8| (format!("k{k}"), Json::Number(v.to_string()));
            let mut list: Vec<(String, Json)> = start.iter().map(|&(k, v)| pair(k, v)).collect();
            let mut m = Members::from_list(list.clone());
            for (set, k, v) in ops {
                let (key, value) = pair(k, v);
                if set {
                    m.set(&key, value.clone());
                    match list.iter_mut().find(|(x, _)| *x == key) {
                        Some((_, old)) => *old = value,
                        None => list.push((key, value)),
                    }
                } else {
                    let got = m.remove(&key).map(|j| format!("{j:?}"));
                    let want = list
                        .iter()
                        .position(|(x, _)| *x == key)
                        .map(|i| format!("{:?}", list.remove(i).1));
                    prop_assert_eq!(got, want);
                }
                let now: Vec<String> = m.iter().map(|(k, v)| format!("{k}={v:?}")).collect();
                let want: Vec<String> = list.iter().map(|(k, v)| format!("{k}={v:?}")).collect();
                prop_assert_eq!(now, want);
                prop_assert_eq!(m.len(), list.len());
            }
        }
    }
}
