//! Sequence alignment bounded by work: Myers' minimal diff for inputs small enough that
//! its worst case is cheap, patience alignment (anchors on elements unique to both sides,
//! their longest increasing run in O(k log k)) for longer ones.
//!
//! The bound is a count of work units, never a clock, so the output depends on the input
//! alone: a reversed or shuffled 200,000-element array aligns in near-linear time. When the
//! budget runs out the remaining stretches stay unmatched — a correct, longer edit script
//! (the merge then treats those elements as changed on that side).

use std::hash::Hash;

use crate::hashing::SeededMap;
use similar::DiffOp;

/// Inputs with `(N + M)²` at most this are diffed whole by Myers' algorithm, exactly as
/// before the bound existed (every small array keeps its minimal edit script).
const MYERS_WHOLE: usize = 1 << 24;

/// A stretch between anchors with `(n + m)²` at most this is diffed by Myers directly.
const MYERS_STRETCH: usize = 1 << 16;

/// Work units per element that a long alignment may spend (at least [`MYERS_WHOLE`]).
const WORK_PER_ELEMENT: usize = 64;

/// An edit script from `old` to `new` in `similar`'s terms (equal runs, deletions,
/// insertions, replacements), in order, computed with bounded work.
pub(crate) fn diff_ops<T: Hash + Ord>(old: &[T], new: &[T]) -> Vec<DiffOp> {
    let total = old.len() + new.len();
    if total.saturating_mul(total) <= MYERS_WHOLE {
        return similar::capture_diff_slices(similar::Algorithm::Myers, old, new);
    }
    ops_from_pairs(&matched_pairs(old, new), old.len(), new.len())
}

/// Pairs `(i, j)` with `old[i] == new[j]`, increasing in both, found by patience
/// alignment with Myers inside short stretches; at most `64·(N + M)` units of work.
fn matched_pairs<T: Hash + Ord>(old: &[T], new: &[T]) -> Vec<(usize, usize)> {
    let mut budget = MYERS_WHOLE.max(WORK_PER_ELEMENT.saturating_mul(old.len() + new.len()));
    let mut pairs = Vec::new();
    let mut stretches = vec![(0, old.len(), 0, new.len())];
    while let Some((mut ol, mut oh, mut nl, mut nh)) = stretches.pop() {
        while ol < oh && nl < nh && old[ol] == new[nl] {
            pairs.push((ol, nl));
            (ol, nl) = (ol + 1, nl + 1);
        }
        while ol < oh && nl < nh && old[oh - 1] == new[nh - 1] {
            (oh, nh) = (oh - 1, nh - 1);
            pairs.push((oh, nh));
        }
        if ol == oh || nl == nh {
            continue;
        }
        let size = (oh - ol) + (nh - nl);
        if budget < size {
            continue;
        }
        budget -= size;
        let square = size.saturating_mul(size);
        let anchors = if square <= MYERS_STRETCH {
            Vec::new()
        } else {
            unique_anchors(&old[ol..oh], &new[nl..nh])
        };
        if anchors.is_empty() {
            if square <= budget {
                budget -= square;
                myers_pairs(&old[ol..oh], &new[nl..nh], (ol, nl), &mut pairs);
            }
            continue;
        }
        let (mut po, mut pn) = (ol, nl);
        for (i, j) in anchors {
            let (i, j) = (ol + i, nl + j);
            pairs.push((i, j));
            stretches.push((po, i, pn, j));
            (po, pn) = (i + 1, j + 1);
        }
        stretches.push((po, oh, pn, nh));
    }
    pairs.sort_unstable();
    pairs
}

/// The equal runs of Myers' diff of `old` and `new`, offset by `at`, into `pairs`.
fn myers_pairs<T: Hash + Ord>(
    old: &[T],
    new: &[T],
    at: (usize, usize),
    pairs: &mut Vec<(usize, usize)>,
) {
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, old, new) {
        if let DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = op
        {
            pairs.extend((0..len).map(|k| (at.0 + old_index + k, at.1 + new_index + k)));
        }
    }
}

/// The elements occurring exactly once in each of `old` and `new`, as `(i, j)` pairs, thinned
/// to a longest run increasing in both (patience sorting).
fn unique_anchors<T: Hash + Ord>(old: &[T], new: &[T]) -> Vec<(usize, usize)> {
    // Per element: (count in old, count in new, index in old, index in new).
    let mut seen: SeededMap<&T, (u32, u32, usize, usize)> = SeededMap::default();
    for (i, x) in old.iter().enumerate() {
        let e = seen.entry(x).or_insert((0, 0, i, 0));
        e.0 = e.0.saturating_add(1);
    }
    for (j, y) in new.iter().enumerate() {
        if let Some(e) = seen.get_mut(y) {
            e.1 = e.1.saturating_add(1);
            e.3 = j;
        }
    }
    let candidates: Vec<(usize, usize)> = old
        .iter()
        .filter_map(|x| match seen[x] {
            (1, 1, i, j) => Some((i, j)),
            _ => None,
        })
        .collect();
    longest_increasing(&candidates)
}

