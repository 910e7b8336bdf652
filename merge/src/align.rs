//! Alignment of an unmigrated array version to a keyed one: the elements of a version
//! without ids get the ids of the elements they correspond to (see
//! `Merger::align_unkeyed`), by value and similarity, ids left out of the comparison.

use std::borrow::Cow;
use std::hash::{Hash, Hasher};

use rustc_hash::{FxHashMap, FxHashSet};
use sjson::{Kind, Value};

use crate::pairing::{pair, value_hash};
use crate::sequence::matches;

pub(crate) type IsId<'f> = &'f dyn Fn(&str) -> bool;

/// A value's hash with every id member left out (at any depth), and for an
/// object its members' (sorted by key; ids left out).
struct Print {
    whole: u64,
    members: Option<Vec<(String, u64)>>,
}

fn bare_hash(v: Value<'_>, is_id: IsId<'_>, h: &mut rustc_hash::FxHasher) {
    match v.kind() {
        Kind::Object => {
            6u8.hash(h);
            for (k, c) in v.members().filter(|(k, _)| !is_id(k)) {
                k.hash(h);
                bare_hash(c, is_id, h);
            }
        }
        Kind::Array => {
            5u8.hash(h);
            v.len().hash(h);
            for c in v.children() {
                bare_hash(c, is_id, h);
            }
        }
        _ => v.hash_value(h),
    }
}

fn print(v: Value<'_>, is_id: IsId<'_>) -> Print {
    let hash = |v: Value<'_>| {
        let mut h = rustc_hash::FxHasher::default();
        bare_hash(v, is_id, &mut h);
        h.finish()
    };
    if v.kind() != Kind::Object {
        return Print {
            whole: hash(v),
            members: None,
        };
    }
    let mut h = rustc_hash::FxHasher::default();
    6u8.hash(&mut h);
    let mut members = Vec::with_capacity(v.len());
    for (k, c) in v.members().filter(|(k, _)| !is_id(k)) {
        let ch = hash(c);
        k.hash(&mut h);
        ch.hash(&mut h);
        members.push((k.into_owned(), ch));
    }
    members.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    Print {
        whole: h.finish(),
        members: Some(members),
    }
}

/// The share of members (of both) with equal values; for other values 1 if equal.
fn similarity(a: &Print, b: &Print) -> f64 {
    let (Some(xs), Some(ys)) = (&a.members, &b.members) else {
        return if a.whole == b.whole { 1.0 } else { 0.0 };
    };
    let (mut i, mut j, mut common, mut equal) = (0, 0, 0usize, 0usize);
    while i < xs.len() && j < ys.len() {
        match xs[i].0.cmp(&ys[j].0) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                common += 1;
                equal += usize::from(xs[i].1 == ys[j].1);
                i += 1;
                j += 1;
            }
        }
    }
    let union = xs.len() + ys.len() - common;
    if union == 0 {
        1.0
    } else {
        equal as f64 / union as f64
    }
}

