//! Applying a change set: a three-way merge of the target (ours) with the values the
//! change set replaces (base) and the values it sets (theirs).

use sjson::{Document, ParseError, ParseOptions};

use super::overlay::{Builder, Node, State};
use super::write::Resolver;
use super::{ChangeOp, OpKind, Placement};
use crate::compact::compact_json;
use crate::{structural, Conflict, ConflictKind, MergeOptions, Policy, Side};

/// Why a change set could not be applied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ApplyError {
    /// The base or the result the change set describes is not a valid document of the
    /// target's dialect (e.g. an SJSON root that is not an object).
    #[error("the change set makes an invalid document: {0}")]
    Invalid(ParseError),
    /// An operation reaches inside a value that is not an object or an array in the
    /// target (a `set` of `/a/b` where `a` is a number): it cannot apply, and applying
    /// nothing while saying "applied" would hide it.
    #[error("{path}: {parent} is {kind} here, not an object or an array; the change cannot apply")]
    NotAContainer {
        /// The operation's path.
        path: String,
        /// Its parent's path.
        parent: String,
        /// What the parent is (`a number`, `a string`…).
        kind: &'static str,
    },
}

/// A change set applied ([`apply_change_set`]), or a JSON Patch applied exactly
/// ([`Applied::exact`]): always the whole resulting text (checked to parse in the target's
/// dialect), with the conflicts met.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    /// The resulting text, an edit of the target's.
    text: String,
    /// Every conflict with the side taken: first the changes into objects the target no
    /// longer has (kept deleted), then the places the target changed since.
    pub conflicts: Vec<Conflict>,
}

impl Applied {
    /// A result applied exactly, with no conflict: a JSON Patch's `text` (already checked
    /// to parse in the target's dialect, [`crate::patch::apply_patch`]).
    pub fn exact(text: String) -> Applied {
        Applied {
            text,
            conflicts: Vec::new(),
        }
    }

    /// The resulting text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The resulting text, without copying it.
    pub fn into_text(self) -> String {
        self.text
    }

    /// Whether policy `fail` met a conflict (the text still holds the policy's values), as
    /// [`crate::Merged::failed`] decides it.
    pub fn failed(&self, policy: Policy) -> bool {
        crate::failed(&self.conflicts, &[], policy)
    }
}

/// Applies `ops` to `target`: the base is `target` with every place the change set
/// touches set to the value it replaces, theirs is that with the new values, and the
/// result is [`crate::structural`]`(base, target, theirs)` printed as an edit of `target`. A place
/// `target` changed since is a conflict resolved by the policy; a change inside an object
/// `target` deleted is a delete-modify conflict that keeps it deleted (the change set does
/// not hold the object's other values); with no operation the result is `target`'s text.
pub fn apply_change_set(
    target: &Document,
    ops: &[ChangeOp<'_>],
    options: &MergeOptions,
) -> Result<Applied, ApplyError> {
    if ops.is_empty() {
        return Ok(Applied::exact(target.text().to_string()));
    }
    let mut base = Node::default();
    let mut theirs = Node::default();
    let mut ids = Resolver::new(&options.id_keys);
    let mut lost = Vec::new();
    for op in ops {
        // Into an object the target no longer has (and the change set did not make): its
        // other values are unknown, so it stays deleted, reported as a conflict.
        if let Some(parent) = op.path.0.len().checked_sub(1) {
            let up = &op.path.0[..parent];
            let resolved = if theirs.covers(up) {
                None
            } else {
                Some(ids.resolve(target.root(), up))
            };
            if let Some(Some(parent)) = resolved {
                if let Some(kind) = scalar_kind(parent.kind()) {
                    return Err(ApplyError::NotAContainer {
                        path: op.path.to_string(),
                        parent: sjson::Path(up.to_vec()).to_string(),
                        kind,
                    });
                }
            }
            if resolved.is_some_and(|p| p.is_none()) {
                if op.kind != OpKind::Destroy {
                    lost.push(Conflict {
                        path: op.path.clone(),
                        kind: ConflictKind::DeleteModify,
                        base: op.old.map(compact_json),
                        ours: None,
                        theirs: op.new.map(compact_json),
                        taken: Side::Ours,
                        object: None,
                        referrer: None,
                    });
                }
                continue;
            }
        }
        let (before, after) = match op.kind {
            OpKind::Set => (
                op.old
                    .map_or(State::Absent, |v| State::Value(v, Placement::default())),
                op.new
                    .map_or(State::Absent, |v| State::Value(v, Placement::default())),
            ),
            OpKind::Create => (
                State::Absent,
                op.new
                    .map_or(State::Absent, |v| State::Value(v, op.after.clone())),
            ),
            OpKind::Destroy => (
                op.old
                    .map_or(State::Absent, |v| State::Value(v, Placement::default())),
                State::Absent,
            ),
        };
        base.set_first(&op.path.0, before);
        theirs.set_last(&op.path.0, after);
    }
    let builder = Builder {
        doc: target,
        ids: &ids,
    };
    let dialect = target.dialect();
    let text_of = |tree: &Node<'_>| match builder.build(Some(target.root()), tree) {
        Some(out) => sjson::print(target, &out),
        None => empty_root(target).to_string(),
    };
    let parse = |text: String| {
        Document::parse_with(text, ParseOptions::new(dialect)).map_err(ApplyError::Invalid)
    };
    // Base and theirs are built and parsed side by side.
    let (b, t) = crate::both(
        options.threads == crate::Threads::Auto,
        || parse(text_of(&base)),
        || parse(text_of(&theirs)),
    );
    let (b, t) = (b?, t?);
    let outcome = structural(&b, target, &t, options);
    drop((b, t));
    let checked = parse(outcome.text)?;
    lost.extend(outcome.conflicts);
    Ok(Applied {
        text: checked.into_text(),
        conflicts: lost,
    })
}

/// How a scalar kind is named in messages; `None` for containers.
fn scalar_kind(kind: sjson::Kind) -> Option<&'static str> {
    match kind {
        sjson::Kind::Null => Some("null"),
        sjson::Kind::Bool => Some("a boolean"),
        sjson::Kind::Number => Some("a number"),
        sjson::Kind::String => Some("a string"),
        sjson::Kind::Array | sjson::Kind::Object => None,
    }
}

/// What a document is when its root is destroyed: an empty container of its kind.
fn empty_root(doc: &Document) -> &'static str {
    match doc.root().kind() {
        sjson::Kind::Array => "[]",
        sjson::Kind::Object => "{}",
        _ => "null",
    }
}
