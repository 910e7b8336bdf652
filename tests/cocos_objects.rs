//! End to end: the object commands on a Cocos scene's history and `resolve` after a merge
//! that renumbered the scene. Every command names an object by node path
//! (`Canvas/Menu/Start`, a component `Canvas/Menu/Start<cc.Label>`), takes that path as
//! its OBJECT, and follows an object across renumberings (an object added before it) and
//! renames (its `_id` stays). (The scene is `scene.json`, an asset by default.)

use crate::cocos_graph::{base_nodes, driver_repo, issues, labels, scene, Node};
use crate::common;

use common::{data, TestRepo};
use serde_json::Value;
use sjson::Dialect;

/// A scene's history: the base; `Options` added before `Menu` (every object after it
/// renumbered) with Start's label set to 5; Start renamed `Begin` with its label set to 6.
fn history() -> TestRepo {
    let repo = TestRepo::new();
    let base = base_nodes();
    repo.write("scene.json", &scene(&base, &labels));
    repo.commit("base");
    let mut more = base.clone();
    more[0].2.insert(0, Node("o", "Options", vec![]));
    repo.write(
        "scene.json",
        &scene(&more, &|id| if id == "s" { 5 } else { 1 }),
    );
    repo.commit("options first");
    let mut renamed = more.clone();
    renamed[0].2[1].2[0].1 = "Begin";
    repo.write(
        "scene.json",
        &scene(&renamed, &|id| if id == "s" { 6 } else { 1 }),
    );
    repo.commit("begin");
    repo
}

/// Asserts that the commit lines of a `log` (after its heading) say, in order, what
/// each commit did and its summary: `changed _string  begin`.
fn assert_did(stdout: &str, expected: &[(&str, &str)]) {
    let lines: Vec<&str> = stdout.lines().skip(1).collect();
    assert_eq!(lines.len(), expected.len(), "{stdout}");
    for (line, (did, summary)) in lines.iter().zip(expected) {
        assert!(line.ends_with(&format!(" {did}  {summary}")), "{stdout}");
    }
}

/// Asserts that `log OBJECT` heads its answer with the object's name and id `#ID` and
/// lists what each commit did as [`assert_did`] does.
fn assert_log(repo: &TestRepo, object: &str, id: &str, expected: &[(&str, &str)]) {
    let (out, _) = repo.assetvc_expect(&["log", object], 0);
    let heading = format!("{object} #{id} in scene.json\n");
    assert!(out.starts_with(&heading), "{out}");
    assert_did(&out, expected);
}

#[test]
fn log_names_a_cocos_object_by_node_path_across_a_renumbering_and_a_rename() {
    let repo = history();
    assert_log(
        &repo,
        "Canvas/Menu/Begin<cc.Label>",
        "sL",
        &[
            ("changed _string", "begin"),
            ("changed _string", "options first"),
            ("created in scene.json", "base"),
        ],
    );
    // The node: renamed, never changed by the renumbering of its links.
    assert_log(
        &repo,
        "Canvas/Menu/Begin",
        "s",
        &[
            ("changed _name", "begin"),
            ("created in scene.json", "base"),
        ],
    );
    let (out, _) = repo.assetvc_expect(&["log", "scene.json#Canvas/Menu/Quit"], 0);
    assert_did(&out, &[("created in scene.json", "base")]);
    let json: Value = serde_json::from_str(
        &repo
            .assetvc_expect(&["log", "Canvas/Menu/Quit<cc.Label>", "--json"], 0)
            .0,
    )
    .unwrap();
    assert_eq!(json["id"], "qL");
    assert_eq!(json["name"], "Canvas/Menu/Quit<cc.Label>");
    assert_eq!(json["commits"].as_array().unwrap().len(), 1, "{json}");
    let (out, _) = repo.assetvc_expect(&["log", "Canvas"], 0);
    assert!(!out.contains("__id__") && !out.contains("moved"), "{out}");
}

#[test]
fn log_says_a_cocos_object_was_renamed_when_a_node_above_it_was() {
    let repo = history();
    let mut nodes = base_nodes();
    nodes[0].2.insert(0, Node("o", "Options", vec![]));
    nodes[0].2[1].1 = "Main";
    nodes[0].2[1].2[0].1 = "Begin";
    repo.write(
        "scene.json",
        &scene(&nodes, &|id| if id == "s" { 6 } else { 1 }),
    );
    repo.commit("main menu");
    assert_log(
        &repo,
        "Canvas/Main/Quit<cc.Label>",
        "qL",
        &[
            ("renamed from Canvas/Menu/Quit<cc.Label>", "main menu"),
            ("created in scene.json", "base"),
        ],
    );
}

