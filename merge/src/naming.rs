//! Names for people: a path such as `/entities/[id=6f1c2a40-…-0d1e2f3a4b03]/light/intensity`
//! rendered as `entities[lamp_01 #6f1c…4b03].light.intensity` — a keyed element by its
//! name (the first natural key it holds as a string) and a short id that is unique in the
//! documents. Every human-facing report renders paths through [`Names`]; JSON output keeps
//! the full pointers and adds this text as `name`.
//!
//! Pure: it only reads the given documents.

use std::borrow::Cow;
use std::fmt::Write as _;

use crate::hashing::SeededMap;
use sjson::{Kind, Path, Segment, Value};

use crate::id::{id_display, id_of};
use crate::id_table::IdTable;
use crate::report_path::{path_text, read_report_pointer, reported_indices};

/// Ids up to this many characters are shown whole.
const SHORT_ID_MAX: usize = 12;
/// Characters kept at each end of a longer id (`6f1c…4b03`), tried in this order until the
/// abbreviation is unique in the documents.
const SHORT_ID_ENDS: [usize; 3] = [4, 6, 8];
/// Short ids checked by a scan of every id before the abbreviations are counted once.
const SCANS_BEFORE_COUNTING: usize = 64;

/// The naming of the objects of one or more versions of a document (looked up in order:
/// give the merged result or the new side first, then the others, so that deleted objects
/// are named too).
pub struct Names<'a> {
    roots: Vec<Value<'a>>,
    id_keys_lower: Vec<String>,
    natural_keys: Vec<String>,
    /// Every id of the documents, and each container's children by id (one walk, on
    /// first use).
    index: std::cell::OnceCell<IdIndex<'a>>,
    /// How many short ids were asked for: the first [`SCANS_BEFORE_COUNTING`] are each
    /// checked by a scan of the ids, the rest by the counts below.
    asked: std::cell::Cell<usize>,
    /// How many distinct ids share each abbreviation (by its hash: a collision only makes
    /// a short id longer), for each of [`SHORT_ID_ENDS`]; counted on first use (the longer
    /// ends only when a shorter abbreviation is shared).
    abbreviations: [std::cell::OnceCell<SeededMap<u64, usize>>; SHORT_ID_ENDS.len()],
    /// Whether the first root is a Cocos object graph (its objects then named by node
    /// path, [`cocos`]); looked at on first use.
    cocos: std::cell::OnceCell<bool>,
}

/// One conflict named for people ([`Names::conflicts`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedConflict {
    /// Where it is (a repair: its object), `entities[lamp_01 #6f1c…4b03].light`.
    pub place: String,
    /// A repair's referrer, `flow[spawn #node-spawn].unit`.
    pub referrer: Option<String>,
    /// The whole line, `entities[lamp_01 #6f1c…4b03].light: both modified, took theirs`.
    pub line: String,
}

/// A container of one of the documents: the document's address and the container's node.
type ContainerKey = (usize, sjson::NodeId);

impl<'a> Names<'a> {
    /// The naming of `roots` (`id_keys` and `natural_keys` as in `MergeOptions`); their ids
    /// are indexed when an element or a short id is first asked for.
    pub fn new(roots: Vec<Value<'a>>, id_keys: &[String], natural_keys: &[String]) -> Names<'a> {
        let id_keys_lower: Vec<String> = id_keys.iter().map(|k| k.to_lowercase()).collect();
        Names {
            roots,
            id_keys_lower,
            natural_keys: natural_keys.to_vec(),
            index: Default::default(),
            asked: Default::default(),
            abbreviations: Default::default(),
            cocos: Default::default(),
        }
    }

    /// The short form of an id as shown in paths (`5`, `"5"`, `6f1c2a40-…` as `6f1c…4b03`),
    /// the whole id when its abbreviation is not unique.
    pub fn short_id(&self, shown: &str) -> String {
        let asked = self.asked.get();
        self.asked.set(asked + 1);
        // A report naming a few objects scans the ids for each; one naming many counts
        // every abbreviation once.
        let counting = asked >= SCANS_BEFORE_COUNTING;
        SHORT_ID_ENDS
            .iter()
            .zip(&self.abbreviations)
            .map(|(ends, counts)| {
                let short = abbreviate(shown, *ends);
                let unique = if counting {
                    let counts = counts.get_or_init(|| self.count_abbreviations(*ends));
                    counts.get(&hash_of(&short)).copied().unwrap_or(0) <= 1
                } else {
                    self.at_most_one_id_abbreviated_as(&short, *ends)
                };
                (short, unique)
            })
            .find_map(|(short, unique)| unique.then_some(short))
            .unwrap_or_else(|| shown.to_string())
    }

    /// Every id of the documents, as shown in paths.
    fn ids(&self) -> &[Cow<'a, str>] {
        &self.index().ids
    }

    /// The documents' ids, indexed by one walk on first use (naming thousands of changes
    /// in a 100,000-element array walks it once, not once per change).
    fn index(&self) -> &IdIndex<'a> {
        self.index.get_or_init(|| {
            let mut index = IdIndex::default();
            for root in &self.roots {
                index.add_root(*root, &self.id_keys_lower);
            }
            index
        })
    }

