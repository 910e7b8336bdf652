//! Moved values in the merge: a value one side moved is merged with the other side's
//! version of it, wherever that is ([`crate::moves`] found the moves before the merge).

use sjson::{NodeId, Out, OutItem, Segment, Value};

use super::Merger;
use crate::id::id_display;
use crate::moves::{slot, Step};
use crate::{ConflictKind, Side};

impl<'a> Merger<'a> {
    /// The result for value `v` that only `side` added: `v` itself, or, if moved values
    /// lie inside it, `v` rebuilt with each moved value merged with the other side's
    /// edits. `None`: `v` is a moved value that the merge drops (the other side deleted
    /// it or moved it elsewhere, and the policy took the other side).
    pub(crate) fn materialize(&mut self, side: Side, v: Value<'a>) -> Option<Out<'a>> {
        let moves = self.cx.moves();
        if !moves.holds_move(side, v) || !moves.carries_edits(self.cx.versions(), side, v) {
            return Some(Out::Value(v));
        }
        self.rebuild(side, v)
    }

    fn rebuild(&mut self, side: Side, v: Value<'a>) -> Option<Out<'a>> {
        if !self.cx.moves().holds_move(side, v) {
            return Some(Out::Value(v));
        }
        if let Some((base_id, path)) = self.cx.moves().origin(side, v) {
            let at = (slot(side), v.id());
            if self.st.merging.insert(at) {
                let path = path.to_vec();
                let out = self.merge_moved(side, v, base_id, &path);
                self.st.merging.remove(&at);
                return out;
            }
        }
        if !v.is_container() {
            return Some(Out::Value(v));
        }
        let mut items = Vec::with_capacity(v.len());
        for (i, c) in v.children().enumerate() {
            self.st.path.push(match (c.key(), self.cx.id_of(c)) {
                (Some(k), _) => Segment::Key(k.into_owned()),
                (None, Some((key, id))) => Segment::Id {
                    key: key.into_owned(),
                    value: id_display(&id),
                },
                (None, None) => Segment::Index(i),
            });
            let value = self.rebuild(side, c);
            self.st.path.pop();
            if let Some(value) = value {
                items.push(OutItem {
                    key: c.key(),
                    ours: (side == Side::Ours).then_some(c),
                    origin: (side == Side::Theirs).then_some(c),
                    value,
                });
            }
        }
        Some(Out::Container {
            kind: v.kind(),
            ours: (side == Side::Ours).then_some(v),
            items,
        })
    }

    /// `side` moved base node `base_id` (at `path` in the base) to `v`: merges it with
    /// the other side's version, wherever that is.
    fn merge_moved(
        &mut self,
        side: Side,
        v: Value<'a>,
        base_id: NodeId,
        path: &[Step],
    ) -> Option<Out<'a>> {
        let b = self.cx.base().value(base_id);
        let other_side = side.other();
        let other_doc = self.cx.doc(other_side);
        let ours_of = |mine: Value<'a>, other: Value<'a>| match side {
            Side::Ours => (mine, other),
            Side::Theirs => (other, mine),
        };
        if let Some(n) = self.cx.moves().moved_to(other_side, base_id) {
            // Both sides moved it, to different places (had they moved it to the same
            // place, it would be merged there, not added): the policy's place is kept,
            // and the conflict reported there.
            let taken = self.cx.policy_side();
            if taken != side {
                return None;
            }
            let (o, t) = ours_of(v, other_doc.value(n));
            self.record_conflict(ConflictKind::BothModified, Some(b), Some(o), Some(t), taken);
            return Some(self.merge_value(Some(b), o, t));
        }
        match self
            .cx
            .moves()
            .resolve_in(self.cx.versions(), other_side, path)
        {
            Some(other) => {
                let (o, t) = ours_of(v, other);
                Some(self.merge_value(Some(b), o, t))
            }
            // The other side deleted the original: moved (a change) against deleted.
            None => {
                let (kind, o, t) = match side {
                    Side::Ours => (ConflictKind::ModifyDelete, Some(v), None),
                    Side::Theirs => (ConflictKind::DeleteModify, None, Some(v)),
                };
                let taken = self.cx.policy_side();
                self.record_conflict(kind, Some(b), o, t, taken);
                (taken == side).then_some(Out::Value(v))
            }
        }
    }
}
