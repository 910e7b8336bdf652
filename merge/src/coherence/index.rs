//! The id'd objects and references of one document: where each object lives (its
//! nearest id'd ancestor and its array; the route from one to the other is found when
//! asked) and which string values name an object.

use std::borrow::Cow;

use crate::hashing::SeededSet;
use globset::GlobSet;

use crate::id_table::{IdSource, IdTable};
use sjson::{Document, Kind, NodeId, Path, Segment, Value};

use crate::id::{id_display, id_member, id_of};

/// One step from an object (or the root) down to the array holding an object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step<'d> {
    /// An object member.
    Key(Cow<'d, str>),
    /// An element of an array without ids.
    Index(usize),
}

/// An id'd object: an object element of an array that carries an id key.
#[derive(Debug, Clone)]
pub(crate) struct Obj<'d> {
    /// The id's identity text.
    pub id: Cow<'d, str>,
    /// The object.
    pub value: Value<'d>,
    /// The array holding it.
    pub array: Value<'d>,
    /// The nearest id'd object above it (index into [`DocIndex::objs`]).
    pub owner: Option<usize>,
}

/// The ids of a list of objects, as an [`IdTable`] reads them.
struct ObjIds<'a, 'd>(&'a [Obj<'d>]);

impl IdSource for ObjIds<'_, '_> {
    fn id_at(&self, at: usize) -> &str {
        &self.0[at].id
    }
}

/// A string value that names an id'd object.
#[derive(Debug, Clone)]
pub(crate) struct Reference<'d> {
    /// The string node.
    pub node: Value<'d>,
    /// The property holding it.
    pub key: Cow<'d, str>,
    /// The id it names.
    pub target: Cow<'d, str>,
    /// The object it names in the scanned document's index, if that holds it.
    pub at: Option<usize>,
    /// The id'd object holding the reference (index into [`DocIndex::objs`]).
    pub referrer: Option<usize>,
    /// Whether the property is a parent key (the referrer is a child of the target).
    pub parent: bool,
}

/// The id'd objects of a document.
#[derive(Debug, Default)]
pub(crate) struct DocIndex<'d> {
    /// The root of the document.
    root: Option<Value<'d>>,
    /// The id keys, lowercase.
    id_keys_lower: Vec<String>,
    /// Every id'd object, in document order.
    pub objs: Vec<Obj<'d>>,
    /// The position in `objs` of the first object of each id (4 bytes a slot: a map keyed
    /// by the ids took 33 and, for a million objects, 69 MB of cache misses).
    by_id: IdTable,
    /// Ids held by more than one object.
    pub dups: SeededSet<Cow<'d, str>>,
    /// Bit `n` set: an id of `n` bytes exists (127: of 127 bytes or more); a string of
    /// another length names no object, without a lookup.
    pub lengths: u128,
}

/// The [`DocIndex::lengths`] bit of a string of `len` bytes.
pub(crate) fn length_bit(len: usize) -> u128 {
    1u128 << len.min(127)
}

/// Compiled reference settings.
pub(crate) struct Matchers<'o> {
    pub id_keys_lower: &'o [String],
    pub keys: &'o GlobSet,
    pub parent: &'o GlobSet,
    /// Whether the pass may use a second thread.
    pub threads: crate::Threads,
}

impl Matchers<'_> {
    fn is_id_key(&self, key: &str) -> bool {
        self.id_keys_lower
            .iter()
            .any(|k| k.eq_ignore_ascii_case(key))
    }
}

