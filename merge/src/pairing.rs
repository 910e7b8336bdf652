//! Pairing unkeyed objects across versions: by a natural key (a field such as `name`
//! that is present and unique in every element), else by structural similarity.

use std::collections::VecDeque;
use std::hash::{Hash, Hasher};

use rustc_hash::{FxHashMap, FxHasher};
use sjson::{Kind, Value};

/// A 64-bit hash of a value (formatting ignored), optionally skipping one member.
pub(crate) fn value_hash(v: Value<'_>, skip_member: Option<&str>) -> u64 {
    let mut h = FxHasher::default();
    match skip_member {
        Some(skip) if v.kind() == Kind::Object => {
            6u8.hash(&mut h);
            for (k, c) in v.members() {
                if !k.eq_ignore_ascii_case(skip) {
                    k.hash(&mut h);
                    c.hash_value(&mut h);
                }
            }
        }
        _ => v.hash_value(&mut h),
    }
    h.finish()
}

/// How alike two values are, from 0 to 1: for objects the share of keys (of both) whose
/// values are equal, `skip_member` ignored; for other values 1 if equal, else 0.
pub(crate) fn similarity(a: Value<'_>, b: Value<'_>, skip_member: Option<&str>) -> f64 {
    if a.kind() != Kind::Object || b.kind() != Kind::Object {
        return if a.same_value(&b) { 1.0 } else { 0.0 };
    }
    let skip = |k: &str| skip_member.is_some_and(|s| k.eq_ignore_ascii_case(s));
    let mut equal = 0usize;
    let mut union = 0usize;
    for (k, av) in a.members() {
        if skip(&k) {
            continue;
        }
        union += 1;
        if b.get(&k).is_some_and(|bv| bv.same_value(&av)) {
            equal += 1;
        }
    }
    for (k, _) in b.members() {
        if !skip(&k) && a.get(&k).is_none() {
            union += 1;
        }
    }
    if union == 0 {
        1.0
    } else {
        equal as f64 / union as f64
    }
}

/// The least similarity for two objects to be taken as versions of one another.
pub(crate) const PAIRING_THRESHOLD: f64 = 0.5;

/// Up to this many (x, y) comparisons, similarity pairing considers every pair.
const FULL_SEARCH: usize = 1 << 16;

/// Beyond that, each x is compared with the ys this close to its relative position.
const WINDOW: usize = 32;

