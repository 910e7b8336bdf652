//! Change sets: a two-way structural diff of two values.
//!
//! [`diff`] compares an old and a new value the way the merge sees them: objects key by
//! key, keyed arrays (every element an object with a unique id under one of the id keys)
//! by id, all-number arrays of at most `atomic_max` elements as one value, and other arrays
//! as sequences (Myers' diff over value hashes, paired elements of replaced runs compared
//! recursively). It yields two views of the same difference:
//!
//! - [`Change`]s for people and editors, addressed by [`Path`]s that name keyed elements
//!   by their id (`/entities/[id=f341]/position`, printed as `entities[id=f341].position`
//!   by [`path_text`]); an id'd object that left one keyed array and appeared in another
//!   is one [`Change::Moved`] followed by the changes made to it.
//! - An RFC 6902 JSON Patch ([`PatchOp`]) with RFC 6901 pointers that use array indices,
//!   valid for sequential application: applying it to the old value gives the new value
//!   (up to the order of object keys, which the diff ignores).
//!
//! No I/O happens here.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::hash::Hasher;
use std::time::{Duration, Instant};

use rustc_hash::{FxHashMap, FxHasher};
use sjson::{Kind, Path, Segment, Value};

use crate::merger::{compact_json, id_display, id_text, KeyIndex};
use crate::MergeOptions;

/// How long one sequence diff may search for a minimal edit script before it settles for
/// a correct but longer one (a safety valve for pathological reorders of huge arrays).
const SEQUENCE_DEADLINE: Duration = Duration::from_secs(2);

/// Above this many steps (moved elements × array length), the patch replaces a reordered
/// keyed array whole instead of moving its elements one by one.
const MOVE_BUDGET: usize = 20_000_000;

/// The widest one-line summary of a value, in characters.
const SUMMARY_WIDTH: usize = 64;

/// Diff settings: the subset of [`MergeOptions`] that decides how values are compared.
#[derive(Debug, Clone)]
pub struct DiffOptions {
    /// Member names that give array elements an identity, in priority order; matched
    /// case-insensitively.
    pub id_keys: Vec<String>,
    /// All-number arrays up to this length are one value.
    pub atomic_max: usize,
}

impl Default for DiffOptions {
    fn default() -> Self {
        DiffOptions::from(&MergeOptions::default())
    }
}

impl From<&MergeOptions> for DiffOptions {
    fn from(m: &MergeOptions) -> Self {
        DiffOptions {
            id_keys: m.id_keys.clone(),
            atomic_max: m.atomic_max,
        }
    }
}

/// One difference between two values, for people and editors.
#[derive(Debug, Clone)]
pub enum Change<'a> {
    /// The value at `path` changed.
    Changed {
        /// Where, keyed elements named by id.
        path: Path,
        /// The old value.
        old: Value<'a>,
        /// The new value.
        new: Value<'a>,
    },
    /// A value was added at `path`.
    Added {
        /// Where, keyed elements named by id.
        path: Path,
        /// The new value.
        value: Value<'a>,
    },
    /// The value at `path` was removed.
    Removed {
        /// Where it was, keyed elements named by id.
        path: Path,
        /// The old value.
        value: Value<'a>,
    },
    /// An id'd object moved: into another keyed array (`from != to`), or to another
    /// position of the same keyed array (`from == to`). Changes made to it follow,
    /// addressed at `to`.
    Moved {
        /// Where it was.
        from: Path,
        /// Where it is.
        to: Path,
        /// Its index in the old array.
        from_index: usize,
        /// Its index in the new array.
        to_index: usize,
        /// The new value.
        value: Value<'a>,
    },
}

impl<'a> Change<'a> {
    /// `changed`, `added`, `removed` or `moved`.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Change::Changed { .. } => "changed",
            Change::Added { .. } => "added",
            Change::Removed { .. } => "removed",
            Change::Moved { .. } => "moved",
        }
    }

    /// Where the change is (for a move: the new place).
    pub fn path(&self) -> &Path {
        match self {
            Change::Changed { path, .. }
            | Change::Added { path, .. }
            | Change::Removed { path, .. } => path,
            Change::Moved { to, .. } => to,
        }
    }

    /// One line for people:
    ///
    /// ```text
    /// entities[id=f341].position: [0 0 0] → [1 0 0]
    /// + entities[id=e3]: {name = "lamp", unit = "units/lamp"}
    /// - entities[id=e2]: {name = "crate", …}
    /// ~ entities[id=e4]: moved from index 3 to 0
    /// ~ groups[id=g1].children[id=e5]: moved from entities[id=e5]
    /// ```
    pub fn text(&self) -> String {
        match self {
            Change::Changed { path, old, new } => {
                format!("{}: {} → {}", path_text(path), summary(*old), summary(*new))
            }
            Change::Added { path, value } => {
                format!("+ {}: {}", path_text(path), summary(*value))
            }
            Change::Removed { path, value } => {
                format!("- {}: {}", path_text(path), summary(*value))
            }
            Change::Moved {
                from,
                to,
                from_index,
                to_index,
                ..
            } => {
                if from == to {
                    format!(
                        "~ {}: moved from index {from_index} to {to_index}",
                        path_text(to)
                    )
                } else {
                    format!("~ {}: moved from {}", path_text(to), path_text(from))
                }
            }
        }
    }

    /// The change as one JSON object (`path` and `from` as JSON Pointers naming keyed
    /// elements by id; values as JSON):
    /// `{"change":"changed","path":"/entities/[id=f341]/position","old":[0,0,0],"new":[1,0,0]}`.
    pub fn to_json(&self) -> String {
        let mut out = String::from("{\"change\":");
        sjson::string::write_quoted(&mut out, self.kind_name());
        let field = |out: &mut String, name: &str, json: &str| {
            out.push_str(",\"");
            out.push_str(name);
            out.push_str("\":");
            out.push_str(json);
        };
        let quoted = |s: &str| {
            let mut q = String::new();
            sjson::string::write_quoted(&mut q, s);
            q
        };
        match self {
            Change::Changed { path, old, new } => {
                field(&mut out, "path", &quoted(&path.to_string()));
                field(&mut out, "old", &compact_json(*old));
                field(&mut out, "new", &compact_json(*new));
            }
            Change::Added { path, value } | Change::Removed { path, value } => {
                field(&mut out, "path", &quoted(&path.to_string()));
                field(&mut out, "value", &compact_json(*value));
            }
            Change::Moved {
                from,
                to,
                from_index,
                to_index,
                value,
            } => {
                field(&mut out, "path", &quoted(&to.to_string()));
                field(&mut out, "from", &quoted(&from.to_string()));
                field(&mut out, "from_index", &from_index.to_string());
                field(&mut out, "to_index", &to_index.to_string());
                field(&mut out, "value", &compact_json(*value));
            }
        }
        out.push('}');
        out
    }
}

