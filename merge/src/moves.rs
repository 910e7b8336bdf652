//! Moves: an id'd object that one side took out of one array and put into another, or a
//! subtree one side deleted in one place and added, equal or nearly equal, under the
//! same key in another (wrapping `hello` into `container.hello`). The other side's edits
//! follow the moved value to its new place, and the old place is dropped silently.

use std::borrow::Cow;
use std::cell::RefCell;
use std::sync::Arc;

use crate::hashing::{SeededMap, SeededSet};
use sjson::{Document, Kind, NodeId, Value};

use crate::id::id_of;
use crate::keyed_index::{KeyedIndex, KeyedIndexes};
use crate::members::KeyIndex;
use crate::pairing::{most_similar, similarity, Print, Skip};
use crate::versions::Versions;
use crate::{Side, Threads};

/// A step from a container to a child, resolvable in any version.
#[derive(Debug, Clone)]
pub(crate) enum Step {
    Key(String),
    Id(String),
}

#[derive(Debug, Default)]
struct SideMoves {
    /// Base nodes this side moved away from their place.
    away: SeededSet<NodeId>,
    /// This side's node at a new place → the base node it came from and its base path.
    into: SeededMap<NodeId, (NodeId, Vec<Step>)>,
    /// The base node → this side's node at its new place.
    from: SeededMap<NodeId, NodeId>,
    /// The keys of `into`, sorted: which values hold a moved value, by binary search.
    targets: Vec<NodeId>,
}

impl SideMoves {
    /// Whether a moved value lies inside `v` (or is `v`).
    fn holds_target(&self, v: Value<'_>) -> bool {
        let i = self.targets.partition_point(|&t| t < v.id());
        self.targets.get(i).is_some_and(|&t| v.contains(t))
    }
}

/// The moves each side made, found before the merge.
#[derive(Debug, Default)]
pub(crate) struct Moves {
    sides: [SideMoves; 2],
    /// For `resolve`: the children of containers by key or id, built on first use
    /// (keyed by document address and container), so that following the base paths of
    /// many moved values costs no scan of a large array each.
    children: RefCell<ChildIndex>,
}

/// Containers (document address, node) → their children by key or id.
type ChildIndex = SeededMap<(usize, NodeId), SeededMap<String, NodeId>>;

/// The index of `side` in tables kept per side (ours 0, theirs 1).
pub(crate) fn slot(side: Side) -> usize {
    match side {
        Side::Ours => 0,
        Side::Theirs => 1,
    }
}

