//! The result gate: after a merge, the result is checked against the invariants base and
//! both sides hold: ids unique in each keyed array, no element twice in a set (an array
//! of strings, or one the profile declares a set), and the format's own invariants
//! (`format_invariants`, filled by the format passes). An invariant the result breaks
//! while every input kept it ends the merge like a conflict ([`crate::Merged::failed`]),
//! with the reason: a "merged cleanly" whose result breaks what its inputs kept cannot be.
//!
//! The result is walked once; the inputs only when the result breaks something (rare).

use std::fmt;

use crate::hashing::SeededSet;
use sjson::{Document, Kind, Value};

use crate::id::{id_display, id_of};
use crate::id_table::IdTable;
use crate::profile::Format;
use crate::Version;

mod formats;

/// An invariant the merged result breaks that base, ours and theirs all kept.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum GateViolation {
    /// Two elements of a keyed array hold one id.
    DuplicateId {
        /// The array, keyed elements named by id (`/units/[id=a]/parts`), `*` for an
        /// element without one.
        array: String,
        /// The id, as people read it.
        id: String,
    },
    /// A set (array of strings, or declared by the profile) holds an element twice.
    DuplicateElement {
        /// The array.
        array: String,
        /// The element as compact JSON.
        element: String,
    },
    /// A format's own invariant (counter above its ids, grid length, back-link).
    Format {
        /// The place (`/` for the whole document: array positions differ between
        /// versions, so a graph's invariants are held or broken by the document as a whole).
        at: String,
        /// Which invariant is broken.
        broken: FormatInvariant,
    },
}

/// A format's own invariant ([`GateViolation::Format`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FormatInvariant {
    /// Cocos: every `{"__id__": n}` names an element of the array.
    ReferenceInRange,
    /// Cocos: a node's `_children` and each child's `_parent` agree.
    ChildrenAndParent,
    /// Cocos: a node's `_components` and each component's `node` agree.
    ComponentsAndNode,
    /// Cocos: every element but the first is referenced.
    Referenced,
    /// Tiled, LDtk: each id unique in its family and below its counter.
    IdsBelowCounters,
    /// Tiled, LDtk: a grid holds exactly width x height cells.
    GridLength,
}

impl fmt::Display for FormatInvariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FormatInvariant::ReferenceInRange => {
                "an {\"__id__\": n} reference past the end of the array"
            }
            FormatInvariant::ChildrenAndParent => {
                "a node's _children and a child's _parent disagree"
            }
            FormatInvariant::ComponentsAndNode => {
                "a node's _components and a component's node disagree"
            }
            FormatInvariant::Referenced => "an object nothing references",
            FormatInvariant::IdsBelowCounters => "an id held twice, or not below its counter",
            FormatInvariant::GridLength => "a grid whose length is not width x height",
        })
    }
}

impl fmt::Display for GateViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let safe = sjson::string::terminal_safe;
        match self {
            GateViolation::DuplicateId { array, id } => write!(
                f,
                "{}: id {} twice in the result (unique in base, ours and theirs)",
                safe(shown(array)),
                safe(id)
            ),
            GateViolation::DuplicateElement { array, element } => write!(
                f,
                "{}: {} twice in the result (once in base, ours and theirs)",
                safe(shown(array)),
                safe(element)
            ),
            GateViolation::Format { at, broken } => {
                write!(f, "{}: {broken}", safe(shown(at)))
            }
        }
    }
}

impl GateViolation {
    /// Where the invariant is broken: the array, or `/` for the whole document.
    pub fn path(&self) -> &str {
        match self {
            GateViolation::DuplicateId { array, .. } => shown(array),
            GateViolation::DuplicateElement { array, .. } => shown(array),
            GateViolation::Format { at, .. } => shown(at),
        }
    }

    /// The invariant's name in reports (`unique-ids`, `set-elements-once`, `grid-length`, …).
    pub fn invariant(&self) -> &'static str {
        match self {
            GateViolation::DuplicateId { .. } => "unique-ids",
            GateViolation::DuplicateElement { .. } => "set-elements-once",
            GateViolation::Format { broken, .. } => broken.name(),
        }
    }
}