/// One RFC 6902 JSON Patch operation; paths are RFC 6901 pointers with array indices.
#[derive(Debug, Clone)]
pub enum PatchOp<'a> {
    /// `add`: insert into an array at an index, or set an object member.
    Add {
        /// The target.
        path: Path,
        /// The value added.
        value: Value<'a>,
    },
    /// `remove`.
    Remove {
        /// The target.
        path: Path,
    },
    /// `replace`.
    Replace {
        /// The target.
        path: Path,
        /// The new value.
        value: Value<'a>,
    },
    /// `move`: an element of a keyed array to another position of the same array (the
    /// target index counts after the removal, as RFC 6902 specifies).
    Move {
        /// Where the element is taken from.
        from: Path,
        /// Where it is put.
        path: Path,
    },
}

impl PatchOp<'_> {
    /// `add`, `remove`, `replace` or `move`.
    pub fn op(&self) -> &'static str {
        match self {
            PatchOp::Add { .. } => "add",
            PatchOp::Remove { .. } => "remove",
            PatchOp::Replace { .. } => "replace",
            PatchOp::Move { .. } => "move",
        }
    }

    /// The target pointer.
    pub fn path(&self) -> &Path {
        match self {
            PatchOp::Add { path, .. }
            | PatchOp::Remove { path }
            | PatchOp::Replace { path, .. }
            | PatchOp::Move { path, .. } => path,
        }
    }

    /// The operation as a JSON object:
    /// `{"op":"replace","path":"/entities/0/position","value":[1,0,0]}`.
    pub fn to_json(&self) -> String {
        let mut out = String::from("{\"op\":");
        sjson::string::write_quoted(&mut out, self.op());
        if let PatchOp::Move { from, .. } = self {
            out.push_str(",\"from\":");
            sjson::string::write_quoted(&mut out, &from.to_string());
        }
        out.push_str(",\"path\":");
        sjson::string::write_quoted(&mut out, &self.path().to_string());
        if let PatchOp::Add { value, .. } | PatchOp::Replace { value, .. } = self {
            out.push_str(",\"value\":");
            out.push_str(&compact_json(*value));
        }
        out.push('}');
        out
    }
}

/// The difference between two values.
#[derive(Debug, Clone, Default)]
pub struct Diff<'a> {
    /// The changes, in document order, keyed elements named by id.
    pub changes: Vec<Change<'a>>,
    /// The same difference as an RFC 6902 JSON Patch, in application order.
    pub patch: Vec<PatchOp<'a>>,
}

impl Diff<'_> {
    /// Whether the values are equal (object key order aside).
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty() && self.patch.is_empty()
    }

    /// The changes as a JSON array, one record per line.
    pub fn changes_json(&self) -> String {
        json_lines(self.changes.iter().map(Change::to_json))
    }

    /// The JSON Patch as a JSON array, one operation per line.
    pub fn patch_json(&self) -> String {
        json_lines(self.patch.iter().map(PatchOp::to_json))
    }
}

fn json_lines(items: impl Iterator<Item = String>) -> String {
    let items: Vec<String> = items.collect();
    if items.is_empty() {
        return "[]".into();
    }
    format!("[\n  {}\n]", items.join(",\n  "))
}

/// Compares `old` with `new` (see the module documentation).
pub fn diff<'a>(old: Value<'a>, new: Value<'a>, options: &DiffOptions) -> Diff<'a> {
    diff_within(old, new, options, MOVE_BUDGET)
}

fn diff_within<'a>(
    old: Value<'a>,
    new: Value<'a>,
    options: &DiffOptions,
    move_budget: usize,
) -> Diff<'a> {
    let mut w = Walker::new(options, Path::root());
    w.move_budget = move_budget;
    w.value(old, new);
    let moves = std::mem::take(&mut w.keyed_out);
    let changes = w.resolve_moves(moves);
    Diff {
        changes,
        patch: w.patch,
    }
}

/// A path for people: `entities[id=f341].position`, `units[2].pos`, `["a.b"].c`;
/// `(root)` for the root.
pub fn path_text(path: &Path) -> String {
    let mut s = String::new();
    for seg in &path.0 {
        match seg {
            Segment::Key(k) if is_simple_key(k) => {
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(k);
            }
            Segment::Key(k) => {
                s.push('[');
                sjson::string::write_quoted(&mut s, k);
                s.push(']');
            }
            Segment::Index(i) => {
                let _ = write!(s, "[{i}]");
            }
            Segment::Id { key, value } => {
                let _ = write!(s, "[{key}={value}]");
            }
        }
    }
    if s.is_empty() {
        s.push_str("(root)");
    }
    s
}

