//! A keyed array against its unkeyed version (one side, or the base, has no ids yet: a
//! migration gave them on the other): the unkeyed elements get the ids of the keyed ones
//! they correspond to, by value and similarity with every id member left out.

use std::borrow::Cow;

use sjson::{Kind, Value};

use crate::align::{align, ids_for};
use crate::id_list::IdList;
use crate::keyed_index::KeyedIndex;
use crate::merger::Merger;
use crate::observe::Pairing;
use crate::pairing::{Pairs, Skip};
use crate::Version;

impl<'a> Merger<'a> {
    /// Gives the elements of `unkeyed` (and of the base) the ids of the `keyed` side's
    /// elements they correspond to. Elements without a counterpart get ids of their own.
    ///
    /// The keyed side is typically the unkeyed history plus the ids a migration added, at
    /// any depth (the arrays of objects inside its elements got ids too). So a version
    /// without ids is aligned to it by values with every id member left out, at any depth:
    /// equal elements by a diff of those values, then, within each changed stretch, pairs
    /// by a natural key or by similarity (the share of members equal, ids left out). The
    /// unkeyed side is aligned to the base (neither has the ids) by value and similarity.
    pub(super) fn align_unkeyed(
        &self,
        b: Option<Value<'a>>,
        unkeyed: Value<'a>,
        keyed: Value<'a>,
        keyed_ids: &KeyedIndex<'a>,
        id_key: &str,
    ) -> (Option<KeyedIndex<'a>>, KeyedIndex<'a>, Vec<Pairing>) {
        let opts = self.cx.opts();
        let is_id = |k: &str| {
            k.eq_ignore_ascii_case(id_key) || opts.id_keys.iter().any(|i| k.eq_ignore_ascii_case(i))
        };
        let keyed_els: Vec<_> = keyed.children().collect();
        let natural = &self.cx.opts().natural_keys;
        let ours_keyed = std::ptr::eq(keyed.doc(), self.cx.ours());
        // The alignment's pairings, only when tracing.
        let tracing = self.st.trace.is_some();
        let mut record = Vec::new();
        let base = b.map(|b| {
            let els: Vec<_> = b.children().collect();
            let pairs = align(&els, &keyed_els, Skip::Ids(&is_id), natural);
            if tracing {
                record.extend(aligned_pairs(
                    &pairs,
                    [Some(Version::Base), keyed_side(ours_keyed)],
                ));
            }
            let ids = ids_for(&pairs, &keyed_ids.ids, "base");
            (els, ids)
        });
        let unkeyed_els: Vec<_> = unkeyed.children().collect();
        let unkeyed_side = keyed_side(!ours_keyed);
        let ids = match &base {
            // Neither has the ids: by value and similarity, the id member ignored.
            Some((els, ids)) => {
                let pairs = align(&unkeyed_els, els, Skip::Member(id_key), natural);
                if tracing {
                    record.extend(aligned_pairs(&pairs, [unkeyed_side, Some(Version::Base)]));
                }
                ids_for(&pairs, ids, "side")
            }
            None => {
                let pairs = align(&unkeyed_els, &keyed_els, Skip::Ids(&is_id), natural);
                if tracing {
                    record.extend(aligned_pairs(
                        &pairs,
                        [unkeyed_side, keyed_side(ours_keyed)],
                    ));
                }
                ids_for(&pairs, &keyed_ids.ids, "side")
            }
        };
        let make = |ids: Vec<String>| {
            let ids = IdList::from_ids("", ids.into_iter().map(Cow::Owned));
            KeyedIndex::aligned(keyed_ids.key.clone(), ids)
        };
        (base.map(|(_, ids)| make(ids)), make(ids), record)
    }
}

/// Ours if `ours`, else theirs.
fn keyed_side(ours: bool) -> Option<Version> {
    Some(if ours { Version::Ours } else { Version::Theirs })
}

/// An alignment of version `between[0]`'s elements to `between[1]`'s as pairings.
fn aligned_pairs(pairs: &Pairs<'_>, between: [Option<Version>; 2]) -> Vec<Pairing> {
    let at = |v: Version, i: usize, j: usize| {
        if between[0] == Some(v) {
            Some(i)
        } else if between[1] == Some(v) {
            Some(j)
        } else {
            None
        }
    };
    pairs
        .iter()
        .enumerate()
        .filter_map(|(i, p)| {
            let (j, basis) = (*p)?;
            Some(Pairing {
                base: at(Version::Base, i, j),
                ours: at(Version::Ours, i, j),
                theirs: at(Version::Theirs, i, j),
                basis: basis.into(),
            })
        })
        .collect()
}

/// Whether two values are equal with every id member (by `is_id`) left out, at any
/// depth: a base element and its version that a migration gave ids, nested arrays too.
pub(super) fn same_without_ids(a: Value<'_>, b: Value<'_>, is_id: &dyn Fn(&str) -> bool) -> bool {
    match (a.kind(), b.kind()) {
        (Kind::Object, Kind::Object) => {
            let mut xs = a.members().filter(|(k, _)| !is_id(k));
            let mut ys = b.members().filter(|(k, _)| !is_id(k));
            loop {
                match (xs.next(), ys.next()) {
                    (None, None) => return true,
                    (Some((ka, va)), Some((kb, vb)))
                        if ka == kb && same_without_ids(va, vb, is_id) => {}
                    _ => return false,
                }
            }
        }
        (Kind::Array, Kind::Array) => {
            a.len() == b.len()
                && a.children()
                    .zip(b.children())
                    .all(|(x, y)| same_without_ids(x, y, is_id))
        }
        _ => a.same_value(&b),
    }
}
