//! Alignment of an unmigrated array version to a keyed one: the elements of a version
//! without ids get the ids of the elements they correspond to (see
//! `Merger::align_unkeyed`): equal values by a diff, then the pairs of
//! [`crate::pairing::pair`] within each changed stretch, ids left out of the comparison.

use std::ops::Range;

use sjson::Value;

use crate::id_table::IdSource;
use crate::pairing::{pair, same_skipping, Basis, Pairs, Print, Skip};
use crate::sequence::matches;

/// For each element of `from`, its counterpart in `to` and why: equal values (with `skip`
/// left out) by a diff, then, within each stretch between them, the pairs of
/// [`pair`] (natural key, equal values, similarity with `skip` left out).
pub(crate) fn align<'k>(
    from: &[Value<'_>],
    to: &[Value<'_>],
    skip: Skip<'_>,
    natural_keys: &'k [String],
) -> Pairs<'k> {
    let hf: Vec<u64> = from.iter().map(|v| Print::hash(*v, skip)).collect();
    let ht: Vec<u64> = to.iter().map(|v| Print::hash(*v, skip)).collect();
    let mut result: Pairs<'k> = vec![None; from.len()];
    let mut used = vec![false; to.len()];
    // Equal elements by a diff; the stretches between them changed.
    let mut hunks: Vec<(Range<usize>, Range<usize>)> = Vec::new();
    let (mut i0, mut j0) = (0, 0);
    for (i, m) in matches(&hf, &ht).into_iter().enumerate() {
        // Equal hashes are only candidates: the values are compared.
        let Some(j) = m.filter(|&j| same_skipping(from[i], to[j], skip)) else {
            continue;
        };
        result[i] = Some((j, Basis::Equal));
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
        let ys: Vec<usize> = new.filter(|&j| !used[j]).collect();
        if old.is_empty() || ys.is_empty() {
            continue;
        }
        let yv: Vec<Value<'_>> = ys.iter().map(|&j| to[j]).collect();
        let pairs = pair(&from[old.clone()], &yv, natural_keys, skip);
        for (i, p) in pairs.into_iter().enumerate() {
            if let Some((p, basis)) = p {
                result[old.start + i] = Some((ys[p], basis));
                used[ys[p]] = true;
            }
        }
    }
    result
}

/// Ids for the elements of an alignment: their counterpart's id in `to_ids`, or, without
/// one, an id of their own made from `tag` and their position that no real id can equal.
pub(crate) fn ids_for<L: IdSource + ?Sized>(
    pairs: &Pairs<'_>,
    to_ids: &L,
    tag: &str,
) -> Vec<String> {
    pairs
        .iter()
        .enumerate()
        .map(|(i, p)| match p {
            Some((j, _)) => to_ids.id_at(*j).to_string(),
            None => format!("\u{1}{tag}{i}"),
        })
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
        let got = ids_for(&align(&from, &to, Skip::Member("id"), &[]), &to_ids, "side");
        assert_eq!(got[0], "i1");
        assert_eq!(got[1], "i2");
        // No counterpart: an id of its own that no real id can equal.
        assert!(got[2].starts_with('\u{1}'), "{:?}", got[2]);
    }

    #[test]
    fn a_hash_collision_is_not_taken_for_equal_elements() {
        let d = Document::parse(
            "k = [{ id = 1 a = 1 } { id = 2 a = 2 }] u = [{ a = 1 } { z = 9 }]",
            Dialect::Sjson,
        )
        .unwrap();
        let to: Vec<_> = d.root().get("k").unwrap().children().collect();
        let from: Vec<_> = d.root().get("u").unwrap().children().collect();
        // Every print hashes alike: only the values can tell.
        let pairs = crate::pairing::tests::colliding(|| align(&from, &to, Skip::Member("id"), &[]));
        assert_eq!(pairs[0], Some((0, Basis::Equal)));
        assert!(
            !matches!(pairs[1], Some((_, Basis::Equal))),
            "{{ z = 9 }} is not equal to {{ a = 2 }}: {:?}",
            pairs[1]
        );
    }
}
