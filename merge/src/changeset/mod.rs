//! Change sets: the changes of a document as create-object, destroy-object and
//! set-property operations, one JSON object per line (JSON Lines), objects addressed by
//! id (`/units/[id=u1]/pos`), each operation carrying the value it replaces:
//!
//! ```text
//! {"op":"set","path":"/units/[id=u1]/pos","old":[0,0,0],"value":[1,0,0]}
//! {"op":"create","path":"/units/[id=u9]","after":"u3","before":"u4","value":{"id":"u9"}}
//! {"op":"destroy","path":"/units/[id=u2]","old":{"id":"u2","pos":[5,5,5]}}
//! ```
//!
//! A `set` without `old` adds a property, one without `value` removes it; `before` and
//! `after` place a created object before / after the object of that id in its array
//! (`null`: last / first; the first that names an object the target has wins);
//! `file` names the file of an operation (change sets written from revisions). Appending
//! two change sets gives a change set: the first operation on a place gives its base
//! value, the last its new value.
//!
//! [`apply_change_set`] applies one as a three-way merge whose base is the values it
//! replaces. No I/O happens here.

mod apply;
mod overlay;
mod read;
mod write;

use sjson::{Path, Value};

use crate::compact::compact_json;

pub use crate::report_path::{parse_report_pointer, reported_indices};
pub use apply::{apply_change_set, Applied, ApplyError};
pub use read::{parse_change_set, read_ops, ChangeSetError, Line};
pub use write::change_set;

/// The three operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OpKind {
    /// Create an object in a keyed array.
    Create,
    /// Destroy an object of a keyed array.
    Destroy,
    /// Set (add, change or remove) a property.
    Set,
}

impl OpKind {
    /// `create`, `destroy` or `set`.
    pub fn name(self) -> &'static str {
        match self {
            OpKind::Create => "create",
            OpKind::Destroy => "destroy",
            OpKind::Set => "set",
        }
    }
}

/// Where a created object goes in its array: before its successor (so that, like the
/// merge, what the target inserted at the same place comes first), else after its
/// predecessor. For each, `Some(None)` is the end of the array (last / first) and `None`
/// says nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Placement {
    /// The id of the object it follows; `Some(None)`: first.
    pub after: Option<Option<String>>,
    /// The id of the object it precedes; `Some(None)`: last.
    pub before: Option<Option<String>>,
}

impl Placement {
    /// Whether it says where the object goes.
    pub fn is_given(&self) -> bool {
        self.after.is_some() || self.before.is_some()
    }
}

/// One operation of a change set.
#[derive(Debug, Clone)]
pub struct ChangeOp<'a> {
    /// What it does.
    pub kind: OpKind,
    /// The file it applies to, when the change set names files.
    pub file: Option<String>,
    /// Where, keyed elements named by id.
    pub path: Path,
    /// The value it replaces (`None`: there was none).
    pub old: Option<Value<'a>>,
    /// The new value (`None`: removed).
    pub new: Option<Value<'a>>,
    /// For `create`: where the object goes in its array.
    pub after: Placement,
}

impl ChangeOp<'_> {
    /// The operation as one line of JSON (without the line break).
    pub fn to_json(&self) -> String {
        let mut out = String::from("{\"op\":");
        sjson::string::write_quoted(&mut out, self.kind.name());
        if let Some(file) = &self.file {
            out.push_str(",\"file\":");
            sjson::string::write_quoted(&mut out, file);
        }
        out.push_str(",\"path\":");
        sjson::string::write_quoted(&mut out, &self.path.to_string());
        if self.kind == OpKind::Create {
            for (name, anchor) in [("after", &self.after.after), ("before", &self.after.before)] {
                match anchor {
                    None => {}
                    Some(None) => {
                        out.push_str(&format!(",\"{name}\":null"));
                    }
                    Some(Some(id)) => {
                        out.push_str(&format!(",\"{name}\":"));
                        sjson::string::write_quoted(&mut out, id);
                    }
                }
            }
        }
        if let Some(old) = self.old {
            out.push_str(",\"old\":");
            out.push_str(&compact_json(old));
        }
        if let Some(new) = self.new {
            out.push_str(",\"value\":");
            out.push_str(&compact_json(new));
        }
        out.push('}');
        out
    }
}

#[cfg(test)]
mod tests;
