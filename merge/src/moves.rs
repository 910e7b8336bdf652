//! Moves: an id'd object that one side took out of one array and put into another, or a
//! subtree one side deleted in one place and added, equal or nearly equal, under the
//! same key in another (wrapping `hello` into `container.hello`). The other side's edits
//! follow the moved value to its new place, and the old place is dropped silently.

use std::rc::Rc;

use rustc_hash::{FxHashMap, FxHashSet};
use sjson::{Document, Kind, NodeId, Out, OutItem, Value};

use crate::merger::{KeyIndex, Merger};
use crate::pairing::{similarity, PAIRING_THRESHOLD};
use crate::Side;

/// A step from a container to a child, resolvable in any version.
#[derive(Debug, Clone)]
enum Step {
    Key(String),
    Id(String),
}

#[derive(Debug, Default)]
struct SideMoves {
    /// Base nodes this side moved away from their place.
    away: FxHashSet<NodeId>,
    /// This side's node at a new place → the base node it came from and its base path.
    into: FxHashMap<NodeId, (NodeId, Vec<Step>)>,
}

/// The moves each side made, found before the merge.
#[derive(Debug, Default, Clone)]
pub(crate) struct Moves {
    sides: Rc<[SideMoves; 2]>,
}

fn slot(side: Side) -> usize {
    match side {
        Side::Ours => 0,
        Side::Theirs => 1,
    }
}

impl Moves {
    /// Finds the moves of both sides relative to the base.
    pub(crate) fn detect(m: &Merger<'_>) -> Moves {
        let ours = detect_side(m, m.ours);
        let theirs = detect_side(m, m.theirs);
        Moves {
            sides: Rc::new([ours, theirs]),
        }
    }

    /// Whether `side` moved base value `b` elsewhere.
    pub(crate) fn moved_away(&self, side: Side, b: Value<'_>) -> bool {
        self.sides[slot(side)].away.contains(&b.id())
    }

    /// The result for value `v` that only `side` added: `v` itself, or, if moved values
    /// lie inside it, `v` rebuilt with each moved value merged with the other side's edits.
    pub(crate) fn materialize<'a>(&self, m: &mut Merger<'a>, side: Side, v: Value<'a>) -> Out<'a> {
        let moves = &self.sides[slot(side)];
        if moves.into.is_empty() || !moves.into.keys().any(|&id| v.contains(id)) {
            return Out::Value(v);
        }
        if let Some((base_id, path)) = moves.into.get(&v.id()) {
            let b = m.base.value(*base_id);
            let other_doc = m.doc(side.other());
            return match resolve(m, other_doc, path) {
                Some(other) => match side {
                    Side::Ours => m.merge_value(Some(b), v, other),
                    Side::Theirs => m.merge_value(Some(b), other, v),
                },
                // The other side deleted the original: the move wins.
                None => Out::Value(v),
            };
        }
        if !v.is_container() {
            return Out::Value(v);
        }
        let items = v
            .children()
            .map(|c| OutItem {
                key: c.key(),
                ours: (side == Side::Ours).then_some(c),
                origin: (side == Side::Theirs).then_some(c),
                value: self.materialize(m, side, c),
            })
            .collect();
        Out::Container {
            kind: v.kind(),
            ours: (side == Side::Ours).then_some(v),
            items,
        }
    }
}

/// Follows a base path in another version.
fn resolve<'a>(m: &Merger<'a>, doc: &'a Document, path: &[Step]) -> Option<Value<'a>> {
    let mut v = doc.root();
    for step in path {
        v = match step {
            Step::Key(k) => v.get(k)?,
            Step::Id(id) => v
                .children()
                .find(|c| m.id_of(*c).is_some_and(|(_, cid)| &cid == id))?,
        };
    }
    Some(v)
}

struct Walk {
    deleted: Vec<(NodeId, Vec<Step>)>,
    added: Vec<NodeId>,
    path: Vec<Step>,
}