impl Moves {
    /// Finds the moves of both sides relative to the base (the two sides on two threads
    /// for large documents, as `threads` allows) and the keyed arrays indexed on the way,
    /// for the merge.
    pub(crate) fn detect<'a>(v: &Versions<'a>, threads: Threads) -> (Moves, KeyedIndexes<'a>) {
        let (base, ours, theirs) = (v.base, v.ours, v.theirs);
        let id_keys_lower = v.id_keys_lower.as_slice();
        // On two threads, base's arrays are indexed once, for both (a 100,000-element
        // array's index is 2 MB, at the merge's peak).
        let shared_base = std::sync::Mutex::new(KeyedIndexes::default());
        let scan = |keyed, shared_base| Scan {
            base,
            id_keys_lower,
            keyed,
            shared_base,
        };
        let (ours, theirs, keyed) = if threads.parallel(base.text().len()) {
            let ((t, kt), (o, ko)) = crate::both(
                true,
                || scan(KeyedIndexes::default(), Some(&shared_base)).detect_side(theirs),
                || scan(KeyedIndexes::default(), Some(&shared_base)).detect_side(ours),
            );
            let mut keyed = ko;
            let base_keyed = shared_base
                .into_inner()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            for (slot, index) in kt.into_iter().chain(base_keyed) {
                keyed.entry(slot).or_insert(index);
            }
            (o, t, keyed)
        } else {
            // One after the other, the base's arrays indexed once.
            let (o, keyed) = scan(KeyedIndexes::default(), None).detect_side(ours);
            let (t, keyed) = scan(keyed, None).detect_side(theirs);
            (o, t, keyed)
        };
        let moves = Moves {
            sides: [ours, theirs],
            children: RefCell::default(),
        };
        (moves, keyed)
    }

    /// The moves `side` made: (base node, node at its new place in `side`'s version), in
    /// base's document order.
    pub(crate) fn moved(&self, side: Side) -> Vec<(NodeId, NodeId)> {
        let moves = &self.sides[slot(side)];
        let mut moved: Vec<_> = moves.from.iter().map(|(&b, &to)| (b, to)).collect();
        moved.sort_unstable();
        moved
    }

    /// Whether `side` moved base value `b` elsewhere.
    pub(crate) fn moved_away(&self, side: Side, b: Value<'_>) -> bool {
        self.sides[slot(side)].away.contains(&b.id())
    }

    /// Whether `side`'s value `v` holds a value that `side` moved there.
    pub(crate) fn holds_move(&self, side: Side, v: Value<'_>) -> bool {
        self.sides[slot(side)].holds_target(v)
    }

    /// The base node that both `o` (ours) and `t` (theirs) were moved from, if they are
    /// one base value that both sides moved to the same place.
    pub(crate) fn common_origin(&self, o: Value<'_>, t: Value<'_>) -> Option<NodeId> {
        let (ours, theirs) = (&self.sides[0], &self.sides[1]);
        if ours.into.is_empty() || theirs.into.is_empty() {
            return None;
        }
        let (from_o, _) = ours.into.get(&o.id())?;
        let (from_t, _) = theirs.into.get(&t.id())?;
        (from_o == from_t).then_some(*from_o)
    }

    /// The base node `side` moved to `v` and its base path, if `v` is a moved value.
    pub(crate) fn origin(&self, side: Side, v: Value<'_>) -> Option<(NodeId, &[Step])> {
        let (base_id, path) = self.sides[slot(side)].into.get(&v.id())?;
        Some((*base_id, path))
    }

    /// Where `side` moved base node `base_id` to, if it moved it.
    pub(crate) fn moved_to(&self, side: Side, base_id: NodeId) -> Option<NodeId> {
        self.sides[slot(side)].from.get(&base_id).copied()
    }

    /// Whether, for some value `side` moved into `v`, the other side has something the
    /// moved value lacks: edits to it, or a deletion or move of it.
    pub(crate) fn carries_edits(&self, m: &Versions<'_>, side: Side, v: Value<'_>) -> bool {
        let (mine, other) = (&self.sides[slot(side)], &self.sides[slot(side.other())]);
        let start = mine.targets.partition_point(|&t| t < v.id());
        mine.targets[start..]
            .iter()
            .take_while(|&&t| v.contains(t))
            .any(|t| {
                let (base_id, path) = &mine.into[t];
                other.from.contains_key(base_id)
                    || self
                        .resolve_in(m, side.other(), path)
                        .is_none_or(|o| !o.same_value(&m.base.value(*base_id)))
            })
    }
}

impl Moves {
    /// Follows a base path in another version.
    fn resolve<'a>(&self, m: &Versions<'a>, doc: &'a Document, path: &[Step]) -> Option<Value<'a>> {
        let mut v = doc.root();
        for step in path {
            v = self.child(m, v, step)?;
        }
        Some(v)
    }

    /// Follows a base path in `side`'s version, through the containers on the path that
    /// `side` itself moved elsewhere (`shared/m0` is `wrapper/shared/m0` in a version
    /// that wrapped `shared`).
    pub(crate) fn resolve_in<'a>(
        &self,
        m: &Versions<'a>,
        side: Side,
        path: &[Step],
    ) -> Option<Value<'a>> {
        let doc = m.doc(side);
        let moved = &self.sides[slot(side)].from;
        if moved.is_empty() {
            return self.resolve(m, doc, path);
        }
        let mut v = doc.root();
        let mut in_base = Some(m.base.root());
        for step in path {
            in_base = in_base.and_then(|b| self.child(m, b, step));
            v = match in_base.and_then(|b| moved.get(&b.id())) {
                Some(&to) => doc.value(to),
                None => self.child(m, v, step)?,
            };
        }
        Some(v)
    }

    /// The child of `v` that `step` names (an id step only in an array, a key step only
    /// in an object); each container's children are indexed once.
    fn child<'a>(&self, m: &Versions<'a>, v: Value<'a>, step: &Step) -> Option<Value<'a>> {
        let doc = v.doc();
        let mut cache = self.children.borrow_mut();
        let index = cache
            .entry((doc as *const Document as usize, v.id()))
            .or_insert_with(|| {
                let mut index = SeededMap::default();
                for c in v.children() {
                    let name = match v.kind() {
                        Kind::Object => c.key().map(|k| k.into_owned()),
                        _ => m.id_of(c).map(|(_, id)| id.into_owned()),
                    };
                    if let Some(name) = name {
                        // The first of equal ids, as a scan would find.
                        index.entry(name).or_insert(c.id());
                    }
                }
                index
            });
        let (Step::Key(name) | Step::Id(name)) = step;
        let child = doc.value(*index.get(name)?);
        match (step, v.kind()) {
            (Step::Key(_), Kind::Object) | (Step::Id(_), Kind::Array) => Some(child),
            _ => None,
        }
    }
}