impl FormatInvariant {
    /// The invariant's name in reports: `reference-in-range`, `grid-length`, …
    pub fn name(self) -> &'static str {
        match self {
            FormatInvariant::ReferenceInRange => "reference-in-range",
            FormatInvariant::ChildrenAndParent => "children-and-parent",
            FormatInvariant::ComponentsAndNode => "components-and-node",
            FormatInvariant::Referenced => "referenced",
            FormatInvariant::IdsBelowCounters => "ids-below-counters",
            FormatInvariant::GridLength => "grid-length",
        }
    }
}

fn shown(path: &str) -> &str {
    if path.is_empty() {
        "/"
    } else {
        path
    }
}

/// What the gate needs of the merge's settings.
pub(crate) struct Rules<'r> {
    /// Id keys, lower-cased, the profile's first.
    pub(crate) id_keys_lower: &'r [String],
    /// The format.
    pub(crate) format: Format,
    /// Whether ids are already known unique in the whole result (the coherence pass
    /// indexed them): the id check is then skipped.
    pub(crate) ids_known_unique: bool,
}

/// The violations of `result` that no input shares; `input(v)` gives version `v` (`None`:
/// not to be had, and then nothing is reported: the gate cannot tell).
pub(crate) fn check<'d>(
    result: &Document,
    input: impl Fn(Version) -> Option<&'d Document>,
    rules: &Rules<'_>,
) -> Vec<GateViolation> {
    let mut found = broken(result, rules);
    if found.is_empty() {
        return found;
    }
    let mut held_by_inputs: SeededSet<GateViolation> = SeededSet::default();
    let mut sets_in_inputs: SeededSet<String> = SeededSet::default();
    for version in Version::ALL {
        let Some(doc) = input(version) else {
            return Vec::new();
        };
        let mut walk = Walk::new(rules, true, true);
        walk.value(doc.root());
        held_by_inputs.extend(walk.found);
        sets_in_inputs.extend(walk.sets);
        held_by_inputs.extend(format_invariants(rules.format, doc));
    }
    found.retain(|v| match v {
        GateViolation::DuplicateElement { array, .. } => {
            sets_in_inputs.contains(array) && !held_by_inputs.contains(v)
        }
        _ => !held_by_inputs.contains(v),
    });
    found.sort_by_key(|v| v.to_string());
    found.dedup();
    found
}

/// Whether `result` breaks none of the invariants, whatever its inputs held: [`check`]
/// then finds nothing, without looking at the inputs.
pub(crate) fn clean(result: &Document, rules: &Rules<'_>) -> bool {
    broken(result, rules).is_empty()
}

/// The invariants `result` breaks, held by its inputs or not.
fn broken(result: &Document, rules: &Rules<'_>) -> Vec<GateViolation> {
    let mut found = scan(result.root(), rules, !rules.ids_known_unique);
    found.extend(format_invariants(rules.format, result));
    found
}

/// The violations in `root`.
fn scan(root: Value<'_>, rules: &Rules<'_>, ids: bool) -> Vec<GateViolation> {
    let mut walk = Walk::new(rules, ids, false);
    walk.value(root);
    walk.found
}

/// The format's own invariants broken in `doc` (Cocos back-links and references, Tiled and
/// LDtk counters and grid lengths): see [`formats`].
pub(crate) fn format_invariants(format: Format, doc: &Document) -> Vec<GateViolation> {
    formats::invariants(format, doc)
}

/// The gate on a result a format pass changed or built itself (a Cocos graph laid out
/// again, a map's grids and counters): [`check`] with nothing known of the result.
pub(crate) fn recheck(
    result: &Document,
    inputs: [&Document; 3],
    format: Format,
    options: &crate::MergeOptions,
) -> Vec<GateViolation> {
    let id_keys_lower = crate::profile::id_keys_lower(format, options);
    let rules = Rules {
        id_keys_lower: &id_keys_lower,
        format,
        ids_known_unique: false,
    };
    check(result, |v| Some(inputs[v.index()]), &rules)
}

