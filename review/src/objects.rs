//! The objects of a level: every object with an id or a position, found by walking the
//! document once.

use std::collections::HashMap;

use sjson::{Kind, Path, Segment, Value};

/// Which members identify and place objects.
#[derive(Debug, Clone)]
pub struct ObjectKeys {
    /// Id members in priority order, matched case-insensitively (the merge's `id_keys`).
    pub id_keys: Vec<String>,
    /// Position members in priority order (`pos`, `position`, `translation`).
    pub position_keys: Vec<String>,
}

impl Default for ObjectKeys {
    fn default() -> Self {
        ObjectKeys {
            id_keys: ["id", "_id", "guid", "_guid", "uuid"]
                .map(String::from)
                .to_vec(),
            position_keys: DEFAULT_POSITION_KEYS.map(String::from).to_vec(),
        }
    }
}

/// The default position members.
pub const DEFAULT_POSITION_KEYS: [&str; 3] = ["pos", "position", "translation"];

/// An object of a level.
#[derive(Debug, Clone, PartialEq)]
pub struct LevelObject {
    /// Its id, else its location: what cards and marks are matched by.
    pub key: String,
    /// Its id, when it has one.
    pub id: Option<String>,
    /// Its `name` member, when it is a string.
    pub name: Option<String>,
    /// Where it is, for people: `entities[id=6f1c…]`, `units[2]`.
    pub location: String,
    /// The first two components of its position.
    pub at: Option<[f64; 2]>,
}

/// The objects of one document, by key.
#[derive(Debug, Clone, Default)]
pub struct LevelObjects {
    /// In document order.
    pub list: Vec<LevelObject>,
    index: HashMap<String, usize>,
}

impl LevelObjects {
    /// Walks `root` for objects that carry an id or a position.
    pub fn of(root: Value<'_>, keys: &ObjectKeys) -> LevelObjects {
        let mut found = LevelObjects::default();
        let mut path = Path::root();
        walk(root, keys, &mut path, &mut found, true);
        found
    }

    /// The object with this key.
    pub fn get(&self, key: &str) -> Option<&LevelObject> {
        self.index.get(key).map(|&i| &self.list[i])
    }

    fn push(&mut self, o: LevelObject) {
        if !self.index.contains_key(&o.key) {
            self.index.insert(o.key.clone(), self.list.len());
            self.list.push(o);
        }
    }
}

/// The id of an object: the first of `id_keys` present (case-insensitively) holding a
/// string or a number; with the member's name as written.
pub fn id_of<'d>(v: Value<'d>, id_keys: &[String]) -> Option<(String, String)> {
    if v.kind() != Kind::Object {
        return None;
    }
    let mut best: Option<(usize, String, String)> = None;
    for (k, c) in v.members() {
        let Some(rank) = id_keys.iter().position(|i| k.eq_ignore_ascii_case(i)) else {
            continue;
        };
        if best.as_ref().is_some_and(|b| b.0 <= rank) {
            continue;
        }
        let value = match c.kind() {
            Kind::String => c.as_str().unwrap_or_default().into_owned(),
            Kind::Number => c.text().to_string(),
            _ => continue,
        };
        best = Some((rank, k.into_owned(), value));
    }
    best.map(|(_, k, v)| (k, v))
}

/// The first two components of the first position member present.
pub fn position_of(v: Value<'_>, position_keys: &[String]) -> Option<[f64; 2]> {
    position_keys.iter().find_map(|k| {
        let p = v.get(k)?;
        if p.kind() != Kind::Array || p.len() < 2 {
            return None;
        }
        let mut c = p.children();
        let x = c.next()?.as_number()?.as_f64();
        let y = c.next()?.as_number()?.as_f64();
        (x.is_finite() && y.is_finite()).then_some([x, y])
    })
}

fn walk(v: Value<'_>, keys: &ObjectKeys, path: &mut Path, out: &mut LevelObjects, root: bool) {
    match v.kind() {
        Kind::Object => {
            if !root {
                // An element of an array was named by its id already (see below).
                let id = match path.0.last() {
                    Some(Segment::Id { value, .. }) => Some(value.clone()),
                    _ => id_of(v, &keys.id_keys).map(|(_, id)| id),
                };
                let at = position_of(v, &keys.position_keys);
                if id.is_some() || at.is_some() {
                    let location = merge::diff::path_text(path);
                    out.push(LevelObject {
                        key: id.clone().unwrap_or_else(|| location.clone()),
                        name: v
                            .get("name")
                            .and_then(|n| n.as_str())
                            .map(|n| n.into_owned()),
                        id,
                        location,
                        at,
                    });
                }
            }
            for (k, c) in v.members() {
                if c.is_container() {
                    path.push(Segment::Key(k.into_owned()));
                    walk(c, keys, path, out, false);
                    path.pop();
                }
            }
        }
        Kind::Array => {
            for (i, c) in v.children().enumerate() {
                if !c.is_container() {
                    continue;
                }
                let seg = match id_of(c, &keys.id_keys) {
                    Some((key, value)) => Segment::Id { key, value },
                    None => Segment::Index(i),
                };
                path.push(seg);
                walk(c, keys, path, out, false);
                path.pop();
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_ids_names_and_positions_at_any_depth() {
        let doc = sjson::Document::parse(
            "entities = [\n{ id = \"e1\" name = \"crate\" position = [1 2 3] children = [ { GUID = 7 pos = [4.5 -1] } ] }\n{ id = \"e2\" }\n]\nmarkers = [ { translation = [9 8 7] } ]\nbad = { pos = [\"a\" 1] }\n",
            sjson::Dialect::Sjson,
        )
        .unwrap();
        let found = LevelObjects::of(doc.root(), &ObjectKeys::default());
        let keys: Vec<&str> = found.list.iter().map(|o| o.key.as_str()).collect();
        assert_eq!(keys, ["e1", "7", "e2", "markers[0]"]);
        let e1 = found.get("e1").unwrap();
        assert_eq!(e1.name.as_deref(), Some("crate"));
        assert_eq!(e1.at, Some([1.0, 2.0]));
        assert_eq!(found.get("7").unwrap().at, Some([4.5, -1.0]));
        assert_eq!(
            found.get("7").unwrap().location,
            "entities[id=e1].children[GUID=7]"
        );
        assert_eq!(found.get("e2").unwrap().at, None);
        assert_eq!(found.get("markers[0]").unwrap().at, Some([9.0, 8.0]));
    }
}