#[test]
fn blame_and_show_name_cocos_objects_by_node_path() {
    let repo = history();
    let (out, _) = repo.assetvc_expect(&["blame", "scene.json"], 0);
    // Objects in node-path order, each property with the commit that last changed it.
    let heads: Vec<&str> = out
        .lines()
        .filter(|l| !l.starts_with(' '))
        .map(|l| l.split("  ").next().unwrap_or(""))
        .collect();
    let at = |name: &str| heads.iter().position(|h| *h == name);
    let (canvas, menu, begin, label, quit) = (
        at("Canvas #c"),
        at("Canvas/Menu #m"),
        at("Canvas/Menu/Begin #s"),
        at("Canvas/Menu/Begin<cc.Label> #sL"),
        at("Canvas/Menu/Quit #q"),
    );
    assert!(
        canvas < menu && menu < begin && begin < label && label < quit,
        "{out}"
    );
    assert!(canvas.is_some(), "{out}");
    let lines: Vec<&str> = out.lines().collect();
    let property = |object: &str, prop: &str| -> String {
        let start = lines.iter().position(|l| l.starts_with(object)).unwrap();
        lines[start + 1..]
            .iter()
            .take_while(|l| l.starts_with(' '))
            .find(|l| l.trim_start().starts_with(&format!("{prop} ")))
            .unwrap_or_else(|| panic!("{object} {prop}: {out}"))
            .to_string()
    };
    assert!(property("Canvas/Menu/Begin<cc.Label> ", "_string").ends_with("  begin"));
    assert!(property("Canvas/Menu/Begin<cc.Label> ", "node").ends_with("  base"));
    assert!(property("Canvas/Menu/Begin ", "_name").ends_with("  begin"));
    // Renumbered links are not changes.
    assert!(
        property("Canvas/Menu/Quit ", "_parent").ends_with("  base"),
        "{out}"
    );
    assert!(
        property("Canvas/Menu ", "_children").ends_with("  base"),
        "{out}"
    );
    assert!(
        property("Canvas ", "_children").ends_with("  options first"),
        "{out}"
    );

    let (out, _) = repo.assetvc_expect(&["show", "Canvas/Menu/Begin<cc.Label>"], 0);
    let mut lines = out.lines();
    assert_eq!(
        lines.next(),
        Some("Canvas/Menu/Begin<cc.Label> #sL in scene.json at /[_id=sL] (worktree)"),
        "{out}"
    );
    assert!(out.contains("\"_string\": 6"), "{out}");
    let (out, _) = repo.assetvc_expect(&["show", "Canvas/Menu/Start", "--rev", "HEAD~1"], 0);
    assert!(
        out.starts_with("Canvas/Menu/Start #s in scene.json"),
        "{out}"
    );
    // Putting one object of a scene back alone would renumber the references after it.
    let (_, err) = repo.assetvc_expect(&["restore", "Canvas/Menu/Start", "--source", "HEAD~2"], 2);
    assert!(err.contains("Cocos"), "{err}");
}

