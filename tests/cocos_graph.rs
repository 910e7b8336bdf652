//! End to end: Cocos Creator scenes (one flat array of objects that name each other by
//! position, `{"__id__": n}`) merged through plain `git merge` with the driver, and a real
//! merge replayed with `merge-file`: every reference in range, `_parent`/`_children` and
//! `node`/`_components` true both ways, no unreferenced object, conflicts named by node
//! path. (The files are named `.json` until `.fire`/`.scene`/`.prefab` are read as JSON.)

use crate::common;

use common::{data, test_data, TestRepo};
use serde_json::{json, Value};
use sjson::Dialect;

/// A node of a generated scene: id, name, children; each node has one `cc.Label`.
#[derive(Clone)]
pub(crate) struct Node(pub &'static str, pub &'static str, pub Vec<Node>);

/// The scene as the editor lays it out: asset, scene, each node, its subtree, its label.
pub(crate) fn scene(nodes: &[Node], label_of: &dyn Fn(&str) -> i64) -> String {
    let mut els = vec![
        json!({"__type__": "cc.SceneAsset", "_name": "", "scene": {"__id__": 1}}),
        json!({"__type__": "cc.Scene", "_parent": null, "_children": [], "_components": [], "_id": "scene"}),
    ];
    let kids: Vec<Value> = nodes
        .iter()
        .map(|n| lay(n, 1, &mut els, label_of))
        .collect();
    els[1]["_children"] = Value::Array(kids);
    serde_json::to_string_pretty(&Value::Array(els)).unwrap()
}

fn lay(n: &Node, parent: usize, els: &mut Vec<Value>, label_of: &dyn Fn(&str) -> i64) -> Value {
    let me = els.len();
    els.push(
        json!({"__type__": "cc.Node", "_name": n.1, "_parent": {"__id__": parent},
        "_children": [], "_components": [], "_id": n.0}),
    );
    let kids: Vec<Value> = n.2.iter().map(|c| lay(c, me, els, label_of)).collect();
    els[me]["_children"] = Value::Array(kids);
    els[me]["_components"] = json!([{"__id__": els.len()}]);
    els.push(json!({"__type__": "cc.Label", "node": {"__id__": me}, "_string": label_of(n.0), "_id": format!("{}L", n.0)}));
    json!({"__id__": me})
}

fn r(v: &Value) -> Option<usize> {
    v.get("__id__")?.as_f64().map(|n| n as usize)
}

fn refs(v: &Value, out: &mut Vec<usize>) {
    match v {
        Value::Object(m) if m.len() == 1 && m.contains_key("__id__") => out.extend(r(v)),
        Value::Object(m) => m.values().for_each(|x| refs(x, out)),
        Value::Array(a) => a.iter().for_each(|x| refs(x, out)),
        _ => {}
    }
}

/// What the real-merge checker reports on a Cocos array.
pub(crate) fn issues(arr: &Value) -> Vec<String> {
    let arr = arr.as_array().expect("an array");
    let mut out = Vec::new();
    let mut referenced = vec![false; arr.len()];
    for (i, el) in arr.iter().enumerate() {
        let mut targets = Vec::new();
        refs(el, &mut targets);
        for t in targets {
            match referenced.get_mut(t) {
                Some(seen) => *seen = true,
                None => out.push(format!("[{i}] __id__ {t} out of range")),
            }
        }
        for (down, up) in [("_children", "_parent"), ("_components", "node")] {
            for c in el[down].as_array().into_iter().flatten().filter_map(r) {
                if arr.get(c).and_then(|c| r(&c[up])) != Some(i) {
                    out.push(format!("[{i}].{down} -> [{c}] whose {up} differs"));
                }
            }
        }
        if let Some(p) = r(&el["_parent"]).filter(|&p| p < arr.len()) {
            let listed = arr[p]["_children"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|c| r(c) == Some(i));
            if !listed && arr[p]["__type__"] != "cc.SceneAsset" {
                out.push(format!("[{i}]._parent [{p}] does not list it"));
            }
        }
    }
    let orphans: Vec<usize> = (1..arr.len()).filter(|&i| !referenced[i]).collect();
    if !orphans.is_empty() {
        out.push(format!("unreferenced {orphans:?}"));
    }
    out
}

/// The node paths under the scene, in order.
fn paths(arr: &Value) -> Vec<String> {
    fn walk(arr: &[Value], i: usize, prefix: &str, out: &mut Vec<String>) {
        for c in arr[i]["_children"].as_array().unwrap().iter().filter_map(r) {
            let p = format!("{prefix}/{}", arr[c]["_name"].as_str().unwrap());
            out.push(p.clone());
            walk(arr, c, &p, out);
        }
    }
    let mut out = Vec::new();
    walk(arr.as_array().unwrap(), 1, "", &mut out);
    out
}

pub(crate) fn base_nodes() -> Vec<Node> {
    let menu = Node(
        "m",
        "Menu",
        vec![Node("s", "Start", vec![]), Node("q", "Quit", vec![])],
    );
    vec![Node("c", "Canvas", vec![menu]), Node("k", "Camera", vec![])]
}

pub(crate) fn labels(_: &str) -> i64 {
    1
}

/// A new repository whose `*.json` files git merges with the driver.
pub(crate) fn driver_repo() -> TestRepo {
    let repo = TestRepo::new();
    let driver = format!(
        "{} merge-driver -- %O %A %B %P",
        env!("CARGO_BIN_EXE_assetvc")
    );
    repo.git(&["config", "merge.assetvc.driver", &driver]);
    repo.write(".gitattributes", "*.json merge=assetvc\n");
    repo
}

