//! Conflict pointers (`/entities/[id=e1]/tint`) in documents: finding the node one names,
//! the edit that puts another version's node there (printed by sjson in the file's own
//! style), and the objects named on the way, by id and name.

use sjson::{Document, Kind, Out, OutItem, Segment, Value};

/// Parses a report's pointer, `/entities/[id=e1]/position`: number steps stay keys, and
/// name an element where they meet an array.
pub(super) fn parse_pointer(pointer: &str) -> Vec<Segment> {
    merge::changeset::parse_report_pointer(pointer, |_| false).0
}

/// The text of a scalar as the reports write ids: a string's content, a number's lexeme.
fn scalar_text(v: Value<'_>) -> Option<String> {
    match v.kind() {
        Kind::String => v.as_str().map(|s| s.into_owned()),
        Kind::Number => v.as_number_lexeme().map(str::to_string),
        _ => None,
    }
}

/// The child of `node` that `seg` names, with its position.
fn child<'d>(node: Value<'d>, seg: &Segment) -> Option<(usize, Value<'d>)> {
    match (seg, node.kind()) {
        (Segment::Key(k), Kind::Object) => node
            .children()
            .enumerate()
            .find(|(_, c)| c.key().is_some_and(|ck| ck == k.as_str())),
        (Segment::Key(i), Kind::Array) => {
            let i: usize = i.parse().ok()?;
            node.children().nth(i).map(|c| (i, c))
        }
        (Segment::Index(i), Kind::Array) => node.children().nth(*i).map(|c| (*i, c)),
        (Segment::Id { key, value }, Kind::Array) => node.children().enumerate().find(|(_, c)| {
            c.kind() == Kind::Object
                && c.members().any(|(k, v)| {
                    k.eq_ignore_ascii_case(key) && scalar_text(v).as_deref() == Some(value)
                })
        }),
        _ => None,
    }
}

pub(super) fn find<'d>(root: Value<'d>, segs: &[Segment]) -> Option<(usize, Value<'d>)> {
    let mut at = (0, root);
    for s in segs {
        at = child(at.1, s)?;
    }
    Some(at)
}

/// The edit that puts `new` (a node of another document, with its position there; `None`:
/// absent) at `segs` under `node`; `None` when a container on the way is missing.
pub(super) fn edit<'a>(
    node: Value<'a>,
    segs: &[Segment],
    new: Option<(usize, Value<'a>)>,
) -> Option<Out<'a>> {
    let (seg, rest) = segs.split_first()?;
    if !node.is_container() {
        return None;
    }
    let mut items: Vec<OutItem<'a>> = node
        .children()
        .map(|c| OutItem {
            key: c.key(),
            ours: Some(c),
            origin: None,
            value: Out::Value(c),
        })
        .collect();
    let found = child(node, seg);
    match (found, rest.is_empty(), new) {
        (Some((i, c)), false, _) => items[i].value = edit(c, rest, new)?,
        (None, false, _) => return None,
        (Some((i, _)), true, Some((_, v))) => items[i].value = Out::Value(v),
        (Some((i, _)), true, None) => {
            items.remove(i);
        }
        (None, true, Some((at, v))) => {
            let key = match seg {
                Segment::Key(k) if node.kind() == Kind::Object => Some(k.clone().into()),
                _ => None,
            };
            let at = if node.kind() == Kind::Object {
                items.len()
            } else {
                at.min(items.len())
            };
            items.insert(
                at,
                OutItem {
                    key,
                    ours: None,
                    origin: Some(v),
                    value: Out::Value(v),
                },
            );
        }
        (None, true, None) => return Some(Out::Value(node)),
    }
    Some(Out::Container {
        kind: node.kind(),
        ours: Some(node),
        items,
    })
}

/// An object named in the conflicts' pointers: its id key and id, and its name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Object {
    pub(super) key: String,
    pub(super) id: String,
    pub(super) name: Option<String>,
}

