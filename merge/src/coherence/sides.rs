//! What the pass needs to know of a side (ours or theirs) in the common merge, from one
//! id-only walk measured against the result's index: which object of the side holds each
//! id of the result, the side's ids that the result lacks (few: the other side's
//! deletions), and the ids the side holds twice. No per-object record is built for the
//! ids the result shares with the side; the full [`DocIndex`] of a side is built only
//! when a repair needs its structure.

use std::borrow::Cow;

use crate::hashing::{SeededMap, SeededSet};
use sjson::{Document, Kind, NodeId, Value};

use super::index::{length_bit, DocIndex};
use crate::id::id_of;

/// The ids of one side, relative to the result indexed by `im`.
#[derive(Debug)]
pub(crate) struct SideIds<'d> {
    /// For each object of the result (by index in its index): the side's first object
    /// with that id, if any (set for the first object of each id only).
    at: Vec<Option<NodeId>>,
    /// The side's objects whose id the result lacks, in document order, each with
    /// whether it lies inside an id'd object.
    pub gone: Vec<(Cow<'d, str>, NodeId, bool)>,
    /// The first of `gone` with each id.
    gone_by_id: SeededMap<Cow<'d, str>, usize>,
    /// Ids the side holds more than once.
    pub dups: SeededSet<Cow<'d, str>>,
    /// [`DocIndex::lengths`] of the ids in `gone`.
    pub gone_lengths: u128,
    /// How many id'd objects the side holds.
    pub count: usize,
}

/// Every id'd object of a side, in document order: (id, object, lies inside an id'd
/// object), read from a [`Detached`] walk.
pub(crate) type SideObjects<'d> = Vec<(Cow<'d, str>, NodeId, bool)>;

/// A side's id'd objects from one id-only walk. It needs nothing of the result (so it
/// can run beside the merge or the result's index) and borrows nothing of the document,
/// whose node table can then be freed and its text kept: each id is its place in the text
/// (`(offset, length)`), or, when it is not written as it is (escapes, numbers), an index
/// into `owned` with the length [`OWNED`]. 16 bytes an object.
#[derive(Debug, Default)]
pub(crate) struct Detached {
    objects: Vec<(u32, u32, NodeId, bool)>,
    owned: Vec<Box<str>>,
}

/// The length that marks an id of [`Detached::owned`].
const OWNED: u32 = u32::MAX;

impl Detached {
    /// One id-only walk of `doc`.
    pub(crate) fn of(doc: &Document, id_keys_lower: &[String]) -> Detached {
        let text = doc.text();
        let (start, end) = (text.as_ptr() as usize, text.as_ptr() as usize + text.len());
        let mut out = Detached {
            objects: Vec::new(),
            owned: Vec::new(),
        };
        for_each_id(doc.root(), id_keys_lower, false, &mut |id, v, nested| {
            // A borrowed id is a slice of the text: kept as its offset and length.
            let at = id.as_ptr() as usize;
            let place = match &id {
                Cow::Borrowed(_) if at >= start && at + id.len() <= end => {
                    u32::try_from(at - start)
                        .ok()
                        .zip(u32::try_from(id.len()).ok().filter(|&len| len != OWNED))
                }
                _ => None,
            };
            let (offset, len) = place.unwrap_or_else(|| {
                out.owned.push(id.into());
                (out.owned.len() as u32 - 1, OWNED)
            });
            out.objects.push((offset, len, v.id(), nested));
        });
        out
    }

    /// The objects again, their ids read from `text`, the text of the document walked.
    pub(crate) fn attach(self, text: &str) -> SideObjects<'_> {
        let mut owned = self.owned.into_iter();
        self.objects
            .into_iter()
            .map(|(offset, len, node, nested)| {
                let id = match len {
                    // Owned ids come in the order they were taken.
                    OWNED => Cow::Owned(owned.next().map(String::from).unwrap_or_default()),
                    _ => {
                        let range = offset as usize..offset as usize + len as usize;
                        Cow::Borrowed(text.get(range).unwrap_or_default())
                    }
                };
                (id, node, nested)
            })
            .collect()
    }
}

