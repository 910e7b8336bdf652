//! Arrays: keyed arrays merged by id (membership like object keys, order by a three-way
//! merge of the id sequences), atomic number tuples, and the dispatch to sequences.

use std::borrow::Cow;

use rustc_hash::{FxHashMap, FxHashSet};
use sjson::{Kind, Out, OutItem, Segment, Value};

use crate::merger::{id_display, Merger};
use crate::pairing::{pair, same_ignoring, value_hash};
use crate::{ConflictKind, Policy, Side};

/// The ids of a keyed array: every element an object with an id under the same id key,
/// ids unique.
pub(crate) struct Keyed<'a> {
    /// The id key as written in the first element (`None` for an empty array).
    pub key: Option<Cow<'a, str>>,
    /// The id of each element, in order.
    pub ids: Vec<String>,
    /// Position of each id.
    pub index: FxHashMap<String, usize>,
}

impl Keyed<'_> {
    fn get(&self, id: &str) -> Option<usize> {
        self.index.get(id).copied()
    }
}

impl<'a> Merger<'a> {
    /// The ids of `arr` if it is a keyed array.
    pub(crate) fn keyed(&self, arr: Value<'a>) -> Option<Keyed<'a>> {
        let mut key: Option<Cow<'a, str>> = None;
        let mut ids = Vec::with_capacity(arr.len());
        let mut index = FxHashMap::default();
        index.reserve(arr.len());
        for (i, el) in arr.children().enumerate() {
            let (k, id) = self.id_of(el)?;
            match &key {
                Some(first) if !first.eq_ignore_ascii_case(&k) => return None,
                Some(_) => {}
                None => key = Some(k),
            }
            if index.insert(id.clone(), i).is_some() {
                return None;
            }
            ids.push(id);
        }
        Some(Keyed { key, ids, index })
    }

    /// Merges two arrays (and their base, if any).
    pub(crate) fn merge_arrays(
        &mut self,
        b: Option<Value<'a>>,
        o: Value<'a>,
        t: Value<'a>,
    ) -> Out<'a> {
        let (ok, tk) = (self.keyed(o), self.keyed(t));
        let bk = b.map(|b| self.keyed(b));
        let compatible = |x: &Keyed<'_>, y: &Keyed<'_>| match (&x.key, &y.key) {
            (Some(a), Some(b)) => a.eq_ignore_ascii_case(b),
            _ => true,
        };
        let has_objects = |v: Value<'_>| v.children().any(|c| c.kind() == Kind::Object);
        match (ok, tk, bk) {
            (Some(ok), Some(tk), None) if compatible(&ok, &tk) => {
                return self.merge_keyed(None, o, t, None, ok, tk, false)
            }
            (Some(ok), Some(tk), Some(Some(bk)))
                if compatible(&ok, &tk) && compatible(&ok, &bk) && compatible(&tk, &bk) =>
            {
                return self.merge_keyed(b, o, t, Some(bk), ok, tk, false)
            }
            // Ids on one side only (an unmigrated branch): align the others to it.
            (Some(ok), None, bk)
                if !ok.ids.is_empty()
                    && has_objects(t)
                    && !matches!(bk, Some(Some(ref k)) if !k.ids.is_empty()) =>
            {
                let key = ok.key.clone().unwrap_or_default();
                let (bk, tk) = self.align_unkeyed(b, t, o, &ok, &key);
                return self.merge_keyed(b, o, t, bk, ok, tk, true);
            }
            (None, Some(tk), bk)
                if !tk.ids.is_empty()
                    && has_objects(o)
                    && !matches!(bk, Some(Some(ref k)) if !k.ids.is_empty()) =>
            {
                let key = tk.key.clone().unwrap_or_default();
                let (bk, ok) = self.align_unkeyed(b, o, t, &tk, &key);
                return self.merge_keyed(b, o, t, bk, ok, tk, true);
            }
            _ => {}
        }
        if self.is_atomic(b, o, t) {
            let kind = if b.is_some() {
                ConflictKind::BothModified
            } else {
                ConflictKind::BothAdded
            };
            return self
                .conflict(kind, b, Some(o), Some(t))
                .unwrap_or(Out::Value(t));
        }
        self.merge_sequence(b, o, t)
    }

