//! Objects matched by content when their path does not match them: an object without a
//! stable id is known by its path (`<parent>/ch:<name>`), so a node one side renamed is,
//! by path, a node deleted and another added, and the other side's edits of it would meet
//! a deletion. Here a side's node whose path base does not know is paired with base's
//! node the side no longer has when both have the same type and parent and most of their
//! members alike; the side's node then takes base's identity (and its subtree and
//! components follow, their paths starting from it).

use crate::hashing::{SeededMap, SeededSet};

use super::keys::{identities, identities_with, index_of};
use super::tree::J;

/// Members that are not content: names, links, ids.
const NOT_CONTENT: [&str; 7] = [
    "_name",
    "_parent",
    "_children",
    "_components",
    "_prefab",
    "_id",
    "__type__",
];

/// The least share of content members two objects must have alike to be one object.
const ALIKE: f64 = 0.5;

/// The identities of `side`'s elements, its renamed objects given base's identities.
pub(crate) fn matched(base: &[J], base_ids: &[String], side: &[J]) -> Vec<String> {
    let ids = identities(side);
    let known: SeededSet<&str> = base_ids.iter().map(String::as_str).collect();
    let kept: SeededSet<&str> = ids.iter().map(String::as_str).collect();
    let new: Vec<usize> = (0..side.len())
        .filter(|&i| !known.contains(ids[i].as_str()) && by_path(&ids[i]))
        .collect();
    let gone: Vec<usize> = (0..base.len())
        .filter(|&j| !kept.contains(base_ids[j].as_str()) && by_path(&base_ids[j]))
        .collect();
    if new.is_empty() || gone.is_empty() {
        return ids;
    }
    let parent = |els: &[J], ids: &[String], i: usize| {
        let p = els[i].get("_parent")?.reference("__id__")?;
        index_of(p, els.len()).map(|p| ids[p].clone())
    };
    let mut pairs: Vec<(f64, usize, usize)> = Vec::new();
    for &i in &new {
        for &j in &gone {
            let same_type = side[i].str_member("__type__") == base[j].str_member("__type__");
            let same_parent = parent(side, &ids, i) == parent(base, base_ids, j);
            if !(same_type && same_parent) {
                continue;
            }
            let score = alike(&side[i], &base[j]);
            if score >= ALIKE {
                pairs.push((score, i, j));
            }
        }
    }
    if pairs.is_empty() {
        return ids;
    }
    pairs.sort_by(|a, b| b.0.total_cmp(&a.0));
    let (mut used_i, mut used_j) = (SeededSet::default(), SeededSet::default());
    let mut forced: SeededMap<usize, String> = SeededMap::default();
    for (_, i, j) in pairs {
        // Neither paired yet (a paired node keeps its first, most alike, partner).
        if !used_i.contains(&i) && !used_j.contains(&j) {
            used_i.insert(i);
            used_j.insert(j);
            forced.insert(i, base_ids[j].clone());
        }
    }
    identities_with(side, &forced)
}

/// Whether an identity is a path (the object has no stable id of its own).
fn by_path(id: &str) -> bool {
    !(id == "root"
        || id.starts_with("id:")
        || id.starts_with("file:")
        || id.starts_with("via:")
        || id.starts_with("orphan:"))
}

