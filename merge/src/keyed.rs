//! Arrays: keyed arrays merged by id (membership like object keys, order by a three-way
//! merge of the id sequences), atomic number tuples, and the dispatch to sequences.

use std::borrow::Cow;
use std::sync::Arc;

use crate::hashing::SeededMap;

use sjson::{Kind, Out, OutItem, Segment, Value};

use crate::id::id_display;
use crate::keyed_index::{invert, Elements, KeyedIndex, Pos};
use crate::merger::Merger;
use crate::{ConflictKind, Side};

use slots::Slots;
use unkeyed::same_without_ids;

impl<'a> Merger<'a> {
    /// Whether an id key of the array at the current path is no identity, by the
    /// profile (LDtk's `realEditorValues[].id`, a variant tag).
    fn ids_are_not_identities(&self) -> impl Fn(Option<&str>) -> bool + 'static {
        let here = match self.st.path.0.last() {
            Some(sjson::Segment::Key(k)) => k.clone(),
            _ => String::new(),
        };
        let not_ids = self.cx.format().knowledge().not_ids;
        move |key| {
            key.is_some_and(|key| {
                not_ids
                    .iter()
                    .any(|(array, id)| *array == here && key.eq_ignore_ascii_case(id))
            })
        }
    }

    /// Merges two arrays (and their base, if any).
    pub(crate) fn merge_arrays(
        &mut self,
        b: Option<Value<'a>>,
        o: Value<'a>,
        t: Value<'a>,
    ) -> Out<'a> {
        let not_ids = self.ids_are_not_identities();
        let keyed = |v| self.cx.keyed(v).filter(|k| !not_ids(k.key.as_deref()));
        let (ok, tk) = (keyed(o), keyed(t));
        let bk = b.map(keyed);
        let compatible = |x: &KeyedIndex<'_>, y: &KeyedIndex<'_>| match (&x.key, &y.key) {
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
                let (bk, tk, record) = self.align_unkeyed(b, t, o, &ok, &key);
                self.trace_pairs(record);
                return self.merge_keyed(b, o, t, bk.map(Arc::new), ok, Arc::new(tk), true);
            }
            (None, Some(tk), bk)
                if !tk.ids.is_empty()
                    && has_objects(o)
                    && !matches!(bk, Some(Some(ref k)) if !k.ids.is_empty()) =>
            {
                let key = tk.key.clone().unwrap_or_default();
                let (bk, ok, record) = self.align_unkeyed(b, o, t, &tk, &key);
                self.trace_pairs(record);
                return self.merge_keyed(b, o, t, bk.map(Arc::new), Arc::new(ok), tk, true);
            }
            _ => {}
        }
        if let Some(set) = self.merge_set(b, o, t) {
            return set;
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
                && v.len() <= self.cx.opts().atomic_max
                && v.children().all(|c| c.kind() == Kind::Number)
        };
        !o.is_empty() && numbers(o) && numbers(t) && b.is_none_or(numbers)
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
        mut bk: Option<Arc<KeyedIndex<'a>>>,
        mut ok: Arc<KeyedIndex<'a>>,
        mut tk: Arc<KeyedIndex<'a>>,
        unmigrated: bool,
    ) -> Out<'a> {
        let id_key: String = ok
            .key
            .clone()
            .or_else(|| tk.key.clone())
            .unwrap_or(Cow::Borrowed("id"))
            .into_owned();
        let (mut at, theirs_new) = self.positions([b, Some(o), Some(t)], &mut bk, &mut ok, &mut tk);
        let bs = match (b, &bk) {
            (Some(b), Some(bk)) => bk.elements(b),
            _ => Elements::Collected(b.map(|b| b.children().collect()).unwrap_or_default()),
        };
        let (os, ts) = (ok.elements(o), tk.elements(t));
        // A base element that one side only gave ids (nested arrays too) is unchanged.
        let opts = self.cx.opts();
        let is_id = |k: &str| {
            k.eq_ignore_ascii_case(&id_key)
                || opts.id_keys.iter().any(|i| k.eq_ignore_ascii_case(i))
        };
        // The result's elements by slot: ours' position, or `os.len()` + theirs' position
        // for an id ours lacks.
        let mut items = Slots::new(os.len());
        for (i, id) in ok.ids.iter().enumerate() {
            let oe = os.at(i);
            // Most elements are equal on both sides: merged as `merge_value` would, without
            // naming their path.
            if at.t_of_o[i].is_some_and(|j| self.unchanged(oe, ts.at(j.get()))) {
                items.push_kept();
                continue;
            }
            let be = at.base_of_ours(i).map(|k| bs.at(k));
            self.st.path.push(Segment::Id {
                key: id_key.clone(),
                value: id_display(id),
            });
            let value = match (be, at.t_of_o[i]) {
                (_, Some(j)) => Some(self.merge_value(be, oe, ts.at(j.get()))),
                (Some(be), None) if unmigrated && same_without_ids(be, oe, &is_id) => None,
                (Some(be), None) => self.one_side_deleted(Side::Theirs, be, oe),
                (None, None) => self.added(Side::Ours, oe),
            };
            self.st.path.pop();
            items.push_ours(value.map(|value| OutItem {
                key: None,
                ours: Some(oe),
                origin: None,
                value,
            }));
        }
        for TheirsNew { j, base, id } in theirs_new {
            let te = ts.at(j);
            self.st.path.push(Segment::Id {
                key: id_key.clone(),
                value: id,
            });
            let value = match base.map(|k| bs.at(k)) {
                Some(be) if unmigrated && same_without_ids(be, te, &is_id) => None,
                Some(be) => self.one_side_deleted(Side::Ours, be, te),
                None => self.added(Side::Theirs, te),
            };
            self.st.path.pop();
            if let Some(value) = value {
                let item = OutItem {
                    key: None,
                    ours: None,
                    origin: Some(te),
                    value,
                };
                items.insert_theirs(os.len() + j, item);
            }
        }
        let order = self.merged_order(&mut at, &ok, &items);
        let out = items.into_ordered(&order, &os);
        Out::Container {
            kind: Kind::Array,
            ours: Some(o),
            items: out,
        }
    }

    /// Where the elements of a keyed array's versions (`arrays`: base, ours, theirs; their
    /// indexes `bk`, `ok`, `tk`) sit in one another, and theirs' elements that ours lacks.
    /// Each index's table of positions by id is freed once nothing looks an id up in it
    /// (ours' at once), and base's and theirs' ids too: the merge of the array reads
    /// their elements by position only after that (4 MB less at the peak of merging a
    /// 100,000-element array's versions). The indexes leave the cache first: nothing asks
    /// for them again (what did would build them again); one still shared keeps all.
    fn positions(
        &self,
        arrays: [Option<Value<'a>>; 3],
        bk: &mut Option<Arc<KeyedIndex<'a>>>,
        ok: &mut Arc<KeyedIndex<'a>>,
        tk: &mut Arc<KeyedIndex<'a>>,
    ) -> (Positions, Vec<TheirsNew>) {
        for v in arrays.into_iter().flatten() {
            self.cx.forget_keyed(v);
        }
        let shed = |k: &mut Arc<KeyedIndex<'a>>, ids: bool| {
            if let Some(k) = Arc::get_mut(k) {
                match ids {
                    true => k.keep_only_nodes(),
                    false => k.drop_lookup(),
                }
            }
        };
        shed(ok, false);
        let t_of_o = ok.positions_in(tk);
        shed(tk, false);
        let o_of_t = invert(&t_of_o, tk.ids.len());
        let b_of_o = bk.as_deref().map(|bk| ok.positions_in(bk));
        let theirs_new = (tk.ids.iter().enumerate())
            .filter(|&(j, _)| o_of_t[j].is_none())
            .map(|(j, id)| TheirsNew {
                j,
                base: bk.as_deref().and_then(|bk| bk.get(id)),
                id: id_display(id),
            })
            .collect();
        let base_len = bk.as_deref().map(|bk| bk.ids.len());
        shed(tk, true);
        if let Some(bk) = bk.as_mut() {
            shed(bk, true);
        }
        let o_of_b = base_len.zip(b_of_o.as_ref()).map(|(len, m)| invert(m, len));
        let at = Positions {
            t_of_o,
            o_of_t,
            b_of_o,
            o_of_b,
        };
        (at, theirs_new)
    }

    /// The order of the merged elements (as slots of `items`, see `merge_keyed`): the side
    /// that reordered the common elements gives the backbone (theirs when both did: an
    /// order conflict); the other side's elements go after their predecessor there, ours'
    /// first where both inserted at one place.
    fn merged_order(
        &mut self,
        at: &mut Positions,
        ok: &KeyedIndex<'a>,
        items: &Slots<'a>,
    ) -> Vec<u32> {
        let n_o = at.t_of_o.len();
        let in_result = |r: usize| items.holds(r);
        let backbone = self.backbone(at, ok, items);
        // Base's positions in ours were for the backbone only.
        at.o_of_b = None;
        let at: &Positions = at;
        // The slot of theirs' element j.
        let slot_of_t = |j: usize| at.o_of_t[j].map_or(n_o + j, Pos::get);
        // Slots as `u32` (nodes are numbered by `u32`): half the memory of `usize`.
        let spine: Vec<u32> = match backbone {
            Side::Ours => (0..n_o)
                .filter(|&i| in_result(i))
                .map(|i| i as u32)
                .collect(),
            Side::Theirs => (0..at.o_of_t.len())
                .map(slot_of_t)
                .filter(|&r| in_result(r))
                .map(|r| r as u32)
                .collect(),
        };
        // The spine position of each of ours' slots on it: only those are looked up (the
        // other side's elements are theirs' with ours as the spine, ours' with theirs).
        let mut spine_pos = vec![u32::MAX; n_o];
        for (p, &r) in spine.iter().enumerate() {
            if let Some(at) = spine_pos.get_mut(r as usize) {
                *at = p as u32;
            }
        }
        // With ours as backbone, theirs' insertions go after ours' own at the same place.
        let ours_new = |i: usize| at.t_of_o[i].is_none() && at.base_of_ours(i).is_none();
        let adjust = |anchor: Option<usize>| -> Option<usize> {
            if backbone != Side::Ours {
                return anchor;
            }
            let mut i = anchor.map_or(0, |a| a + 1);
            let mut adjusted = anchor;
            while i < spine.len() && ours_new(spine[i] as usize) {
                adjusted = Some(i);
                i += 1;
            }
            adjusted
        };
        // The other side's elements not on the spine, each with the place it goes: 0 the
        // start, p + 1 after spine position p. They are few: kept as a list, not a bucket
        // for each place. One adjustment per anchor: a scan per inserted element would be
        // quadratic when both sides insert many elements at one place.
        let mut inserted: Vec<(usize, u32)> = Vec::new();
        let mut adjusted: SeededMap<usize, Option<usize>> = SeededMap::default();
        let mut anchor: Option<usize> = None;
        // The other side's elements by slot, in its order.
        let others = match backbone {
            Side::Ours => at.o_of_t.len(),
            Side::Theirs => n_o,
        };
        let other_slot = |k: usize| match backbone {
            Side::Ours => slot_of_t(k),
            Side::Theirs => k,
        };
        for r in (0..others).map(other_slot) {
            if let Some(&p) = spine_pos.get(r).filter(|&&p| p != u32::MAX) {
                anchor = Some(p as usize);
            } else if in_result(r) {
                let slot = anchor.map_or(0, |a| a + 1);
                let at = *adjusted.entry(slot).or_insert_with(|| adjust(anchor));
                inserted.push((at.map_or(0, |a| a + 1), r as u32));
            }
        }
        drop(spine_pos);
        // Stable: the elements inserted at one place keep their order.
        inserted.sort_by_key(|&(place, _)| place);
        with_inserted(spine, &inserted)
    }

    /// The side whose order of the common elements (those of every version, kept) the
    /// result follows: the one that reordered them; with an order conflict (reported)
    /// when both did. The orders are compared as they are read, and listed only for the
    /// report.
    fn backbone(&mut self, at: &Positions, ok: &KeyedIndex<'a>, items: &Slots<'a>) -> Side {
        let Some(o_of_b) = &at.o_of_b else {
            return Side::Ours;
        };
        // An element of all versions, kept: named by its position in ours.
        let common = |i: usize| {
            items.holds(i)
                && at.t_of_o[i].is_some()
                && at.b_of_o.as_ref().is_none_or(|b| b[i].is_some())
        };
        let o_seq = || (0..at.t_of_o.len()).filter(|&i| common(i));
        let t_seq = || in_ours(&at.o_of_t).filter(|&i| common(i));
        let b_seq = || in_ours(o_of_b).filter(|&i| common(i));
        if o_seq().eq(b_seq()) {
            Side::Theirs
        } else if t_seq().eq(b_seq()) || o_seq().eq(t_seq()) {
            Side::Ours
        } else {
            let seqs: [Vec<usize>; 3] = [b_seq().collect(), o_seq().collect(), t_seq().collect()];
            self.order_conflict(ok, [&seqs[0], &seqs[1], &seqs[2]])
        }
    }

    /// Reports that both sides reordered the common elements (given by their positions in
    /// ours, in base, ours and theirs order) and returns the side the policy takes. The
    /// report names the order of the common ids, not whole arrays.
    fn order_conflict(&mut self, ok: &KeyedIndex<'a>, seqs: [&[usize]; 3]) -> Side {
        let ids = |seq: &[usize]| {
            let list: Vec<String> = seq
                .iter()
                .map(|&i| {
                    let mut q = String::new();
                    sjson::string::write_quoted(&mut q, &id_display(&ok.ids[i]));
                    q
                })
                .collect();
            Some(format!("[{}]", list.join(",")))
        };
        let taken = self.cx.policy_side();
        self.st.conflicts.push(crate::Conflict {
            path: self.st.path.clone(),
            kind: ConflictKind::Order,
            base: ids(seqs[0]),
            ours: ids(seqs[1]),
            theirs: ids(seqs[2]),
            taken,
            object: None,
            referrer: None,
        });
        taken
    }
}

