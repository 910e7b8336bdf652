//! Sets: arrays of unique strings kept sorted in base, ours and theirs (generated
//! registries: sorted lists of names or tags), or arrays the profile declares sets, merge
//! as sets: both sides' insertions kept, deletions honoured, no element twice, and the
//! order restored (sorted) rather than merged position by position.

use std::cmp::Ordering;

use crate::hashing::SeededSet;
use sjson::{Kind, Out, Value};

use crate::merger::Merger;
use crate::pairing::Classes;
use crate::sequence::{ours_item, theirs_item};

/// How a set's elements are ordered, if they are.
fn order(a: Value<'_>, b: Value<'_>) -> Option<Ordering> {
    match (a.kind(), b.kind()) {
        (Kind::String, Kind::String) => Some(a.as_str()?.cmp(&b.as_str()?)),
        (Kind::Number, Kind::Number) => {
            let n = |v: Value<'_>| v.as_number_lexeme()?.parse::<f64>().ok();
            n(a)?.partial_cmp(&n(b)?)
        }
        _ => None,
    }
}

/// Whether `v` is an array of unique scalars in strictly increasing order (strings only,
/// unless `declared`: numbers may be vectors).
fn sorted_unique(v: Value<'_>, declared: bool) -> bool {
    let scalar = |c: Value<'_>| match c.kind() {
        Kind::String => true,
        Kind::Number => declared,
        _ => false,
    };
    let items: Vec<Value<'_>> = v.children().collect();
    items.iter().all(|c| scalar(*c))
        && items
            .windows(2)
            .all(|w| order(w[0], w[1]) == Some(Ordering::Less))
}

/// Whether `v` is an array of unique strings (in any order).
fn unique_strings(v: Value<'_>) -> bool {
    v.children().all(|c| c.kind() == Kind::String) && unique_scalars(v)
}

/// Whether `v` is an array of unique scalars (in any order).
fn unique_scalars(v: Value<'_>) -> bool {
    let mut classes = Classes::default();
    v.children().all(|c| !c.is_container())
        && classes.all(v.children()).len() as u64 == classes.len()
}

impl<'a> Merger<'a> {
    /// The set merge of three arrays both sides changed, when they are sets: sorted
    /// unique strings on both sides (and unique in base, sorted or not), or a set the
    /// profile declares (`tags` in LDtk) of unique scalars in all three (sorted if the
    /// sides are, else ours' order with theirs' additions after).
    pub(crate) fn merge_set(
        &mut self,
        b: Option<Value<'a>>,
        o: Value<'a>,
        t: Value<'a>,
    ) -> Option<Out<'a>> {
        let b = b?;
        // One side kept base's: the other's is taken whole, as any array.
        if b.same_value(&o) || b.same_value(&t) || (o.is_empty() && t.is_empty()) {
            return None;
        }
        let declared = o
            .key()
            .is_some_and(|k| self.cx.format().knowledge().sets.contains(&&*k));
        let scalars = |v: Value<'_>| v.children().next().is_none_or(|c| !c.is_container());
        if !(declared || [b, o, t].iter().all(|v| scalars(*v))) {
            return None;
        }
        // Both sides sorted (base too, or both re-sorted a registry base held unsorted).
        let sorted = sorted_unique(o, declared)
            && sorted_unique(t, declared)
            && (sorted_unique(b, declared) || unique_strings(b));
        let unordered_set = declared && [b, o, t].iter().all(|v| unique_scalars(*v));
        if !(sorted || unordered_set) {
            return None;
        }
        // Elements by number (a hash collision is no equality).
        let mut classes = Classes::default();
        let (cb, co, ct) = (
            classes.all(b.children()),
            classes.all(o.children()),
            classes.all(t.children()),
        );
        let set = |cs: &[u64]| -> SeededSet<u64> { cs.iter().copied().collect() };
        let (hb, ho, ht) = (set(&cb), set(&co), set(&ct));
        // Kept: on both sides, or added by one (a deletion by either side is honoured).
        let keep = |h: u64| (ho.contains(&h) && ht.contains(&h)) || !hb.contains(&h);
        let mut items: Vec<_> = o
            .children()
            .zip(co)
            .filter(|&(_, c)| keep(c))
            .map(|(v, _)| (v, ours_item(v, Out::Value(v))))
            .collect();
        let theirs_new = t
            .children()
            .zip(ct)
            .filter(|(_, c)| !ho.contains(c) && !hb.contains(c));
        items.extend(theirs_new.map(|(v, _)| (v, theirs_item(v, Out::Value(v)))));
        if sorted {
            items.sort_by(|x, y| order(x.0, y.0).unwrap_or(Ordering::Equal));
        }
        Some(Out::Container {
            kind: Kind::Array,
            ours: Some(o),
            items: items.into_iter().map(|(_, item)| item).collect(),
        })
    }
}

#[cfg(test)]
mod tests;
