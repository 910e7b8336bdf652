//! A Cocos object found again in another version of its graph, and a value of that
//! version with its references renumbered for this one: what taking one side's value
//! into a merged scene needs (`assetvc resolve`), the merge having numbered the result's
//! objects otherwise than any side.

use crate::hashing::SeededMap;
use sjson::{Document, Value};

use super::tree::{rewrite_references, J};
use super::{elements, keys, similar};

/// For each element of `to`, its position in `from` (`None`: `from` has no such
/// object). Objects are matched as the merge matches them: by their own ids, else by
/// their path from the root, a renamed node by its content.
pub fn counterparts(from: &Document, to: &Document) -> Vec<Option<usize>> {
    let a = elements(from);
    let ids_a = keys::identities(&a);
    let b = elements(to);
    let ids_b = similar::matched(&a, &ids_a, &b);
    let at: SeededMap<&str, usize> = ids_a
        .iter()
        .enumerate()
        .map(|(i, id)| (id.as_str(), i))
        .collect();
    ids_b
        .iter()
        .map(|id| at.get(id.as_str()).copied())
        .collect()
}

/// `value`, a value of a Cocos graph, as compact JSON with every `{"__id__": n}` in it
/// renumbered by `map`; `None` when `map` has no position for one of them.
pub fn value_renumbered(value: Value<'_>, map: &dyn Fn(usize) -> Option<usize>) -> Option<String> {
    // In an array, so that a value that is itself a reference is renumbered too.
    let mut wrapped = J::Arr(vec![J::of(value)]);
    let mut whole = true;
    rewrite_references(&mut wrapped, "__id__", &mut |target| {
        let new = match target {
            J::Num(n) => n.parse::<usize>().ok().and_then(map),
            _ => None,
        };
        whole &= new.is_some();
        Some(J::Obj(vec![(
            "__id__".to_string(),
            J::Num(new.unwrap_or(0).to_string()),
        )]))
    });
    let J::Arr(mut items) = wrapped else {
        return None;
    };
    let value = items.pop()?;
    whole.then(|| value.compact())
}

#[cfg(test)]
mod tests {
    use sjson::{Dialect, Document};

    use super::*;

    fn doc(text: &str) -> Document {
        Document::parse(text, Dialect::Json).unwrap()
    }

    /// The value of `key` in the object at `index` of the graph `doc`.
    fn field<'d>(doc: &'d Document, index: usize, key: &str) -> Value<'d> {
        doc.root().children().nth(index).unwrap().get(key).unwrap()
    }

    #[test]
    fn objects_are_found_again_after_a_renumbering() {
        let from = doc(r#"[{"__type__":"cc.SceneAsset","scene":{"__id__":1}},
            {"__type__":"cc.Scene","_parent":null,"_children":[{"__id__":2}],"_id":"s"},
            {"__type__":"cc.Node","_name":"A","_parent":{"__id__":1},"_children":[],"_id":"a"}]"#);
        let to = doc(r#"[{"__type__":"cc.SceneAsset","scene":{"__id__":1}},
            {"__type__":"cc.Scene","_parent":null,"_children":[{"__id__":3},{"__id__":2}],"_id":"s"},
            {"__type__":"cc.Node","_name":"B","_parent":{"__id__":1},"_children":[],"_id":"b"},
            {"__type__":"cc.Node","_name":"A","_parent":{"__id__":1},"_children":[],"_id":"a"}]"#);
        let there = counterparts(&from, &to);
        assert_eq!(there, [Some(0), Some(1), None, Some(2)]);
        let back = counterparts(&to, &from);
        assert_eq!(back, [Some(0), Some(1), Some(3)]);
        // `to`'s values in `from`'s numbering: B is not there.
        let children = field(&to, 1, "_children");
        let map = |i: usize| there.get(i).copied().flatten();
        assert_eq!(value_renumbered(children, &map), None);
        let parent = field(&to, 3, "_parent");
        assert_eq!(
            value_renumbered(parent, &map).as_deref(),
            Some(r#"{"__id__":1}"#)
        );
        let map = |i: usize| back.get(i).copied().flatten();
        let one = field(&from, 1, "_children");
        assert_eq!(
            value_renumbered(one, &map).as_deref(),
            Some(r#"[{"__id__":3}]"#)
        );
    }
}
