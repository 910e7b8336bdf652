//! Writing change sets: a structural diff as create, destroy and set operations.

use crate::hashing::{SeededMap, SeededSet};
use sjson::{Kind, Path, Segment, Value};

use super::{ChangeOp, OpKind, Placement};
use crate::diff::{Change, Diff, DiffOptions};
use crate::id::{id_display, id_of};

/// One array's elements and ids, indexed.
struct ArrayIndex<'a> {
    elements: Vec<Value<'a>>,
    ids: SeededMap<String, usize>,
}

/// Finds values by paths whose keyed elements are named by id; each array is indexed
/// once.
pub(crate) struct Resolver<'a> {
    id_keys_lower: Vec<String>,
    /// Per array (document address, node index).
    index: SeededMap<(usize, usize), ArrayIndex<'a>>,
}

impl<'a> Resolver<'a> {
    pub(crate) fn new(id_keys: &[String]) -> Self {
        Resolver {
            id_keys_lower: id_keys.iter().map(|k| k.to_lowercase()).collect(),
            index: SeededMap::default(),
        }
    }

    /// The display id of object `v` (`None`: no id).
    pub(crate) fn id(&self, v: Value<'_>) -> Option<String> {
        id_of(&self.id_keys_lower, v).map(|(_, id)| id_display(&id))
    }

    fn indexed(&mut self, arr: Value<'a>) -> &ArrayIndex<'a> {
        let key = (arr.doc() as *const _ as usize, arr.id().index());
        if !self.index.contains_key(&key) {
            let elements: Vec<Value<'a>> = arr.children().collect();
            let ids = elements
                .iter()
                .enumerate()
                .filter_map(|(i, el)| Some((self.id(*el)?, i)))
                .collect();
            self.index.insert(key, ArrayIndex { elements, ids });
        }
        &self.index[&key]
    }

    /// The value at `path` under `root`.
    pub(crate) fn resolve(&mut self, root: Value<'a>, path: &[Segment]) -> Option<Value<'a>> {
        let mut at = root;
        for seg in path {
            at = match (seg, at.kind()) {
                (Segment::Key(k), Kind::Object) => at.get(k)?,
                (Segment::Key(k), Kind::Array) => {
                    *self.indexed(at).elements.get(k.parse::<usize>().ok()?)?
                }
                (Segment::Index(i), Kind::Array) => *self.indexed(at).elements.get(*i)?,
                (Segment::Id { value, .. }, Kind::Array) => {
                    let ix = self.indexed(at);
                    ix.elements[*ix.ids.get(value)?]
                }
                _ => return None,
            };
        }
        Some(at)
    }

    /// Where the element at `path` (ending in an id) sits in its array under `root`:
    /// between its neighbours' ids.
    fn placement(&mut self, root: Value<'a>, path: &[Segment]) -> Placement {
        let (Some(Segment::Id { value, .. }), Some(parent)) =
            (path.last(), path.len().checked_sub(1))
        else {
            return Placement::default();
        };
        let Some(arr) = self.resolve(root, &path[..parent]) else {
            return Placement::default();
        };
        let ix = self.indexed(arr);
        let Some(&i) = ix.ids.get(value) else {
            return Placement::default();
        };
        let (prev, next) = (
            i.checked_sub(1).map(|k| ix.elements[k]),
            ix.elements.get(i + 1).copied(),
        );
        let neighbour = |v: Option<Value<'_>>| v.and_then(|v| self.id(v));
        Placement {
            after: Some(neighbour(prev)),
            before: Some(neighbour(next)),
        }
    }
}

/// The change set of `diff` (of `old` against `new`; `None` for a missing document).
///
/// Keyed elements are addressed by id; a change inside an array without ids (a sequence)
/// is written as a `set` of the whole array, whose merge then aligns its elements. An
/// object that moved is destroyed where it was and created, whole, where it is.
pub fn change_set<'a>(
    old: Option<Value<'a>>,
    new: Option<Value<'a>>,
    diff: &Diff<'a>,
    options: &DiffOptions,
) -> Vec<ChangeOp<'a>> {
    let mut r = Resolver::new(&options.id_keys);
    let mut ops = Vec::new();
    let mut whole: SeededSet<Path> = SeededSet::default();
    let op = |kind, path: Path, old, new, after| ChangeOp {
        kind,
        file: None,
        path,
        old,
        new,
        after,
    };
    for change in &diff.changes {
        let path = change.path();
        // Inside something written whole already (a created object, a whole array).
        if (0..path.0.len()).any(|n| whole.contains(&Path(path.0[..n].to_vec()))) {
            if let Change::Moved { from, .. } = change {
                let was = old.and_then(|o| r.resolve(o, &from.0));
                ops.push(op(
                    OpKind::Destroy,
                    from.clone(),
                    was,
                    None,
                    Placement::default(),
                ));
            }
            continue;
        }
        if let Some(first) = path.0.iter().position(|s| matches!(s, Segment::Index(_))) {
            let array = Path(path.0[..first].to_vec());
            if whole.insert(array.clone()) {
                let was = old.and_then(|o| r.resolve(o, &array.0));
                let is = new.and_then(|n| r.resolve(n, &array.0));
                ops.push(op(OpKind::Set, array, was, is, Placement::default()));
            }
            continue;
        }
        let by_id = matches!(path.0.last(), Some(Segment::Id { .. }));
        match change {
            Change::Changed { path, old, new } => ops.push(op(
                OpKind::Set,
                path.clone(),
                Some(*old),
                Some(*new),
                Placement::default(),
            )),
            Change::Added { path, value } if by_id => {
                let after = new.map_or_else(Placement::default, |n| r.placement(n, &path.0));
                ops.push(op(OpKind::Create, path.clone(), None, Some(*value), after));
                whole.insert(path.clone());
            }
            Change::Added { path, value } => ops.push(op(
                OpKind::Set,
                path.clone(),
                None,
                Some(*value),
                Placement::default(),
            )),
            Change::Removed { path, value } if by_id => ops.push(op(
                OpKind::Destroy,
                path.clone(),
                Some(*value),
                None,
                Placement::default(),
            )),
            Change::Removed { path, value } => ops.push(op(
                OpKind::Set,
                path.clone(),
                Some(*value),
                None,
                Placement::default(),
            )),
            Change::Moved {
                from, to, value, ..
            } => {
                let was = old.and_then(|o| r.resolve(o, &from.0));
                ops.push(op(
                    OpKind::Destroy,
                    from.clone(),
                    was,
                    None,
                    Placement::default(),
                ));
                let after = new.map_or_else(Placement::default, |n| r.placement(n, &to.0));
                ops.push(op(OpKind::Create, to.clone(), None, Some(*value), after));
                whole.insert(to.clone());
            }
        }
    }
    // A destroy needs the value it replaces; a move out of something created has none.
    ops.retain(|o| o.kind != OpKind::Destroy || o.old.is_some());
    ops.retain(|o| !(o.kind == OpKind::Set && o.old.is_none() && o.new.is_none()));
    ops
}
