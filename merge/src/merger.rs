//! The recursive three-way merge of values and objects; arrays are in `keyed.rs` and
//! `sequence.rs`, moves in `moves.rs`.

use rustc_hash::{FxHashMap, FxHashSet};
use sjson::{Document, Kind, NodeId, Out, OutItem, Path, Segment, Value};

use crate::compact::compact_json;
use crate::context::Context;
use crate::members::{KeyIndex, MemberId};
use crate::observe::Trace;
use crate::{Conflict, ConflictKind, MergeOptions, Side, Structural};

/// The merge in progress: what it reads ([`Context`], never changed once built) and what
/// it changes as it goes ([`State`]).
pub(crate) struct Merger<'a> {
    /// The settings, the versions, the id keys, the format, the moves.
    pub(crate) cx: Context<'a>,
    /// The current path, the conflicts so far, the depth, the trace.
    pub(crate) st: State,
}

/// What a merge changes as it goes: the path it is at, the conflicts so far, how deep it
/// is, what it matched (when recording), and which moved values it is merging.
#[derive(Default)]
pub(crate) struct State {
    /// The place being merged.
    pub(crate) path: Path,
    /// Every conflict and repair so far, in the order met.
    pub(crate) conflicts: Vec<Conflict>,
    /// How deep `merge_value` calls are nested (a guard against runaway recursion).
    depth: usize,
    /// What the merge matched, when recording ([`crate::trace::trace`]); `None` otherwise.
    pub(crate) trace: Option<Box<Trace>>,
    /// The moved values being merged with the other side's version (side, node): met
    /// again inside that merge (taken whole there), such a value is rebuilt, not merged
    /// again.
    merging: FxHashSet<(usize, NodeId)>,
}

/// The structural merge as printed: not yet parsed back, repaired or checked.
pub(crate) struct Printed {
    /// The merged text, an edit of ours.
    pub(crate) text: String,
    /// The conflicts met, in the order met.
    pub(crate) conflicts: Vec<Conflict>,
    /// Where the text can be parsed on two threads.
    pub(crate) split: Option<sjson::Split>,
}

/// Deeper than any document nesting allows (512) plus moves: past it, the policy's side
/// is taken whole instead of recursing further.
const MAX_MERGE_DEPTH: usize = 1024;

/// Whether the keys two objects share come in the same order in both.
fn same_key_order(o: Value<'_>, t: Value<'_>) -> bool {
    let oi = KeyIndex::new(Some(o));
    let mut last = None;
    for (k, _) in t.members() {
        if let Some(p) = oi.position(&k) {
            if last.is_some_and(|l| p < l) {
                return false;
            }
            last = Some(p);
        }
    }
    true
}

impl<'a> Merger<'a> {
    pub(crate) fn new(
        base: &'a Document,
        ours: &'a Document,
        theirs: &'a Document,
        opts: &'a MergeOptions,
    ) -> Self {
        Self::build(base, ours, theirs, opts, false)
    }

    /// A merger that records what it matches (see [`crate::trace`]).
    pub(crate) fn traced(
        base: &'a Document,
        ours: &'a Document,
        theirs: &'a Document,
        opts: &'a MergeOptions,
    ) -> Self {
        Self::build(base, ours, theirs, opts, true)
    }

    fn build(
        base: &'a Document,
        ours: &'a Document,
        theirs: &'a Document,
        opts: &'a MergeOptions,
        trace: bool,
    ) -> Self {
        let cx = Context::new(base, ours, theirs, opts);
        let trace = trace.then(|| {
            let mut t = Box::<Trace>::default();
            t.record_moves(&cx);
            t
        });
        Merger {
            cx,
            st: State {
                trace,
                ..State::default()
            },
        }
    }

    /// Runs the merge for its record of what it matched (empty unless built by
    /// [`Merger::traced`]).
    pub(crate) fn into_trace(mut self) -> Trace {
        let (b, o, t) = (
            self.cx.base().root(),
            self.cx.ours().root(),
            self.cx.theirs().root(),
        );
        self.merge_value(Some(b), o, t);
        self.st.trace.map(|t| *t).unwrap_or_default()
    }

