//! End to end: what assetvc shows of a game engine's files is in the engine's terms. A
//! Cocos object by its node path and component type (never an array position or an
//! internal `{"__ref__": …}` token), in `diff REV REV` as in `diff A B`, in conflict
//! values and on the review page.

use crate::cocos_graph::{base_nodes, labels, scene, Node};
use crate::common::{self, test_data, TestRepo};
use crate::review_page::{assert_not_blank, chromium, count, dom, screenshot};

/// Internal spellings that must never reach people.
const INTERNAL: [&str; 3] = ["__id__", "__ref__", "__key__"];

#[test]
fn diff_of_two_revisions_names_cocos_objects_by_node_path() {
    let base = base_nodes();
    let mut new = base.clone();
    // Inserted first under Menu: every later object is renumbered.
    new[0].2[0].2.insert(0, Node("o", "Options", vec![]));
    let repo = TestRepo::new();
    repo.write("scene.json", &scene(&base, &labels));
    repo.commit("base");
    repo.write(
        "scene.json",
        &scene(&new, &|id| if id == "q" { 3 } else { 1 }),
    );
    repo.commit("new");
    let (stdout, stderr) = repo.assetvc_expect(&["diff", "HEAD~1", "HEAD"], 0);
    assert!(
        stdout.contains("+ Canvas/Menu/Options: "),
        "{stdout}{stderr}"
    );
    assert!(
        stdout.contains("Canvas/Menu/Quit<cc.Label>._string: 1 → 3"),
        "{stdout}"
    );
    for internal in INTERNAL {
        assert!(!stdout.contains(internal), "{internal} in {stdout}");
    }
    // Only the renumbering: no object changed, and the diff says so.
    repo.write("scene.json", &scene(&new, &labels));
    repo.commit("labels back");
    let (stdout, _) = repo.assetvc_expect(&["diff", "HEAD~2", "HEAD"], 0);
    let lines: Vec<&str> = stdout.lines().filter(|l| !l.starts_with("diff ")).collect();
    assert!(!lines.is_empty(), "{stdout}");
    assert!(
        lines.iter().all(|l| l.starts_with("+ Canvas/Menu")),
        "{stdout}"
    );
}

#[test]
fn a_conflicting_reference_shows_the_node_path_it_points_at() {
    let base = base_nodes();
    let (mut ours, mut theirs) = (base.clone(), base.clone());
    // Both move Start: ours under Camera, theirs under Canvas.
    let start = ours[0].2[0].2.remove(0);
    ours[1].2.push(start);
    let start = theirs[0].2[0].2.remove(0);
    theirs[0].2.push(start);
    let tmp = tempfile::tempdir().unwrap();
    let texts = [&base, &ours, &theirs].map(|nodes| scene(nodes, &labels));
    let out = common::merge_three(
        tmp.path(),
        "json",
        [&texts[0], &texts[1], &texts[2]],
        &["merge-file", "--json"],
    );
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), common::stderr(&out));
    assert!(out.status.success(), "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).expect(&stdout);
    let conflicts = report["conflicts"].as_array().expect("conflicts");
    let parent = conflicts
        .iter()
        .find(|c| c["path"].as_str().is_some_and(|p| p.ends_with("/_parent")))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert_eq!(parent["ours"], "@Camera", "{stdout}");
    assert_eq!(parent["theirs"], "@Canvas", "{stdout}");
    assert_eq!(parent["base"], "@Canvas/Menu", "{stdout}");
    for internal in INTERNAL {
        assert!(!stdout.contains(internal), "{internal} in {stdout}");
        assert!(!stderr.contains(internal), "{internal} in {stderr}");
    }
}

/// The excalibur-tiled test map with the object `Start` moved and three cells of the
/// `Ground` layer painted (x 2..4, y 3..5).
fn tiled_edit() -> (String, String) {
    let text = std::fs::read_to_string(test_data().join("maps/excalibur-tiled__test.json"))
        .expect("the sample map");
    let mut map: serde_json::Value = serde_json::from_str(&text).unwrap();
    let start = map["layers"][2]["objects"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|o| o["name"] == "Start")
        .unwrap();
    start["x"] = 480.into();
    let data = map["layers"][0]["data"].as_array_mut().unwrap();
    for (x, y) in [(2, 3), (4, 5), (3, 3)] {
        data[y * 10 + x] = 99.into();
    }
    (text, serde_json::to_string_pretty(&map).unwrap())
}

#[test]
fn review_page_shows_engine_objects_by_node_path_layer_and_grid_box() {
    let base = base_nodes();
    let mut new = base.clone();
    new[0].2[0].2.insert(0, Node("o", "Options", vec![]));
    let (map_old, map_new) = tiled_edit();
    let repo = TestRepo::new();
    repo.write("scene.json", &scene(&base, &labels));
    repo.write("map.json", &map_old);
    repo.commit("base");
    repo.write(
        "scene.json",
        &scene(&new, &|id| if id == "q" { 3 } else { 1 }),
    );
    repo.write("map.json", &map_new);
    repo.commit("new");
    let page = repo.path("review.html");
    let out = repo.assetvc(&["diff", "HEAD~1", "HEAD", "--html", "review.html"]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let html = std::fs::read_to_string(&page).unwrap();
    for internal in INTERNAL {
        assert!(!html.contains(internal), "{internal} on the page");
    }
    // Cocos: cards by node path and component type, the renumbering no change.
    assert!(html.contains("<h3>Canvas/Menu/Options</h3>"), "{html}");
    assert!(html.contains("<h3>Canvas/Menu/Quit&lt;cc.Label&gt;</h3>"));
    assert!(html.contains("_string"));
    assert!(
        !html.contains("<h3>Canvas/Menu/Start"),
        "Start only renumbered"
    );
    // Tiled: the object by its name and its layer's, the grid as a count and a box.
    assert!(
        html.contains("layers[Excalibur #3].objects[Start #10]"),
        "{html}"
    );
    assert!(html.contains("3 cells changed in x 2..4, y 3..5"), "{html}");
    assert!(html.contains("layers[Ground #1]"));
    let Some(browser) = chromium() else { return };
    let dom = dom(&browser, &page);
    assert_eq!(
        count(&dom, "<article class=\"card a\""),
        2,
        "Options and its label"
    );
    assert!(dom.contains("3 cells changed in x 2..4, y 3..5"));
    let shot = screenshot(&browser, &page, "engine");
    // Added (green) and modified (blue) cards.
    assert_not_blank(&shot, &[[0x1D, 0xB3, 0x8A], [0x56, 0xB4, 0xE9]]);
}