impl<'d> DocIndex<'d> {
    /// Indexes the id'd objects under `root`.
    pub fn build(root: Value<'d>, m: &Matchers<'_>) -> DocIndex<'d> {
        Self::build_walking(root, m, None)
    }

    /// Indexes the id'd objects under `root` and lists the strings that can be references,
    /// in document order: each (string, member), where the member is the string itself or
    /// the array of strings holding it, an object's member. One walk.
    pub fn build_with_strings(
        root: Value<'d>,
        m: &Matchers<'_>,
    ) -> (DocIndex<'d>, Vec<(NodeId, NodeId)>) {
        let mut strings = Vec::new();
        let index = Self::build_walking(root, m, Some(&mut strings));
        (index, strings)
    }

    fn build_walking(
        root: Value<'d>,
        m: &Matchers<'_>,
        strings: Option<&mut Vec<(NodeId, NodeId)>>,
    ) -> DocIndex<'d> {
        let mut index = DocIndex {
            root: Some(root),
            id_keys_lower: m.id_keys_lower.to_vec(),
            ..DocIndex::default()
        };
        let mut walk = Walk {
            index: &mut index,
            m,
            strings,
        };
        walk.value(root, None, None);
        // Hashed after the walk, in one pass over `objs`: three times faster than
        // inserting during the walk (measured), whose reads evict the table.
        // (In parts that stay in the cache when there are many, see `IdTable`.)
        let mut dups = Vec::new();
        index.by_id = IdTable::first_of_each_noting(&ObjIds(&index.objs), index.objs.len(), |i| {
            dups.push(i);
            true
        });
        for i in dups {
            index.dups.insert(index.objs[i].id.clone());
        }
        index
    }

    /// The route from object `i`'s owner (or the root) down to its array.
    pub fn route(&self, i: usize) -> Vec<Step<'d>> {
        let obj = &self.objs[i];
        let target = obj.array.id();
        let mut at = match (obj.owner, self.root) {
            (Some(o), _) => self.objs[o].value,
            (None, Some(root)) => root,
            (None, None) => return Vec::new(),
        };
        let mut out = Vec::new();
        while at.id() != target {
            let Some((n, c)) = at.children().enumerate().find(|(_, c)| c.contains(target)) else {
                break;
            };
            out.push(match at.kind() {
                Kind::Object => Step::Key(c.key().unwrap_or_default()),
                _ => Step::Index(n),
            });
            at = c;
        }
        out
    }

    /// The object with `id`, if any.
    pub fn get(&self, id: &str) -> Option<&Obj<'d>> {
        self.position(id).map(|i| &self.objs[i])
    }

    /// The position in `objs` of the first object with `id`, if any.
    pub fn position(&self, id: &str) -> Option<usize> {
        self.by_id.find(&ObjIds(&self.objs), id)
    }

    /// Whether `id` names an object here.
    pub fn has(&self, id: &str) -> bool {
        self.position(id).is_some()
    }

    /// The id of the nearest id'd ancestor of object `i`.
    pub fn owner_id(&self, i: usize) -> Option<&str> {
        self.objs[i].owner.map(|o| &*self.objs[o].id)
    }

    /// The JSON Pointer of object `i` (keyed elements by id).
    pub fn pointer(&self, i: usize) -> Path {
        let mut chain = vec![i];
        let mut at = i;
        while let Some(o) = self.objs[at].owner {
            chain.push(o);
            at = o;
        }
        let mut path = Path::root();
        for &j in chain.iter().rev() {
            let obj = &self.objs[j];
            for step in self.route(j) {
                path.push(match step {
                    Step::Key(k) => Segment::Key(k.into_owned()),
                    Step::Index(n) => Segment::Index(n),
                });
            }
            let id_key = id_of(&self.id_keys_lower, obj.value).map(|(k, _)| k);
            path.push(Segment::Id {
                key: id_key.unwrap_or_default().into_owned(),
                value: id_display(&obj.id),
            });
        }
        path
    }

    /// The ids of the id'd objects inside object `i` (itself included).
    pub fn subtree_ids(&self, i: usize) -> Vec<&str> {
        let v = self.objs[i].value;
        let start = i;
        let mut out = vec![&*self.objs[i].id];
        for o in &self.objs[start + 1..] {
            if !v.contains(o.value.id()) {
                break;
            }
            out.push(&o.id);
        }
        out
    }
}

/// The walk that builds a [`DocIndex`]: into every container holding a container, and,
/// when `strings` is given, into every container, listing the strings on the way.
struct Walk<'w, 'd, 'm> {
    index: &'w mut DocIndex<'d>,
    m: &'m Matchers<'m>,
    strings: Option<&'w mut Vec<(NodeId, NodeId)>>,
}

impl<'d> Walk<'_, 'd, '_> {
    /// Whether to walk into `c`.
    fn enters(&self, c: Value<'_>) -> bool {
        match self.strings {
            Some(_) => c.is_container(),
            None => c.has_grandchildren(),
        }
    }

    /// Walks `v`, whose nearest id'd ancestor (or itself) is `owner`; `id`: the member
    /// holding `v`'s id, if `v` is an id'd object (never a reference).
    fn value(&mut self, v: Value<'d>, owner: Option<usize>, id: Option<NodeId>) {
        match v.kind() {
            Kind::Object => {
                for c in v.children() {
                    if let Some(strings) = self.strings.as_deref_mut() {
                        match c.kind() {
                            Kind::String if Some(c.id()) == id => continue,
                            Kind::String => {
                                strings.push((c.id(), c.id()));
                                continue;
                            }
                            Kind::Array if c.children().all(|e| e.kind() == Kind::String) => {
                                strings.extend(c.children().map(|e| (e.id(), c.id())));
                                continue;
                            }
                            _ => {}
                        }
                    }
                    if self.enters(c) {
                        self.value(c, owner, None);
                    }
                }
            }
            // Nothing below the elements: no element has members, so none has an id,
            // and array elements are never listed as references (`pos = [1 2 3]`).
            Kind::Array if !v.has_grandchildren() => {}
            Kind::Array => {
                let index = &mut *self.index;
                index.objs.reserve(v.len());
                for c in v.children() {
                    let (mut inside, mut id_node) = (owner, None);
                    if let Some((_, id, member)) = id_member(self.m.id_keys_lower, c) {
                        let index = &mut *self.index;
                        inside = Some(index.objs.len());
                        id_node = Some(member.id());
                        index.lengths |= length_bit(id.len());
                        index.objs.push(Obj {
                            id,
                            value: c,
                            array: v,
                            owner,
                        });
                    }
                    if self.enters(c) {
                        self.value(c, inside, id_node);
                    }
                }
            }
            _ => {}
        }
    }
}

