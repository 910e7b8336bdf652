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
//!
//! The submodules: `walk` compares values recursively and records both views, `keyed`
//! handles keyed arrays (matching by id, their patch, moves between arrays), `text`
//! renders paths and values for people.

mod keyed;
mod lines;
mod text;
mod walk;

#[cfg(test)]
mod tests;

use sjson::{Path, Value};

use crate::compact::compact_json;
use crate::MergeOptions;

pub use crate::report_path::path_text;
pub use lines::{line_diff, DiffLine};
pub use text::summary;
use walk::Walker;

/// Above this many steps (moved elements × array length), the patch replaces a reordered
/// keyed array whole instead of moving its elements one by one.
const MOVE_BUDGET: usize = 20_000_000;

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
        self.text_with(path_text)
    }

    /// The change as one line with paths named for people by `names`
    /// (`entities[lamp_01 #6f1c…4b03].light.intensity: 1 → 2`).
    pub fn text_named(&self, names: &crate::naming::Names<'_>) -> String {
        self.text_with(|p| names.path(p))
    }

    /// The change as one line, paths rendered by `path_text`.
    fn text_with(&self, path_text: impl Fn(&Path) -> String) -> String {
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
            sjson::string::write_quoted(&mut out, &from.rfc6901().to_string());
        }
        out.push_str(",\"path\":");
        sjson::string::write_quoted(&mut out, &self.path().rfc6901().to_string());
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
