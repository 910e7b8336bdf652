//! Pairing unkeyed objects across versions: by a natural key (a field such as `name`
//! that is present and unique in every element), else by structural similarity.

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

/// Pairs each of `xs` with at most one of `ys`: equal values first, then a natural key
/// present and unique in every element of both, then similarity (in order, greedily).
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
    for (i, x) in xs.iter().enumerate() {
        if let Some(j) = (0..ys.len()).find(|&j| !used[j] && ys[j].same_value(x)) {
            result[i] = Some(j);
            used[j] = true;
        }
    }
    for (i, x) in xs.iter().enumerate() {
        if result[i].is_some() {
            continue;
        }
        let best = (0..ys.len())
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

fn natural_value(v: Value<'_>, key: &str) -> Option<String> {
    let n = v.get(key)?;
    match n.kind() {
        Kind::String => n.as_str().map(|s| s.into_owned()),
        Kind::Number => Some(format!("\u{0}{}", n.text())),
        _ => None,
    }
}

fn unique_natural_key(xs: &[Value<'_>], key: &str) -> bool {
    let mut seen = rustc_hash::FxHashSet::default();
    !xs.is_empty()
        && xs
            .iter()
            .all(|x| natural_value(*x, key).is_some_and(|v| seen.insert(v)))
}