impl Object {
    /// `lamp_01 #6f1c…` or `#6f1c…`.
    pub(super) fn shown(&self) -> String {
        match &self.name {
            Some(n) => format!("{n} #{}", self.id),
            None => format!("#{}", self.id),
        }
    }
}

/// The objects on the way to each conflict, named from the first version that has them.
pub(super) fn objects(
    pointers: &[Vec<Segment>],
    versions: &[&Document],
    names: &[String],
) -> Vec<Object> {
    let mut out: Vec<Object> = Vec::new();
    for segs in pointers {
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
pub(super) fn pick<'o>(all: &'o [Object], wanted: &str) -> Result<&'o Object, Vec<&'o Object>> {
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
mod tests {
    use super::*;
    use sjson::Dialect;

    #[test]
    fn pointers_parse_with_ids_and_escapes() {
        assert_eq!(
            parse_pointer("/entities/[id=e1]/a~1b"),
            vec![
                Segment::Key("entities".into()),
                Segment::Id {
                    key: "id".into(),
                    value: "e1".into()
                },
                Segment::Key("a/b".into())
            ]
        );
        assert!(parse_pointer("").is_empty());
    }

    #[test]
    fn an_edit_changes_only_the_node_it_names() {
        let doc = Document::parse(
            "// keep\nentities = [\n\t{ id = \"e1\" x = 1 }\n\t{ id = \"e2\" x = 2 }\n]\n",
            Dialect::Sjson,
        )
        .unwrap();
        let other =
            Document::parse("entities = [ { id = \"e2\" x = 7 } ]", Dialect::Sjson).unwrap();
        let segs = parse_pointer("/entities/[id=e2]/x");
        let out = edit(doc.root(), &segs, find(other.root(), &segs)).unwrap();
        assert_eq!(
            sjson::print(&doc, &out),
            "// keep\nentities = [\n\t{ id = \"e1\" x = 1 }\n\t{ id = \"e2\" x = 7 }\n]\n"
        );
        let gone = edit(doc.root(), &segs, None).unwrap();
        assert_eq!(
            sjson::print(&doc, &gone),
            "// keep\nentities = [\n\t{ id = \"e1\" x = 1 }\n\t{ id = \"e2\" }\n]\n"
        );
    }

    #[test]
    fn objects_are_picked_by_id_prefix_or_unique_name() {
        let o = |id: &str, name: Option<&str>| Object {
            key: "id".into(),
            id: id.into(),
            name: name.map(String::from),
        };
        let all = vec![
            o("6f1c2a", Some("lamp")),
            o("6f9d00", Some("lamp")),
            o("a1", Some("crate")),
        ];
        assert_eq!(pick(&all, "6f1").unwrap().id, "6f1c2a");
        assert_eq!(pick(&all, "crate").unwrap().id, "a1");
        assert_eq!(pick(&all, "6f").unwrap_err().len(), 2);
        assert_eq!(pick(&all, "lamp").unwrap_err().len(), 2);
        assert!(pick(&all, "zz").unwrap_err().is_empty());
    }

    proptest::proptest! {
        /// Taking a value from another version at one pointer changes exactly that line
        /// of the file: every other byte stays.
        #[test]
        fn an_edit_rewrites_only_its_own_line(
            values in proptest::collection::vec(0u32..1000, 1..8),
            pick in 0usize..8,
            new in 0u32..1000,
        ) {
            let pick = pick % values.len();
            let text: String = values
                .iter()
                .enumerate()
                .map(|(i, v)| format!("k{i} = {v}\n"))
                .collect();
            let doc = Document::parse(&text, Dialect::Sjson).unwrap();
            let other = Document::parse(format!("k{pick} = {new}\n"), Dialect::Sjson).unwrap();
            let segs = vec![Segment::Key(format!("k{pick}"))];
            let out = edit(doc.root(), &segs, find(other.root(), &segs)).unwrap();
            let want: String = values
                .iter()
                .enumerate()
                .map(|(i, v)| format!("k{i} = {}\n", if i == pick { new } else { *v }))
                .collect();
            proptest::prop_assert_eq!(sjson::print(&doc, &out), want);
        }
    }
}
