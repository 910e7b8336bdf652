//! The id'd objects of a document: every element of a keyed array (all elements objects
//! with a unique id under one of the id keys), at any depth, with its JSON Pointer. The
//! object index of `store` and the object commands address objects through this list.
//! A Cocos object graph has no keyed array: its objects are the elements of its array,
//! named by node path ([`crate::naming::cocos::objects`]). No I/O happens here.

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
    /// Its name for people where the format gives it one (a Cocos node's path,
    /// `Canvas/Menu/Start`, a component's `Canvas/Menu/Start<cc.Label>`); `None`: its
    /// `name` member names it.
    pub name: Option<String>,
    /// A Cocos object's graph: the id of each of its objects by position, so that a
    /// reference `{"__id__": n}` is read as one to the object of id `graph[n]`, which
    /// stays when the graph is renumbered ([`reference()`]).
    pub graph: Option<std::sync::Arc<[String]>>,
}

/// Every element of every keyed array under `root`, in document order (an object before
/// the objects nested in it). `id_keys` are matched case-insensitively, first present wins.
/// A Cocos object graph's objects are its array's elements (`cocos_objects`).
pub fn keyed_objects<'a>(root: Value<'a>, id_keys: &[String]) -> Vec<KeyedObject<'a>> {
    if crate::naming::cocos::is_graph(root) {
        return cocos_objects(root);
    }
    let lower: Vec<String> = id_keys.iter().map(|k| k.to_ascii_lowercase()).collect();
    let mut out = Vec::new();
    let mut path = Path::root();
    walk(root, &lower, &mut path, &mut out);
    out
}