fn is_simple_key(k: &str) -> bool {
    !k.is_empty()
        && k.chars().all(|c| {
            !c.is_whitespace() && !c.is_control() && !matches!(c, '.' | '[' | ']' | '"' | '=')
        })
}

/// A one-line summary of a value: scalars as written (strings quoted, long ones cut),
/// short all-number arrays whole (`[0 0 1]`), objects by their most telling members
/// (`{name = "lamp", unit = "units/lamp", …}`; id members left out), other arrays by size.
pub fn summary(v: Value<'_>) -> String {
    let mut out = String::new();
    write_summary(v, &mut out, SUMMARY_WIDTH, true);
    out
}

/// Members shown first in an object's summary (case-insensitive).
const TELLING_KEYS: [&str; 6] = ["name", "unit", "type", "title", "class", "resource"];
/// Members left out of an object's summary: its identity is in the path already.
const ID_KEYS: [&str; 5] = ["id", "_id", "guid", "_guid", "uuid"];

fn write_summary(v: Value<'_>, out: &mut String, width: usize, top: bool) {
    match v.kind() {
        Kind::Null | Kind::Bool | Kind::Number => out.push_str(v.text()),
        Kind::String => {
            let s = v.as_str().unwrap_or_default();
            let max = width.clamp(8, 48);
            if s.chars().count() > max {
                let cut: String = s.chars().take(max - 1).collect();
                sjson::string::write_quoted(out, &format!("{cut}…"));
            } else {
                sjson::string::write_quoted(out, &s);
            }
        }
        Kind::Array => {
            if v.is_empty() {
                out.push_str("[]");
                return;
            }
            if v.children().all(|c| c.kind() == Kind::Number) && v.len() <= 16 {
                let start = out.len();
                out.push('[');
                for (i, c) in v.children().enumerate() {
                    if i > 0 {
                        out.push(' ');
                    }
                    if out.len() - start + c.text().len() > width.max(24) {
                        out.push('…');
                        break;
                    }
                    out.push_str(c.text());
                }
                out.push(']');
                return;
            }
            let _ = write!(
                out,
                "[… {} item{}]",
                v.len(),
                if v.len() == 1 { "" } else { "s" }
            );
        }
        Kind::Object => {
            if v.is_empty() {
                out.push_str("{}");
                return;
            }
            if !top {
                out.push_str("{…}");
                return;
            }
            let mut members: Vec<(Cow<'_, str>, Value<'_>)> = v
                .members()
                .filter(|(k, _)| !ID_KEYS.iter().any(|id| k.eq_ignore_ascii_case(id)))
                .collect();
            let rank = |k: &str| {
                TELLING_KEYS
                    .iter()
                    .position(|t| k.eq_ignore_ascii_case(t))
                    .unwrap_or(TELLING_KEYS.len())
            };
            members.sort_by_key(|(k, _)| rank(k));
            let start = out.len();
            out.push('{');
            let mut shown = 0;
            for (k, c) in &members {
                let mut item = String::new();
                if is_simple_key(k) {
                    item.push_str(k);
                } else {
                    sjson::string::write_quoted(&mut item, k);
                }
                item.push_str(" = ");
                write_summary(*c, &mut item, 40, false);
                let used = out[start..].chars().count();
                if shown > 0 && used + item.chars().count() + 2 > width {
                    break;
                }
                if shown > 0 {
                    out.push_str(", ");
                }
                out.push_str(&item);
                shown += 1;
            }
            if shown < members.len() {
                out.push_str(if shown > 0 { ", …" } else { "…" });
            }
            out.push('}');
        }
    }
}

/// The ids of a keyed array.
struct Keyed<'a> {
    /// The id key as written in the first element (`None` for an empty array).
    key: Option<Cow<'a, str>>,
    /// Each element's id key as written.
    keys: Vec<Cow<'a, str>>,
    /// Each element's id (identity text: numbers marked, see `id_text`).
    ids: Vec<String>,
    /// Position of each id.
    index: FxHashMap<String, usize>,
}

/// A removal from or an addition to a keyed array, for move detection.
struct KeyedOut {
    id: String,
    /// Index of the change in `Walker::changes`.
    change: usize,
    /// The element's index in its array.
    index: usize,
    added: bool,
}

struct Walker<'o, 'a> {
    opts: &'o DiffOptions,
    id_keys_lower: Vec<String>,
    /// The current place, keyed elements named by id.
    path: Path,
    /// The current place as a JSON Pointer with indices valid during patch application.
    ptr: Path,
    changes: Vec<Change<'a>>,
    patch: Vec<PatchOp<'a>>,
    /// While positive, no patch operations are recorded (a parent replaced the value).
    patch_off: usize,
    keyed_out: Vec<KeyedOut>,
    /// See [`MOVE_BUDGET`].
    move_budget: usize,
}

impl<'o, 'a> Walker<'o, 'a> {
    fn new(opts: &'o DiffOptions, path: Path) -> Self {
        Walker {
            opts,
            id_keys_lower: opts
                .id_keys
                .iter()
                .map(|k| k.to_ascii_lowercase())
                .collect(),
            path,
            ptr: Path::root(),
            changes: Vec::new(),
            patch: Vec::new(),
            patch_off: 0,
            keyed_out: Vec::new(),
            move_budget: MOVE_BUDGET,
        }
    }

    fn op(&mut self, op: PatchOp<'a>) {
        if self.patch_off == 0 {
            self.patch.push(op);
        }
    }

    fn enter(&mut self, path: Segment, ptr: Segment) {
        self.path.push(path);
        self.ptr.push(ptr);
    }

    fn leave(&mut self) {
        self.path.pop();
        self.ptr.pop();
    }

    fn value(&mut self, old: Value<'a>, new: Value<'a>) {
        if old.same_value(&new) {
            return;
        }
        match (old.kind(), new.kind()) {
            (Kind::Object, Kind::Object) => self.object(old, new),
            (Kind::Array, Kind::Array) if !(self.is_tuple(old) && self.is_tuple(new)) => {
                self.array(old, new)
            }
            _ => self.changed(old, new),
        }
    }

