//! End to end: plain `git merge` with the assetvc driver on map editors' files (a real
//! Tiled map and a real LDtk project from `tests/data/maps/`, see its README): both sides
//! add objects that draw the same id from the file's counter, both paint the same tile
//! grid, one resizes it. The result keeps every object with a unique id below its
//! counter, and every grid holds exactly width × height cells with both sides' painting.

use crate::common;

use common::TestRepo;
use serde_json::{json, Value};

fn sample(name: &str) -> String {
    std::fs::read_to_string(common::test_data().join("maps").join(name)).unwrap()
}

/// A repository with the driver configured by hand and `path` holding `text` on `main`.
fn setup(path: &str, text: &str) -> TestRepo {
    let repo = TestRepo::new();
    let driver = format!(
        "{} merge-driver -- %O %A %B %P",
        env!("CARGO_BIN_EXE_assetvc")
    );
    repo.git(&["config", "merge.assetvc.driver", &driver]);
    repo.write(
        ".gitattributes",
        "*.json merge=assetvc\n*.ldtk merge=assetvc\n",
    );
    // LDtk files are JSON (until the dialect is told by content).
    repo.write(
        "assetvc.toml",
        "[assets]\njson = [\"*.json\", \"*.ldtk\"]\n",
    );
    repo.write(path, text);
    repo.commit("base");
    repo
}

/// Commits `value` as `path` on a new branch `branch` from `main`.
fn commit_on(repo: &TestRepo, branch: &str, path: &str, value: &Value) {
    repo.git(&["checkout", "-q", "-B", branch, "main"]);
    repo.write(path, &serde_json::to_string_pretty(value).unwrap());
    repo.git(&["commit", "-q", "-am", branch]);
}

/// Merges `b` into `a` with plain `git merge`, which must succeed; the merged file and
/// git's stderr.
fn merge(repo: &TestRepo, path: &str) -> (Value, String) {
    repo.git(&["checkout", "-q", "a"]);
    let out = repo.git_output(&["merge", "--no-edit", "b"]);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    let merged = serde_json::from_str(&repo.read(path)).expect("the result is JSON");
    (merged, stderr)
}

/// Sets the cell at (`x`, `y`) of the `width`-wide `grid`.
fn paint(grid: &mut Value, width: u64, (x, y): (u64, u64), v: u64) {
    grid[(y * width + x) as usize] = json!(v);
}

/// `layer`'s grid one column wider, the cells kept at their coordinates.
fn widen(layer: &mut Value) {
    let (w, h) = (
        layer["width"].as_u64().unwrap(),
        layer["height"].as_u64().unwrap(),
    );
    let old = layer["data"].as_array().unwrap().clone();
    let data: Vec<Value> = (0..h)
        .flat_map(|y| (0..=w).map(move |x| (x, y)))
        .map(|(x, y)| {
            if x < w {
                old[(y * w + x) as usize].clone()
            } else {
                json!(0)
            }
        })
        .collect();
    layer["data"] = json!(data);
    layer["width"] = json!(w + 1);
}

/// Adds an object named `name` to the object layer with the map's next object id.
fn add_object(map: &mut Value, name: &str, x: u64) -> u64 {
    let id = map["nextobjectid"].as_u64().unwrap();
    map["nextobjectid"] = json!(id + 1);
    let layer = map["layers"].as_array_mut().unwrap().iter_mut();
    let objects = layer
        .filter_map(|l| l["objects"].as_array_mut())
        .next()
        .unwrap();
    objects.push(json!({"id": id, "name": name, "type": "", "x": x, "y": 16,
        "width": 16, "height": 16, "rotation": 0, "visible": true}));
    id
}

#[test]
fn tiled_objects_added_by_both_keep_unique_ids_and_grids_merge_cell_by_cell() {
    let text = sample("excalibur-tiled__test.json");
    let base: Value = serde_json::from_str(&text).unwrap();
    let repo = setup("map.json", &text);
    let mut a = base.clone();
    let same_id = add_object(&mut a, "chest", 32);
    paint(&mut a["layers"][0]["data"], 10, (1, 1), 7);
    let mut b = base.clone();
    assert_eq!(add_object(&mut b, "lamp", 64), same_id);
    paint(&mut b["layers"][0]["data"], 10, (8, 2), 9);
    for layer in b["layers"].as_array_mut().unwrap() {
        if layer["type"] == "tilelayer" {
            widen(layer);
        }
    }
    b["width"] = json!(11);
    commit_on(&repo, "a", "map.json", &a);
    commit_on(&repo, "b", "map.json", &b);
    let (merged, stderr) = merge(&repo, "map.json");

    let objects: Vec<&Value> = merged["layers"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|l| l["objects"].as_array())
        .flatten()
        .collect();
    let id_of = |name: &str| objects.iter().find(|o| o["name"] == name).unwrap()["id"].as_u64();
    assert_eq!(id_of("chest"), Some(same_id), "ours keeps its id");
    let lamp = id_of("lamp").expect("theirs' object is kept");
    assert_ne!(lamp, same_id);
    let mut ids: Vec<u64> = objects.iter().map(|o| o["id"].as_u64().unwrap()).collect();
    let next = merged["nextobjectid"].as_u64().unwrap();
    assert!(ids.iter().all(|&id| id < next), "{ids:?} below {next}");
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), objects.len(), "unique ids");

    let ground = &merged["layers"][0];
    assert_eq!(ground["width"], 11);
    let data = ground["data"].as_array().unwrap();
    assert_eq!(data.len(), 110, "width × height cells");
    assert_eq!(
        data[11 + 1],
        7,
        "ours' painting, at its coordinates in the wider grid"
    );
    assert_eq!(data[2 * 11 + 8], 9, "theirs' painting");
    assert!(stderr.contains("renumbered"), "{stderr}");
}

