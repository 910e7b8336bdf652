//! One walk of a document by path, shared by `restore` (an object put back from another
//! version) and `assetvc resolve` (a conflict's value taken from another version): the
//! node a path names ([`find`]), the document rebuilt with one node replaced, removed or
//! inserted ([`put`]; sjson prints it in the file's own style), and the objects named on
//! the way to a set of paths, by id and name ([`objects`], [`pick`]).
//!
//! Paths are the reports' pointers (`/entities/[id=e1]/tint`, [`parse`]): an id step
//! matches an element whose id member is that string or that number; a number step names
//! a member of an object, or the element at that position of an array.

use sjson::{Document, Kind, Out, OutItem, Segment, Value};

/// Parses a report's pointer, `/entities/[id=e1]/position`: number steps stay keys, and
/// name an element where they meet an array.
pub fn parse(pointer: &str) -> Vec<Segment> {
    merge::changeset::parse_report_pointer(pointer, |_| false).0
}

/// Whether element `el` has id `value` under `key` (a string's content, a number's
/// lexeme or its integer value).
fn has_id(el: Value<'_>, key: &str, value: &str) -> bool {
    el.members().any(|(k, v)| {
        k.eq_ignore_ascii_case(key)
            && (v.as_str().as_deref() == Some(value)
                || v.as_number_lexeme() == Some(value)
                || v.as_number().is_some_and(|n| match n {
                    sjson::NumberValue::Int(i) => i.to_string() == value,
                    _ => false,
                }))
    })
}

/// The position of the child of `node` that `seg` names.
pub(crate) fn child_position(node: Value<'_>, seg: &Segment) -> Option<usize> {
    match (seg, node.kind()) {
        (Segment::Key(k), Kind::Object) => node
            .children()
            .position(|c| c.key().as_deref() == Some(k.as_str())),
        (Segment::Key(i), Kind::Array) => i.parse().ok().filter(|i| *i < node.len()),
        (Segment::Index(i), Kind::Array) => (*i < node.len()).then_some(*i),
        (Segment::Id { key, value }, Kind::Array) => {
            node.children().position(|c| has_id(c, key, value))
        }
        _ => None,
    }
}

/// The node `segs` names under `root`, with its position in its container (0 for `root`).
pub fn find<'d>(root: Value<'d>, segs: &[Segment]) -> Option<(usize, Value<'d>)> {
    let mut at = (0, root);
    for seg in segs {
        let i = child_position(at.1, seg)?;
        at = (i, at.1.children().nth(i)?);
    }
    Some(at)
}

/// `node` rebuilt with `leaf` applied at `segs` and everything else kept; `None` when a
/// step on the way names nothing or `leaf` gives up.
pub(crate) fn along<'a>(
    node: Value<'a>,
    segs: &[Segment],
    leaf: &mut dyn FnMut(Value<'a>) -> Option<Out<'a>>,
) -> Option<Out<'a>> {
    let Some((seg, rest)) = segs.split_first() else {
        return leaf(node);
    };
    let target = child_position(node, seg)?;
    let mut items = kept(node);
    items[target].value = along(node.children().nth(target)?, rest, leaf)?;
    Some(Out::Container {
        kind: node.kind(),
        ours: Some(node),
        items,
    })
}

/// The children of `node`, each kept as it is.
fn kept(node: Value<'_>) -> Vec<OutItem<'_>> {
    node.children()
        .map(|c| OutItem {
            key: c.key(),
            ours: Some(c),
            origin: None,
            value: Out::Value(c),
        })
        .collect()
}

/// The edit that puts `new` (a node of another document, with its position there; `None`:
/// absent) at `segs` under `node`: replaced where the node is, inserted where it is not
/// (at the end of an object, at its position in an array), removed for `None`. `None`
/// when `segs` is empty or a container on the way is missing.
pub fn put<'a>(
    node: Value<'a>,
    segs: &[Segment],
    new: Option<(usize, Value<'a>)>,
) -> Option<Out<'a>> {
    let (last, parent) = segs.split_last()?;
    along(node, parent, &mut |container| {
        put_child(container, last, new)
    })
}

/// `container` with its child `seg` replaced by, or set to, `new` (removed for `None`).
fn put_child<'a>(
    container: Value<'a>,
    seg: &Segment,
    new: Option<(usize, Value<'a>)>,
) -> Option<Out<'a>> {
    if !container.is_container() {
        return None;
    }
    let mut items = kept(container);
    match (child_position(container, seg), new) {
        (Some(i), Some((_, v))) => items[i].value = Out::Value(v),
        (Some(i), None) => {
            items.remove(i);
        }
        (None, Some((at, v))) => {
            let (key, at) = match (seg, container.kind()) {
                (Segment::Key(k), Kind::Object) => (Some(k.clone().into()), items.len()),
                (_, Kind::Object) => (None, items.len()),
                _ => (None, at.min(items.len())),
            };
            let item = OutItem {
                key,
                ours: None,
                origin: Some(v),
                value: Out::Value(v),
            };
            items.insert(at, item);
        }
        (None, None) => return Some(Out::Value(container)),
    }
    Some(Out::Container {
        kind: container.kind(),
        ours: Some(container),
        items,
    })
}

/// An object named on the way to a path: its id key and id, and its name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Object {
    /// The id member's key (`id`, `_id`, …).
    pub key: String,
    /// The id, as the path writes it.
    pub id: String,
    /// The object's name, from the first version that has one.
    pub name: Option<String>,
}

impl Object {
    /// `lamp_01 #6f1c…` or `#6f1c…` (repository text: escape it before printing).
    pub fn shown(&self) -> String {
        match &self.name {
            Some(n) => format!("{n} #{}", self.id),
            None => format!("#{}", self.id),
        }
    }
}

/// The objects on the way to each of `paths` (each once), named by the first member of
/// `names` the first of `versions` that has the object holds.
pub fn objects(paths: &[Vec<Segment>], versions: &[&Document], names: &[String]) -> Vec<Object> {
    let mut out: Vec<Object> = Vec::new();
    for segs in paths {
        for (n, seg) in segs.iter().enumerate() {
            let Segment::Id { key, value } = seg else {
                continue;
            };
            if out.iter().any(|o| o.key == *key && o.id == *value) {
                continue;
            }
            let name = versions.iter().find_map(|d| {
                let (_, node) = find(d.root(), &segs[..=n])?;
                names
                    .iter()
                    .find_map(|k| node.get(k).and_then(|v| v.as_str()).map(|s| s.into_owned()))
            });
            out.push(Object {
                key: key.clone(),
                id: value.clone(),
                name,
            });
        }
    }
    out
}

/// The object `wanted` names: an exact id, else a unique id prefix, else a unique name.
/// `Err` holds the candidates when several match (empty when none does).
pub fn pick<'o>(all: &'o [Object], wanted: &str) -> Result<&'o Object, Vec<&'o Object>> {
    let by = |f: &dyn Fn(&Object) -> bool| all.iter().filter(|o| f(o)).collect::<Vec<_>>();
    for matches in [
        by(&|o| o.id == wanted),
        by(&|o| o.id.starts_with(wanted)),
        by(&|o| o.name.as_deref() == Some(wanted)),
    ] {
        match matches.len() {
            0 => continue,
            1 => return Ok(matches[0]),
            _ => return Err(matches),
        }
    }
    Err(Vec::new())
}

#[cfg(test)]
mod tests;
