//! Repeated keys in one object, read against base ([`crate::members`]): the collapse of a
//! side's repeats of a key base holds at most once (JSON readers keep the last), and the
//! alignment of a side's occurrences with base's where base repeats the key.

use std::borrow::Cow;
use std::hash::Hasher;

use crate::hashing::{SeededMap, SeededSet};
use rustc_hash::FxHasher;
use similar::DiffOp;
use sjson::Value;

use crate::Side;

/// The number a new occurrence of theirs starts from: far from base's and ours' numbers,
/// so that both sides' new repeats of a key are kept, not paired with each other.
const THEIRS_NEW: u32 = 1 << 31;

/// A key a side wrote more than once where base holds it at most once: read as its last
/// occurrence, written once.
#[derive(Debug, Clone)]
pub(crate) struct Collapsed<'a> {
    /// The key.
    pub(crate) key: Cow<'a, str>,
    /// How many times the side wrote it.
    pub(crate) times: usize,
}

/// A member list's keys with how many members hold each.
pub(crate) fn counts<'a>(members: &[(Cow<'a, str>, Value<'a>)]) -> SeededMap<Cow<'a, str>, u32> {
    let mut counts: SeededMap<Cow<'a, str>, u32> = SeededMap::default();
    for (k, _) in members {
        *counts.entry(k.clone()).or_default() += 1;
    }
    counts
}

/// Each member's occurrence among the members with its key.
pub(crate) fn occurrences(members: &[(Cow<'_, str>, Value<'_>)]) -> Vec<u32> {
    let mut seen: SeededMap<&str, u32> = SeededMap::default();
    members
        .iter()
        .map(|(k, _)| {
            let n = seen.entry(k).or_default();
            *n += 1;
            *n - 1
        })
        .collect()
}

/// Removes every occurrence but the last of each key `members` repeats while base holds it
/// at most once (`base_counts`: `None` when base repeats no key); returns what it collapsed,
/// in the order of the members kept.
pub(crate) fn collapse<'a>(
    members: &mut Vec<(Cow<'a, str>, Value<'a>)>,
    base_counts: Option<&SeededMap<Cow<'a, str>, u32>>,
) -> Vec<Collapsed<'a>> {
    let in_base = |k: &str| base_counts.map_or(0, |c| c.get(k).copied().unwrap_or(0));
    let times: SeededMap<Cow<'a, str>, u32> = counts(members)
        .into_iter()
        .filter(|(k, n)| *n > 1 && in_base(k) <= 1)
        .collect();
    if times.is_empty() {
        return Vec::new();
    }
    let mut seen: SeededSet<Cow<'a, str>> = SeededSet::default();
    let mut kept = Vec::with_capacity(members.len());
    let mut collapsed = Vec::new();
    for (k, v) in std::mem::take(members).into_iter().rev() {
        match times.get(&k) {
            Some(_) if seen.contains(&k) => continue,
            Some(&n) => {
                seen.insert(k.clone());
                collapsed.push(Collapsed {
                    key: k.clone(),
                    times: n as usize,
                });
            }
            None => {}
        }
        kept.push((k, v));
    }
    kept.reverse();
    collapsed.reverse();
    *members = kept;
    collapsed
}

/// Each member's number: for a key base repeats (`base_counts` above 1), the base
/// occurrence it is aligned with, or a new number (ours from base's count, theirs from
/// [`THEIRS_NEW`]); for other keys its occurrence.
pub(crate) fn aligned<'a>(
    members: &[(Cow<'a, str>, Value<'a>)],
    base: &[(Cow<'a, str>, Value<'a>)],
    base_counts: &SeededMap<Cow<'a, str>, u32>,
    side: Side,
) -> Vec<u32> {
    let mut ids = occurrences(members);
    let repeated = |k: &str| base_counts.get(k).is_some_and(|&n| n > 1);
    let mut sides: SeededMap<&str, Vec<usize>> = SeededMap::default();
    for (i, (k, _)) in members.iter().enumerate() {
        if repeated(k) {
            sides.entry(k).or_default().push(i);
        }
    }
    if sides.is_empty() {
        return ids;
    }
    let mut bases: SeededMap<&str, Vec<Value<'a>>> = SeededMap::default();
    for (k, v) in base {
        if sides.contains_key(k.as_ref()) {
            bases.entry(k).or_default().push(*v);
        }
    }
    for (key, at) in sides {
        let values: Vec<Value<'a>> = at.iter().map(|&i| members[i].1).collect();
        let from_base = bases.get(key).map_or(&[][..], Vec::as_slice);
        let new_from = match side {
            Side::Ours => from_base.len() as u32,
            Side::Theirs => THEIRS_NEW,
        };
        for (&i, id) in at.iter().zip(align(from_base, &values, new_from)) {
            ids[i] = id;
        }
    }
    ids
}

/// For each of `side`'s values, the index of the base value it is paired with: equal
/// values first (a minimal edit script), then by order between them; an unpaired value
/// gets the next number from `new_from`.
fn align(base: &[Value<'_>], side: &[Value<'_>], new_from: u32) -> Vec<u32> {
    let mut classes = Classes::default();
    let b: Vec<u32> = base.iter().map(|v| classes.of(*v)).collect();
    let s: Vec<u32> = side.iter().map(|v| classes.of(*v)).collect();
    let mut ids = vec![u32::MAX; side.len()];
    let mut next = new_from;
    let mut fresh = |ids: &mut [u32], from: usize, len: usize| {
        for id in &mut ids[from..from + len] {
            *id = next;
            next += 1;
        }
    };
    for op in crate::lcs::diff_ops(&b, &s) {
        match op {
            DiffOp::Equal {
                old_index,
                new_index,
                len,
            } => {
                for k in 0..len {
                    ids[new_index + k] = (old_index + k) as u32;
                }
            }
            DiffOp::Delete { .. } => {}
            DiffOp::Insert {
                new_index, new_len, ..
            } => fresh(&mut ids, new_index, new_len),
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => {
                let paired = old_len.min(new_len);
                for k in 0..paired {
                    ids[new_index + k] = (old_index + k) as u32;
                }
                fresh(&mut ids, new_index + paired, new_len - paired);
            }
        }
    }
    ids
}

/// Values numbered by equality ([`Value::same_value`]): equal values, one number.
#[derive(Default)]
struct Classes<'v> {
    by_hash: SeededMap<u64, Vec<(Value<'v>, u32)>>,
    count: u32,
}

impl<'v> Classes<'v> {
    fn of(&mut self, v: Value<'v>) -> u32 {
        let mut h = FxHasher::default();
        v.hash_value(&mut h);
        let bucket = self.by_hash.entry(h.finish()).or_default();
        if let Some((_, class)) = bucket.iter().find(|(w, _)| w.same_value(&v)) {
            return *class;
        }
        self.count += 1;
        bucket.push((v, self.count));
        self.count
    }
}

#[cfg(test)]
mod tests;