struct Walk {
    deleted: Vec<(NodeId, Vec<Step>)>,
    added: Vec<NodeId>,
    /// Object members added, with the path of their object: a deleted sibling may have
    /// been renamed into one (`settings` → `render`).
    added_members: Vec<(NodeId, Vec<Step>)>,
    path: Vec<Step>,
}

/// What finding one side's moves reads: the base, the id keys, and the keyed arrays it
/// indexed so far (by document address and node).
struct Scan<'m, 'a> {
    base: &'a Document,
    id_keys_lower: &'m [String],
    keyed: KeyedIndexes<'a>,
    /// Base's arrays indexed, shared with the scan of the other side on another thread.
    shared_base: Option<&'m std::sync::Mutex<KeyedIndexes<'a>>>,
}

impl<'a> Scan<'_, 'a> {
    /// The index of `arr` if it is a keyed array (computed once per array).
    fn keyed(&mut self, arr: Value<'a>) -> Option<Arc<KeyedIndex<'a>>> {
        let slot = (arr.doc() as *const Document as usize, arr.id());
        let id_keys_lower = self.id_keys_lower;
        let index = || KeyedIndex::by_id(id_keys_lower, arr).map(Arc::new);
        match self.shared_base {
            // Locked while it is built: the other thread waits for it, not builds it too.
            Some(shared) if std::ptr::eq(arr.doc(), self.base) => shared
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .entry(slot)
                .or_insert_with(index)
                .clone(),
            _ => self.keyed.entry(slot).or_insert_with(index).clone(),
        }
    }

    fn id_of(&self, v: Value<'a>) -> Option<(Cow<'a, str>, Cow<'a, str>)> {
        id_of(self.id_keys_lower, v)
    }

    /// The moves of the side whose version is `side_doc`, and the keyed arrays indexed.
    fn detect_side(mut self, side_doc: &'a Document) -> (SideMoves, KeyedIndexes<'a>) {
        let moves = detect_side(&mut self, side_doc);
        (moves, self.keyed)
    }
}

/// Walks base and one side in parallel through objects (by key) and keyed arrays (by
/// id), skipping identical text, and matches what the side deleted with what it added.
fn detect_side<'a>(m: &mut Scan<'_, 'a>, side_doc: &'a Document) -> SideMoves {
    let mut w = Walk {
        deleted: Vec::new(),
        added: Vec::new(),
        added_members: Vec::new(),
        path: Vec::new(),
    };
    walk(m, m.base.root(), side_doc.root(), &mut w);
    let mut moves = SideMoves::default();
    if w.deleted.is_empty() || w.added.is_empty() {
        return moves;
    }
    // Everything inside the added subtrees, by id and by key.
    let mut by_id: SeededMap<String, NodeId> = SeededMap::default();
    let mut by_key: SeededMap<String, Vec<NodeId>> = SeededMap::default();
    for &a in &w.added {
        for n in side_doc.value(a).descendants() {
            if !n.is_container() {
                continue;
            }
            if let Some((_, id)) = m.id_of(n) {
                by_id.entry(id.into_owned()).or_insert(n.id());
            }
            if let Some(k) = n.key() {
                by_key.entry(k.into_owned()).or_default().push(n.id());
            }
        }
    }
    for (d, path) in w.deleted {
        let dv = m.base.value(d);
        let target = match m.id_of(dv) {
            // (Ids are unique within a document; if not, one base node per target.)
            Some((_, id)) => by_id
                .get(id.as_ref())
                .copied()
                .filter(|n| !moves.into.contains_key(n)),
            None => dv
                .key()
                .and_then(|k| {
                    let dp = Print::new(dv, Skip::Nothing);
                    let candidates = by_key
                        .get(k.as_ref())?
                        .iter()
                        .map(|&n| (n, side_doc.value(n)))
                        .filter(|(_, n)| n.kind() == dv.kind() && !moves.into.contains_key(&n.id()))
                        .map(|(id, n)| (id, similarity(&dp, &Print::new(n, Skip::Nothing))));
                    most_similar(candidates).map(|(id, _)| id)
                })
                .or_else(|| renamed(side_doc, dv, &path, &w.added_members, &moves)),
        };
        if let Some(target) = target {
            moves.away.insert(d);
            moves.into.insert(target, (d, path));
            moves.from.insert(d, target);
        }
    }
    moves.targets = moves.into.keys().copied().collect();
    moves.targets.sort_unstable();
    moves
}