    fn changed(&mut self, old: Value<'a>, new: Value<'a>) {
        self.changes.push(Change::Changed {
            path: self.path.clone(),
            old,
            new,
        });
        self.op(PatchOp::Replace {
            path: self.ptr.clone(),
            value: new,
        });
    }

    fn is_tuple(&self, v: Value<'_>) -> bool {
        v.len() <= self.opts.atomic_max && v.children().all(|c| c.kind() == Kind::Number)
    }

    fn object(&mut self, old: Value<'a>, new: Value<'a>) {
        let oi = KeyIndex::new(Some(old));
        let ni = KeyIndex::new(Some(new));
        for (key, ov) in old.members() {
            let seg = Segment::Key(key.to_string());
            self.enter(seg.clone(), seg);
            match ni.get(&key) {
                Some(nv) => self.value(ov, nv),
                None => {
                    self.changes.push(Change::Removed {
                        path: self.path.clone(),
                        value: ov,
                    });
                    self.op(PatchOp::Remove {
                        path: self.ptr.clone(),
                    });
                }
            }
            self.leave();
        }
        for (key, nv) in new.members() {
            if oi.contains(&key) {
                continue;
            }
            let seg = Segment::Key(key.to_string());
            self.enter(seg.clone(), seg);
            self.changes.push(Change::Added {
                path: self.path.clone(),
                value: nv,
            });
            self.op(PatchOp::Add {
                path: self.ptr.clone(),
                value: nv,
            });
            self.leave();
        }
    }

    /// The id key and id of an object, by the configured id keys (case-insensitive).
    fn id_of(&self, v: Value<'a>) -> Option<(Cow<'a, str>, String)> {
        if v.kind() != Kind::Object {
            return None;
        }
        for wanted in &self.id_keys_lower {
            for (key, value) in v.members() {
                if key.eq_ignore_ascii_case(wanted) {
                    return id_text(value).map(|id| (key, id.into_owned()));
                }
            }
        }
        None
    }

    /// The ids of `arr` if every element is an object with an id under the same id key
    /// and the ids are unique.
    fn keyed(&self, arr: Value<'a>) -> Option<Keyed<'a>> {
        let mut key: Option<Cow<'a, str>> = None;
        let mut keys = Vec::with_capacity(arr.len());
        let mut ids = Vec::with_capacity(arr.len());
        let mut index = FxHashMap::default();
        index.reserve(arr.len());
        for (i, el) in arr.children().enumerate() {
            let (k, id) = self.id_of(el)?;
            match &key {
                Some(first) if !first.eq_ignore_ascii_case(&k) => return None,
                Some(_) => {}
                None => key = Some(k.clone()),
            }
            if index.insert(id.clone(), i).is_some() {
                return None;
            }
            keys.push(k);
            ids.push(id);
        }
        Some(Keyed {
            key,
            keys,
            ids,
            index,
        })
    }

    fn array(&mut self, old: Value<'a>, new: Value<'a>) {
        match (self.keyed(old), self.keyed(new)) {
            (Some(ok), Some(nk))
                if match (&ok.key, &nk.key) {
                    (Some(a), Some(b)) => a.eq_ignore_ascii_case(b),
                    _ => true,
                } =>
            {
                self.keyed_array(old, new, ok, nk)
            }
            _ => self.sequence(old, new),
        }
    }

    fn keyed_array(&mut self, old: Value<'a>, new: Value<'a>, ok: Keyed<'a>, nk: Keyed<'a>) {
        let os: Vec<Value<'a>> = old.children().collect();
        let ns: Vec<Value<'a>> = new.children().collect();
        let deadline = Some(Instant::now() + SEQUENCE_DEADLINE);
        let ops = similar::capture_diff_slices_deadline(
            similar::Algorithm::Myers,
            &ok.ids,
            &nk.ids,
            deadline,
        );
        // Elements that keep their place relative to each other.
        let mut stays = vec![false; ok.ids.len()];
        for op in &ops {
            if let similar::DiffOp::Equal { old_index, len, .. } = *op {
                stays[old_index..old_index + len].fill(true);
            }
        }
        let replaced = self.keyed_patch(&ok, &nk, &stays, new);

        // The changes, in document order; common elements recursed at their new index.
        let id_seg = |key: &Cow<'_, str>, id: &str| Segment::Id {
            key: key.to_string(),
            value: id_display(id),
        };
        for op in &ops {
            let (o_range, n_range) = (op.old_range(), op.new_range());
            if let similar::DiffOp::Equal { .. } = op {
                for (i, j) in o_range.zip(n_range) {
                    self.enter(id_seg(&nk.keys[j], &nk.ids[j]), Segment::Index(j));
                    self.value(os[i], ns[j]);
                    self.leave();
                }
                continue;
            }
            for i in o_range {
                if nk.index.contains_key(&ok.ids[i]) {
                    continue; // reordered: reported where it is now
                }
                self.path.push(id_seg(&ok.keys[i], &ok.ids[i]));
                self.keyed_out.push(KeyedOut {
                    id: ok.ids[i].clone(),
                    change: self.changes.len(),
                    index: i,
                    added: false,
                });
                self.changes.push(Change::Removed {
                    path: self.path.clone(),
                    value: os[i],
                });
                self.path.pop();
            }
            for j in n_range {
                self.enter(id_seg(&nk.keys[j], &nk.ids[j]), Segment::Index(j));
                match ok.index.get(&nk.ids[j]) {
                    Some(&i) => {
                        self.changes.push(Change::Moved {
                            from: self.path.clone(),
                            to: self.path.clone(),
                            from_index: i,
                            to_index: j,
                            value: ns[j],
                        });
                        self.value(os[i], ns[j]);
                    }
                    None => {
                        self.keyed_out.push(KeyedOut {
                            id: nk.ids[j].clone(),
                            change: self.changes.len(),
                            index: j,
                            added: true,
                        });
                        self.changes.push(Change::Added {
                            path: self.path.clone(),
                            value: ns[j],
                        });
                    }
                }
                self.leave();
            }
        }
        if replaced {
            self.patch_off -= 1;
        }
    }

