//! The id'd objects of a document: every element of a keyed array (all elements objects
//! with a unique id under one of the id keys), at any depth, with its JSON Pointer. The
//! object index of `store` and the object commands address objects through this list.
//! No I/O happens here.

use sjson::{Kind, Path, Segment, Value};

use crate::id::{id_display, id_of};

/// One id'd object of a document.
#[derive(Debug, Clone)]
pub struct KeyedObject<'a> {
    /// The id as people read it (`f341`, `7`).
    pub id: String,
    /// Where it is, the object itself named by id: `/entities/[id=f341]`.
    pub path: Path,
    /// `path` as a JSON Pointer string (built once per array, not per object).
    pub pointer: String,
    /// The object.
    pub value: Value<'a>,
}

/// Every element of every keyed array under `root`, in document order (an object before
/// the objects nested in it). `id_keys` are matched case-insensitively, first present wins.
pub fn keyed_objects<'a>(root: Value<'a>, id_keys: &[String]) -> Vec<KeyedObject<'a>> {
    let lower: Vec<String> = id_keys.iter().map(|k| k.to_ascii_lowercase()).collect();
    let mut out = Vec::new();
    let mut path = Path::root();
    walk(root, &lower, &mut path, &mut out);
    out
}

/// Appends one pointer segment's text, escaped as RFC 6901 says (`~` → `~0`, `/` → `~1`).
fn push_escaped(out: &mut String, s: &str) {
    if s.contains(['~', '/']) {
        out.push_str(&s.replace('~', "~0").replace('/', "~1"));
    } else {
        out.push_str(s);
    }
}

/// The elements of `arr` with their id keys and ids, if it is a non-empty keyed array.
fn keyed_elements<'a>(arr: Value<'a>, lower: &[String]) -> Option<Vec<(String, String)>> {
    if arr.is_empty() {
        return None;
    }
    let mut first_key: Option<String> = None;
    let mut seen = rustc_hash::FxHashSet::default();
    let mut out = Vec::with_capacity(arr.len());
    for el in arr.children() {
        let (key, id) = id_of(lower, el)?;
        match &first_key {
            Some(k) if !k.eq_ignore_ascii_case(&key) => return None,
            Some(_) => {}
            None => first_key = Some(key.to_string()),
        }
        if !seen.insert(id.clone()) {
            return None;
        }
        out.push((key.into_owned(), id_display(&id)));
    }
    Some(out)
}

fn walk<'a>(v: Value<'a>, lower: &[String], path: &mut Path, out: &mut Vec<KeyedObject<'a>>) {
    match v.kind() {
        Kind::Object => {
            for (key, child) in v.members() {
                if child.is_container() {
                    path.push(Segment::Key(key.into_owned()));
                    walk(child, lower, path, out);
                    path.pop();
                }
            }
        }
        Kind::Array => {
            if let Some(ids) = keyed_elements(v, lower) {
                let array_pointer = path.to_string();
                for (el, (key, id)) in v.children().zip(ids) {
                    let mut pointer = String::with_capacity(array_pointer.len() + id.len() + 8);
                    pointer.push_str(&array_pointer);
                    pointer.push_str("/[");
                    push_escaped(&mut pointer, &key);
                    pointer.push('=');
                    push_escaped(&mut pointer, &id);
                    pointer.push(']');
                    path.push(Segment::Id {
                        key,
                        value: id.clone(),
                    });
                    out.push(KeyedObject {
                        id,
                        path: path.clone(),
                        pointer,
                        value: el,
                    });
                    walk(el, lower, path, out);
                    path.pop();
                }
            } else {
                for (i, el) in v.children().enumerate() {
                    if el.is_container() {
                        path.push(Segment::Index(i));
                        walk(el, lower, path, out);
                        path.pop();
                    }
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use sjson::{Dialect, Document};

    use super::*;

    fn keys() -> Vec<String> {
        crate::MergeOptions::default().id_keys
    }

    #[test]
    fn lists_keyed_elements_at_any_depth_with_their_pointers() {
        let doc = Document::parse(
            "entities = [ { id = \"a\" name = \"door\" parts = [ { GUID = 7 } ] } { id = \"b/~\" } ]\n\
             points = [ { x = 1 } ]\n\
             dup = [ { id = \"c\" } { id = \"c\" } ]\n",
            Dialect::Sjson,
        )
        .unwrap();
        let objs = keyed_objects(doc.root(), &keys());
        let listed: Vec<(String, String)> = objs
            .iter()
            .map(|o| (o.id.clone(), o.path.to_string()))
            .collect();
        assert!(objs.iter().all(|o| o.pointer == o.path.to_string()));
        assert_eq!(
            listed,
            [
                ("a".to_string(), "/entities/[id=a]".to_string()),
                (
                    "7".to_string(),
                    "/entities/[id=a]/parts/[GUID=7]".to_string()
                ),
                ("b/~".to_string(), "/entities/[id=b~1~0]".to_string()),
            ]
        );
        assert_eq!(objs[0].value.get("name").unwrap().as_str().unwrap(), "door");
    }
}