    /// All-number arrays of one length, at most `atomic_max`, in every version.
    pub(crate) fn is_atomic(&self, b: Option<Value<'a>>, o: Value<'a>, t: Value<'a>) -> bool {
        let numbers = |v: Value<'_>| {
            v.len() == o.len()
                && v.len() <= self.opts.atomic_max
                && v.children().all(|c| c.kind() == Kind::Number)
        };
        !o.is_empty() && numbers(o) && numbers(t) && b.is_none_or(numbers)
    }

    /// Gives the elements of `unkeyed` (and of the base) the ids of the `keyed` side's
    /// elements they correspond to, aligning by value (ids ignored) and then by position
    /// and similarity. Elements without a counterpart get ids of their own.
    fn align_unkeyed(
        &self,
        b: Option<Value<'a>>,
        unkeyed: Value<'a>,
        keyed: Value<'a>,
        keyed_ids: &Keyed<'a>,
        id_key: &str,
    ) -> (Option<Keyed<'a>>, Keyed<'a>) {
        let keyed_els: Vec<_> = keyed.children().collect();
        let natural = &self.opts.natural_keys;
        let base = b.map(|b| {
            let els: Vec<_> = b.children().collect();
            let ids = align(&els, &keyed_els, &keyed_ids.ids, id_key, natural, "base");
            (els, ids)
        });
        let unkeyed_els: Vec<_> = unkeyed.children().collect();
        let ids = match &base {
            Some((els, ids)) => align(&unkeyed_els, els, ids, id_key, natural, "side"),
            None => align(
                &unkeyed_els,
                &keyed_els,
                &keyed_ids.ids,
                id_key,
                natural,
                "side",
            ),
        };
        let make = |ids: Vec<String>| Keyed {
            key: keyed_ids.key.clone(),
            index: ids
                .iter()
                .cloned()
                .enumerate()
                .map(|(i, s)| (s, i))
                .collect(),
            ids,
        };
        (base.map(|(_, ids)| make(ids)), make(ids))
    }

    /// Merges keyed arrays: membership per id, order by the id sequences. `unmigrated`:
    /// the base's elements (and one side's) carry no ids; ids were aligned, and an id
    /// member that one side added to a base element is not an edit of it.
    #[allow(clippy::too_many_arguments)]
    fn merge_keyed(
        &mut self,
        b: Option<Value<'a>>,
        o: Value<'a>,
        t: Value<'a>,
        bk: Option<Keyed<'a>>,
        ok: Keyed<'a>,
        tk: Keyed<'a>,
        unmigrated: bool,
    ) -> Out<'a> {
        let bs: Vec<Value<'a>> = b.map(|b| b.children().collect()).unwrap_or_default();
        let os: Vec<Value<'a>> = o.children().collect();
        let ts: Vec<Value<'a>> = t.children().collect();
        let id_key: String = ok
            .key
            .clone()
            .or_else(|| tk.key.clone())
            .unwrap_or(Cow::Borrowed("id"))
            .into_owned();
        let b_get = |id: &str| bk.as_ref().and_then(|k| k.get(id)).map(|i| bs[i]);
        let mut items: FxHashMap<&str, OutItem<'a>> = FxHashMap::default();
        for (i, id) in ok.ids.iter().enumerate() {
            let oe = os[i];
            let be = b_get(id);
            self.path.push(Segment::Id {
                key: id_key.clone(),
                value: id_display(id),
            });
            let value = match (be, tk.get(id)) {
                (_, Some(j)) => Some(self.merge_value(be, oe, ts[j])),
                (Some(be), None) if unmigrated && same_ignoring(be, oe, &id_key) => None,
                (Some(be), None) => self.one_side_deleted(Side::Theirs, be, oe),
                (None, None) => self.added(Side::Ours, oe),
            };
            self.path.pop();
            if let Some(value) = value {
                items.insert(
                    id,
                    OutItem {
                        key: None,
                        ours: Some(oe),
                        origin: None,
                        value,
                    },
                );
            }
        }
        for (j, id) in tk.ids.iter().enumerate() {
            if ok.get(id).is_some() {
                continue;
            }
            let te = ts[j];
            self.path.push(Segment::Id {
                key: id_key.clone(),
                value: id_display(id),
            });
            let value = match b_get(id) {
                Some(be) if unmigrated && same_ignoring(be, te, &id_key) => None,
                Some(be) => self.one_side_deleted(Side::Ours, be, te),
                None => self.added(Side::Theirs, te),
            };
            self.path.pop();
            if let Some(value) = value {
                items.insert(
                    id,
                    OutItem {
                        key: None,
                        ours: None,
                        origin: Some(te),
                        value,
                    },
                );
            }
        }
        let order = self.merged_order(bk.as_ref(), &ok, &tk, &items, b, o, t);
        let mut out = Vec::with_capacity(order.len());
        for id in order {
            if let Some(item) = items.remove(id) {
                out.push(item);
            }
        }
        Out::Container {
            kind: Kind::Array,
            ours: Some(o),
            items: out,
        }
    }

    /// The order of the merged ids: the side that reordered the common elements gives
    /// the backbone (theirs when both did: an order conflict); the other side's elements
    /// go after their predecessor there, ours' first where both inserted at one place.
    #[allow(clippy::too_many_arguments)]
    fn merged_order<'k>(
        &mut self,
        bk: Option<&'k Keyed<'a>>,
        ok: &'k Keyed<'a>,
        tk: &'k Keyed<'a>,
        items: &FxHashMap<&'k str, OutItem<'a>>,
        b: Option<Value<'a>>,
        o: Value<'a>,
        t: Value<'a>,
    ) -> Vec<&'k str> {
        let in_result = |id: &str| items.contains_key(id);
        let common = |id: &str| {
            in_result(id)
                && ok.get(id).is_some()
                && tk.get(id).is_some()
                && bk.is_none_or(|k| k.get(id).is_some())
        };
        let seq = |k: &'k Keyed<'a>| -> Vec<&'k str> {
            k.ids
                .iter()
                .map(String::as_str)
                .filter(|id| common(id))
                .collect()
        };
        let (o_seq, t_seq) = (seq(ok), seq(tk));
        let backbone = match bk {
            None => Side::Ours,
            Some(bk) => {
                let b_seq = seq(bk);
                if o_seq == b_seq {
                    Side::Theirs
                } else if t_seq == b_seq || o_seq == t_seq {
                    Side::Ours
                } else {
                    let taken = self.conflict(ConflictKind::Order, b, Some(o), Some(t));
                    drop(taken);
                    if self.opts.policy == Policy::Ours {
                        Side::Ours
                    } else {
                        Side::Theirs
                    }
                }
            }
        };
        let (main, other) = match backbone {
            Side::Ours => (ok, tk),
            Side::Theirs => (tk, ok),
        };
        let spine: Vec<&'k str> = main
            .ids
            .iter()
            .map(String::as_str)
            .filter(|id| in_result(id))
            .collect();
        let spine_set: FxHashSet<&str> = spine.iter().copied().collect();
        let position: FxHashMap<&str, usize> =
            spine.iter().enumerate().map(|(i, id)| (*id, i)).collect();
        // With ours as backbone, theirs' insertions go after ours' own at the same place.
        let ours_new = |id: &str| {
            bk.is_none_or(|k| k.get(id).is_none()) && tk.get(id).is_none() && ok.get(id).is_some()
        };
        let adjust = |anchor: Option<&'k str>| -> Option<&'k str> {
            if backbone != Side::Ours {
                return anchor;
            }
            let mut i = anchor.map_or(0, |a| position[a] + 1);
            let mut adjusted = anchor;
            while i < spine.len() && ours_new(spine[i]) {
                adjusted = Some(spine[i]);
                i += 1;
            }
            adjusted
        };
        let mut buckets: FxHashMap<Option<&'k str>, Vec<&'k str>> = FxHashMap::default();
        let mut anchor: Option<&'k str> = None;
        for id in other.ids.iter().map(String::as_str) {
            if spine_set.contains(id) {
                anchor = Some(id);
            } else if in_result(id) {
                buckets.entry(adjust(anchor)).or_default().push(id);
            }
        }
        let mut order = Vec::with_capacity(items.len());
        order.extend(buckets.remove(&None).unwrap_or_default());
        for id in spine {
            order.push(id);
            if let Some(extra) = buckets.remove(&Some(id)) {
                order.extend(extra);
            }
        }
        order
    }
}