    /// Whether at most one distinct id abbreviates to `short` with `ends` characters at
    /// each end: one scan, a cheap test of each id's ends before it is abbreviated.
    fn at_most_one_id_abbreviated_as(&self, short: &str, ends: usize) -> bool {
        // An id abbreviated as `short` begins with its first `ends` characters and ends
        // with its last (whether it was abbreviated or is `short` itself).
        let head = short
            .char_indices()
            .nth(ends)
            .map_or(short.len(), |(i, _)| i);
        let tail = short
            .char_indices()
            .rev()
            .nth(ends.saturating_sub(1))
            .map_or(0, |(i, _)| i);
        let (head, tail) = (&short[..head], &short[tail..]);
        let mut buffer = String::new();
        let mut found: Option<&str> = None;
        // Ids often share their first characters (a counter, a date): their last bytes
        // are compared first, from a list beside the ids (reading each id's text is what
        // a scan of 100,000 ids costs).
        let (want, mask) = last_bytes(tail);
        let index = self.index();
        for (id, &end) in index.ids.iter().zip(&index.ends) {
            if end & mask != want || !id.ends_with(tail) || !id.starts_with(head) {
                continue;
            }
            abbreviate_into(id, ends, &mut buffer);
            if buffer != short {
                continue;
            }
            match found {
                Some(first) if first != &**id => return false,
                _ => found = Some(id),
            }
        }
        true
    }

    /// How many distinct ids share each abbreviation with `ends` characters at each end.
    fn count_abbreviations(&self, ends: usize) -> SeededMap<u64, usize> {
        let distinct: crate::hashing::SeededSet<&str> = self.ids().iter().map(|id| &**id).collect();
        // One buffer for every abbreviation: 100,000 ids cost no allocation each.
        let mut buffer = String::new();
        let mut counts = SeededMap::default();
        counts.reserve(distinct.len());
        for id in distinct {
            abbreviate_into(id, ends, &mut buffer);
            *counts.entry(hash_of(&buffer)).or_insert(0) += 1;
        }
        counts
    }

    /// `path` for people: keyed elements by name and short id (`[lamp_01 #6f1c…4b03]`,
    /// `[#e1]` when the element has no name); `(root)` for the root.
    pub fn path(&self, path: &Path) -> String {
        if let Some(named) = self.cocos_path(path) {
            return named;
        }
        let mut plain = Vec::with_capacity(path.0.len());
        let mut out = String::new();
        for seg in &path.0 {
            match seg {
                Segment::Id { value, .. } => {
                    let element = self.element(&plain, seg);
                    let name = element.and_then(|e| self.name_of(e));
                    // Names and ids come from the documents: escaped for terminals.
                    out.push('[');
                    if let Some(name) = name {
                        out.push_str(&sjson::string::terminal_safe_line(&name));
                        out.push(' ');
                    }
                    let short = self.short_id(value);
                    let _ = write!(out, "#{}", sjson::string::terminal_safe_line(&short));
                    out.push(']');
                    plain.push(seg.clone());
                }
                other => {
                    plain.push(other.clone());
                    let one = path_text(&Path(vec![other.clone()]));
                    if !out.is_empty() && !one.starts_with('[') {
                        out.push('.');
                    }
                    out.push_str(&one);
                }
            }
        }
        if out.is_empty() {
            out = "(root)".into();
        }
        out
    }