/// `spine` with each of `inserted` (its place, 0 the start or p + 1 after spine element
/// p, sorted by place, and its slot) at its place, those of one place in their order.
/// Built in the spine's own table, from the back: a spine element only moves right, so
/// none is overwritten before it moved (a second table would be as large).
fn with_inserted(spine: Vec<u32>, inserted: &[(usize, u32)]) -> Vec<u32> {
    let n = spine.len();
    let mut order = spine;
    order.resize(n + inserted.len(), 0);
    let (mut write, mut left) = (order.len(), inserted.len());
    for place in (0..=n).rev() {
        while left > 0 && inserted[left - 1].0 >= place {
            left -= 1;
            write -= 1;
            order[write] = inserted[left].1;
        }
        if place > 0 {
            write -= 1;
            order[write] = order[place - 1];
        }
    }
    order
}

/// The positions in ours that `map` (another version's elements' positions in ours) holds,
/// in that version's order.
fn in_ours(map: &[Option<Pos>]) -> impl Iterator<Item = usize> + '_ {
    map.iter().filter_map(|&i| i.map(Pos::get))
}

/// One of theirs' elements that ours lacks (see `Merger::positions`).
struct TheirsNew {
    /// Its position in theirs.
    j: usize,
    /// The base's position of its id.
    base: Option<usize>,
    /// Its id, as paths show it.
    id: String,
}

/// Where the elements of the versions of a keyed array sit in one another, found by one
/// lookup per element: later steps compare positions, not ids.
struct Positions {
    /// For each of ours' elements, theirs' position of its id.
    t_of_o: Vec<Option<Pos>>,
    /// For each of theirs' elements, ours' position of its id.
    o_of_t: Vec<Option<Pos>>,
    /// For each of ours' elements, the base's position of its id (`None`: no base).
    b_of_o: Option<Vec<Option<Pos>>>,
    /// For each of the base's elements, ours' position of its id (`None`: no base).
    o_of_b: Option<Vec<Option<Pos>>>,
}

impl Positions {
    /// The base's position of ours' element `i`.
    fn base_of_ours(&self, i: usize) -> Option<usize> {
        self.b_of_o.as_ref()?[i].map(Pos::get)
    }
}

mod slots;
mod unkeyed;

#[cfg(test)]
mod tests;