/// Ids for `from` by their counterparts in `to`, ids left out of the comparison.
pub(crate) fn align_deep(
    from: &[Value<'_>],
    to: &[Value<'_>],
    to_ids: &[String],
    is_id: IsId<'_>,
    natural_keys: &[String],
    tag: &str,
) -> Vec<String> {
    let pf: Vec<Print> = from.iter().map(|v| print(*v, is_id)).collect();
    let pt: Vec<Print> = to.iter().map(|v| print(*v, is_id)).collect();
    let hf: Vec<u64> = pf.iter().map(|p| p.whole).collect();
    let ht: Vec<u64> = pt.iter().map(|p| p.whole).collect();
    let mut ids: Vec<Option<String>> = vec![None; from.len()];
    let mut used = vec![false; to.len()];
    let mut hunks: Vec<(std::ops::Range<usize>, std::ops::Range<usize>)> = Vec::new();
    let (mut i0, mut j0) = (0, 0);
    for (i, m) in matches(&hf, &ht).into_iter().enumerate() {
        let Some(j) = m else { continue };
        ids[i] = Some(to_ids[j].clone());
        used[j] = true;
        if i0 < i || j0 < j {
            hunks.push((i0..i, j0..j));
        }
        (i0, j0) = (i + 1, j + 1);
    }
    if i0 < from.len() || j0 < to.len() {
        hunks.push((i0..from.len(), j0..to.len()));
    }
    for (old, new) in hunks {
        let xs: Vec<usize> = old.collect();
        let ys: Vec<usize> = new.filter(|&j| !used[j]).collect();
        if xs.is_empty() || ys.is_empty() {
            continue;
        }
        // A natural key present and unique in every element of the stretch, both
        // versions: pairs by its value only.
        let values = |els: &[Value<'_>], at: &[usize], key: &str| -> Option<Vec<String>> {
            let vs: Option<Vec<String>> = at
                .iter()
                .map(|&i| crate::merger::id_text(els[i].get(key)?).map(Cow::into_owned))
                .collect();
            let vs = vs?;
            let unique: FxHashSet<&str> = vs.iter().map(|s| s.as_ref()).collect();
            (unique.len() == vs.len()).then_some(vs)
        };
        let natural = natural_keys
            .iter()
            .find_map(|k| Some((values(from, &xs, k)?, values(to, &ys, k)?)));
        if let Some((xv, yv)) = natural {
            let index: FxHashMap<&str, usize> =
                yv.iter().zip(&ys).map(|(v, &j)| (v.as_str(), j)).collect();
            for (v, &i) in xv.iter().zip(&xs) {
                if let Some(&j) = index.get(v.as_str()) {
                    ids[i] = Some(to_ids[j].clone());
                    used[j] = true;
                }
            }
            continue;
        }
        // Similarity: greedily in order, the best unused counterpart; in long
        // stretches only those near the same relative position (never quadratic).
        let full = xs.len().saturating_mul(ys.len()) <= 1 << 16;
        for (n, &i) in xs.iter().enumerate() {
            let range = if full {
                0..ys.len()
            } else {
                let center = n * ys.len() / xs.len();
                center.saturating_sub(32)..(center + 33).min(ys.len())
            };
            let best = range
                .map(|m| ys[m])
                .filter(|&j| !used[j])
                .map(|j| (j, similarity(&pf[i], &pt[j])))
                .filter(|&(_, s)| s >= crate::pairing::PAIRING_THRESHOLD)
                .fold(None, |best: Option<(usize, f64)>, (j, s)| match best {
                    Some((_, bs)) if bs >= s => best,
                    _ => Some((j, s)),
                });
            if let Some((j, _)) = best {
                ids[i] = Some(to_ids[j].clone());
                used[j] = true;
            }
        }
    }
    ids.into_iter()
        .enumerate()
        .map(|(i, id)| id.unwrap_or_else(|| format!("\u{1}{tag}{i}")))
        .collect()
}

/// Ids for `from` by their counterparts in `to` (whose ids are `to_ids`): equal values
/// (the id member ignored) by a diff, then pairs within each changed stretch. Elements
/// without a counterpart get an id of their own made from `tag` and their position.
pub(crate) fn align(
    from: &[Value<'_>],
    to: &[Value<'_>],
    to_ids: &[String],
    id_key: &str,
    natural_keys: &[String],
    tag: &str,
) -> Vec<String> {
    let hf: Vec<u64> = from.iter().map(|v| value_hash(*v, Some(id_key))).collect();
    let ht: Vec<u64> = to.iter().map(|v| value_hash(*v, Some(id_key))).collect();
    let mut ids: Vec<Option<String>> = vec![None; from.len()];
    let mut used = vec![false; to.len()];
    // Equal elements by a diff; the stretches between them changed.
    let mut hunks: Vec<(std::ops::Range<usize>, std::ops::Range<usize>)> = Vec::new();
    let (mut i0, mut j0) = (0, 0);
    for (i, m) in matches(&hf, &ht).into_iter().enumerate() {
        let Some(j) = m else { continue };
        ids[i] = Some(to_ids[j].clone());
        used[j] = true;
        if i0 < i || j0 < j {
            hunks.push((i0..i, j0..j));
        }
        (i0, j0) = (i + 1, j + 1);
    }
    if i0 < from.len() || j0 < to.len() {
        hunks.push((i0..from.len(), j0..to.len()));
    }
    // Pair what changed, stretch by stretch, then anything left over anywhere.
    for (old, new) in hunks {
        let xs = &from[old.clone()];
        let ys: Vec<usize> = new.filter(|&j| !used[j]).collect();
        let yv: Vec<Value<'_>> = ys.iter().map(|&j| to[j]).collect();
        for (i, p) in pair(xs, &yv, natural_keys, Some(id_key))
            .into_iter()
            .enumerate()
        {
            if let Some(p) = p {
                ids[old.start + i] = Some(to_ids[ys[p]].clone());
                used[ys[p]] = true;
            }
        }
    }
    ids.into_iter()
        .enumerate()
        .map(|(i, id)| id.unwrap_or_else(|| format!("\u{1}{tag}{i}")))
        .collect()
}

#[cfg(test)]
mod tests {
    use sjson::{Dialect, Document};

    use super::*;

    #[test]
    fn align_keeps_ids_of_equal_and_similar_elements() {
        let d = Document::parse(
            "k = [{ id = 1 a = 1 } { id = 2 a = 2 b = 2 } { id = 3 a = 3 }] \
             u = [{ a = 1 } { a = 2 b = 9 } { z = 0 }]",
            Dialect::Sjson,
        )
        .unwrap();
        let to: Vec<_> = d.root().get("k").unwrap().children().collect();
        let from: Vec<_> = d.root().get("u").unwrap().children().collect();
        let to_ids: Vec<String> = ["i1", "i2", "i3"].map(String::from).to_vec();
        let got = align(&from, &to, &to_ids, "id", &[], "side");
        assert_eq!(got[0], "i1");
        assert_eq!(got[1], "i2");
        // No counterpart: an id of its own that no real id can equal.
        assert!(got[2].starts_with('\u{1}'), "{:?}", got[2]);
    }
}