/// A copy of `level` as a new level named `name` with `uid` and fresh iids.
fn new_level(level: &Value, name: &str, uid: u64) -> Value {
    let mut level = level.clone();
    level["identifier"] = json!(name);
    level["uid"] = json!(uid);
    level["iid"] = json!(format!("{name}-0000-11ee-be94-000000000000"));
    level["worldX"] = json!(1000 + uid * 400);
    for (i, layer) in level["layerInstances"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .enumerate()
    {
        layer["iid"] = json!(format!("{name}-{i}-11ee-be94-000000000000"));
        layer["levelId"] = json!(uid);
        layer["entityInstances"] = json!([]);
    }
    level
}

#[test]
fn ldtk_levels_added_by_both_are_kept_apart_and_int_grids_merge_cell_by_cell() {
    let text = sample("ldtkgo__example.ldtk");
    let base: Value = serde_json::from_str(&text).unwrap();
    let repo = setup("world.ldtk", &text);
    let uid = base["nextUid"].as_u64().unwrap();
    let mut a = base.clone();
    a["nextUid"] = json!(uid + 1);
    let level = a["levels"][1].clone();
    a["levels"]
        .as_array_mut()
        .unwrap()
        .push(new_level(&level, "Cave", uid));
    paint(grid(&mut a), 20, (3, 4), 2);
    let mut b = base.clone();
    b["nextUid"] = json!(uid + 1);
    b["levels"]
        .as_array_mut()
        .unwrap()
        .push(new_level(&level, "Tower", uid));
    paint(grid(&mut b), 20, (10, 1), 3);
    commit_on(&repo, "a", "world.ldtk", &a);
    commit_on(&repo, "b", "world.ldtk", &b);
    let (mut merged, _) = merge(&repo, "world.ldtk");

    let levels = merged["levels"].as_array().unwrap();
    assert_eq!(levels.len(), 5, "both new levels are kept");
    let uid_of = |n: &str| levels.iter().find(|l| l["identifier"] == n).unwrap()["uid"].as_u64();
    assert_eq!(uid_of("Cave"), Some(uid));
    let tower = uid_of("Tower").unwrap();
    assert_ne!(tower, uid);
    assert!(merged["nextUid"].as_u64().unwrap() > tower);
    let mut iids: Vec<String> = Vec::new();
    collect_iids(&merged, &mut iids);
    let count = iids.len();
    iids.sort();
    iids.dedup();
    assert_eq!(iids.len(), count, "unique iids");
    let cells = grid(&mut merged).as_array().unwrap();
    assert_eq!(cells.len(), 20 * 15);
    assert_eq!(
        (cells[4 * 20 + 3].clone(), cells[20 + 10].clone()),
        (json!(2), json!(3))
    );
}

/// The first level's IntGrid layer's cells.
fn grid(m: &mut Value) -> &mut Value {
    let layers = m["levels"][0]["layerInstances"].as_array_mut().unwrap();
    let layer = layers
        .iter_mut()
        .find(|l| l["__identifier"] == "IntGrid")
        .unwrap();
    &mut layer["intGridCsv"]
}

fn collect_iids(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(map) => {
            if let Some(Value::String(iid)) = map.get("iid") {
                out.push(iid.clone());
            }
            map.values().for_each(|c| collect_iids(c, out));
        }
        Value::Array(list) => list.iter().for_each(|c| collect_iids(c, out)),
        _ => {}
    }
}

#[test]
fn diff_names_a_grids_painting_as_one_line_with_its_bounding_box() {
    let text = sample("excalibur-tiled__test.json");
    let mut painted: Value = serde_json::from_str(&text).unwrap();
    for (x, y) in [(1, 1), (4, 2), (2, 2)] {
        paint(&mut painted["layers"][0]["data"], 10, (x, y), 99);
    }
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.json"), dir.path().join("b.json"));
    std::fs::write(&a, &text).unwrap();
    std::fs::write(&b, serde_json::to_string_pretty(&painted).unwrap()).unwrap();
    let out = common::run(common::assetvc().arg("diff").arg(&a).arg(&b));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 1, "{stdout}");
    assert!(lines[0].contains("Ground"), "{stdout}");
    assert!(
        lines[0].ends_with(".data: 3 cells changed in x 1..4, y 1..2"),
        "{stdout}"
    );
}