    /// The structural patch of a keyed array: removals (from the back), moves of the
    /// elements that do not stay, insertions (from the front). Afterwards every common
    /// element sits at its new index, where the caller recurses into it. Returns `true`
    /// if the array was replaced whole instead (the patch is then off until the caller
    /// is done with the array).
    fn keyed_patch(
        &mut self,
        ok: &Keyed<'a>,
        nk: &Keyed<'a>,
        stays: &[bool],
        new: Value<'a>,
    ) -> bool {
        if self.patch_off > 0 {
            return false;
        }
        let moved = (0..ok.ids.len())
            .filter(|&i| !stays[i] && nk.index.contains_key(&ok.ids[i]))
            .count();
        if moved.saturating_mul(ok.ids.len()) > self.move_budget {
            self.op(PatchOp::Replace {
                path: self.ptr.clone(),
                value: new,
            });
            // Everything below is covered by the replacement; the caller still walks it
            // for the changes, so switch the patch off until this array is done.
            self.patch_off += 1;
            return true;
        }
        for i in (0..ok.ids.len()).rev() {
            if !nk.index.contains_key(&ok.ids[i]) {
                self.ptr.push(Segment::Index(i));
                self.op(PatchOp::Remove {
                    path: self.ptr.clone(),
                });
                self.ptr.pop();
            }
        }
        if moved > 0 {
            // The array now holds the common ids in their old order.
            let mut w: Vec<&str> = ok
                .ids
                .iter()
                .filter(|id| nk.index.contains_key(*id))
                .map(String::as_str)
                .collect();
            let mut pred: Option<&str> = None;
            for id in nk.ids.iter().filter(|id| ok.index.contains_key(*id)) {
                let i = ok.index[id];
                if !stays[i] {
                    let from = w.iter().position(|&x| x == id).unwrap_or(0);
                    w.remove(from);
                    let to = pred
                        .and_then(|p| w.iter().position(|&x| x == p))
                        .map_or(0, |p| p + 1);
                    w.insert(to, id);
                    if from != to {
                        let mut f = self.ptr.clone();
                        f.push(Segment::Index(from));
                        let mut t = self.ptr.clone();
                        t.push(Segment::Index(to));
                        self.op(PatchOp::Move { from: f, path: t });
                    }
                }
                pred = Some(id);
            }
        }
        for (j, (id, el)) in nk.ids.iter().zip(new.children()).enumerate() {
            if !ok.index.contains_key(id) {
                self.ptr.push(Segment::Index(j));
                self.op(PatchOp::Add {
                    path: self.ptr.clone(),
                    value: el,
                });
                self.ptr.pop();
            }
        }
        false
    }

    fn sequence(&mut self, old: Value<'a>, new: Value<'a>) {
        let os: Vec<Value<'a>> = old.children().collect();
        let ns: Vec<Value<'a>> = new.children().collect();
        let hash = |vs: &[Value<'_>]| -> Vec<u64> {
            vs.iter()
                .map(|v| {
                    let mut h = FxHasher::default();
                    v.hash_value(&mut h);
                    h.finish()
                })
                .collect()
        };
        let (ho, hn) = (hash(&os), hash(&ns));
        let deadline = Some(Instant::now() + SEQUENCE_DEADLINE);
        let ops =
            similar::capture_diff_slices_deadline(similar::Algorithm::Myers, &ho, &hn, deadline);
        // While the patch is applied, everything before the current operation already
        // equals the new array, so the working index is the count of new elements so
        // far (`similar` reports a deletion's `new_index` after the following equal run).
        let mut at = 0;
        for op in ops {
            let (oi, ol, nl) = match op {
                similar::DiffOp::Equal { len, .. } => {
                    at += len;
                    continue;
                }
                similar::DiffOp::Delete {
                    old_index, old_len, ..
                } => (old_index, old_len, 0),
                similar::DiffOp::Insert {
                    old_index, new_len, ..
                } => (old_index, 0, new_len),
                similar::DiffOp::Replace {
                    old_index,
                    old_len,
                    new_len,
                    ..
                } => (old_index, old_len, new_len),
            };
            let ni = at;
            at += nl;
            let paired = ol.min(nl);
            for k in 0..paired {
                self.enter(Segment::Index(ni + k), Segment::Index(ni + k));
                self.value(os[oi + k], ns[ni + k]);
                self.leave();
            }
            for k in paired..ol {
                self.path.push(Segment::Index(oi + k));
                self.changes.push(Change::Removed {
                    path: self.path.clone(),
                    value: os[oi + k],
                });
                self.path.pop();
                self.ptr.push(Segment::Index(ni + paired));
                self.op(PatchOp::Remove {
                    path: self.ptr.clone(),
                });
                self.ptr.pop();
            }
            for k in paired..nl {
                self.enter(Segment::Index(ni + k), Segment::Index(ni + k));
                self.changes.push(Change::Added {
                    path: self.path.clone(),
                    value: ns[ni + k],
                });
                self.op(PatchOp::Add {
                    path: self.ptr.clone(),
                    value: ns[ni + k],
                });
                self.leave();
            }
        }
    }