/// Walks base and one side in parallel through objects (by key) and keyed arrays (by
/// id), skipping identical text, and matches what the side deleted with what it added.
fn detect_side(m: &Merger<'_>, side_doc: &Document) -> SideMoves {
    let mut w = Walk {
        deleted: Vec::new(),
        added: Vec::new(),
        path: Vec::new(),
    };
    walk(m, m.base.root(), side_doc.root(), &mut w);
    let mut moves = SideMoves::default();
    if w.deleted.is_empty() || w.added.is_empty() {
        return moves;
    }
    // Everything inside the added subtrees, by id and by key.
    let mut by_id: FxHashMap<String, NodeId> = FxHashMap::default();
    let mut by_key: FxHashMap<String, Vec<NodeId>> = FxHashMap::default();
    for &a in &w.added {
        for n in side_doc.value(a).descendants() {
            if !n.is_container() {
                continue;
            }
            if let Some((_, id)) = m.id_of(n) {
                by_id.entry(id).or_insert(n.id());
            }
            if let Some(k) = n.key() {
                by_key.entry(k.into_owned()).or_default().push(n.id());
            }
        }
    }
    for (d, path) in w.deleted {
        let dv = m.base.value(d);
        let target = match m.id_of(dv) {
            Some((_, id)) => by_id.get(&id).copied(),
            None => dv.key().and_then(|k| {
                by_key
                    .get(k.as_ref())?
                    .iter()
                    .map(|&n| (n, side_doc.value(n)))
                    .filter(|(_, n)| n.kind() == dv.kind() && !moves.into.contains_key(&n.id()))
                    .map(|(id, n)| (id, similarity(dv, n, None)))
                    .filter(|&(_, s)| s >= PAIRING_THRESHOLD)
                    .fold(None, |best: Option<(NodeId, f64)>, (id, s)| match best {
                        Some((_, bs)) if bs >= s => best,
                        _ => Some((id, s)),
                    })
                    .map(|(id, _)| id)
            }),
        };
        if let Some(target) = target {
            moves.away.insert(d);
            moves.into.insert(target, (d, path));
        }
    }
    moves
}

fn walk(m: &Merger<'_>, b: Value<'_>, s: Value<'_>, w: &mut Walk) {
    if b.text() == s.text() && b.id() != NodeId::ROOT {
        return;
    }
    match (b.kind(), s.kind()) {
        (Kind::Object, Kind::Object) => {
            let si = KeyIndex::new(Some(s));
            let bi = KeyIndex::new(Some(b));
            for (k, bv) in b.members() {
                match si.get(&k) {
                    Some(sv) => {
                        w.path.push(Step::Key(k.into_owned()));
                        walk(m, bv, sv, w);
                        w.path.pop();
                    }
                    None if bv.is_container() => {
                        let mut path = w.path.clone();
                        path.push(Step::Key(k.into_owned()));
                        w.deleted.push((bv.id(), path));
                    }
                    None => {}
                }
            }
            for (k, sv) in s.members() {
                if sv.is_container() && !bi.contains(&k) {
                    w.added.push(sv.id());
                }
            }
        }
        (Kind::Array, Kind::Array) => {
            let (Some(bk), Some(sk)) = (m.keyed(b), m.keyed(s)) else {
                return;
            };
            let bs: Vec<_> = b.children().collect();
            let ss: Vec<_> = s.children().collect();
            for (i, id) in bk.ids.iter().enumerate() {
                match sk.index.get(id) {
                    Some(&j) => {
                        w.path.push(Step::Id(id.clone()));
                        walk(m, bs[i], ss[j], w);
                        w.path.pop();
                    }
                    None => {
                        let mut path = w.path.clone();
                        path.push(Step::Id(id.clone()));
                        w.deleted.push((bs[i].id(), path));
                    }
                }
            }
            for (j, id) in sk.ids.iter().enumerate() {
                if !bk.index.contains_key(id) {
                    w.added.push(ss[j].id());
                }
            }
        }
        _ => {}
    }
}