    /// In a Cocos object graph, a path into one of its objects with the object named by
    /// node path and component type (`Canvas/Menu/Start<cc.Label>._string`).
    fn cocos_path(&self, path: &Path) -> Option<String> {
        let (Segment::Index(i), rest) = path.0.split_first()? else {
            return None;
        };
        let root = *self.roots.first()?;
        if !*self.cocos.get_or_init(|| cocos::is_graph(root)) {
            return None;
        }
        let name = cocos::object_name(root, *i)?;
        let mut out = sjson::string::terminal_safe_line(&name).into_owned();
        for seg in rest {
            let one = path_text(&Path(vec![seg.clone()]));
            if !one.starts_with('[') {
                out.push('.');
            }
            out.push_str(&one);
        }
        Some(out)
    }

    /// A JSON Pointer as the merge reports it (`/entities/[id=f341]/position`, `~0`, `~1`
    /// and a key's leading `~2` escapes) for people, like [`Names::path`].
    pub fn pointer(&self, pointer: &str) -> String {
        self.report_path(&read_report_pointer(pointer))
    }

    /// A report's place (a conflict's path, read back or as the merge made it) for people,
    /// as [`Names::pointer`] names its pointer: a number step is an index where the
    /// documents hold an array there, a key otherwise.
    pub fn report_path(&self, path: &Path) -> String {
        let path = reported_indices(path, |p| self.is_array_at(p));
        self.path(&path)
    }

    /// Each of `conflicts` for people: its path ([`Names::report_path`]), a repair's referrer
    /// named the same way, and its line (`entities[lamp_01 #6f1c…4b03].light.intensity:
    /// both modified, took theirs`; a repair's object and referrer both named), each path
    /// rendered once for both.
    pub fn conflicts(&self, conflicts: &[crate::Conflict]) -> Vec<NamedConflict> {
        conflicts
            .iter()
            .map(|c| {
                let place = self.report_path(&c.path);
                let referrer = c.referrer.as_ref().map(|r| self.report_path(r));
                let line = c.line_named(Some(&place), referrer.as_deref());
                NamedConflict {
                    place,
                    referrer,
                    line,
                }
            })
            .collect()
    }

    /// Where `c` is, for people (a repair: its object, `units[crate #9f0c…4f5f]`).
    pub fn place(&self, c: &crate::Conflict) -> Option<String> {
        Some(self.report_path(&c.path))
    }

    fn is_array_at(&self, path: &Path) -> bool {
        self.roots
            .iter()
            .filter_map(|r| self.resolve(*r, &path.0))
            .any(|v| v.kind() == Kind::Array)
    }