    /// Turns a removal from one keyed array plus an addition of the same id to another
    /// into one move followed by the changes made to the object; returns the changes.
    fn resolve_moves(&mut self, outs: Vec<KeyedOut>) -> Vec<Change<'a>> {
        let mut changes = std::mem::take(&mut self.changes);
        if outs.is_empty() {
            return changes;
        }
        let mut by_id: FxHashMap<&str, (Vec<&KeyedOut>, Vec<&KeyedOut>)> = FxHashMap::default();
        for o in &outs {
            let e = by_id.entry(o.id.as_str()).or_default();
            if o.added {
                e.1.push(o);
            } else {
                e.0.push(o);
            }
        }
        let mut dropped = vec![false; changes.len()];
        let mut nested: FxHashMap<usize, Vec<Change<'a>>> = FxHashMap::default();
        for (removed, added) in by_id.values() {
            let ([r], [a]) = (removed.as_slice(), added.as_slice()) else {
                continue;
            };
            let (
                Change::Removed {
                    path: from,
                    value: ov,
                },
                Change::Added {
                    path: to,
                    value: nv,
                },
            ) = (&changes[r.change], &changes[a.change])
            else {
                continue;
            };
            let (from, to, ov, nv) = (from.clone(), to.clone(), *ov, *nv);
            let mut inner = Walker::new(self.opts, to.clone());
            inner.patch_off = 1;
            inner.value(ov, nv);
            dropped[r.change] = true;
            changes[a.change] = Change::Moved {
                from,
                to,
                from_index: r.index,
                to_index: a.index,
                value: nv,
            };
            nested.insert(a.change, inner.changes);
        }
        let mut out = Vec::with_capacity(changes.len());
        for (i, c) in changes.into_iter().enumerate() {
            if dropped[i] {
                continue;
            }
            out.push(c);
            if let Some(more) = nested.remove(&i) {
                out.extend(more);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use sjson::{Dialect, Document, NumberValue};

    use super::*;

    fn doc(text: &str) -> Document {
        Document::parse(text, Dialect::Sjson).unwrap_or_else(|e| panic!("{text:?}: {e}"))
    }

    fn texts(old: &str, new: &str) -> Vec<String> {
        let (a, b) = (doc(old), doc(new));
        let d = diff(a.root(), b.root(), &DiffOptions::default());
        check_patch(&a, &b, &d);
        d.changes.iter().map(Change::text).collect()
    }

    /// A JSON value for applying patches: objects unordered, numbers by exact value.
    #[derive(Debug, Clone, PartialEq)]
    enum J {
        Null,
        Bool(bool),
        Num(NumberValue),
        Str(String),
        Arr(Vec<J>),
        Obj(BTreeMap<String, J>),
    }

    fn j(v: Value<'_>) -> J {
        match v.kind() {
            Kind::Null => J::Null,
            Kind::Bool => J::Bool(v.as_bool().unwrap()),
            Kind::Number => J::Num(v.as_number().unwrap()),
            Kind::String => J::Str(v.as_str().unwrap().into_owned()),
            Kind::Array => J::Arr(v.children().map(j).collect()),
            Kind::Object => J::Obj(v.members().map(|(k, c)| (k.into_owned(), j(c))).collect()),
        }
    }

    /// Parses an RFC 6901 pointer (the root is `""`).
    fn tokens(p: &Path) -> Vec<String> {
        let s = p.to_string();
        if s.is_empty() {
            return Vec::new();
        }
        assert!(s.starts_with('/'), "{s}");
        s[1..]
            .split('/')
            .map(|t| t.replace("~1", "/").replace("~0", "~"))
            .collect()
    }

    fn parent<'t>(root: &'t mut J, toks: &[String]) -> &'t mut J {
        let mut cur = root;
        for t in toks {
            cur = match cur {
                J::Arr(a) => {
                    let i: usize = t.parse().unwrap_or_else(|_| panic!("index {t}"));
                    assert!(i < a.len(), "index {i} out of bounds ({})", a.len());
                    &mut a[i]
                }
                J::Obj(o) => o.get_mut(t).unwrap_or_else(|| panic!("no member {t}")),
                other => panic!("cannot step into {other:?} with {t}"),
            };
        }
        cur
    }

    fn remove(root: &mut J, toks: &[String]) -> J {
        let (last, up) = toks.split_last().expect("cannot remove the root");
        match parent(root, up) {
            J::Arr(a) => {
                let i: usize = last.parse().unwrap();
                assert!(i < a.len(), "remove index {i} out of bounds ({})", a.len());
                a.remove(i)
            }
            J::Obj(o) => o
                .remove(last)
                .unwrap_or_else(|| panic!("remove: no member {last}")),
            other => panic!("remove from {other:?}"),
        }
    }

    fn add(root: &mut J, toks: &[String], v: J) {
        let Some((last, up)) = toks.split_last() else {
            *root = v;
            return;
        };
        match parent(root, up) {
            J::Arr(a) => {
                let i = if last == "-" {
                    a.len()
                } else {
                    last.parse().unwrap()
                };
                assert!(i <= a.len(), "add index {i} out of bounds ({})", a.len());
                a.insert(i, v);
            }
            J::Obj(o) => {
                o.insert(last.clone(), v);
            }
            other => panic!("add into {other:?}"),
        }
    }

