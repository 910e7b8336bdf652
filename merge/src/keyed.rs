//! Arrays: keyed arrays merged by id (membership like object keys, order by a three-way
//! merge of the id sequences), atomic number tuples, and the dispatch to sequences.

use std::borrow::Cow;
use std::rc::Rc;

use rustc_hash::{FxHashMap, FxHashSet};
use sjson::{Document, Kind, Out, OutItem, Segment, Value};

use crate::align::{align, align_deep};
use crate::merger::{id_display, Merger};
use crate::{ConflictKind, Side};

/// The ids of a keyed array: every element an object with an id under the same id key,
/// ids unique.
pub(crate) struct Keyed<'a> {
    /// The id key as written in the first element (`None` for an empty array).
    pub key: Option<Cow<'a, str>>,
    /// The id of each element, in order.
    pub ids: Vec<Cow<'a, str>>,
    /// Position of each id.
    pub index: FxHashMap<Cow<'a, str>, usize>,
}

impl Keyed<'_> {
    fn get(&self, id: &str) -> Option<usize> {
        self.index.get(id).copied()
    }
}

impl<'a> Merger<'a> {
    /// The ids of `arr` if it is a keyed array (computed once per array and merge).
    pub(crate) fn keyed(&self, arr: Value<'a>) -> Option<Rc<Keyed<'a>>> {
        let slot = (arr.doc() as *const Document as usize, arr.id());
        if let Some(cached) = self.keyed_cache.borrow().get(&slot) {
            return cached.clone();
        }
        let keyed = self.compute_keyed(arr).map(Rc::new);
        self.keyed_cache.borrow_mut().insert(slot, keyed.clone());
        keyed
    }

    fn compute_keyed(&self, arr: Value<'a>) -> Option<Keyed<'a>> {
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
                return self.merge_keyed(b, o, t, bk.map(Rc::new), ok, Rc::new(tk), true);
            }
            (None, Some(tk), bk)
                if !tk.ids.is_empty()
                    && has_objects(o)
                    && !matches!(bk, Some(Some(ref k)) if !k.ids.is_empty()) =>
            {
                let key = tk.key.clone().unwrap_or_default();
                let (bk, ok) = self.align_unkeyed(b, o, t, &tk, &key);
                return self.merge_keyed(b, o, t, bk.map(Rc::new), Rc::new(ok), tk, true);
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
    /// elements they correspond to. Elements without a counterpart get ids of their own.
    ///
    /// The keyed side is typically the unkeyed history plus the ids a migration added, at
    /// any depth (the arrays of objects inside its elements got ids too). So a version
    /// without ids is aligned to it by values with every id member left out, at any depth:
    /// equal elements by a diff of those values, then, within each changed stretch, pairs
    /// by a natural key or by similarity (the share of members equal, ids left out). The
    /// unkeyed side is aligned to the base (neither has the ids) by value and similarity.
    fn align_unkeyed(
        &self,
        b: Option<Value<'a>>,
        unkeyed: Value<'a>,
        keyed: Value<'a>,
        keyed_ids: &Keyed<'a>,
        id_key: &str,
    ) -> (Option<Keyed<'a>>, Keyed<'a>) {
        let is_id = |k: &str| {
            k.eq_ignore_ascii_case(id_key)
                || self.opts.id_keys.iter().any(|i| k.eq_ignore_ascii_case(i))
        };
        let keyed_els: Vec<_> = keyed.children().collect();
        let natural = &self.opts.natural_keys;
        let keyed_id_list: Vec<String> = keyed_ids.ids.iter().map(|s| s.to_string()).collect();
        let base = b.map(|b| {
            let els: Vec<_> = b.children().collect();
            let ids = align_deep(&els, &keyed_els, &keyed_id_list, &is_id, natural, "base");
            (els, ids)
        });
        let unkeyed_els: Vec<_> = unkeyed.children().collect();
        let ids = match &base {
            // Neither has the ids: by value and similarity, the id member ignored.
            Some((els, ids)) => align(&unkeyed_els, els, ids, id_key, natural, "side"),
            None => align_deep(
                &unkeyed_els,
                &keyed_els,
                &keyed_id_list,
                &is_id,
                natural,
                "side",
            ),
        };
        let make = |ids: Vec<String>| {
            let ids: Vec<Cow<'a, str>> = ids.into_iter().map(Cow::Owned).collect();
            Keyed {
                key: keyed_ids.key.clone(),
                index: ids
                    .iter()
                    .cloned()
                    .enumerate()
                    .map(|(i, s)| (s, i))
                    .collect(),
                ids,
            }
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
        bk: Option<Rc<Keyed<'a>>>,
        ok: Rc<Keyed<'a>>,
        tk: Rc<Keyed<'a>>,
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
        // A base element that one side only gave ids (nested arrays too) is unchanged.
        let is_id = |k: &str| {
            k.eq_ignore_ascii_case(&id_key)
                || self.opts.id_keys.iter().any(|i| k.eq_ignore_ascii_case(i))
        };
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
                (Some(be), None) if unmigrated && same_without_ids(be, oe, &is_id) => None,
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
                Some(be) if unmigrated && same_without_ids(be, te, &is_id) => None,
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
        let order = self.merged_order(bk.as_deref(), &ok, &tk, &items);
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
    fn merged_order<'k>(
        &mut self,
        bk: Option<&'k Keyed<'a>>,
        ok: &'k Keyed<'a>,
        tk: &'k Keyed<'a>,
        items: &FxHashMap<&'k str, OutItem<'a>>,
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
                .map(|s| s.as_ref())
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
                    // The report names the order of the common ids, not whole arrays.
                    let ids = |seq: &[&str]| {
                        let list: Vec<String> = seq
                            .iter()
                            .map(|id| {
                                let mut q = String::new();
                                sjson::string::write_quoted(&mut q, &id_display(id));
                                q
                            })
                            .collect();
                        Some(format!("[{}]", list.join(",")))
                    };
                    let taken = self.policy_side();
                    self.conflicts.push(crate::Conflict {
                        path: self.path.to_string(),
                        kind: ConflictKind::Order,
                        base: ids(&b_seq),
                        ours: ids(&o_seq),
                        theirs: ids(&t_seq),
                        taken,
                        object: None,
                        referrer: None,
                    });
                    taken
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
            .map(|s| s.as_ref())
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
        // One adjustment per anchor: a scan per inserted element would be quadratic when
        // both sides insert many elements at one place.
        let mut adjusted: FxHashMap<Option<&'k str>, Option<&'k str>> = FxHashMap::default();
        let mut anchor: Option<&'k str> = None;
        for id in other.ids.iter().map(|s| s.as_ref()) {
            if spine_set.contains(id) {
                anchor = Some(id);
            } else if in_result(id) {
                let at = *adjusted.entry(anchor).or_insert_with(|| adjust(anchor));
                buckets.entry(at).or_default().push(id);
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

/// Whether two values are equal with every id member (by `is_id`) left out, at any
/// depth: a base element and its version that a migration gave ids, nested arrays too.
fn same_without_ids(a: Value<'_>, b: Value<'_>, is_id: &dyn Fn(&str) -> bool) -> bool {
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
        // An integer id and a string id of the same digits are distinct, and so are
        // their paths (`[id=1]`, `[id="1"]`).
        assert_eq!(
            ids("l = [{ id = 1 } { id = \"1\" }]"),
            Some(vec!["1".into(), "\"1\"".into()])
        );
    }
}