/// The objects of a Cocos object graph: every element of its array, by an id that stays
/// while the graph is renumbered ([`crate::naming::cocos::GraphObject::id`]), named by
/// node path; at `/[_id=…]` when the id is the object's own `_id`, else at its position.
fn cocos_objects(root: Value<'_>) -> Vec<KeyedObject<'_>> {
    let elements: Vec<Value<'_>> = root.children().collect();
    let objects = crate::naming::cocos::objects(root);
    let graph: std::sync::Arc<[String]> = objects.iter().map(|o| o.id.clone()).collect();
    objects
        .into_iter()
        .filter_map(|o| {
            let seg = if o.own_id {
                Segment::Id {
                    key: "_id".to_string(),
                    value: o.id.clone(),
                }
            } else {
                Segment::Index(o.index)
            };
            let path = Path(vec![seg]);
            Some(KeyedObject {
                pointer: path.to_string(),
                path,
                value: *elements.get(o.index)?,
                id: o.id,
                name: o.name,
                graph: Some(graph.clone()),
            })
        })
        .collect()
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
    let mut seen = crate::hashing::SeededSet::default();
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
                        name: None,
                        graph: None,
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

/// How deep below an object its nested objects are flattened into leaf properties; an
/// object deeper than this is one property.
pub const LEAF_DEPTH: usize = 8;
/// Nested objects are flattened while the object has at most this many properties: a
/// nested object whose leaves would pass the bound is one property (a large map inside
/// an object is not split into thousands).
pub const LEAF_MAX: usize = 512;

/// The position a Cocos reference names: `{"__id__": n}` (an object of that one member).
pub fn reference(v: Value<'_>) -> Option<usize> {
    if v.kind() != Kind::Object || v.len() != 1 {
        return None;
    }
    v.get("__id__")?.as_number_lexeme()?.parse().ok()
}

/// The leaf properties of object `v`, in document order, each with its value: members
/// whose value is a non-empty object are flattened into their members, named by a dotted
/// path below `v` (`light.intensity`; a key that is not a plain word quoted:
/// `light["cone angle"]`, the grammar of the paths in reports); arrays, scalars, empty
/// objects and Cocos references ([`reference()`]: `_parent`, not `_parent.__id__`) are
/// leaves. Within [`LEAF_DEPTH`] and [`LEAF_MAX`]. Not an object: no leaves.
pub fn leaf_properties<'a>(v: Value<'a>) -> Vec<(String, Value<'a>)> {
    let mut out = Vec::new();
    if v.kind() == Kind::Object {
        push_leaves(v, &mut String::new(), 0, &mut out);
    }
    out
}

/// Appends the leaves of object `v`, whose own name is `prefix`, to `out`.
fn push_leaves<'a>(
    v: Value<'a>,
    prefix: &mut String,
    depth: usize,
    out: &mut Vec<(String, Value<'a>)>,
) {
    for (key, child) in v.members() {
        let len = prefix.len();
        push_property_step(prefix, &key);
        let flatten = child.kind() == Kind::Object
            && !child.is_empty()
            && reference(child).is_none()
            && depth + 1 < LEAF_DEPTH
            && out.len() + leaf_count(child, depth + 1, LEAF_MAX + 1) <= LEAF_MAX;
        if flatten {
            push_leaves(child, prefix, depth + 1, out);
        } else {
            out.push((prefix.clone(), child));
        }
        prefix.truncate(len);
    }
}

/// How many leaves object `v`, at `depth` below the object, has when flattened as
/// [`push_leaves`] would without the bound on the count; counting stops at `bound`.
fn leaf_count(v: Value<'_>, depth: usize, bound: usize) -> usize {
    let mut n = 0;
    for child in v.children() {
        n += match child.kind() {
            Kind::Object if !child.is_empty() && depth + 1 < LEAF_DEPTH => {
                leaf_count(child, depth + 1, bound - n)
            }
            _ => 1,
        };
        if n >= bound {
            break;
        }
    }
    n
}

/// Appends member `key` to a property name: `.key`, or `["key"]` when it is not a plain
/// word (it holds a dot, a bracket, a quote, white space or a control character).
pub fn push_property_step(name: &mut String, key: &str) {
    if crate::report_path::is_simple_key(key) {
        if !name.is_empty() {
            name.push('.');
        }
        name.push_str(key);
    } else {
        name.push('[');
        sjson::string::write_quoted(name, key);
        name.push(']');
    }
}

/// A property as given on a command line, in the form [`leaf_properties`] names it:
/// `light.intensity` as it is, a JSON Pointer below the object (`/light/intensity`,
/// `~0` and `~1` escapes) turned into it.
pub fn property_name(given: &str) -> String {
    let Some(pointer) = given.strip_prefix('/') else {
        return given.to_string();
    };
    let mut name = String::new();
    for step in pointer.split('/') {
        push_property_step(&mut name, &step.replace("~1", "/").replace("~0", "~"));
    }
    name
}

/// Whether leaf property `leaf` is `property` or lies below it (`light.intensity` is
/// below `light`, `lights` is not).
pub fn property_covers(property: &str, leaf: &str) -> bool {
    match leaf.strip_prefix(property) {
        Some(rest) => rest.is_empty() || rest.starts_with(['.', '[']),
        None => false,
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

    #[test]
    fn leaf_properties_flatten_nested_objects_to_dotted_names() {
        let doc = Document::parse(
            "id = \"a\"\nlight = { color = [1 0 0] intensity = 2 cone = {} \"cone angle\" = { deg = 30 } }\npos = [1 2 3]\n",
            Dialect::Sjson,
        )
        .unwrap();
        let leaves: Vec<(String, String)> = leaf_properties(doc.root())
            .into_iter()
            .map(|(k, v)| (k, crate::compact_json(v)))
            .collect();
        let names: Vec<&str> = leaves.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            names,
            [
                "id",
                "light.color",
                "light.intensity",
                "light.cone",
                "light[\"cone angle\"].deg",
                "pos"
            ]
        );
        assert_eq!(leaves[2].1, "2");
        assert_eq!(leaves[3].1, "{}");
        assert_eq!(property_name("/light/intensity"), "light.intensity");
        assert_eq!(
            property_name("/light/cone angle/deg"),
            "light[\"cone angle\"].deg"
        );
        assert_eq!(property_name("/a~1b"), "a/b");
        assert_eq!(property_name("light.color"), "light.color");
        assert!(property_covers("light", "light.intensity"));
        assert!(property_covers("light", "light[\"cone angle\"].deg"));
        assert!(property_covers("light.color", "light.color"));
        assert!(!property_covers("light", "lights"));
        assert!(!property_covers("light.intensity", "light"));
    }

    #[test]
    fn leaf_properties_stop_at_the_depth_and_count_bounds() {
        let deep = format!(
            "{}1{}",
            "{ a = ".repeat(LEAF_DEPTH + 3),
            " }".repeat(LEAF_DEPTH + 3)
        );
        let doc = Document::parse(format!("x = {deep}\n"), Dialect::Sjson).unwrap();
        let leaves = leaf_properties(doc.root());
        assert_eq!(leaves.len(), 1);
        assert_eq!(leaves[0].0, format!("x{}", ".a".repeat(LEAF_DEPTH - 1)));
        let big: String = (0..LEAF_MAX + 1).map(|i| format!("k{i} = {i} ")).collect();
        let doc = Document::parse(
            format!("small = {{ a = 1 }}\nbig = {{ {big} }}\n"),
            Dialect::Sjson,
        )
        .unwrap();
        let names: Vec<String> = leaf_properties(doc.root())
            .into_iter()
            .map(|(k, _)| k)
            .collect();
        assert_eq!(names, ["small.a", "big"]);
    }

    mod laws {
        use super::super::*;
        use proptest::prelude::*;
        use sjson::{Dialect, Document};

        fn json() -> impl Strategy<Value = String> {
            let leaf = prop_oneof![
                Just("null".to_string()),
                (0u8..20).prop_map(|n| n.to_string()),
                "[a-c]{0,3}".prop_map(|s| format!("\"{s}\"")),
            ];
            leaf.prop_recursive(5, 32, 4, |inner| {
                prop_oneof![
                    proptest::collection::vec(inner.clone(), 0..3)
                        .prop_map(|v| format!("[{}]", v.join(","))),
                    proptest::collection::btree_map("[a-c. \\[\"]{0,2}", inner, 0..4).prop_map(
                        |m| {
                            let m: Vec<String> = m
                                .iter()
                                .map(|(k, x)| {
                                    format!("{}:{x}", serde_json::Value::from(k.as_str()))
                                })
                                .collect();
                            format!("{{{}}}", m.join(","))
                        }
                    ),
                ]
            })
        }

        /// The leaves as the doc comment of [`leaf_properties`] says, without its bounds.
        fn reference(v: &serde_json::Value, prefix: &str, out: &mut Vec<(String, String)>) {
            let serde_json::Value::Object(m) = v else {
                return;
            };
            for (k, child) in m {
                let mut name = prefix.to_string();
                push_property_step(&mut name, k);
                match child {
                    serde_json::Value::Object(c) if !c.is_empty() => reference(child, &name, out),
                    _ => out.push((name, child.to_string())),
                }
            }
        }

        proptest! {
            #[test]
            fn leaves_are_the_values_below_the_object_each_once(text in json()) {
                let doc = Document::parse(&text, Dialect::Json).unwrap();
                let got: Vec<(String, String)> = leaf_properties(doc.root())
                    .into_iter()
                    .map(|(k, v)| (k, crate::compact_json(v)))
                    .collect();
                let parsed: serde_json::Value = serde_json::from_str(&text).unwrap();
                let mut want = Vec::new();
                reference(&parsed, "", &mut want);
                let want: Vec<(String, String)> = want
                    .into_iter()
                    .map(|(k, v)| {
                        let v: serde_json::Value = serde_json::from_str(&v).unwrap();
                        (k, v.to_string())
                    })
                    .collect();
                let got: Vec<(String, String)> = got
                    .into_iter()
                    .map(|(k, v)| {
                        let v: serde_json::Value = serde_json::from_str(&v).unwrap();
                        (k, v.to_string())
                    })
                    .collect();
                prop_assert_eq!(&got, &want);
                for (i, (a, _)) in got.iter().enumerate() {
                    for (b, _) in &got[i + 1..] {
                        prop_assert!(!property_covers(a, b) && !property_covers(b, a));
                    }
                }
            }
        }
    }
}