    pub(crate) fn run(self) -> Structural {
        let Printed {
            text, conflicts, ..
        } = self.run_split();
        Structural { text, conflicts }
    }

    /// The merge printed as an edit of ours, with where its text can be parsed on two
    /// threads.
    pub(crate) fn run_split(self) -> Printed {
        let doc = self.cx.ours();
        let (out, conflicts) = self.merge();
        let (text, split) = sjson::print_with_split(doc, &out);
        Printed {
            text,
            conflicts,
            split,
        }
    }

    /// The merged output, to be printed as an edit of ours, and the conflicts. What the
    /// merge indexed is freed on return: the printer's buffers take its place at the
    /// peak of memory.
    pub(crate) fn merge(mut self) -> (Out<'a>, Vec<Conflict>) {
        let (b, o, t) = (
            self.cx.base().root(),
            self.cx.ours().root(),
            self.cx.theirs().root(),
        );
        let out = self.merge_value(Some(b), o, t);
        (out, std::mem::take(&mut self.st.conflicts))
    }

    /// Merges one value present on both sides.
    pub(crate) fn merge_value(
        &mut self,
        b: Option<Value<'a>>,
        o: Value<'a>,
        t: Value<'a>,
    ) -> Out<'a> {
        if self.st.depth >= MAX_MERGE_DEPTH {
            return self
                .conflict(ConflictKind::BothModified, b, Some(o), Some(t))
                .unwrap_or(Out::Value(t));
        }
        self.st.depth += 1;
        let out = self.merge_value_at_depth(b, o, t);
        self.st.depth -= 1;
        out
    }

    /// Records the pairings found in the array at the current path (when tracing).
    pub(crate) fn trace_pairs(&mut self, pairs: Vec<crate::observe::Pairing>) {
        if let Some(trace) = &mut self.st.trace {
            trace.record_pairs(&self.st.path, pairs);
        }
    }

    /// Whether `merge_value(_, o, t)` is `o` because ours and theirs are equal (a
    /// shortcut for callers that would otherwise name the path first).
    pub(crate) fn unchanged(&self, o: Value<'a>, t: Value<'a>) -> bool {
        self.st.depth < MAX_MERGE_DEPTH && o.same_value(&t)
    }

    fn merge_value_at_depth(
        &mut self,
        b: Option<Value<'a>>,
        o: Value<'a>,
        t: Value<'a>,
    ) -> Out<'a> {
        if o.same_value(&t) {
            return Out::Value(o);
        }
        // Both sides moved one base value here: that is its base, and both sides' edits
        // to it are here already (nothing to carry from elsewhere).
        let common = match b {
            None => self
                .cx
                .moves()
                .common_origin(o, t)
                .map(|id| self.cx.base().value(id)),
            Some(_) => None,
        };
        if let Some(c) = common {
            if c.same_value(&t) {
                return Out::Value(o);
            }
            if c.same_value(&o) {
                return Out::Value(t);
            }
        }
        let b = b.or(common);
        if let Some(b) = b {
            // One side's value is taken whole, with the other side's edits to values
            // moved into it.
            if b.same_value(&o) {
                return self.take_theirs(b, o, t);
            }
            if b.same_value(&t) {
                return self.taken_whole(Side::Ours, o);
            }
        }
        match (o.kind(), t.kind()) {
            (Kind::Object, Kind::Object) => {
                self.merge_objects(b.filter(|b| b.kind() == Kind::Object), o, t)
            }
            (Kind::Array, Kind::Array) => {
                self.merge_arrays(b.filter(|b| b.kind() == Kind::Array), o, t)
            }
            _ => {
                if let Some(out) = self.greater_version(b, o, t) {
                    return out;
                }
                if let Some(out) = self.editor_derived(b, o, t) {
                    return out;
                }
                let kind = if b.is_some() {
                    ConflictKind::BothModified
                } else {
                    ConflictKind::BothAdded
                };
                self.conflict(kind, b, Some(o), Some(t))
                    .unwrap_or(Out::Value(t))
            }
        }
    }

    /// Theirs' value where ours kept the base's. Where both are objects (keys in one
    /// order) or non-atomic arrays, it is merged all the same: the result is theirs' value,
    /// printed as an edit of ours' so that ours' bytes stay wherever theirs' equal them.
    /// An object of theirs that repeats a key is taken as written (its repeats too).
    fn take_theirs(&mut self, b: Value<'a>, o: Value<'a>, t: Value<'a>) -> Out<'a> {
        match (o.kind(), t.kind()) {
            (Kind::Object, Kind::Object) if same_key_order(o, t) && !t.has_duplicate_keys() => {
                self.merge_objects(Some(b), o, t)
            }
            (Kind::Array, Kind::Array) if !self.is_atomic(Some(b), o, t) => {
                self.merge_arrays(Some(b), o, t)
            }
            _ => self.taken_whole(Side::Theirs, t),
        }
    }

    /// `side`'s value, taken whole where the other side left the base value as it was.
    fn taken_whole(&mut self, side: Side, v: Value<'a>) -> Out<'a> {
        if self.cx.moves().holds_move(side, v) {
            if let Some(out) = self.materialize(side, v) {
                return out;
            }
        }
        Out::Value(v)
    }

    /// Records a conflict at the current path.
    pub(crate) fn record_conflict(
        &mut self,
        kind: ConflictKind,
        b: Option<Value<'a>>,
        o: Option<Value<'a>>,
        t: Option<Value<'a>>,
        taken: Side,
    ) {
        self.st.conflicts.push(Conflict {
            path: self.st.path.to_string(),
            kind,
            base: b.map(compact_json),
            ours: o.map(compact_json),
            theirs: t.map(compact_json),
            taken,
            object: None,
            referrer: None,
        });
    }

    /// Records a conflict and returns the value the policy takes (`None`: absent).
    pub(crate) fn conflict(
        &mut self,
        kind: ConflictKind,
        b: Option<Value<'a>>,
        o: Option<Value<'a>>,
        t: Option<Value<'a>>,
    ) -> Option<Out<'a>> {
        let taken = self.cx.policy_side();
        self.record_conflict(kind, b, o, t, taken);
        match taken {
            Side::Ours => o.map(Out::Value),
            Side::Theirs => t.map(Out::Value),
        }
    }

    /// Key-by-key merge of two objects (and their base, if any). A member is matched by
    /// its key and its occurrence among equal keys ([`crate::members`]).
    fn merge_objects(&mut self, b: Option<Value<'a>>, o: Value<'a>, t: Value<'a>) -> Out<'a> {
        let bi = KeyIndex::new(b);
        let (oi, ours_repeats) = KeyIndex::against(Some(o), &bi, Side::Ours);
        let (ti, theirs_repeats) = KeyIndex::against(Some(t), &bi, Side::Theirs);
        self.repeated_keys(Side::Ours, &ours_repeats);
        self.repeated_keys(Side::Theirs, &theirs_repeats);
        let mut items: Vec<(MemberId<'a>, OutItem<'a>)> = Vec::with_capacity(o.len() + 1);
        for ((key, nth), ov) in oi.entries() {
            let bv = bi.get_nth(&key, nth);
            let tv = ti.get_nth(&key, nth);
            self.st.path.push(Segment::Key(key.to_string()));
            let value = match (bv, tv) {
                (_, Some(tv)) => Some(self.merge_value(bv, ov, tv)),
                (Some(bv), None) => self.one_side_deleted(Side::Theirs, bv, ov),
                (None, None) => self.added(Side::Ours, ov),
            };
            self.st.path.pop();
            if let Some(value) = value {
                let item = OutItem {
                    key: Some(key.clone()),
                    ours: Some(ov),
                    origin: None,
                    value,
                };
                items.push(((key, nth), item));
            }
        }
        // Keys new in theirs go after their predecessor in theirs.
        let mut buckets: FxHashMap<MemberId<'a>, Vec<OutItem<'a>>> = FxHashMap::default();
        let mut at_start: Vec<OutItem<'a>> = Vec::new();
        let mut anchor: Option<MemberId<'a>> = None;
        for ((key, nth), tv) in ti.entries() {
            if oi.contains_nth(&key, nth) {
                anchor = Some((key, nth));
                continue;
            }
            self.st.path.push(Segment::Key(key.to_string()));
            let value = match bi.get_nth(&key, nth) {
                Some(bv) => self.one_side_deleted(Side::Ours, bv, tv),
                None => self.added(Side::Theirs, tv),
            };
            self.st.path.pop();
            if let Some(value) = value {
                let item = OutItem {
                    key: Some(key),
                    ours: None,
                    origin: Some(tv),
                    value,
                };
                match &anchor {
                    Some(a) => buckets.entry(a.clone()).or_default().push(item),
                    None => at_start.push(item),
                }
            }
        }
        let items = if buckets.is_empty() && at_start.is_empty() {
            items.into_iter().map(|(_, item)| item).collect()
        } else {
            // Where both inserted after one key, ours' insertions come first.
            let ours_new = |(key, nth): &MemberId<'a>| {
                !bi.contains_nth(key, *nth) && !ti.contains_nth(key, *nth)
            };
            let mut merged = Vec::with_capacity(items.len() + at_start.len());
            let mut pending = at_start;
            for (id, item) in items {
                if !pending.is_empty() && !ours_new(&id) {
                    merged.append(&mut pending);
                }
                merged.push(item);
                if let Some(extra) = buckets.remove(&id) {
                    pending.extend(extra);
                }
            }
            merged.append(&mut pending);
            // Anchors that ours deleted: keep their followers at the end, in order.
            let mut rest: Vec<_> = buckets.into_values().flatten().collect();
            merged.append(&mut rest);
            merged
        };
        Out::Container {
            kind: Kind::Object,
            ours: Some(o),
            items,
        }
    }

    /// Reports each key `side` wrote more than once where base holds it at most once (read
    /// as its last occurrence, written once): a [`ConflictKind::RepeatedKey`] repair.
    fn repeated_keys(&mut self, side: Side, collapsed: &[crate::members::Collapsed<'a>]) {
        for c in collapsed {
            self.st.path.push(Segment::Key(c.key.to_string()));
            let times = match c.times {
                2 => "twice".to_string(),
                n => format!("{n} times"),
            };
            let mut key = String::new();
            sjson::string::write_quoted(&mut key, &c.key);
            self.st.conflicts.push(Conflict {
                path: self.st.path.to_string(),
                kind: ConflictKind::RepeatedKey,
                base: None,
                ours: None,
                theirs: None,
                taken: side,
                object: Some(format!("{key} {times}")),
                referrer: None,
            });
            self.st.path.pop();
        }
    }

    /// `deleter` deleted `b`; the other side holds `kept`. Returns what the result holds.
    pub(crate) fn one_side_deleted(
        &mut self,
        deleter: Side,
        b: Value<'a>,
        kept: Value<'a>,
    ) -> Option<Out<'a>> {
        if self.cx.moves().moved_away(deleter, b) || b.same_value(&kept) {
            return None;
        }
        match deleter {
            Side::Theirs => self.conflict(ConflictKind::ModifyDelete, Some(b), Some(kept), None),
            Side::Ours => self.conflict(ConflictKind::DeleteModify, Some(b), None, Some(kept)),
        }
    }

    /// A value only `side` added here (it may hold a moved subtree to merge); `None`
    /// if it is a moved value the merge drops.
    pub(crate) fn added(&mut self, side: Side, v: Value<'a>) -> Option<Out<'a>> {
        self.materialize(side, v)
    }
}

mod moved;
#[cfg(test)]
mod tests;