/// The share of content members (other than names, links and ids) alike in `a` and `b`.
fn alike(a: &J, b: &J) -> f64 {
    let (J::Obj(am), J::Obj(bm)) = (a, b) else {
        return 0.0;
    };
    let content = |m: &(String, J)| !NOT_CONTENT.contains(&m.0.as_str());
    let keys: SeededSet<&str> = am
        .iter()
        .chain(bm.iter())
        .filter(|m| content(m))
        .map(|m| m.0.as_str())
        .collect();
    if keys.is_empty() {
        return 0.0;
    }
    let same = keys
        .iter()
        .filter(|k| match (a.get(k), b.get(k)) {
            (Some(x), Some(y)) => x.compact() == y.compact(),
            _ => false,
        })
        .count();
    same as f64 / keys.len() as f64
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value as Jv};
    use sjson::{Dialect, Document};

    use super::super::tests::issues;
    use super::super::{diff, merge_cocos};
    use crate::MergeOptions;

    /// A scene whose objects have no `_id`: Canvas, its child `name` (active or not)
    /// with a label reading `text`, and a sibling Camera.
    fn scene(name: &str, active: bool, text: &str) -> String {
        let els = json!([
            {"__type__": "cc.SceneAsset", "scene": {"__id__": 1}},
            {"__type__": "cc.Scene", "_parent": null, "_children": [{"__id__": 2}], "_components": []},
            {"__type__": "cc.Node", "_name": "Canvas", "_parent": {"__id__": 1},
             "_children": [{"__id__": 3}, {"__id__": 5}], "_components": [], "_active": true},
            {"__type__": "cc.Node", "_name": name, "_parent": {"__id__": 2}, "_children": [],
             "_components": [{"__id__": 4}], "_active": active, "_opacity": 255, "_layer": 1},
            {"__type__": "cc.Label", "node": {"__id__": 3}, "_string": text, "_fontSize": 20},
            {"__type__": "cc.Node", "_name": "Camera", "_parent": {"__id__": 2}, "_children": [],
             "_components": [], "_active": true, "_opacity": 255, "_layer": 2}
        ]);
        serde_json::to_string_pretty(&els).unwrap()
    }

    fn doc(t: &str) -> Document {
        Document::parse(t, Dialect::Json).unwrap()
    }

    #[test]
    fn a_node_one_side_renamed_and_the_other_edited_is_one_node() {
        let base = scene("Start", true, "Go");
        let ours = scene("Begin", true, "Go");
        let theirs = scene("Start", false, "Play");
        let out = merge_cocos(
            &doc(&base),
            &doc(&ours),
            &doc(&theirs),
            &MergeOptions::default(),
        )
        .unwrap();
        let merged: Jv = serde_json::from_str(&out.text).unwrap();
        assert_eq!(issues(&merged), Vec::<String>::new());
        assert!(out.conflicts.is_empty(), "{:?}", out.conflicts);
        assert_eq!(
            merged,
            serde_json::from_str::<Jv>(&scene("Begin", false, "Play")).unwrap()
        );
    }

    #[test]
    fn a_renamed_node_is_a_change_of_its_name_in_a_diff() {
        let (old, new) = (
            doc(&scene("Start", true, "Go")),
            doc(&scene("Begin", true, "Go")),
        );
        let lines = diff::diff_lines(&old, &new, &Default::default()).unwrap();
        assert_eq!(lines, ["Canvas/Begin._name: \"Start\" → \"Begin\""]);
    }

    #[test]
    fn a_renamed_node_keeps_its_most_alike_partner() {
        // Base's A, B and C are gone; D is A renamed, B and C less alike (3 of 4, 2 of 4).
        let node = |name: &str, layer: u32, tag: u32| {
            json!({"__type__": "cc.Node", "_name": name, "_parent": {"__id__": 1},
                   "_children": [], "_components": [], "_active": true, "_opacity": 255,
                   "_layer": layer, "_tag": tag})
        };
        let file = |nodes: Vec<Jv>| {
            let children: Vec<Jv> = (0..nodes.len()).map(|i| json!({"__id__": i + 2})).collect();
            let mut els = vec![
                json!({"__type__": "cc.SceneAsset", "scene": {"__id__": 1}}),
                json!({"__type__": "cc.Scene", "_parent": null, "_children": children,
                       "_components": []}),
            ];
            els.extend(nodes);
            serde_json::to_string_pretty(&Jv::Array(els)).unwrap()
        };
        let base = file(vec![node("A", 1, 1), node("B", 1, 2), node("C", 2, 2)]);
        let side = file(vec![node("D", 1, 1)]);
        let lines = diff::diff_lines(&doc(&base), &doc(&side), &Default::default()).unwrap();
        assert!(
            lines.contains(&"D._name: \"A\" → \"D\"".to_string()),
            "{lines:?}"
        );
        assert!(lines.iter().all(|l| !l.contains("_layer")), "{lines:?}");
    }

    #[test]
    fn nodes_unlike_in_content_are_not_paired() {
        // The renamed node also changed most of its content: a new node, not a rename.
        let base = scene("Start", true, "Go");
        let mut changed: Jv = serde_json::from_str(&scene("Begin", false, "Go")).unwrap();
        changed[3]["_opacity"] = json!(9);
        changed[3]["_layer"] = json!(7);
        let changed = serde_json::to_string(&changed).unwrap();
        let (old, new) = (doc(&base), doc(&changed));
        let lines = diff::diff_lines(&old, &new, &Default::default()).unwrap();
        assert!(
            lines.iter().any(|l| l.starts_with("+ Canvas/Begin:")),
            "{lines:?}"
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(32))]
        #[test]
        fn a_rename_on_one_side_and_edits_on_the_other_lose_nothing(
            renamed in "[A-Z][a-z]{0,5}", active in proptest::bool::ANY, text in "[a-z]{0,4}",
            ours_renames in proptest::bool::ANY,
        ) {
            let base = scene("Start", true, "Go");
            let (rename, edit) = (scene(&renamed, true, "Go"), scene("Start", active, &text));
            let (ours, theirs) = if ours_renames { (rename, edit) } else { (edit, rename) };
            let out = merge_cocos(&doc(&base), &doc(&ours), &doc(&theirs), &MergeOptions::default())
                .unwrap();
            let merged: Jv = serde_json::from_str(&out.text).unwrap();
            proptest::prop_assert_eq!(issues(&merged), Vec::<String>::new());
            let expected: Jv = serde_json::from_str(&scene(&renamed, active, &text)).unwrap();
            proptest::prop_assert_eq!(merged, expected);
        }
    }
}