    /// The element `seg` names in the array at `parent`, in the first root holding it.
    fn element(&self, parent: &[Segment], seg: &Segment) -> Option<Value<'a>> {
        self.roots.iter().find_map(|r| {
            let arr = self.resolve(*r, parent)?;
            self.step(arr, seg)
        })
    }

    fn resolve(&self, root: Value<'a>, segments: &[Segment]) -> Option<Value<'a>> {
        segments.iter().try_fold(root, |v, seg| self.step(v, seg))
    }

    fn step(&self, v: Value<'a>, seg: &Segment) -> Option<Value<'a>> {
        match seg {
            Segment::Key(k) => v.members().find(|(m, _)| m == k).map(|(_, c)| c),
            Segment::Index(i) => v.children().nth(*i),
            Segment::Id { value, .. } => self.index().element(container_key(v), value),
        }
    }

    /// The element's name: its first natural key holding a non-empty string.
    fn name_of(&self, element: Value<'a>) -> Option<String> {
        self.natural_keys.iter().find_map(|key| {
            element
                .members()
                .find(|(m, _)| m == key)
                .and_then(|(_, v)| v.as_str().map(|s| s.into_owned()))
                .filter(|s| !s.is_empty())
        })
    }
}

fn hash_of(text: &str) -> u64 {
    use std::hash::{BuildHasher, BuildHasherDefault};
    BuildHasherDefault::<rustc_hash::FxHasher>::default().hash_one(text)
}

/// A report pointer for people where no document is at hand (`/flow/[id=node-spawn]/unit`
/// as `flow[#node-spawn].unit`): elements by short id, without their names.
pub fn bare_pointer(pointer: &str) -> String {
    bare_path(&read_report_pointer(pointer))
}

/// A report's place for people where no document is at hand, as [`bare_pointer`] names
/// its pointer.
pub fn bare_path(path: &Path) -> String {
    Names::new(Vec::new(), &[], &[]).report_path(path)
}

/// An object's pointer for people where only the object's own name is known (a report
/// built without the documents): `/entities/[id=e1]` named `crate` as
/// `entities[crate #e1]`; like [`bare_pointer`] otherwise.
pub fn object_pointer(pointer: &str, name: Option<&str>) -> String {
    let names = Names::new(Vec::new(), &[], &[]);
    let mut path = crate::report_path::parse_report_pointer(pointer, |_| false);
    let (Some(name), Some(Segment::Id { value, .. })) = (name, path.0.last().cloned()) else {
        return names.path(&path);
    };
    path.0.pop();
    let parent = if path.0.is_empty() {
        String::new()
    } else {
        names.path(&path)
    };
    let short = names.short_id(&value);
    let safe = sjson::string::terminal_safe;
    format!("{parent}[{} #{}]", safe(name), safe(&short))
}

/// An object for people where only its name and id are known (a history report, a
/// label): `gate #6a7e0000` (the id by [`short_id`]), `#6a7e0000` without a name; an id
/// that is the name itself (a Cocos object without an id of its own,
/// `Canvas/Menu/Start`, the second of that name `Canvas/Menu/Start[2]`) alone; escaped
/// for terminals, within one line.
pub fn object_label(name: Option<&str>, id: &str) -> String {
    let safe = sjson::string::terminal_safe_line;
    match name.filter(|n| !n.is_empty()) {
        Some(name) if is_named_id(name, id) => safe(id).into_owned(),
        Some(name) => format!("{} #{}", safe(name), safe(short_id(id))),
        None => format!("#{}", safe(short_id(id))),
    }
}

/// Whether `id` is `name`, or `name[n]` (a second object of that name).
fn is_named_id(name: &str, id: &str) -> bool {
    match id.strip_prefix(name) {
        Some("") => true,
        Some(rest) => rest
            .strip_prefix('[')
            .and_then(|r| r.strip_suffix(']'))
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit())),
        None => false,
    }
}

/// The short form of an id where no document is at hand to make it unique (a title, a map
/// label): ids longer than 12 characters (GUIDs, long hex) by their first 8 characters.
pub fn short_id(id: &str) -> &str {
    if id.chars().count() > 12 {
        let end = id.char_indices().nth(8).map_or(id.len(), |(i, _)| i);
        &id[..end]
    } else {
        id
    }
}

/// The place of each of `conflicts` for people (`entities[crate #e1].tint`; a coherence
/// repair's object), named from the merged document `merged`. The document is indexed
/// only when there are conflicts.
pub fn places(
    merged: Value<'_>,
    conflicts: &[crate::Conflict],
    options: &crate::MergeOptions,
) -> Vec<Option<String>> {
    if conflicts.is_empty() {
        return Vec::new();
    }
    let names = Names::new(vec![merged], &options.id_keys, &options.natural_keys);
    conflicts.iter().map(|c| names.place(c)).collect()
}

/// `6f1c2a40-1f43-4c8e-9a57-0d1e2f3a4b03` → `6f1c…4b03` (`ends` = 4); ids too short to
/// gain from it unchanged.
fn abbreviate(id: &str, ends: usize) -> String {
    let mut out = String::new();
    abbreviate_into(id, ends, &mut out);
    out
}

