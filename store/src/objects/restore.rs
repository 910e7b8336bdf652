//! Putting one object of a document back as it is in another version of the document:
//! only the object's changed nodes are printed again (in the document's style); a deleted
//! object is re-created in its array after the nearest sibling that precedes it in the
//! source. Pure: documents in, text out.

use merge::objects::{keyed_objects, KeyedObject};
use sjson::{Document, Kind, Out, OutItem, Path, Value};

use super::at_path::along;

use crate::error::{Error, Result};

/// What restoring changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Restored {
    /// The object already is as in the source.
    Unchanged,
    /// The object's content was put back: the new text.
    Changed(String),
    /// The object was re-created: the new text.
    Recreated(String),
}

/// Restores object `id` of `current` as it is in `source`.
pub fn restore_object<'a>(
    current: &'a Document,
    source: &'a Document,
    id: &str,
    id_keys: &[String],
) -> Result<Restored> {
    let src_objects = keyed_objects(source.root(), id_keys);
    let src = src_objects
        .iter()
        .find(|o| o.id == id)
        .ok_or_else(|| Error::NotInSource(id.to_string()))?;
    let cur_objects = keyed_objects(current.root(), id_keys);
    let (out, recreated) = match cur_objects.iter().find(|o| o.id == id) {
        Some(cur) if cur.value.same_value(&src.value) => return Ok(Restored::Unchanged),
        Some(cur) => {
            let old = src.value;
            let out = along(current.root(), &cur.path.0, &mut |v| Some(edit(v, old)));
            (out, false)
        }
        None => {
            let array_path = &src.path.0[..src.path.0.len() - 1];
            let no_place = || Error::NoPlace {
                id: id.to_string(),
                array: Path(array_path.to_vec()).to_string(),
            };
            let out = along(current.root(), array_path, &mut |arr| {
                (arr.kind() == Kind::Array).then(|| insert(arr, src, &src_objects, &cur_objects))
            })
            .ok_or_else(no_place)?;
            (Some(out), true)
        }
    };
    let out = out.ok_or_else(|| Error::NotInSource(id.to_string()))?;
    let text = sjson::print(current, &out);
    let parsed = Document::parse_with(text.clone(), sjson::ParseOptions::new(current.dialect()))
        .map_err(|source| Error::Unparsable {
            what: "restored document",
            source,
        })?;
    drop(parsed);
    Ok(if recreated {
        Restored::Recreated(text)
    } else {
        Restored::Changed(text)
    })
}

/// `cur` printed as `old`: members that did not change keep their text.
fn edit<'a>(cur: Value<'a>, old: Value<'a>) -> Out<'a> {
    if cur.same_value(&old) {
        return Out::Value(cur);
    }
    if cur.kind() != Kind::Object || old.kind() != Kind::Object {
        return Out::Value(old);
    }
    let mut items: Vec<OutItem<'a>> = cur
        .members()
        .filter_map(|(k, c)| {
            let o = old.get(&k)?;
            Some(OutItem {
                key: Some(k),
                ours: Some(c),
                origin: None,
                value: edit(c, o),
            })
        })
        .collect();
    let old_members: Vec<_> = old.members().collect();
    for (i, (k, o)) in old_members.iter().enumerate() {
        if cur.get(k).is_some() {
            continue;
        }
        let pos = (0..i)
            .rev()
            .find_map(|j| {
                items
                    .iter()
                    .position(|it| it.key.as_deref() == Some(&*old_members[j].0))
            })
            .map_or(0, |p| p + 1);
        items.insert(
            pos,
            OutItem {
                key: Some(k.clone()),
                ours: None,
                origin: Some(*o),
                value: Out::Value(*o),
            },
        );
    }
    Out::Container {
        kind: Kind::Object,
        ours: Some(cur),
        items,
    }
}

/// `arr` with the source object inserted after its nearest preceding sibling still there.
fn insert<'a>(
    arr: Value<'a>,
    src: &KeyedObject<'a>,
    src_objects: &[KeyedObject<'a>],
    cur_objects: &[KeyedObject<'a>],
) -> Out<'a> {
    let parent = &src.path.0[..src.path.0.len() - 1];
    let siblings: Vec<&KeyedObject<'a>> = src_objects
        .iter()
        .filter(|o| o.path.0.len() == src.path.0.len() && o.path.0.starts_with(parent))
        .collect();
    let me = siblings.iter().position(|o| o.id == src.id).unwrap_or(0);
    let position_in_arr = |id: &str| {
        let node = cur_objects.iter().find(|o| o.id == id)?.value.id();
        arr.children().position(|c| c.id() == node)
    };
    let after = siblings[..me]
        .iter()
        .rev()
        .find_map(|o| position_in_arr(&o.id))
        .map(|p| p + 1);
    let before = || {
        siblings[me + 1..]
            .iter()
            .find_map(|o| position_in_arr(&o.id))
    };
    let pos = after.or_else(before).unwrap_or(arr.len());
    let mut items: Vec<OutItem<'a>> = arr
        .children()
        .map(|c| OutItem {
            key: None,
            ours: Some(c),
            origin: None,
            value: Out::Value(c),
        })
        .collect();
    items.insert(
        pos,
        OutItem {
            key: None,
            ours: None,
            origin: Some(src.value),
            value: Out::Value(src.value),
        },
    );
    Out::Container {
        kind: Kind::Array,
        ours: Some(arr),
        items,
    }
}