/// The longest subsequence of `pairs` (increasing in `.0`) that also increases in `.1`.
fn longest_increasing(pairs: &[(usize, usize)]) -> Vec<(usize, usize)> {
    // tails[k]: index into `pairs` of the smallest `.1` ending a run of length k + 1.
    let mut tails: Vec<usize> = Vec::new();
    let mut before: Vec<Option<usize>> = vec![None; pairs.len()];
    for (p, &(_, j)) in pairs.iter().enumerate() {
        let k = tails.partition_point(|&t| pairs[t].1 < j);
        before[p] = k.checked_sub(1).map(|k| tails[k]);
        if k == tails.len() {
            tails.push(p);
        } else {
            tails[k] = p;
        }
    }
    let mut run = Vec::with_capacity(tails.len());
    let mut at = tails.last().copied();
    while let Some(p) = at {
        run.push(pairs[p]);
        at = before[p];
    }
    run.reverse();
    run
}

/// The edit script that keeps exactly `pairs` (increasing in both) and changes the rest.
fn ops_from_pairs(pairs: &[(usize, usize)], old_len: usize, new_len: usize) -> Vec<DiffOp> {
    let mut ops = Vec::new();
    let (mut i, mut j, mut k) = (0, 0, 0);
    while k < pairs.len() {
        let (pi, pj) = pairs[k];
        push_gap(&mut ops, (i, pi), (j, pj));
        let mut len = 0;
        while k < pairs.len() && pairs[k] == (pi + len, pj + len) {
            (len, k) = (len + 1, k + 1);
        }
        ops.push(DiffOp::Equal {
            old_index: pi,
            new_index: pj,
            len,
        });
        (i, j) = (pi + len, pj + len);
    }
    push_gap(&mut ops, (i, old_len), (j, new_len));
    ops
}

/// The operation for an unmatched stretch `old[o.0..o.1]` → `new[n.0..n.1]`, if any.
fn push_gap(ops: &mut Vec<DiffOp>, o: (usize, usize), n: (usize, usize)) {
    let (old_len, new_len) = (o.1 - o.0, n.1 - n.0);
    match (old_len, new_len) {
        (0, 0) => {}
        (_, 0) => ops.push(DiffOp::Delete {
            old_index: o.0,
            old_len,
            new_index: n.0,
        }),
        (0, _) => ops.push(DiffOp::Insert {
            old_index: o.0,
            new_index: n.0,
            new_len,
        }),
        _ => ops.push(DiffOp::Replace {
            old_index: o.0,
            old_len,
            new_index: n.0,
            new_len,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Applies `ops` to `old`, taking inserted elements from `new`.
    fn apply(ops: &[DiffOp], old: &[u32], new: &[u32]) -> Vec<u32> {
        let mut out = Vec::new();
        for op in ops {
            match *op {
                DiffOp::Equal { old_index, len, .. } => {
                    out.extend_from_slice(&old[old_index..old_index + len])
                }
                DiffOp::Delete { .. } => {}
                DiffOp::Insert {
                    new_index, new_len, ..
                }
                | DiffOp::Replace {
                    new_index, new_len, ..
                } => out.extend_from_slice(&new[new_index..new_index + new_len]),
            }
        }
        out
    }

    fn equal_count(ops: &[DiffOp]) -> usize {
        ops.iter()
            .map(|op| match op {
                DiffOp::Equal { len, .. } => *len,
                _ => 0,
            })
            .sum()
    }

    #[test]
    fn long_reversed_and_shuffled_arrays_align_quickly() {
        let n = 200_000u32;
        let base: Vec<u32> = (0..n).collect();
        let reversed: Vec<u32> = base.iter().rev().copied().collect();
        // A deterministic shuffle: multiplication by a unit modulo n.
        let shuffled: Vec<u32> = (0..n)
            .map(|i| (i as u64 * 7919 % n as u64) as u32)
            .collect();
        for other in [&reversed, &shuffled] {
            let ops = diff_ops(&base, other);
            assert_eq!(apply(&ops, &base, other), *other);
        }
        // One element moved to the end of a long list: everything else still matches.
        let mut moved = base.clone();
        let first = moved.remove(0);
        moved.push(first);
        assert_eq!(equal_count(&diff_ops(&base, &moved)), n as usize - 1);
    }

    #[test]
    fn anchors_form_a_longest_increasing_run() {
        assert_eq!(
            longest_increasing(&[(0, 3), (1, 1), (2, 2), (3, 0), (4, 4)]),
            [(1, 1), (2, 2), (4, 4)]
        );
        assert!(longest_increasing(&[]).is_empty());
    }

    proptest! {
        /// Every script rebuilds `new` from `old`, and its equal runs really are equal.
        #[test]
        fn long_scripts_are_sound(
            old in proptest::collection::vec(0u32..50, 0..300),
            new in proptest::collection::vec(0u32..50, 0..300),
        ) {
            let ops = ops_from_pairs(&matched_pairs(&old, &new), old.len(), new.len());
            prop_assert_eq!(apply(&ops, &old, &new), new.clone());
            for op in &ops {
                if let DiffOp::Equal { old_index, new_index, len } = *op {
                    prop_assert_eq!(&old[old_index..old_index + len], &new[new_index..new_index + len]);
                }
            }
        }
    }
}
