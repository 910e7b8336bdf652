//! Tests of the Cocos graph merge on generated scenes: the invariants the editor keeps
//! (every `__id__` in range, back-links true both ways, no unreferenced object, no
//! duplicate `_id`) hold after any edits on both sides.

use proptest::prelude::*;
use serde_json::{json, Value as Jv};
use sjson::{Dialect, Document};

use super::*;
use crate::Policy;

/// A node of a generated scene.
#[derive(Debug, Clone)]
pub(super) struct Node {
    id: String,
    pub(super) name: String,
    active: bool,
    pub(super) children: Vec<Node>,
    /// Components: (type, id, a value).
    comps: Vec<(String, String, i64)>,
}

pub(super) fn node(id: &str, name: &str, children: Vec<Node>) -> Node {
    Node {
        id: id.to_string(),
        name: name.to_string(),
        active: true,
        children,
        comps: vec![("cc.Label".to_string(), format!("{id}L"), 1)],
    }
}

/// The scene as the editor lays it out: asset, scene, then each node, its subtree, its
/// components.
pub(super) fn scene(children: &[Node]) -> String {
    let mut els: Vec<Jv> =
        vec![json!({"__type__": "cc.SceneAsset", "_name": "", "scene": {"__id__": 1}})];
    els.push(json!({"__type__": "cc.Scene", "_parent": null, "_children": [], "_components": [], "_id": "scene"}));
    let kids: Vec<Jv> = children.iter().map(|c| lay(c, 1, &mut els)).collect();
    els[1]["_children"] = Jv::Array(kids);
    serde_json::to_string_pretty(&Jv::Array(els)).unwrap()
}

fn lay(n: &Node, parent: usize, els: &mut Vec<Jv>) -> Jv {
    let me = els.len();
    els.push(
        json!({"__type__": "cc.Node", "_name": n.name, "_parent": {"__id__": parent},
        "_children": [], "_active": n.active, "_components": [], "_id": n.id}),
    );
    let kids: Vec<Jv> = n.children.iter().map(|c| lay(c, me, els)).collect();
    let mut comps = Vec::new();
    for (ty, id, v) in &n.comps {
        comps.push(json!({"__id__": els.len()}));
        els.push(json!({"__type__": ty, "node": {"__id__": me}, "_string": v, "_id": id}));
    }
    els[me]["_children"] = Jv::Array(kids);
    els[me]["_components"] = Jv::Array(comps);
    json!({"__id__": me})
}

pub(super) fn merged(base: &str, ours: &str, theirs: &str, policy: Policy) -> (Jv, Structural) {
    let doc = |t: &str| Document::parse(t, Dialect::Json).unwrap();
    let (b, o, t) = (doc(base), doc(ours), doc(theirs));
    assert!(is_cocos(&b) && is_cocos(&o) && is_cocos(&t));
    let options = MergeOptions {
        policy,
        ..MergeOptions::default()
    };
    let out = merge_cocos(&b, &o, &t, &options).unwrap();
    (serde_json::from_str(&out.text).unwrap(), out)
}

fn r(v: &Jv) -> Option<usize> {
    v.get("__id__")?.as_u64().map(|n| n as usize)
}

fn all_refs(v: &Jv, out: &mut Vec<usize>) {
    match v {
        Jv::Object(m) if m.len() == 1 && m.contains_key("__id__") => out.extend(r(v)),
        Jv::Object(m) => m.values().for_each(|x| all_refs(x, out)),
        Jv::Array(a) => a.iter().for_each(|x| all_refs(x, out)),
        _ => {}
    }
}

/// What the real-merge checker reports (tools/cocos_tree.py, evaluate.py).
pub(super) fn issues(arr: &Jv) -> Vec<String> {
    let arr = arr.as_array().unwrap();
    let n = arr.len();
    let mut out = Vec::new();
    let mut referenced = vec![false; n];
    for (i, el) in arr.iter().enumerate() {
        let mut refs = Vec::new();
        all_refs(el, &mut refs);
        for t in refs {
            match referenced.get_mut(t) {
                Some(x) => *x = true,
                None => out.push(format!("[{i}] __id__ {t} out of range")),
            }
        }
        let list = |k: &str| el[k].as_array().cloned().unwrap_or_default();
        for c in list("_children").iter().filter_map(r).filter(|&c| c < n) {
            if r(&arr[c]["_parent"]) != Some(i) {
                out.push(format!("[{i}]._children -> [{c}] whose _parent differs"));
            }
        }
        for c in list("_components").iter().filter_map(r).filter(|&c| c < n) {
            if r(&arr[c]["node"]) != Some(i) {
                out.push(format!("[{i}]._components -> [{c}] whose node differs"));
            }
        }
        if let Some(p) = r(&el["_parent"]).filter(|&p| p < n) {
            if !arr[p]["_children"]
                .as_array()
                .is_some_and(|l| l.iter().any(|c| r(c) == Some(i)))
            {
                out.push(format!("[{i}]._parent [{p}] does not list it"));
            }
        }
    }
    for (i, seen) in referenced.iter().enumerate().skip(1) {
        if !seen {
            out.push(format!("[{i}] unreferenced"));
        }
    }
    let mut ids: Vec<&str> = arr
        .iter()
        .filter_map(|e| e["_id"].as_str())
        .filter(|s| !s.is_empty())
        .collect();
    ids.sort();
    if ids.windows(2).any(|w| w[0] == w[1]) {
        out.push("duplicate _id".to_string());
    }
    out
}