/// [`abbreviate`] into `out` (cleared first).
fn abbreviate_into(id: &str, ends: usize, out: &mut String) {
    out.clear();
    let n = if id.is_ascii() {
        id.len()
    } else {
        id.chars().count()
    };
    if n <= SHORT_ID_MAX.max(2 * ends + 1) {
        out.push_str(id);
        return;
    }
    if id.is_ascii() {
        out.push_str(&id[..ends]);
        out.push('…');
        out.push_str(&id[n - ends..]);
        return;
    }
    out.extend(id.chars().take(ends));
    out.push('…');
    out.extend(id.chars().skip(n - ends));
}

/// The last (up to 8) bytes of `text` as a number, the last byte lowest, and the mask of
/// the bytes it holds: a text ending with `t` has `last_bytes(t).0` under `t`'s mask.
fn last_bytes(text: &str) -> (u64, u64) {
    let bytes = text.as_bytes();
    let tail = &bytes[bytes.len().saturating_sub(8)..];
    let value = tail.iter().fold(0u64, |v, &b| (v << 8) | u64::from(b));
    let mask = u64::MAX
        .checked_shr(64 - 8 * tail.len() as u32)
        .unwrap_or(0);
    (value, mask)
}

/// An id as shown in paths ([`id_display`]), borrowed where it is shown as it is.
fn shown(id: Cow<'_, str>) -> Cow<'_, str> {
    // `id_display` changes numbers (marked) and strings that read as numbers (quoted).
    if id.starts_with(['\u{0}', '\u{1}'])
        || id.contains('\u{0}')
        || id.is_empty()
        || id.parse::<f64>().is_ok()
    {
        Cow::Owned(id_display(&id))
    } else {
        id
    }
}

/// Every id of some documents, and each array's elements by id.
#[derive(Default)]
struct IdIndex<'a> {
    /// Every id (as shown in paths) of every object, in document order; an id held twice
    /// is listed twice.
    ids: Vec<Cow<'a, str>>,
    /// The last bytes of each of `ids` ([`last_bytes`]).
    ends: Vec<u64>,
    /// The object holding each of `ids`.
    objects: Vec<Value<'a>>,
    /// The children of each container (array elements, mostly) that are objects with an
    /// id, as positions in `ids` (the first, when a container repeats an id).
    elements: SeededMap<ContainerKey, IdTable>,
}

impl<'a> IdIndex<'a> {
    /// Lists an id.
    fn push(&mut self, id: Cow<'a, str>) {
        self.ends.push(last_bytes(&id).0);
        self.ids.push(id);
    }

    /// Adds the ids of the root `v` and of everything under it.
    fn add_root(&mut self, v: Value<'a>, id_keys_lower: &[String]) {
        if let Some((_, id)) = id_of(id_keys_lower, v) {
            self.push(shown(id));
            self.objects.push(v);
        }
        self.add_children(v, id_keys_lower);
    }

    /// Adds the ids of what lies under container `v`, in document order: its children
    /// that are objects with an id go in one table for `v`.
    fn add_children(&mut self, v: Value<'a>, id_keys_lower: &[String]) {
        // Only objects with members hold ids, so a value with nothing below its children
        // (`[1 2 3]`) holds none: most containers of a level are such.
        if !v.has_grandchildren() {
            return;
        }
        let mut table: Option<IdTable> = None;
        for c in v.children().filter(|c| c.is_container()) {
            if let Some((_, id)) = id_of(id_keys_lower, c) {
                self.push(shown(id));
                self.objects.push(c);
                let at = self.ids.len() - 1;
                table
                    .get_or_insert_with(|| IdTable::with_capacity(v.len()))
                    .insert_first(&self.ids, at);
            }
            self.add_children(c, id_keys_lower);
        }
        if let Some(table) = table {
            self.elements.insert(container_key(v), table);
        }
    }

    /// The child of container `key` whose id is shown as `shown`.
    fn element(&self, key: ContainerKey, shown: &str) -> Option<Value<'a>> {
        let p = self.elements.get(&key)?.find(&self.ids, shown)?;
        Some(self.objects[p])
    }
}

/// The key of container `v` among the containers of all documents.
fn container_key(v: Value<'_>) -> ContainerKey {
    (std::ptr::from_ref(v.doc()) as usize, v.id())
}

pub mod cocos;

#[cfg(test)]
mod tests;