/// One step of the walk's path: a container, a member of its object or an element of
/// its array. Its text (`/key`, `/[id=…]`, `/*`) is written only when a violation or a
/// set names the path: on a level of 100,000 entities the walk met a million steps and
/// named none.
#[derive(Clone, Copy)]
enum Step<'d> {
    /// A member: `/` and its key.
    Member(Value<'d>),
    /// An array's element: `/[id=…]` by its id, `/*` without one.
    Element(Value<'d>),
}

struct Walk<'r, 'd> {
    rules: &'r Rules<'r>,
    ids: bool,
    /// Whether the sets found are kept (the inputs' walks), not only the violations.
    keep_sets: bool,
    found: Vec<GateViolation>,
    /// Arrays of strings (and declared sets) with no element twice.
    sets: Vec<String>,
    /// The steps from the root to the value walked.
    path: Vec<Step<'d>>,
}

impl<'r, 'd> Walk<'r, 'd> {
    fn new(rules: &'r Rules<'r>, ids: bool, keep_sets: bool) -> Self {
        Walk {
            rules,
            ids,
            keep_sets,
            found: Vec::new(),
            sets: Vec::new(),
            path: Vec::new(),
        }
    }

    /// The path walked, as reports write it (`/units/[id=a]/parts`; empty for the root).
    fn path(&self) -> String {
        use std::fmt::Write as _;
        let mut path = String::new();
        for step in &self.path {
            match step {
                Step::Member(c) => {
                    path.push('/');
                    path.push_str(&c.key().unwrap_or_default());
                }
                Step::Element(c) => match id_of(self.rules.id_keys_lower, *c) {
                    Some((_, id)) => {
                        let _ = write!(path, "/[id={}]", id_display(&id));
                    }
                    None => path.push_str("/*"),
                },
            }
        }
        path
    }

    fn value(&mut self, v: Value<'d>) {
        match v.kind() {
            Kind::Object => {
                for c in v.children() {
                    if c.is_container() {
                        self.path.push(Step::Member(c));
                        self.value(c);
                        self.path.pop();
                    }
                }
            }
            Kind::Array => self.array(v),
            _ => {}
        }
    }

    fn array(&mut self, v: Value<'d>) {
        let sets = &self.rules.format.knowledge().sets;
        let declared = !sets.is_empty() && v.key().is_some_and(|k| sets.contains(&&*k));
        if v.len() >= 2
            && (declared || v.children().all(|c| c.kind() == Kind::String))
            && v.children().all(|c| !c.is_container())
        {
            self.set(v);
            return;
        }
        let ids = self.ids && v.has_grandchildren();
        // The ids met, each once, found through a table of positions sized for the array
        // (a map keyed by the ids took 33 bytes a slot and grew by doubling: 69 MB for a
        // million entities, most of it cache misses).
        let mut seen: Vec<std::borrow::Cow<'_, str>> = Vec::new();
        let mut table = IdTable::default();
        if ids {
            table = IdTable::with_capacity(v.len());
        }
        for c in v.children() {
            if ids {
                if let Some((_, id)) = id_of(self.rules.id_keys_lower, c) {
                    seen.push(id);
                    if table.insert_first(&seen, seen.len() - 1).is_some() {
                        let id = seen.pop().map(|id| id_display(&id)).unwrap_or_default();
                        let array = self.path();
                        self.found.push(GateViolation::DuplicateId { array, id });
                    }
                }
            }
            if c.is_container() {
                self.path.push(Step::Element(c));
                self.value(c);
                self.path.pop();
            }
        }
    }

    fn set(&mut self, v: Value<'d>) {
        let mut seen = SeededSet::default();
        let mut unique = true;
        for c in v.children() {
            if !seen.insert(crate::pairing::value_hash(c)) {
                // A hash collision only costs a look at the elements before.
                if v.children()
                    .take_while(|e| e.id() != c.id())
                    .any(|e| e.same_value(&c))
                {
                    unique = false;
                    self.found.push(GateViolation::DuplicateElement {
                        array: self.path(),
                        element: crate::compact_json(c),
                    });
                }
            }
        }
        if unique && self.keep_sets {
            self.sets.push(self.path());
        }
    }
}

#[cfg(test)]
mod tests;
