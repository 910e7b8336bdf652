//! Restoring an object the result lacks from the side that kept it: which side, which
//! of its ancestors come with it, and where in the result it goes.

use sjson::{Kind, NodeId, Out, OutItem, Value};

use super::{label, other, Edit, Round, State};
use crate::coherence::apply::without;
use crate::coherence::index::{DocIndex, Step};
use crate::compact::compact_json;
use crate::{Conflict, ConflictKind, Side};

impl<'s> State<'s, '_> {
    /// The side to restore `id` from: the only side holding it; else, for an orphan, the
    /// side whose container the result still has; else the policy's side.
    fn source(&self, id: &str, kind: ConflictKind, round: &Round<'_, '_>) -> Option<Side> {
        let im = round.im;
        let holds = |s: Side| round.ids(s).has(im, id);
        match (holds(Side::Ours), holds(Side::Theirs)) {
            (false, false) => None,
            (true, false) => Some(Side::Ours),
            (false, true) => Some(Side::Theirs),
            (true, true) if kind == ConflictKind::Cycle => Some(self.winner),
            (true, true) => {
                let housed = |s: Side| {
                    let index = self.side(s);
                    let at = index.position(id);
                    at.is_some_and(|i| index.owner_id(i).is_none_or(|o| im.has(o)))
                };
                Some(match (housed(Side::Ours), housed(Side::Theirs)) {
                    (true, false) => Side::Ours,
                    (false, true) => Side::Theirs,
                    _ => self.winner,
                })
            }
        }
    }

    /// Plans restoring object `id` (and its missing ancestors) at its place in the side
    /// that kept it.
    pub(super) fn restore<'m>(
        &self,
        round: &mut Round<'_, 'm>,
        id: &str,
        kind: ConflictKind,
        referrer: Option<sjson::Path>,
    ) where
        's: 'm,
    {
        if round.planned.contains(id) {
            return;
        }
        let Some(side) = self.source(id, kind, round) else {
            return;
        };
        let si = self.side(side);
        let other_index = self.side(other(side));
        // (The side's index holds `id`: the side's walk found it there. Read with `get`
        // all the same: a version that could not be had again is indexed as empty.)
        let Some(x) = si.position(id) else {
            return;
        };
        // The topmost ancestor the result lacks: it is restored whole.
        let mut y = x;
        let mut chain = vec![&*si.objs[x].id];
        while let Some(o) = si.objs[y].owner {
            if round.im.has(&si.objs[o].id) {
                break;
            }
            y = o;
            chain.push(&si.objs[y].id);
        }
        let subtree = si.subtree_ids(y);
        if subtree.iter().any(|s| round.planned.contains(*s)) {
            return;
        }
        // Inside it, leave out objects the result holds elsewhere and ones the other side
        // deleted (unless they are on the way down to the object).
        let top = si.objs[y].value;
        let drop: Vec<NodeId> = si
            .objs
            .iter()
            .skip(y + 1)
            .take(subtree.len() - 1)
            .filter(|o| {
                round.im.has(&o.id)
                    || (!chain.contains(&&*o.id)
                        && !other_index.has(&o.id)
                        && self.base().has(&o.id))
            })
            .map(|o| o.value.id())
            .collect();
        let container = match si.objs[y].owner {
            Some(o) => match round.im.get(&si.objs[o].id) {
                Some(obj) => obj.value,
                None => return,
            },
            None => round.root,
        };
        let value = without(top, &drop);
        let Some(edit) = place(round.im, si, y, container, value) else {
            return;
        };
        if let Edit::AddMember { object, key, .. } = &edit {
            // One new member per place and round: the next round inserts into it.
            let taken = round.edits.iter().any(|e| {
                matches!(e, Edit::AddMember { object: o, key: k, .. } if o == object && k == key)
            });
            if taken {
                return;
            }
        }
        round.planned.extend(subtree.iter().map(|s| s.to_string()));
        round.edits.push(edit);
        let json = |i: &DocIndex<'_>| i.get(id).map(|o| compact_json(o.value));
        round.reports.push(Conflict {
            path: si.pointer(x),
            kind,
            base: json(self.base()),
            ours: json(self.side(Side::Ours)),
            theirs: json(self.side(Side::Theirs)),
            taken: side,
            object: Some(label(si.objs[x].value, id)),
            referrer,
        });
    }
}

/// The edit that puts `value` (object `y` of side index `si`) into the result: into the
/// array at the object's route from `container`, after the nearest preceding sibling the
/// result holds there; the route's missing members are created.
fn place<'m>(
    im: &DocIndex<'m>,
    si: &DocIndex<'m>,
    y: usize,
    container: Value<'m>,
    value: Out<'m>,
) -> Option<Edit<'m>> {
    let obj = &si.objs[y];
    let origin = obj.value;
    let mut at = container;
    let route = si.route(y);
    for (n, step) in route.iter().enumerate() {
        let next = match (step, at.kind()) {
            (Step::Key(k), Kind::Object) => at.get(k),
            (Step::Index(i), Kind::Array) => at.children().nth(*i),
            _ => return None,
        };
        match next {
            Some(v) => at = v,
            None => {
                let Step::Key(k) = step else { return None };
                let mut built = Out::Container {
                    kind: Kind::Array,
                    ours: None,
                    items: vec![OutItem {
                        key: None,
                        ours: None,
                        origin: Some(origin),
                        value,
                    }],
                };
                for s in route[n + 1..].iter().rev() {
                    let (kind, key) = match s {
                        Step::Key(k) => (Kind::Object, Some(k.clone())),
                        Step::Index(_) => (Kind::Array, None),
                    };
                    built = Out::Container {
                        kind,
                        ours: None,
                        items: vec![OutItem {
                            key,
                            ours: None,
                            origin: None,
                            value: built,
                        }],
                    };
                }
                return Some(Edit::AddMember {
                    object: at.id(),
                    key: k.to_string(),
                    value: built,
                    origin: None,
                });
            }
        }
    }
    if at.kind() != Kind::Array {
        return None;
    }
    // The nearest earlier sibling (in the side) that the result holds in this array.
    let after = si.objs[..y]
        .iter()
        .rev()
        .filter(|o| o.array.id() == obj.array.id())
        .filter_map(|o| im.get(&o.id))
        .find(|m| m.array.id() == at.id())
        .map(|m| m.value.id());
    Some(Edit::Insert {
        array: at.id(),
        after,
        value,
        origin,
    })
}