/// Pairs each of `xs` with at most one of `ys`: by a natural key present and unique in
/// every element of both if there is one; else equal values first, then similarity (in
/// order, greedily; near the same relative position only, in long lists).
pub(crate) fn pair(
    xs: &[Value<'_>],
    ys: &[Value<'_>],
    natural_keys: &[String],
    skip_member: Option<&str>,
) -> Vec<Option<usize>> {
    let mut result = vec![None; xs.len()];
    let mut used = vec![false; ys.len()];
    if let Some(key) = natural_keys
        .iter()
        .find(|k| unique_natural_key(xs, k) && unique_natural_key(ys, k))
    {
        let by_key: FxHashMap<String, usize> = ys
            .iter()
            .enumerate()
            .filter_map(|(j, y)| Some((natural_value(*y, key)?, j)))
            .collect();
        for (i, x) in xs.iter().enumerate() {
            if let Some(&j) = natural_value(*x, key).and_then(|v| by_key.get(&v)) {
                result[i] = Some(j);
                used[j] = true;
            }
        }
        return result;
    }
    // Equal values: each x takes the first unused equal y (found by hash).
    let mut by_hash: FxHashMap<u64, VecDeque<usize>> = FxHashMap::default();
    for (j, y) in ys.iter().enumerate() {
        by_hash
            .entry(value_hash(*y, None))
            .or_default()
            .push_back(j);
    }
    for (i, x) in xs.iter().enumerate() {
        let Some(candidates) = by_hash.get_mut(&value_hash(*x, None)) else {
            continue;
        };
        if let Some(k) = candidates.iter().position(|&j| ys[j].same_value(x)) {
            let j = candidates.remove(k).unwrap_or_default();
            result[i] = Some(j);
            used[j] = true;
        }
    }
    // Similarity: the best unused y, among all of them for small inputs, else among
    // those near x's relative position (versions of a long list keep their order; a
    // search of every pair would be quadratic).
    let full = xs.len().saturating_mul(ys.len()) <= FULL_SEARCH;
    for (i, x) in xs.iter().enumerate() {
        if result[i].is_some() {
            continue;
        }
        let range = if full {
            0..ys.len()
        } else {
            let center = i * ys.len() / xs.len().max(1);
            center.saturating_sub(WINDOW)..(center + WINDOW + 1).min(ys.len())
        };
        let best = range
            .filter(|&j| !used[j])
            .map(|j| (j, similarity(*x, ys[j], skip_member)))
            .filter(|&(_, s)| s >= PAIRING_THRESHOLD)
            .fold(None, |best: Option<(usize, f64)>, (j, s)| match best {
                Some((_, bs)) if bs >= s => best,
                _ => Some((j, s)),
            });
        if let Some((j, _)) = best {
            result[i] = Some(j);
            used[j] = true;
        }
    }
    result
}

/// The natural key's value as text: strings as they are, numbers by value (as ids).
fn natural_value(v: Value<'_>, key: &str) -> Option<String> {
    crate::merger::id_text(v.get(key)?).map(std::borrow::Cow::into_owned)
}

fn unique_natural_key(xs: &[Value<'_>], key: &str) -> bool {
    let mut seen = rustc_hash::FxHashSet::default();
    !xs.is_empty()
        && xs
            .iter()
            .all(|x| natural_value(*x, key).is_some_and(|v| seen.insert(v)))
}

#[cfg(test)]
mod tests {
    use sjson::{Dialect, Document};

    use super::*;

    fn doc(text: &str) -> Document {
        Document::parse(text, Dialect::Sjson).unwrap()
    }

    fn elements(d: &Document) -> Vec<Value<'_>> {
        d.root().get("l").unwrap().children().collect()
    }

    #[test]
    fn hashes_ignore_formatting_and_the_skipped_member() {
        let d = doc("l = [{ a = 1, b = [1 2] } {a=1.0 b=[1,2.0]} { id = 7 a = 1 b = [1 2] } { b = [1 2] a = 1 }]");
        let e = elements(&d);
        assert_eq!(value_hash(e[0], None), value_hash(e[1], None));
        assert_ne!(value_hash(e[0], None), value_hash(e[2], None));
        assert_eq!(value_hash(e[0], Some("id")), value_hash(e[2], Some("ID")));
        // Key order matters (objects are ordered).
        assert_ne!(value_hash(e[0], None), value_hash(e[3], None));
    }

    #[test]
    fn similarity_is_the_share_of_equal_members() {
        let d =
            doc("l = [{ a = 1 b = 2 c = 3 d = 4 } { a = 1 b = 2 c = 0 } { x = 1 } {} {} 5 5.0 6]");
        let e = elements(&d);
        // Equal: a, b; union: a, b, c, d.
        assert_eq!(similarity(e[0], e[1], None), 0.5);
        assert_eq!(similarity(e[0], e[2], None), 0.0);
        assert_eq!(similarity(e[3], e[4], None), 1.0);
        assert_eq!(similarity(e[5], e[6], None), 1.0);
        assert_eq!(similarity(e[5], e[7], None), 0.0);
        assert_eq!(similarity(e[0], e[5], None), 0.0);
        let d = doc("l = [{ id = 1 a = 1 } { id = 2 a = 1 }]");
        let e = elements(&d);
        assert_eq!(similarity(e[0], e[1], Some("id")), 1.0);
        assert_eq!(similarity(e[0], e[1], None), 0.5);
    }

    #[test]
    fn pairs_by_natural_key_first() {
        let d = doc("x = [{ name = a v = 1 } { name = b v = 2 }] y = [{ name = b v = 1 } { name = c v = 2 } { name = a v = 9 }]");
        let xs: Vec<_> = d.root().get("x").unwrap().children().collect();
        let ys: Vec<_> = d.root().get("y").unwrap().children().collect();
        // By name even though b's value equals nothing and a's changed.
        assert_eq!(pair(&xs, &ys, &["name".into()], None), [Some(2), Some(0)]);
        // Without natural keys: by similarity (v = 1 equal for x0 and y0, names differ).
        assert_eq!(pair(&xs, &ys, &[], None), [Some(0), Some(1)]);
    }

    #[test]
    fn numeric_natural_keys_compare_by_value() {
        let d = doc("x = [{ name = 1 v = 1 } { name = 2 v = 2 }] y = [{ name = 2.0 v = 0 } { name = 1.0 v = 0 }]");
        let xs: Vec<_> = d.root().get("x").unwrap().children().collect();
        let ys: Vec<_> = d.root().get("y").unwrap().children().collect();
        assert_eq!(pair(&xs, &ys, &["name".into()], None), [Some(1), Some(0)]);
    }

    #[test]
    fn a_natural_key_must_be_present_and_unique() {
        let d = doc("x = [{ name = a v = 1 w = 1 } { name = a v = 2 w = 2 }] y = [{ name = a v = 2 w = 2 } { name = a v = 1 w = 1 }]");
        let xs: Vec<_> = d.root().get("x").unwrap().children().collect();
        let ys: Vec<_> = d.root().get("y").unwrap().children().collect();
        // `name` repeats: pairing falls back to equality.
        assert_eq!(pair(&xs, &ys, &["name".into()], None), [Some(1), Some(0)]);
        let d = doc("x = [{ name = a } { v = 1 }] y = [{ v = 1 } { name = a }]");
        let xs: Vec<_> = d.root().get("x").unwrap().children().collect();
        let ys: Vec<_> = d.root().get("y").unwrap().children().collect();
        assert_eq!(pair(&xs, &ys, &["name".into()], None), [Some(1), Some(0)]);
    }

    #[test]
    fn dissimilar_objects_stay_unpaired_and_each_is_used_once() {
        let d = doc("x = [{ a = 1 b = 1 c = 1 } { a = 1 b = 1 c = 1 }] y = [{ a = 1 b = 1 c = 2 } { p = 1 }]");
        let xs: Vec<_> = d.root().get("x").unwrap().children().collect();
        let ys: Vec<_> = d.root().get("y").unwrap().children().collect();
        // Both x resemble y0 (2 of 4 keys equal), only the first gets it.
        assert_eq!(pair(&xs, &ys, &[], None), [Some(0), None]);
        assert_eq!(pair(&xs, &[], &[], None), [None, None]);
        assert!(pair(&[], &ys, &[], None).is_empty());
    }
}