/// The node paths of a result, each with its components' types.
fn paths(arr: &Jv) -> Vec<String> {
    let arr = arr.as_array().unwrap();
    let mut out = Vec::new();
    fn walk(arr: &[Jv], i: usize, prefix: &str, out: &mut Vec<String>) {
        for c in arr[i]["_children"].as_array().unwrap().iter().filter_map(r) {
            let p = format!("{prefix}/{}", arr[c]["_name"].as_str().unwrap());
            out.push(p.clone());
            walk(arr, c, &p, out);
        }
    }
    walk(arr, 1, "", &mut out);
    out
}

pub(super) fn base_tree() -> Vec<Node> {
    vec![
        node(
            "c",
            "Canvas",
            vec![node(
                "m",
                "Menu",
                vec![node("s", "Start", vec![]), node("q", "Quit", vec![])],
            )],
        ),
        node("k", "Camera", vec![]),
    ]
}

#[test]
fn both_sides_add_nodes_under_one_parent() {
    let base = base_tree();
    let mut ours = base.clone();
    ours[0].children[0]
        .children
        .push(node("o1", "Options", vec![]));
    let mut theirs = base.clone();
    theirs[0].children[0]
        .children
        .insert(0, node("t1", "Title", vec![node("t2", "Logo", vec![])]));
    let (out, outcome) = merged(
        &scene(&base),
        &scene(&ours),
        &scene(&theirs),
        Policy::Theirs,
    );
    assert_eq!(issues(&out), Vec::<String>::new());
    assert!(outcome.conflicts.is_empty(), "{:?}", outcome.conflicts);
    assert_eq!(
        paths(&out),
        [
            "/Canvas",
            "/Canvas/Menu",
            "/Canvas/Menu/Title",
            "/Canvas/Menu/Title/Logo",
            "/Canvas/Menu/Start",
            "/Canvas/Menu/Quit",
            "/Canvas/Menu/Options",
            "/Camera"
        ]
    );
}

#[test]
fn a_deleted_subtree_one_side_edited_follows_the_policy() {
    let base = base_tree();
    let mut ours = base.clone();
    ours[0].children.clear();
    let mut theirs = base.clone();
    theirs[0].children[0].children[0].comps[0].2 = 7;
    let (b, o, t) = (scene(&base), scene(&ours), scene(&theirs));
    let (kept, outcome) = merged(&b, &o, &t, Policy::Theirs);
    assert_eq!(issues(&kept), Vec::<String>::new());
    assert!(
        paths(&kept).contains(&"/Canvas/Menu/Start".to_string()),
        "{:?}",
        paths(&kept)
    );
    assert!(!outcome.conflicts.is_empty());
    let (gone, _) = merged(&b, &o, &t, Policy::Ours);
    assert_eq!(issues(&gone), Vec::<String>::new());
    assert_eq!(paths(&gone), ["/Canvas", "/Camera"]);
}

#[test]
fn a_node_moved_between_parents_carries_the_other_sides_edit() {
    let base = base_tree();
    let mut ours = base.clone();
    let start = ours[0].children[0].children.remove(0);
    ours[1].children.push(start);
    let mut theirs = base.clone();
    theirs[0].children[0].children[0].name = "Begin".to_string();
    theirs[0].children[0]
        .children
        .push(node("h", "Help", vec![]));
    let (out, _) = merged(
        &scene(&base),
        &scene(&ours),
        &scene(&theirs),
        Policy::Theirs,
    );
    assert_eq!(issues(&out), Vec::<String>::new());
    assert_eq!(
        paths(&out),
        [
            "/Canvas",
            "/Canvas/Menu",
            "/Canvas/Menu/Quit",
            "/Canvas/Menu/Help",
            "/Camera",
            "/Camera/Begin"
        ]
    );
}

#[test]
fn an_unchanged_side_gives_the_other_sides_text() {
    let base = scene(&base_tree());
    let mut ours = base_tree();
    ours[1].active = false;
    let ours = scene(&ours);
    let (_, outcome) = merged(&base, &ours, &base, Policy::Theirs);
    assert_eq!(outcome.text, ours);
}

