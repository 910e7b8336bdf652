//! The objects of one asset file: parsed once, hashed by value.

use std::collections::BTreeMap;
use std::hash::Hasher;

use merge::objects::KeyedObject;
#[cfg(test)]
use sjson::Document;
use sjson::Value;

use super::Entry;

/// A stable 64-bit hash of a value (not of its formatting).
fn value_hash(v: Value<'_>) -> u64 {
    let mut h = rustc_hash::FxHasher::default();
    v.hash_value(&mut h);
    h.finish()
}

/// A stable hash of a value of a Cocos graph whose objects have the ids `graph` by
/// position: a reference `{"__id__": n}` is hashed as the id of its target, so that a
/// renumbering of the graph changes no hash.
fn graph_hash(v: Value<'_>, graph: &[String]) -> u64 {
    fn feed(v: Value<'_>, graph: &[String], h: &mut rustc_hash::FxHasher) {
        if let Some(n) = merge::objects::reference(v) {
            h.write_u8(0xfe);
            h.write(graph.get(n).map_or(&b"\xff"[..], |id| id.as_bytes()));
            h.write_u8(0xff);
            return;
        }
        if !v.is_container() {
            v.hash_value(h);
            return;
        }
        h.write_u8(if v.kind() == sjson::Kind::Array {
            0xfc
        } else {
            0xfb
        });
        h.write_usize(v.len());
        for c in v.children() {
            if let Some(key) = c.key() {
                h.write(key.as_bytes());
                h.write_u8(0xff);
            }
            feed(c, graph, h);
        }
    }
    let mut h = rustc_hash::FxHasher::default();
    feed(v, graph, &mut h);
    h.finish()
}

/// The id'd objects of a parsed document by id (the first of a repeated id is kept).
#[cfg(test)]
pub fn scan_document(doc: &Document, id_keys: &[String]) -> BTreeMap<String, Entry> {
    entries(&merge::objects::keyed_objects(doc.root(), id_keys))
}

/// The entries of keyed objects by id (the first of a repeated id is kept).
pub(super) fn entries(keyed: &[KeyedObject<'_>]) -> BTreeMap<String, Entry> {
    let mut entries: Vec<(String, Entry)> = keyed
        .iter()
        .map(|obj| (obj.id.clone(), entry_of(obj, obj.pointer.clone())))
        .collect();
    // Sorted once and built in bulk: inserting 10,000 entries one by one moved them around
    // the tree's nodes. The stable sort keeps the first of a repeated id first.
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    entries.dedup_by(|later, first| later.0 == first.0);
    entries.into_iter().collect()
}

/// The entry of one keyed object at `pointer`: a hash per leaf property (nested objects
/// flattened, `light.intensity`: [`merge::objects::leaf_properties`]), and the object's
/// hash combining its leaves' names and hashes: each value is hashed once (a Cocos
/// object's references by their targets' ids, [`graph_hash`]).
pub(super) fn entry_of(obj: &KeyedObject<'_>, pointer: String) -> Entry {
    let mut whole = rustc_hash::FxHasher::default();
    let props: Vec<(String, u64)> = merge::objects::leaf_properties(obj.value)
        .into_iter()
        .map(|(k, v)| {
            let h = match &obj.graph {
                Some(graph) => graph_hash(v, graph),
                None => value_hash(v),
            };
            whole.write(k.as_bytes());
            whole.write_u8(0xff);
            whole.write_u64(h);
            (k, h)
        })
        .collect();
    Entry {
        pointer,
        hash: whole.finish(),
        name: obj.name.clone().or_else(|| {
            obj.value
                .get("name")
                .and_then(|n| n.as_str())
                .map(|n| n.into_owned())
        }),
        props,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sjson::Dialect;

    #[test]
    fn entries_hash_values_not_formatting() {
        let keys = vec!["id".to_string()];
        let a = Document::parse(
            "e = [ { id = \"a\" name = \"door\" x = 1.0 } ]",
            Dialect::Sjson,
        )
        .unwrap();
        let b = Document::parse(
            "e = [\n\t{\n\t\tid = \"a\"\n\t\tname = \"door\"\n\t\tx = 1.0\n\t}\n]\n",
            Dialect::Sjson,
        )
        .unwrap();
        let c = Document::parse(
            "e = [ { id = \"a\" name = \"door\" x = 2 } ]",
            Dialect::Sjson,
        )
        .unwrap();
        let (a, b, c) = (
            scan_document(&a, &keys),
            scan_document(&b, &keys),
            scan_document(&c, &keys),
        );
        assert_eq!(a, b);
        assert_eq!(a["a"].name.as_deref(), Some("door"));
        assert_eq!(a["a"].pointer, "/e/[id=a]");
        assert_ne!(a["a"].hash, c["a"].hash);
        assert_eq!(a["a"].prop("name"), c["a"].prop("name"));
        assert_ne!(a["a"].prop("x"), c["a"].prop("x"));
    }

    #[test]
    fn nested_objects_are_hashed_leaf_by_leaf() {
        let keys = vec!["id".to_string()];
        let scan = |light: &str| {
            let text = format!("e = [ {{ id = \"a\" light = {{ {light} }} }} ]");
            scan_document(&Document::parse(&text, Dialect::Sjson).unwrap(), &keys)
        };
        let a = scan("color = [1 1 1] intensity = 1");
        let b = scan("color = [1 1 1] intensity = 2");
        let names: Vec<&str> = a["a"].props.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(names, ["id", "light.color", "light.intensity"]);
        assert_eq!(a["a"].prop("light.color"), b["a"].prop("light.color"));
        assert_ne!(
            a["a"].prop("light.intensity"),
            b["a"].prop("light.intensity")
        );
        assert_ne!(a["a"].hash, b["a"].hash);
        assert_eq!(
            a["a"].prop_near(2, "light.intensity"),
            a["a"].prop("light.intensity")
        );
        assert_eq!(
            a["a"].prop_near(0, "light.intensity"),
            a["a"].prop("light.intensity")
        );
    }
}