    /// A small RFC 6902 applier (add, remove, replace, move).
    fn apply(root: &mut J, patch: &[PatchOp<'_>]) {
        for op in patch {
            let toks = tokens(op.path());
            match op {
                PatchOp::Add { value, .. } => add(root, &toks, j(*value)),
                PatchOp::Remove { .. } => {
                    remove(root, &toks);
                }
                PatchOp::Replace { value, .. } => *parent(root, &toks) = j(*value),
                PatchOp::Move { from, .. } => {
                    let v = remove(root, &tokens(from));
                    add(root, &toks, v);
                }
            }
        }
    }

    fn check_patch(a: &Document, b: &Document, d: &Diff<'_>) {
        let mut v = j(a.root());
        apply(&mut v, &d.patch);
        assert_eq!(
            v,
            j(b.root()),
            "patch does not give the new value:\n{}\nold: {}\nnew: {}",
            d.patch_json(),
            a.text(),
            b.text()
        );
    }

    const LEVEL: &str = r#"
entities = [
	{ id = "e1" name = "crate" position = [0 0 0] }
	{ id = "e2" name = "barrel" position = [5 0 0] }
	{ id = "f341" name = "lamp" unit = "units/lamp" position = [0 0 0] light = { intensity = 4.5 } }
]
fog = 0.1
"#;

    #[test]
    fn equal_values_have_no_changes() {
        assert!(texts(LEVEL, LEVEL).is_empty());
        // Formatting and key order are not changes.
        assert!(texts("a = 1.0 b = [1 2]", "{\n\tb = [1, 2]\n\t\"a\": 1\n}").is_empty());
    }

    #[test]
    fn each_change_kind() {
        assert_eq!(texts("a = 1", "a = 2"), ["a: 1 → 2"]);
        assert_eq!(texts("a = 1", "a = 1 b = \"x\""), ["+ b: \"x\""]);
        assert_eq!(texts("a = 1 b = {c = true}", "a = 1"), ["- b: {c = true}"]);
        assert_eq!(
            texts("a = {b = {c = null}}", "a = {b = {c = 0}}"),
            ["a.b.c: null → 0"]
        );
        assert_eq!(texts("a = 1", "a = [1]"), ["a: 1 → [1]"]);
        assert_eq!(texts("\"x.y\" = 1", "\"x.y\" = 2"), ["[\"x.y\"]: 1 → 2"]);
    }

    #[test]
    fn keyed_arrays_diff_by_id() {
        let new = LEVEL
            .replace(
                "\t{ id = \"e2\" name = \"barrel\" position = [5 0 0] }\n",
                "",
            )
            .replace(
                "unit = \"units/lamp\" position = [0 0 0]",
                "unit = \"units/lamp\" position = [1 0 0]",
            )
            .replace(
                "]\nfog",
                "\t{ id = \"e3\" name = \"torch\" unit = \"units/torch\" }\n]\nfog",
            )
            .replace("intensity = 4.5", "intensity = 6");
        assert_eq!(
            texts(LEVEL, &new),
            [
                "- entities[id=e2]: {name = \"barrel\", position = [5 0 0]}",
                "entities[id=f341].position: [0 0 0] → [1 0 0]",
                "entities[id=f341].light.intensity: 4.5 → 6",
                "+ entities[id=e3]: {name = \"torch\", unit = \"units/torch\"}",
            ]
        );
        // The changes record paths as JSON Pointers with ids.
        let (a, b) = (doc(LEVEL), doc(&new));
        let d = diff(a.root(), b.root(), &DiffOptions::default());
        assert_eq!(
            d.changes[1].to_json(),
            r#"{"change":"changed","path":"/entities/[id=f341]/position","old":[0,0,0],"new":[1,0,0]}"#
        );
        // The patch uses indices valid after the removal of e2.
        assert_eq!(
            d.patch_json(),
            "[\n  {\"op\":\"remove\",\"path\":\"/entities/1\"},\n  \
             {\"op\":\"add\",\"path\":\"/entities/2\",\"value\":{\"id\":\"e3\",\"name\":\"torch\",\"unit\":\"units/torch\"}},\n  \
             {\"op\":\"replace\",\"path\":\"/entities/1/position\",\"value\":[1,0,0]},\n  \
             {\"op\":\"replace\",\"path\":\"/entities/1/light/intensity\",\"value\":6}\n]"
        );
    }

    #[test]
    fn numeric_ids_and_id_key_case() {
        assert_eq!(
            texts(
                "a = [{ID = 1 v = 1} {ID = 2 v = 2}]",
                "a = [{ID = 2 v = 3} {ID = 1 v = 1}]"
            ),
            ["~ a[ID=2]: moved from index 1 to 0", "a[ID=2].v: 2 → 3"]
        );
        // Duplicate ids: not keyed, a sequence.
        assert_eq!(
            texts(
                "a = [{id = 1 v = 1} {id = 1 v = 2}]",
                "a = [{id = 1 v = 1} {id = 1 v = 3}]"
            ),
            ["a[1].v: 2 → 3"]
        );
    }

    #[test]
    fn reorders_are_moves() {
        assert_eq!(
            texts(
                "a = [{id = a} {id = b} {id = c} {id = d}]",
                "a = [{id = b} {id = c} {id = d} {id = a}]"
            ),
            ["~ a[id=a]: moved from index 0 to 3"]
        );
    }

    #[test]
    fn objects_moved_between_keyed_arrays() {
        let old = "entities = [{id = e1 name = a} {id = e2 name = b}]\ngroups = [{id = g1 children = []}]";
        let new =
            "entities = [{id = e1 name = a}]\ngroups = [{id = g1 children = [{id = e2 name = c}]}]";
        assert_eq!(
            texts(old, new),
            [
                "~ groups[id=g1].children[id=e2]: moved from entities[id=e2]",
                "groups[id=g1].children[id=e2].name: \"b\" → \"c\"",
            ]
        );
    }

    #[test]
    fn tuples_are_one_value() {
        assert_eq!(
            texts("p = [0 0 0]", "p = [1 0 0]"),
            ["p: [0 0 0] → [1 0 0]"]
        );
        assert_eq!(texts("p = [0 0]", "p = [0 0 1]"), ["p: [0 0] → [0 0 1]"]);
        // Longer than atomic_max: a sequence.
        let long: Vec<String> = (0..20).map(|i| i.to_string()).collect();
        let mut changed = long.clone();
        changed[7] = "70".into();
        assert_eq!(
            texts(
                &format!("p = [{}]", long.join(" ")),
                &format!("p = [{}]", changed.join(" "))
            ),
            ["p[7]: 7 → 70"]
        );
    }

    #[test]
    fn sequences_diff_by_value() {
        assert_eq!(
            texts("t = [a b c d]", "t = [a x c d e]"),
            ["t[1]: \"b\" → \"x\"", "+ t[4]: \"e\""]
        );
        assert_eq!(
            texts("t = [a b c d]", "t = [a d]"),
            ["- t[1]: \"b\"", "- t[2]: \"c\""]
        );
        assert_eq!(
            texts("t = [x a b]", "t = [a b y z]"),
            ["- t[0]: \"x\"", "+ t[2]: \"y\"", "+ t[3]: \"z\""]
        );
        // Unkeyed objects in a replaced run are compared member by member.
        assert_eq!(
            texts(
                "actors = [{name = a mass = 1} {name = b mass = 2}]",
                "actors = [{name = a mass = 1} {name = b mass = 3}]"
            ),
            ["actors[1].mass: 2 → 3"]
        );
    }

    #[test]
    fn summaries_are_short() {
        let d = doc(
            "o = { id = x name = \"gate\" unit = \"units/architecture/gate\" position = [0.0 24.0 0.0] rotation = [0 0 0 1] scale = [1 1 1] }\n\
             s = \"a very long string that goes on and on and on and on and on and on\"\n\
             l = [{a = 1} {a = 2} 3]",
        );
        let r = d.root();
        assert_eq!(
            summary(r.get("o").unwrap()),
            "{name = \"gate\", unit = \"units/architecture/gate\", …}"
        );
        assert_eq!(
            summary(r.get("s").unwrap()),
            "\"a very long string that goes on and on and on a…\""
        );
        assert_eq!(summary(r.get("l").unwrap()), "[… 3 items]");
        assert_eq!(path_text(&Path::root()), "(root)");
    }

    #[test]
    fn json_patch_for_roots_and_escapes() {
        let a = Document::parse("[1, {\"a/b\": 1, \"m~n\": 2}]", Dialect::Json).unwrap();
        let b = Document::parse("[{\"a/b\": 2}, 1]", Dialect::Json).unwrap();
        let d = diff(a.root(), b.root(), &DiffOptions::default());
        check_patch(&a, &b, &d);
        let c = Document::parse("\"x\"", Dialect::Json).unwrap();
        let d = diff(a.root(), c.root(), &DiffOptions::default());
        assert_eq!(
            d.patch_json(),
            "[\n  {\"op\":\"replace\",\"path\":\"\",\"value\":\"x\"}\n]"
        );
        check_patch(&a, &c, &d);
        let e = Document::parse("[1, {\"a/b\": 1, \"m~n\": 3}]", Dialect::Json).unwrap();
        let d = diff(a.root(), e.root(), &DiffOptions::default());
        assert_eq!(
            d.patch_json(),
            "[\n  {\"op\":\"replace\",\"path\":\"/1/m~0n\",\"value\":3}\n]"
        );
    }

    /// A deterministic pseudo-random generator for the randomized test.
    struct Lcg(u64);

    impl Lcg {
        fn next(&mut self, n: usize) -> usize {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((self.0 >> 33) as usize) % n.max(1)
        }
    }

    fn random_entities(rng: &mut Lcg, ids: &[usize]) -> String {
        let mut s = String::from("[");
        for id in ids {
            let _ = write!(
                s,
                " {{ id = \"e{id}\" v = {} tags = [{}] }}",
                rng.next(3),
                (0..rng.next(4))
                    .map(|_| format!("t{}", rng.next(3)))
                    .collect::<Vec<_>>()
                    .join(" ")
            );
        }
        s.push_str(" ]");
        s
    }

    #[test]
    fn random_patches_apply_sequentially() {
        let mut rng = Lcg(7);
        for round in 0..2000 {
            let n = rng.next(16);
            let old_ids: Vec<usize> = (0..n).collect();
            // Remove some, shuffle some, add some.
            let mut new_ids: Vec<usize> = old_ids
                .iter()
                .copied()
                .filter(|_| rng.next(4) != 0)
                .collect();
            for _ in 0..rng.next(4) {
                if new_ids.len() > 1 {
                    let (x, y) = (rng.next(new_ids.len()), rng.next(new_ids.len()));
                    let v = new_ids.remove(x);
                    new_ids.insert(y, v);
                }
            }
            for k in 0..rng.next(3) {
                let at = rng.next(new_ids.len() + 1);
                new_ids.insert(at, 100 + k);
            }
            let old = format!(
                "e = {}\ns = [{}]",
                random_entities(&mut rng, &old_ids),
                (0..rng.next(6))
                    .map(|_| rng.next(4).to_string())
                    .collect::<Vec<_>>()
                    .join(" ")
            );
            let new = format!(
                "e = {}\ns = [{}]",
                random_entities(&mut rng, &new_ids),
                (0..rng.next(6))
                    .map(|_| rng.next(4).to_string())
                    .collect::<Vec<_>>()
                    .join(" ")
            );
            let (a, b) = (doc(&old), doc(&new));
            let opts = DiffOptions {
                atomic_max: 2,
                ..DiffOptions::default()
            };
            let d = diff(a.root(), b.root(), &opts);
            check_patch(&a, &b, &d);
            // With a reordered array replaced whole, the patch still gives the new value.
            let whole = diff_within(a.root(), b.root(), &opts, 0);
            check_patch(&a, &b, &whole);
            assert_eq!(whole.changes.len(), d.changes.len());
            // Reverse direction too.
            let r = diff(b.root(), a.root(), &opts);
            check_patch(&b, &a, &r);
            assert_eq!(
                d.is_empty(),
                a.root().same_value(&b.root()),
                "round {round}"
            );
        }
    }
}