/// A repository with the driver for `*.json` and `scene.json` (`base`) on `main`, `a` and
/// `b` branched from it with `ours` and `theirs`; checks out `a` and merges `b` with plain
/// `git merge`; returns the merged scene and git's stderr.
fn git_merge(base: &str, ours: &str, theirs: &str) -> (Value, String) {
    let repo = driver_repo();
    repo.write("scene.json", base);
    repo.commit("base");
    for (branch, text) in [("a", ours), ("b", theirs)] {
        repo.git(&["checkout", "-q", "-B", branch, "main"]);
        repo.write("scene.json", text);
        repo.git(&["commit", "-q", "-am", branch]);
    }
    repo.git(&["checkout", "-q", "a"]);
    let out = repo.git_output(&["merge", "--no-edit", "b"]);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    (data(&repo.read("scene.json"), Dialect::Json), stderr)
}

#[test]
fn both_sides_add_nodes_under_one_parent() {
    let base = base_nodes();
    let (mut ours, mut theirs) = (base.clone(), base.clone());
    ours[0].2[0].2.push(Node("o", "Options", vec![]));
    theirs[0].2[0]
        .2
        .insert(0, Node("t", "Title", vec![Node("l", "Logo", vec![])]));
    let (merged, stderr) = git_merge(
        &scene(&base, &labels),
        &scene(&ours, &labels),
        &scene(&theirs, &labels),
    );
    assert!(stderr.contains("merged cleanly"), "{stderr}");
    assert_eq!(issues(&merged), Vec::<String>::new());
    let expected = [
        "/Canvas",
        "/Canvas/Menu",
        "/Canvas/Menu/Title",
        "/Canvas/Menu/Title/Logo",
        "/Canvas/Menu/Start",
        "/Canvas/Menu/Quit",
        "/Canvas/Menu/Options",
        "/Camera",
    ];
    assert_eq!(paths(&merged), expected);
}

#[test]
fn a_subtree_deleted_on_one_side_and_edited_on_the_other_is_reported_by_node_path() {
    let base = base_nodes();
    let mut ours = base.clone();
    ours[0].2.clear();
    let edited = |id: &str| if id == "s" { 7 } else { 1 };
    let (merged, stderr) = git_merge(
        &scene(&base, &labels),
        &scene(&ours, &labels),
        &scene(&base, &edited),
    );
    assert_eq!(issues(&merged), Vec::<String>::new());
    // The default policy takes theirs: the edited label is kept, with its node and parents.
    assert_eq!(
        paths(&merged),
        ["/Canvas", "/Canvas/Menu", "/Canvas/Menu/Start", "/Camera"]
    );
    assert!(stderr.contains("Canvas/Menu/Start<cc.Label>"), "{stderr}");
    assert!(
        !stderr.contains("__id__") && !stderr.contains("__key__"),
        "{stderr}"
    );
}

#[test]
fn a_node_moved_between_parents_keeps_the_other_sides_edits() {
    let base = base_nodes();
    let mut ours = base.clone();
    let start = ours[0].2[0].2.remove(0);
    ours[1].2.push(start);
    let mut theirs = base.clone();
    theirs[0].2[0].2.push(Node("h", "Help", vec![]));
    let edited = |id: &str| if id == "s" { 9 } else { 1 };
    let (merged, _) = git_merge(
        &scene(&base, &labels),
        &scene(&ours, &labels),
        &scene(&theirs, &edited),
    );
    assert_eq!(issues(&merged), Vec::<String>::new());
    assert_eq!(
        paths(&merged),
        [
            "/Canvas",
            "/Canvas/Menu",
            "/Canvas/Menu/Quit",
            "/Canvas/Menu/Help",
            "/Camera",
            "/Camera/Start"
        ]
    );
    let label = merged
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["_id"] == "sL")
        .unwrap();
    assert_eq!(label["_string"].as_f64(), Some(9.0));
}

#[test]
fn a_real_cocos_merge_gives_the_authors_result() {
    let dir = test_data().join("cocos/kirikayakazuto_CocosCreator_UIFrameWork__e46dc8d2ec");
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let out = common::merge_three(
        tmp.path(),
        "json",
        [&read("base.json"), &read("ours.json"), &read("theirs.json")],
        &["merge-file", "-p"],
    );
    assert!(out.status.success(), "{}", common::stderr(&out));
    let merged = data(&String::from_utf8_lossy(&out.stdout), Dialect::Json);
    assert_eq!(issues(&merged), Vec::<String>::new());
    assert_eq!(merged, data(&read("human.json"), Dialect::Json));
}

#[test]
fn diff_shows_a_cocos_change_by_node_path() {
    let base = base_nodes();
    let mut new = base.clone();
    new[0].2[0].2.insert(0, Node("o", "Options", vec![]));
    let tmp = tempfile::tempdir().unwrap();
    common::write(tmp.path(), "old.json", &scene(&base, &labels));
    common::write(
        tmp.path(),
        "new.json",
        &scene(&new, &|id| if id == "q" { 3 } else { 1 }),
    );
    let out = common::run(
        common::assetvc()
            .args(["diff", "old.json", "new.json"])
            .current_dir(tmp.path()),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", common::stderr(&out));
    assert!(stdout.contains("+ Canvas/Menu/Options: "), "{stdout}");
    assert!(
        stdout.contains("Canvas/Menu/Quit<cc.Label>._string: 1 → 3"),
        "{stdout}"
    );
    assert!(!stdout.contains("__id__"), "{stdout}");
}