/// The member that base object member `dv` (at `path`) was renamed into: a member added
/// to the same object, of the same kind, the most similar one above the pairing
/// threshold, not yet the target of another move.
fn renamed(
    side_doc: &Document,
    dv: Value<'_>,
    path: &[Step],
    added_members: &[(NodeId, Vec<Step>)],
    moves: &SideMoves,
) -> Option<NodeId> {
    let (Some(Step::Key(_)), parent) = (path.last(), &path[..path.len().saturating_sub(1)]) else {
        return None;
    };
    if dv.kind() != Kind::Object {
        return None;
    }
    let dp = Print::new(dv, Skip::Nothing);
    let candidates = added_members
        .iter()
        .filter(|(_, p)| p.len() == parent.len() && same_steps(p, parent))
        .map(|&(n, _)| (n, side_doc.value(n)))
        .filter(|(n, v)| v.kind() == dv.kind() && !moves.into.contains_key(n))
        .map(|(n, v)| (n, similarity(&dp, &Print::new(v, Skip::Nothing))));
    most_similar(candidates).map(|(n, _)| n)
}

fn same_steps(a: &[Step], b: &[Step]) -> bool {
    a.iter().zip(b).all(|(x, y)| match (x, y) {
        (Step::Key(x), Step::Key(y)) | (Step::Id(x), Step::Id(y)) => x == y,
        _ => false,
    })
}

fn walk<'a>(m: &mut Scan<'_, 'a>, b: Value<'a>, s: Value<'a>, w: &mut Walk) {
    if b.text() == s.text() && b.id() != NodeId::ROOT {
        return;
    }
    match (b.kind(), s.kind()) {
        (Kind::Object, Kind::Object) => {
            let si = KeyIndex::new(Some(s));
            let bi = KeyIndex::new(Some(b));
            for ((k, nth), bv) in bi.entries() {
                match si.get_nth(&k, nth) {
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
            for ((k, nth), sv) in si.entries() {
                if sv.is_container() && !bi.contains_nth(&k, nth) {
                    w.added.push(sv.id());
                    w.added_members.push((sv.id(), w.path.clone()));
                }
            }
        }
        (Kind::Array, Kind::Array) => {
            let (Some(bk), Some(sk)) = (m.keyed(b), m.keyed(s)) else {
                return;
            };
            let (bs, ss) = (bk.elements(b), sk.elements(s));
            for ((i, id), found) in bk.ids.iter().enumerate().zip(sk.find_each(bk.ids.iter())) {
                match found {
                    // Identical text: nothing to walk (and no path to name).
                    Some(j) if bs.at(i).text() == ss.at(j).text() => {}
                    Some(j) => {
                        w.path.push(Step::Id(id.to_string()));
                        walk(m, bs.at(i), ss.at(j), w);
                        w.path.pop();
                    }
                    None => {
                        let mut path = w.path.clone();
                        path.push(Step::Id(id.to_string()));
                        w.deleted.push((bs.at(i).id(), path));
                    }
                }
            }
            for (j, found) in bk.find_each(sk.ids.iter()).enumerate() {
                if found.is_none() {
                    w.added.push(ss.at(j).id());
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests;