#[test]
fn only_cocos_graphs_are_cocos() {
    let is = |t: &str| is_cocos(&Document::parse(t, Dialect::Json).unwrap());
    assert!(is(&scene(&base_tree())));
    assert!(is(r#"[{"__type__": "cc.Node", "_parent": {"__id__": 0}}]"#));
    assert!(!is(r#"[{"__type__": "x"}, {"__type__": "y"}]"#));
    assert!(!is(r#"[{"__type__": "cc.SceneAsset"}, 3]"#));
    assert!(!is(r#"{"__type__": "cc.SceneAsset"}"#));
    assert!(!is("[]"));
}

#[test]
fn objects_are_named_by_node_path_and_component_type() {
    let text = scene(&base_tree());
    let doc = Document::parse(&text, Dialect::Json).unwrap();
    let arr: Jv = serde_json::from_str(&text).unwrap();
    let at = |name: &str| {
        arr.as_array()
            .unwrap()
            .iter()
            .position(|e| e["_name"] == name)
            .unwrap()
    };
    assert_eq!(
        names::object_name(doc.root(), at("Start")).as_deref(),
        Some("Canvas/Menu/Start")
    );
    let label = r(&arr[at("Quit")]["_components"][0]).unwrap();
    assert_eq!(
        names::object_name(doc.root(), label).as_deref(),
        Some("Canvas/Menu/Quit<cc.Label>")
    );
}

/// One edit of a generated scene: (what, which node, where to).
type Edit = (u8, u16, u16);

fn flatten(nodes: &[Node]) -> usize {
    nodes.iter().map(|n| 1 + flatten(&n.children)).sum()
}

/// The `k`-th node in document order, taken out of the tree.
fn take(nodes: &mut Vec<Node>, k: &mut usize) -> Option<Node> {
    for i in 0..nodes.len() {
        if *k == 0 {
            return Some(nodes.remove(i));
        }
        *k -= 1;
        if let Some(n) = take(&mut nodes[i].children, k) {
            return Some(n);
        }
    }
    None
}

/// The children list of the `k`-th node (the top level when `k` is past the end).
fn list_at<'a>(nodes: &'a mut [Node], k: &mut usize) -> Option<&'a mut Vec<Node>> {
    for n in nodes.iter_mut() {
        if *k == 0 {
            return Some(&mut n.children);
        }
        *k -= 1;
        if let Some(l) = list_at(&mut n.children, k) {
            return Some(l);
        }
    }
    None
}

fn apply(nodes: &mut Vec<Node>, edits: &[Edit], side: &str) {
    for (n, &(what, a, b)) in edits.iter().enumerate() {
        let count = flatten(nodes).max(1);
        let (a, b) = (a as usize % count, b as usize % (count + 1));
        match what % 4 {
            0 => {
                let new = node(&format!("{side}{n}"), &format!("N{}", b % 3), vec![]);
                match list_at(nodes, &mut { b }) {
                    Some(list) => list.insert(0, new),
                    None => nodes.push(new),
                }
            }
            1 => {
                take(nodes, &mut { a });
            }
            2 => {
                if let Some(moved) = take(nodes, &mut { a }) {
                    match list_at(nodes, &mut { b }) {
                        Some(list) => list.push(moved),
                        None => nodes.push(moved),
                    }
                }
            }
            _ => {
                if let Some(list) = list_at(nodes, &mut { a }) {
                    list.iter_mut().for_each(|c| c.comps[0].2 += 1);
                }
            }
        }
    }
}

fn edits() -> impl Strategy<Value = Vec<Edit>> {
    prop::collection::vec((any::<u8>(), any::<u16>(), any::<u16>()), 0..6)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn any_edits_on_both_sides_keep_the_graph_whole(ours_edits in edits(), theirs_edits in edits(), theirs_wins in any::<bool>()) {
        let base = base_tree();
        let (mut ours, mut theirs) = (base.clone(), base.clone());
        apply(&mut ours, &ours_edits, "o");
        apply(&mut theirs, &theirs_edits, "t");
        let policy = if theirs_wins { Policy::Theirs } else { Policy::Ours };
        let (out, outcome) = merged(&scene(&base), &scene(&ours), &scene(&theirs), policy);
        prop_assert_eq!(issues(&out), Vec::<String>::new());
        // Laid out as the editor writes it, as the sides are.
        let result = Document::parse(&outcome.text, Dialect::Json).unwrap();
        prop_assert!(in_editor_order(&elements(&result)));
    }
}

#[test]
fn conflicts_are_named_by_node_path_and_component_type() {
    let base = base_tree();
    let (mut ours, mut theirs) = (base.clone(), base.clone());
    ours[0].children[0].children[0].comps[0].2 = 5;
    theirs[0].children[0].children[0].comps[0].2 = 6;
    // Theirs also inserts before it, so that positions differ between the versions.
    theirs[0].children.insert(0, node("x", "Backdrop", vec![]));
    let (_, outcome) = merged(
        &scene(&base),
        &scene(&ours),
        &scene(&theirs),
        Policy::Theirs,
    );
    assert_eq!(outcome.conflicts.len(), 1, "{:?}", outcome.conflicts);
    let result = Document::parse(&outcome.text, Dialect::Json).unwrap();
    let names = crate::naming::Names::new(vec![result.root()], &[], &[]);
    assert_eq!(
        names.report_path(&outcome.conflicts[0].path),
        "Canvas/Menu/Start<cc.Label>._string"
    );
}

#[test]
fn a_diff_names_objects_by_node_path_and_ignores_renumbering() {
    let base = base_tree();
    let mut new = base.clone();
    new[0].children[0]
        .children
        .insert(0, node("o", "Options", vec![]));
    new[1].active = false;
    let doc = |t: &str| Document::parse(t, Dialect::Json).unwrap();
    let (old, new) = (doc(&scene(&base)), doc(&scene(&new)));
    let lines = diff::diff_lines(&old, &new, &Default::default()).unwrap();
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("+ Canvas/Menu/Options: ")),
        "{lines:?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("+ Canvas/Menu/Options<cc.Label>: ")),
        "{lines:?}"
    );
    assert!(
        lines.contains(&"Camera._active: true → false".to_string()),
        "{lines:?}"
    );
    let raw = ["__key__", "__ref__", "__id__"];
    assert!(
        lines.iter().all(|l| raw.iter().all(|r| !l.contains(r))),
        "{lines:?}"
    );
    let plain = doc(r#"{"a": 1}"#);
    assert!(diff::diff_lines(&plain, &plain, &Default::default()).is_none());
}

/// An arbitrary Cocos-like array: each element a typed object whose `_parent`, `node`,
/// `_children`, `_components` and `_prefab` name any position (in range or not, itself,
/// cycles), with or without an `_id` (shared ids too).
fn arbitrary_graph() -> impl Strategy<Value = String> {
    let element = (
        any::<u8>(),
        any::<u8>(),
        prop::collection::vec(any::<u8>(), 0..4),
        any::<u8>(),
    );
    prop::collection::vec(element, 1..12).prop_map(|els| {
        let len = els.len() as u8 + 2;
        let items: Vec<Jv> = els
            .iter()
            .enumerate()
            .map(|(i, (a, b, list, id))| {
                let first = if i == 0 { "cc.SceneAsset" } else { "cc.Node" };
                let mut el = json!({"__type__": first, "_name": format!("n{}", a % 3),
                    "_parent": {"__id__": a % len}, "_children": list.iter().map(|x| json!({"__id__": x % len})).collect::<Vec<_>>(),
                    "_components": [{"__id__": b % len}], "node": {"__id__": b % len}, "_prefab": {"__id__": id % len}});
                if id % 3 > 0 {
                    el["_id"] = json!(format!("id{}", id % 5));
                }
                el
            })
            .collect();
        serde_json::to_string_pretty(&Jv::Array(items)).unwrap()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]
    #[test]
    fn any_graph_merges_without_panic_into_references_in_range(
        base in arbitrary_graph(), ours in arbitrary_graph(), theirs in arbitrary_graph()
    ) {
        let doc = |t: &str| Document::parse(t, Dialect::Json).unwrap();
        let (b, o, t) = (doc(&base), doc(&ours), doc(&theirs));
        let out = merge_cocos(&b, &o, &t, &MergeOptions::default()).unwrap();
        let arr: Jv = serde_json::from_str(&out.text).unwrap();
        let len = arr.as_array().unwrap().len();
        let mut refs = Vec::new();
        all_refs(&arr, &mut refs);
        prop_assert!(refs.iter().all(|&r| r < len), "{}", out.text);
        let result = Document::parse(&out.text, Dialect::Json).unwrap();
        let names = crate::naming::Names::new(vec![result.root()], &[], &[]);
        for c in &out.conflicts {
            names.report_path(&c.path);
            // No internal token of the keyed form reaches a report.
            let (path, referrer) = (Some(c.path.to_string()), c.referrer.as_ref().map(|r| r.to_string()));
            let texts = [path.as_ref(), c.base.as_ref(), c.ours.as_ref(), c.theirs.as_ref(), referrer.as_ref()];
            for text in texts.into_iter().flatten() {
                prop_assert!(!text.contains(REF) && !text.contains(KEY), "{:?}", c);
            }
        }
        diff::diff_lines(&b, &result, &Default::default());
    }
}