/// A repository whose scene `a` and `b` both renumbered (each added a node before Start)
/// and both set the labels of Start and Quit: merged on `a` with plain `git merge`.
fn merged_scene() -> TestRepo {
    let repo = driver_repo();
    let base = base_nodes();
    repo.write("scene.json", &scene(&base, &labels));
    repo.commit("base");
    let mut ours = base.clone();
    ours[0].2.insert(0, Node("o", "Options", vec![]));
    let mut theirs = base.clone();
    theirs[0].2[0].2.insert(0, Node("t", "Title", vec![]));
    for (branch, nodes, label) in [("a", ours, 2), ("b", theirs, 3)] {
        repo.git(&["checkout", "-q", "-B", branch, "main"]);
        let text = scene(&nodes, &|id| if id == "s" || id == "q" { label } else { 1 });
        repo.write("scene.json", &text);
        repo.git(&["commit", "-q", "-am", branch]);
    }
    repo.git(&["checkout", "-q", "a"]);
    let out = repo.git_output(&["merge", "--no-edit", "b"]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    repo
}

/// The `_string` of the label whose `_id` is `id` in the worktree's scene.
fn label(repo: &TestRepo, id: &str) -> f64 {
    let scene = data(&repo.read("scene.json"), Dialect::Json);
    let el = scene.as_array().unwrap().iter().find(|e| e["_id"] == id);
    el.and_then(|e| e["_string"].as_f64()).unwrap()
}

#[test]
fn resolve_takes_a_cocos_node_path_and_reads_the_sides_own_object() {
    let repo = merged_scene();
    assert_eq!((label(&repo, "sL"), label(&repo, "qL")), (3.0, 3.0));
    let (out, _) = repo.assetvc_expect(&["conflicts"], 0);
    for node in ["Start", "Quit"] {
        let line =
            format!("scene.json Canvas/Menu/{node}<cc.Label>._string: both modified, took theirs");
        assert!(out.contains(&line), "{out}");
    }
    assert!(!out.contains("__id__"), "{out}");

    // A node: its component's conflict; ours' value read from ours' own label.
    let (out, _) = repo.assetvc_expect(
        &[
            "resolve",
            "scene.json",
            "Canvas/Menu/Start",
            "--take",
            "ours",
        ],
        0,
    );
    assert_eq!(
        out,
        "scene.json Canvas/Menu/Start<cc.Label>._string: took ours: 2\n"
    );
    assert_eq!((label(&repo, "sL"), label(&repo, "qL")), (2.0, 3.0));
    // The place as `conflicts` prints it.
    let (out, _) = repo.assetvc_expect(
        &[
            "resolve",
            "scene.json",
            "Canvas/Menu/Quit<cc.Label>._string",
            "--take",
            "base",
        ],
        0,
    );
    assert_eq!(
        out,
        "scene.json Canvas/Menu/Quit<cc.Label>._string: took base: 1\n"
    );
    assert_eq!(label(&repo, "qL"), 1.0);
    // The recorded position still works.
    let json: Value =
        serde_json::from_str(&repo.assetvc_expect(&["conflicts", "--json"], 0).0).unwrap();
    let pointer = json["files"][0]["conflicts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "Canvas/Menu/Quit<cc.Label>._string")
        .and_then(|c| c["path"].as_str())
        .unwrap()
        .to_string();
    repo.assetvc_expect(&["resolve", "scene.json", &pointer, "--take", "ours"], 0);
    assert_eq!(label(&repo, "qL"), 2.0);
    let scene = data(&repo.read("scene.json"), Dialect::Json);
    assert_eq!(issues(&scene), Vec::<String>::new());
    // A name that is no object: the objects with conflicts are listed by path.
    let (_, err) = repo.assetvc_expect(
        &[
            "resolve",
            "scene.json",
            "Canvas/Menu/Star",
            "--take",
            "ours",
        ],
        2,
    );
    assert!(err.contains("Canvas/Menu/Start<cc.Label>"), "{err}");
}

#[test]
fn resolve_finds_a_cocos_conflict_again_after_the_scene_was_renumbered() {
    let repo = merged_scene();
    // Saved again with one more node before Menu: every recorded position is stale.
    let mut nodes = base_nodes();
    nodes[0].2.insert(0, Node("o", "Options", vec![]));
    nodes[0].2.insert(0, Node("x", "Extra", vec![]));
    nodes[0].2[2].2.insert(0, Node("t", "Title", vec![]));
    repo.write(
        "scene.json",
        &scene(&nodes, &|id| if id == "s" || id == "q" { 3 } else { 1 }),
    );
    repo.assetvc_expect(&["resolve", "scene.json", "--all", "--take", "ours"], 0);
    assert_eq!((label(&repo, "sL"), label(&repo, "qL")), (2.0, 2.0));
    let scene = data(&repo.read("scene.json"), Dialect::Json);
    assert_eq!(issues(&scene), Vec::<String>::new());
    assert_eq!(scene.as_array().unwrap().len(), 2 + 2 * 8);
}

#[test]
fn who_names_the_cocos_objects_another_user_edits_by_node_path() {
    let team = crate::sync_support::Team::new();
    let url = team.file_url();
    let alice = team.clone_for("alice", &url);
    std::fs::write(alice.dir.join("scene.json"), scene(&base_nodes(), &labels)).unwrap();
    alice.git(&["add", "scene.json"]);
    alice.commit_and_push("scene");
    let bob = team.clone_for("bob", &url);
    // Bob adds a node before Menu (every object after it renumbered) and edits a label.
    let mut nodes = base_nodes();
    nodes[0].2.insert(0, Node("o", "Options", vec![]));
    let text = scene(&nodes, &|id| if id == "q" { 4 } else { 1 });
    std::fs::write(bob.dir.join("scene.json"), text).unwrap();
    bob.expect(&["sync"], 0);
    alice.expect(&["sync"], 0);
    let (out, _) = alice.expect(&["who"], 0);
    let lines: Vec<&str> = out
        .lines()
        .filter(|l| l.trim_start().starts_with("scene.json"))
        .map(str::trim)
        .collect();
    assert_eq!(
        lines,
        [
            "scene.json  Canvas  changed: _children",
            "scene.json  Canvas/Menu/Quit<cc.Label>  changed: _string",
            "scene.json  Canvas/Options  added",
            "scene.json  Canvas/Options<cc.Label>  added",
        ],
        "{out}"
    );
}