#[cfg(test)]
mod tests {
    use sjson::Dialect;

    use super::*;

    fn keys() -> Vec<String> {
        vec!["id".to_string()]
    }

    fn doc(text: &str) -> Document {
        Document::parse(text, Dialect::Sjson).unwrap()
    }

    const SOURCE: &str = "entities = [\n\t{\n\t\tid = \"a\"\n\t\tname = \"door\"\n\t\tpos = [1 2 3]\n\t}\n\t{\n\t\tid = \"b\"\n\t\tname = \"gate\"\n\t}\n\t{\n\t\tid = \"c\"\n\t\tname = \"wall\"\n\t}\n]\n";

    #[test]
    fn puts_back_changed_properties_only() {
        let current = doc("entities = [\n\t{\n\t\tid = \"a\"\n\t\tname   =   \"door2\"\n\t\tpos = [1 2 3] // here\n\t\tnew = 1\n\t}\n\t{\n\t\tid = \"b\"\n\t\tname = \"GATE\"\n\t}\n]\n");
        let source = doc(SOURCE);
        let Restored::Changed(text) = restore_object(&current, &source, "a", &keys()).unwrap()
        else {
            panic!()
        };
        assert_eq!(
            text,
            "entities = [\n\t{\n\t\tid = \"a\"\n\t\tname   =   \"door\"\n\t\tpos = [1 2 3] // here\n\t}\n\t{\n\t\tid = \"b\"\n\t\tname = \"GATE\"\n\t}\n]\n"
        );
        assert_eq!(
            restore_object(&source, &source, "a", &keys()).unwrap(),
            Restored::Unchanged
        );
    }

    #[test]
    fn recreates_a_deleted_object_after_its_sibling() {
        let current = doc("entities = [\n\t{\n\t\tid = \"a\"\n\t}\n\t{\n\t\tid = \"c\"\n\t\tname = \"wall\"\n\t}\n]\n");
        let Restored::Recreated(text) =
            restore_object(&current, &doc(SOURCE), "b", &keys()).unwrap()
        else {
            panic!()
        };
        assert_eq!(
            text,
            "entities = [\n\t{\n\t\tid = \"a\"\n\t}\n\t{\n\t\tid = \"b\"\n\t\tname = \"gate\"\n\t}\n\t{\n\t\tid = \"c\"\n\t\tname = \"wall\"\n\t}\n]\n"
        );
        let gone = doc("other = 1\n");
        assert!(matches!(
            restore_object(&gone, &doc(SOURCE), "b", &keys()),
            Err(Error::NoPlace { .. })
        ));
        assert!(matches!(
            restore_object(&gone, &doc(SOURCE), "zz", &keys()),
            Err(Error::NotInSource(_))
        ));
    }

    /// A level of objects `o0`, `o1`, … with members `a` and `b` (`None`: the object is
    /// absent), written with irregular spacing.
    fn level(objects: &[Option<(i64, i64)>]) -> String {
        let mut s = String::from("entities = [\n");
        for (i, o) in objects.iter().enumerate() {
            if let Some((a, b)) = o {
                s.push_str(&format!(
                    "\t{{\n\t\tid = \"o{i}\"\n\t\ta  =  {a}\n\t\tb = {b} // b\n\t}}\n"
                ));
            }
        }
        s.push_str("]\n");
        s
    }

    /// Objects `o0`, `o1`, … as (a, b), `None` where absent.
    type Objects = Vec<Option<(i64, i64)>>;

    fn versions() -> impl proptest::strategy::Strategy<Value = (Objects, Objects, usize)> {
        use proptest::prelude::*;
        let obj = proptest::option::weighted(0.8, (0i64..3, 0i64..3));
        (1usize..6).prop_flat_map(move |n| {
            (
                prop::collection::vec(obj.clone(), n),
                prop::collection::vec(obj.clone(), n),
                0..n,
            )
        })
    }

    proptest::proptest! {
        /// After restoring object `k` from the source, it equals the source's object and
        /// every other object of the current version keeps its text byte for byte.
        #[test]
        fn restore_changes_only_the_chosen_object((cur, src, k) in versions()) {
            let mut src = src;
            if src[k].is_none() {
                src[k] = Some((1, 1));
            }
            let (current, source) = (doc(&level(&cur)), doc(&level(&src)));
            let id = format!("o{k}");
            let text = match restore_object(&current, &source, &id, &keys()).unwrap() {
                Restored::Unchanged => current.text().to_string(),
                Restored::Changed(t) | Restored::Recreated(t) => t,
            };
            let result = doc(&text);
            let objects = keyed_objects(result.root(), &keys());
            let before = keyed_objects(current.root(), &keys());
            let wanted = keyed_objects(source.root(), &keys());
            let restored = objects.iter().find(|o| o.id == id).unwrap();
            let original = wanted.iter().find(|o| o.id == id).unwrap();
            proptest::prop_assert!(restored.value.same_value(&original.value));
            let others: Vec<&str> = objects.iter().filter(|o| o.id != id).map(|o| o.value.text()).collect();
            let kept: Vec<&str> = before.iter().filter(|o| o.id != id).map(|o| o.value.text()).collect();
            proptest::prop_assert_eq!(others, kept);
        }
    }
}
