//! Applying a change set: a three-way merge of the target (ours) with the values the
//! change set replaces (base) and the values it sets (theirs).

use sjson::{Document, ParseError, ParseOptions};

use super::overlay::{Builder, Node, State};
use super::write::Resolver;
use super::{ChangeOp, OpKind, Placement};
use crate::{merge, MergeOptions, MergeOutcome};

/// Why a change set could not be applied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ApplyError {
    /// The base or the result the change set describes is not a valid document of the
    /// target's dialect (e.g. an SJSON root that is not an object).
    #[error("the change set makes an invalid document: {0}")]
    Invalid(ParseError),
}

/// Applies `ops` to `target`: the base is `target` with every place the change set
/// touches set to the value it replaces, theirs is that with the new values, and the
/// result is [`merge`]`(base, target, theirs)` printed as an edit of `target`. A place
/// `target` changed since is a conflict resolved by the policy; with no operation the
/// result is `target`'s text.
pub fn apply_change_set(
    target: &Document,
    ops: &[ChangeOp<'_>],
    options: &MergeOptions,
) -> Result<MergeOutcome, ApplyError> {
    if ops.is_empty() {
        return Ok(MergeOutcome {
            text: target.text().to_string(),
            conflicts: Vec::new(),
        });
    }
    let mut base = Node::default();
    let mut theirs = Node::default();
    for op in ops {
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
    let ids = Resolver::new(&options.id_keys);
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
    let b = parse(text_of(&base))?;
    let t = parse(text_of(&theirs))?;
    let outcome = merge(&b, target, &t, options);
    let checked = parse(outcome.text)?;
    Ok(MergeOutcome {
        text: checked.into_text(),
        conflicts: outcome.conflicts,
    })
}

/// What a document is when its root is destroyed: an empty container of its kind.
fn empty_root(doc: &Document) -> &'static str {
    match doc.root().kind() {
        sjson::Kind::Array => "[]",
        sjson::Kind::Object => "{}",
        _ => "null",
    }
}