/// What a string names, for [`resolve`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Named {
    /// No object.
    Nothing,
    /// This object of the scanned document's index.
    Object(usize),
    /// An object of another version.
    Elsewhere,
}

/// The references among `strings` (of `doc`, from [`DocIndex::build_with_strings`]):
/// string values (alone or in an array of strings) that `ids` says name an object; ids
/// shorter than 8 characters only under the `keys` globs. `lengths`: the [`length_bit`]s
/// of every id `ids` knows. A large document's strings are resolved in two halves, side
/// by side.
pub(crate) fn resolve<'d>(
    doc: &'d Document,
    strings: &[(NodeId, NodeId)],
    index: &DocIndex<'d>,
    lengths: u128,
    ids: &(dyn Fn(&str) -> Named + Sync),
    m: &Matchers<'_>,
) -> Vec<Reference<'d>> {
    let half = |part: &[(NodeId, NodeId)]| {
        let mut out = Vec::new();
        let first = part.first().map_or(NodeId::ROOT, |&(_, member)| member);
        let mut scan = Scan {
            objs: &index.objs,
            next: index.objs.partition_point(|o| o.value.id() < first),
            lengths,
            ids,
            m,
            globs: Vec::new(),
            out: &mut out,
        };
        for &(node, member) in part {
            scan.candidate(doc.value(node), doc.value(member));
        }
        out
    };
    if !m.threads.parallel(doc.text().len()) {
        return half(strings);
    }
    let (a, b) = strings.split_at(strings.len() / 2);
    let (mut second, mut out) = crate::both(true, || half(b), || half(a));
    out.append(&mut second);
    out
}

/// The strings in document order; `next` is the first object of `objs` that starts
/// after the last reference's member, so a reference's id'd ancestor comes without a
/// lookup.
struct Scan<'s, 'd> {
    objs: &'s [Obj<'d>],
    next: usize,
    lengths: u128,
    ids: &'s (dyn Fn(&str) -> Named + Sync),
    m: &'s Matchers<'s>,
    /// Keys met so far and their glob matches.
    globs: Vec<(String, bool, bool)>,
    out: &'s mut Vec<Reference<'d>>,
}

impl Scan<'_, '_> {
    /// The nearest id'd object holding member `v` (asked for in document order).
    fn owner(&mut self, v: Value<'_>) -> Option<usize> {
        while self
            .objs
            .get(self.next)
            .is_some_and(|o| o.value.id() < v.id())
        {
            self.next += 1;
        }
        // The last object starting before `v`, or the first of its owners, holds `v`
        // (subtrees nest in preorder).
        let mut at = self.next.checked_sub(1);
        while let Some(i) = at {
            if self.objs[i].value.contains(v.id()) {
                return Some(i);
            }
            at = self.objs[i].owner;
        }
        None
    }
}

impl<'d> Scan<'_, 'd> {
    /// Whether `key` is a reference key and a parent key (globs matched once per key).
    fn flags(&mut self, key: &str) -> (bool, bool) {
        if let Some(&(_, keyed, parent)) = self.globs.iter().find(|(k, ..)| k == key) {
            return (keyed, parent);
        }
        let flags = (self.m.keys.is_match(key), self.m.parent.is_match(key));
        if self.globs.len() < 64 {
            self.globs.push((key.to_string(), flags.0, flags.1));
        }
        flags
    }

    /// Records string `node` (held by member `member`: itself, or the array of strings
    /// holding it) if it names an object. The member's key is decoded only for strings
    /// of an id's length.
    fn candidate(&mut self, node: Value<'d>, member: Value<'d>) {
        let Some(s) = node.as_str() else { return };
        if self.lengths & length_bit(s.len()) == 0 {
            return;
        }
        let key = member.key().unwrap_or_default();
        if node.id() == member.id() && self.m.is_id_key(&key) {
            return;
        }
        let at = match (self.ids)(&s) {
            Named::Nothing => return,
            Named::Object(i) => Some(i),
            Named::Elsewhere => None,
        };
        let (keyed, parent) = self.flags(&key);
        if !keyed && s.chars().count() < 8 {
            return;
        }
        let referrer = self.owner(member);
        self.out.push(Reference {
            node,
            key,
            target: s,
            at,
            referrer,
            parent,
        });
    }
}
