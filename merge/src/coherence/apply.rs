//! Printing repairs as an edit of the merged document: restored objects inserted into
//! arrays (or new members), reverted values replaced, duplicate objects removed.
//! Everything else keeps the merged text.

use std::borrow::Cow;

use sjson::{Document, Kind, NodeId, Out, OutItem, Value};

/// One change to the merged document.
#[derive(Debug, Clone)]
pub(crate) enum Edit<'a> {
    /// Insert `value` into array `array`, after element `after` (`None`: first).
    Insert {
        array: NodeId,
        after: Option<NodeId>,
        value: Out<'a>,
        origin: Value<'a>,
    },
    /// Add member `key` to object `object`.
    AddMember {
        object: NodeId,
        key: String,
        value: Out<'a>,
        origin: Option<Value<'a>>,
    },
    /// Replace the value `node` by `value`.
    Replace { node: NodeId, value: Out<'a> },
    /// Remove the element or member `node`.
    Remove { node: NodeId },
}

impl Edit<'_> {
    /// The merged node the edit changes (a container, or the replaced/removed node).
    fn anchor(&self) -> NodeId {
        match self {
            Edit::Insert { array, .. } => *array,
            Edit::AddMember { object, .. } => *object,
            Edit::Replace { node, .. } | Edit::Remove { node } => *node,
        }
    }
}

/// `v` without the nodes of `drop` (of `v`'s document), as an output tree.
pub(crate) fn without<'a>(v: Value<'a>, drop: &[NodeId]) -> Out<'a> {
    if !drop.iter().any(|&d| v.contains(d)) {
        return Out::Value(v);
    }
    let items = v
        .children()
        .filter(|c| !drop.contains(&c.id()))
        .map(|c| OutItem {
            key: c.key(),
            ours: None,
            origin: Some(c),
            value: without(c, drop),
        })
        .collect();
    Out::Container {
        kind: v.kind(),
        ours: None,
        items,
    }
}

/// The merged document with `edits` applied, printed in its style.
pub(crate) fn apply<'a>(merged: &'a Document, edits: &[Edit<'a>]) -> String {
    let out = build(merged.root(), edits);
    sjson::print(merged, &out)
}

fn build<'a>(v: Value<'a>, edits: &[Edit<'a>]) -> Out<'a> {
    for e in edits {
        if let Edit::Replace { node, value } = e {
            if *node == v.id() {
                return value.clone();
            }
        }
    }
    if !v.is_container() || !edits.iter().any(|e| v.contains(e.anchor())) {
        return Out::Value(v);
    }
    let inserted = |after: Option<NodeId>| {
        edits.iter().filter_map(move |e| match e {
            Edit::Insert {
                array,
                after: a,
                value,
                origin,
            } if *array == v.id() && *a == after => Some(OutItem {
                key: None,
                ours: None,
                origin: Some(*origin),
                value: value.clone(),
            }),
            _ => None,
        })
    };
    let mut items: Vec<OutItem<'a>> = Vec::with_capacity(v.len() + 1);
    if v.kind() == Kind::Array {
        items.extend(inserted(None));
    }
    for c in v.children() {
        if edits
            .iter()
            .any(|e| matches!(e, Edit::Remove { node } if *node == c.id()))
        {
            continue;
        }
        items.push(OutItem {
            key: c.key(),
            ours: Some(c),
            origin: None,
            value: build(c, edits),
        });
        if v.kind() == Kind::Array {
            items.extend(inserted(Some(c.id())));
        }
    }
    for e in edits {
        if let Edit::AddMember {
            object,
            key,
            value,
            origin,
        } = e
        {
            if *object == v.id() {
                items.push(OutItem {
                    key: Some(Cow::Owned(key.clone())),
                    ours: None,
                    origin: *origin,
                    value: value.clone(),
                });
            }
        }
    }
    Out::Container {
        kind: v.kind(),
        ours: Some(v),
        items,
    }
}