impl<'d> SideIds<'d> {
    /// Matches a side's objects ([`Detached::attach`]) with the result's index `im`.
    pub fn matched(objects: SideObjects<'d>, im: &DocIndex<'_>) -> Self {
        let mut s = SideIds {
            at: vec![None; im.objs.len()],
            gone: Vec::new(),
            gone_by_id: SeededMap::default(),
            dups: SeededSet::default(),
            gone_lengths: 0,
            count: objects.len(),
        };
        // The side lists its objects mostly in the result's order: the object after the
        // last one found is tried first, without hashing (only where each id of the
        // result is its first object's).
        let in_order = im.dups.is_empty();
        let mut next = 0;
        for (id, node, nested) in objects {
            let found = match im.objs.get(next) {
                Some(o) if in_order && o.id == id => Some(next),
                _ => im.position(&id),
            };
            if let Some(k) = found {
                next = k + 1;
            }
            match found {
                Some(k) => match &mut s.at[k] {
                    Some(_) => {
                        s.dups.insert(id);
                    }
                    slot => *slot = Some(node),
                },
                None => {
                    s.gone_lengths |= length_bit(id.len());
                    if s.gone_by_id.contains_key(&*id) {
                        s.dups.insert(id.clone());
                    } else {
                        s.gone_by_id.insert(id.clone(), s.gone.len());
                    }
                    s.gone.push((id, node, nested));
                }
            }
        }
        s
    }

    /// The node of the side's (first) object with `id` in the side's document; `im` is
    /// the index this was built against.
    pub fn node(&self, im: &DocIndex<'_>, id: &str) -> Option<NodeId> {
        match im.position(id) {
            Some(k) => self.at[k],
            None => Some(self.gone[*self.gone_by_id.get(id)?].1),
        }
    }

    /// Whether the side holds `id`.
    pub fn has(&self, im: &DocIndex<'_>, id: &str) -> bool {
        match im.position(id) {
            Some(k) => self.at[k].is_some(),
            None => self.gone_by_id.contains_key(id),
        }
    }

    /// Whether the side holds `id`, for an id the result lacks.
    pub fn has_gone(&self, id: &str) -> bool {
        self.gone_by_id.contains_key(id)
    }

    /// Whether the side's (first) object with `id`, an id the result lacks, lies inside
    /// an id'd object.
    pub fn gone_nested(&self, id: &str) -> bool {
        self.gone_by_id.get(id).is_some_and(|&i| self.gone[i].2)
    }
}

/// Calls `f` with the id and the object of every id'd object under `v` (an object
/// element of an array carrying an id key), in document order, and whether it lies
/// inside an id'd object (`nested`: `v` does).
pub(crate) fn for_each_id<'d>(
    v: Value<'d>,
    id_keys_lower: &[String],
    nested: bool,
    f: &mut impl FnMut(Cow<'d, str>, Value<'d>, bool),
) {
    match v.kind() {
        Kind::Object => {
            for c in v.children() {
                if c.has_grandchildren() {
                    for_each_id(c, id_keys_lower, nested, f);
                }
            }
        }
        Kind::Array => {
            for c in v.children() {
                let mut inside = nested;
                if let Some((_, id)) = id_of(id_keys_lower, c) {
                    f(id, c, nested);
                    inside = true;
                }
                if c.has_grandchildren() {
                    for_each_id(c, id_keys_lower, inside, f);
                }
            }
        }
        _ => {}
    }
}

/// Which of `wanted` (a few ids) `doc` holds: one id-only walk.
pub(crate) fn present<'w>(
    doc: &Document,
    id_keys_lower: &[String],
    wanted: &SeededSet<&'w str>,
) -> SeededSet<&'w str> {
    let mut lengths = 0u128;
    for w in wanted {
        lengths |= length_bit(w.len());
    }
    let mut found = SeededSet::default();
    if wanted.is_empty() {
        return found;
    }
    for_each_id(doc.root(), id_keys_lower, false, &mut |id, _, _| {
        if lengths & length_bit(id.len()) != 0 {
            if let Some(w) = wanted.get(&*id) {
                found.insert(*w);
            }
        }
    });
    found
}