/// Ids for `from` by their counterparts in `to` (whose ids are `to_ids`): equal values
/// (the id member ignored) by a diff, then pairs within each changed stretch. Elements
/// without a counterpart get an id of their own made from `tag` and their position.
fn align(
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
    let ops = similar::capture_diff_slices(similar::Algorithm::Myers, &hf, &ht);
    let mut hunks: Vec<(std::ops::Range<usize>, std::ops::Range<usize>)> = Vec::new();
    for op in ops {
        match op {
            similar::DiffOp::Equal {
                old_index,
                new_index,
                len,
            } => {
                for k in 0..len {
                    ids[old_index + k] = Some(to_ids[new_index + k].clone());
                    used[new_index + k] = true;
                }
            }
            other => {
                let (_, old, new) = other.as_tag_tuple();
                hunks.push((old, new));
            }
        }
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
    use crate::MergeOptions;

    fn ids(text: &str) -> Option<Vec<String>> {
        let d = Document::parse(text, Dialect::Sjson).unwrap();
        let empty = Document::parse("", Dialect::Sjson).unwrap();
        let opts = MergeOptions::default();
        let m = Merger::new(&empty, &empty, &empty, &opts);
        let k = m.keyed(d.root().get("l").unwrap())?;
        Some(k.ids.iter().map(|id| id_display(id)).collect())
    }

    #[test]
    fn keyed_arrays_need_one_id_key_and_unique_ids() {
        assert_eq!(
            ids("l = [{ id = a } { ID = b }]"),
            Some(vec!["a".into(), "b".into()])
        );
        assert_eq!(
            ids("l = [{ guid = 1 } { guid = 2 }]"),
            Some(vec!["1".into(), "2".into()])
        );
        assert_eq!(ids("l = []"), Some(vec![]));
        // Duplicates, mixed keys, elements without ids, non-objects: not keyed.
        assert_eq!(ids("l = [{ id = a } { id = a }]"), None);
        assert_eq!(ids("l = [{ id = a } { guid = b }]"), None);
        assert_eq!(ids("l = [{ id = a } { name = b }]"), None);
        assert_eq!(ids("l = [{ id = a } 1]"), None);
        assert_eq!(ids("l = [1 2]"), None);
        // An integer id and a string id of the same digits are distinct.
        assert_eq!(
            ids("l = [{ id = 1 } { id = \"1\" }]"),
            Some(vec!["1".into(), "1".into()])
        );
    }

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
