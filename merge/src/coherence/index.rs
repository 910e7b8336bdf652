//! The id'd objects and references of one document: where each object lives (its
//! nearest id'd ancestor and the route from there to its array) and which string values
//! name an object.

use std::borrow::Cow;

use globset::GlobSet;
use rustc_hash::{FxHashMap, FxHashSet};
use sjson::{Kind, Path, Segment, Value};

use crate::merger::{id_display, id_of};

/// One step from an object (or the root) down to the array holding an object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    /// An object member.
    Key(String),
    /// An element of an array without ids.
    Index(usize),
}

/// An id'd object: an object element of an array that carries an id key.
#[derive(Debug, Clone)]
pub(crate) struct Obj<'d> {
    /// The id's identity text.
    pub id: Cow<'d, str>,
    /// The id key as written.
    pub id_key: Cow<'d, str>,
    /// The object.
    pub value: Value<'d>,
    /// The array holding it.
    pub array: Value<'d>,
    /// The nearest id'd object above it (index into [`DocIndex::objs`]).
    pub owner: Option<usize>,
    /// The route from the owner (or the root) to `array`.
    pub route: Vec<Step>,
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
    /// The id'd object holding the reference (index into [`DocIndex::objs`]).
    pub referrer: Option<usize>,
    /// Whether the property is a parent key (the referrer is a child of the target).
    pub parent: bool,
}

/// The id'd objects of a document.
#[derive(Debug, Default)]
pub(crate) struct DocIndex<'d> {
    /// Every id'd object, in document order.
    pub objs: Vec<Obj<'d>>,
    /// The first object of each id.
    pub by_id: FxHashMap<Cow<'d, str>, usize>,
    /// Ids held by more than one object.
    pub dups: FxHashSet<Cow<'d, str>>,
}

/// Compiled reference settings.
pub(crate) struct Matchers<'o> {
    pub id_keys_lower: &'o [String],
    pub keys: GlobSet,
    pub parent: GlobSet,
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
        let mut index = DocIndex::default();
        let mut route = Vec::new();
        index.walk(root, None, &mut route, m);
        index
    }

    fn walk(
        &mut self,
        v: Value<'d>,
        owner: Option<usize>,
        route: &mut Vec<Step>,
        m: &Matchers<'_>,
    ) {
        match v.kind() {
            Kind::Object => {
                for (k, c) in v.members() {
                    if c.is_container() {
                        route.push(Step::Key(k.into_owned()));
                        self.walk(c, owner, route, m);
                        route.pop();
                    }
                }
            }
            Kind::Array => {
                for (i, c) in v.children().enumerate() {
                    if let Some((id_key, id)) = id_of(m.id_keys_lower, c) {
                        let me = self.objs.len();
                        if self.by_id.contains_key(&id) {
                            self.dups.insert(id.clone());
                        } else {
                            self.by_id.insert(id.clone(), me);
                        }
                        self.objs.push(Obj {
                            id,
                            id_key,
                            value: c,
                            array: v,
                            owner,
                            route: route.clone(),
                        });
                        let mut inner = Vec::new();
                        self.walk(c, Some(me), &mut inner, m);
                    } else if c.is_container() {
                        route.push(Step::Index(i));
                        self.walk(c, owner, route, m);
                        route.pop();
                    }
                }
            }
            _ => {}
        }
    }

    /// The object with `id`, if any.
    pub fn get(&self, id: &str) -> Option<&Obj<'d>> {
        self.by_id.get(id).map(|&i| &self.objs[i])
    }

    /// Whether `id` names an object here.
    pub fn has(&self, id: &str) -> bool {
        self.by_id.contains_key(id)
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
            for step in &obj.route {
                path.push(match step {
                    Step::Key(k) => Segment::Key(k.clone()),
                    Step::Index(n) => Segment::Index(*n),
                });
            }
            path.push(Segment::Id {
                key: obj.id_key.to_string(),
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

/// The references under `root`: string values (alone or in an array of strings) equal to
/// an id of `ids`; ids shorter than 8 characters only under the `keys` globs.
pub(crate) fn references<'d>(
    root: Value<'d>,
    index: &DocIndex<'d>,
    ids: &dyn Fn(&str) -> bool,
    m: &Matchers<'_>,
) -> Vec<Reference<'d>> {
    let mut out = Vec::new();
    // Owner of each object node, to name the referrer.
    let owners: FxHashMap<sjson::NodeId, usize> = index
        .objs
        .iter()
        .enumerate()
        .map(|(i, o)| (o.value.id(), i))
        .collect();
    scan(root, None, &owners, ids, m, &mut out);
    out
}

fn scan<'d>(
    v: Value<'d>,
    owner: Option<usize>,
    owners: &FxHashMap<sjson::NodeId, usize>,
    ids: &dyn Fn(&str) -> bool,
    m: &Matchers<'_>,
    out: &mut Vec<Reference<'d>>,
) {
    let owner = owners.get(&v.id()).copied().or(owner);
    match v.kind() {
        Kind::Object => {
            for (k, c) in v.members() {
                match c.kind() {
                    Kind::String if !m.is_id_key(&k) => {
                        candidate(c, &k, owner, ids, m, out);
                    }
                    Kind::Array if c.children().all(|e| e.kind() == Kind::String) => {
                        for e in c.children() {
                            candidate(e, &k, owner, ids, m, out);
                        }
                    }
                    Kind::Array | Kind::Object => scan(c, owner, owners, ids, m, out),
                    _ => {}
                }
            }
        }
        Kind::Array => {
            for c in v.children() {
                if c.is_container() {
                    scan(c, owner, owners, ids, m, out);
                }
            }
        }
        _ => {}
    }
}

#[allow(clippy::ptr_arg)]
fn candidate<'d>(
    node: Value<'d>,
    key: &Cow<'d, str>, // cloned into each reference (borrowed from the document)
    owner: Option<usize>,
    ids: &dyn Fn(&str) -> bool,
    m: &Matchers<'_>,
    out: &mut Vec<Reference<'d>>,
) {
    let Some(s) = node.as_str() else { return };
    if !ids(&s) {
        return;
    }
    let keyed = m.keys.is_match(key.as_ref());
    if s.chars().count() < 8 && !keyed {
        return;
    }
    out.push(Reference {
        node,
        key: key.clone(),
        target: s,
        referrer: owner,
        parent: m.parent.is_match(key.as_ref()),
    });
}
