//! End to end: `assetvc.toml`'s `[profiles]` reaches every merge of the porcelain, not only
//! the driver and `merge-file`. A Tiled map whose content does not say so (no
//! `"tiledversion"`: the generic JSON profile by its name and its content) is mapped to
//! `tiled` by `[profiles]`; both sides add an object drawing the same new id from the
//! map's counter. With the profile theirs' object is renumbered and both are kept, through
//! `assetvc merge`, the merge strategy (`git merge -s assetvc`) and `assetvc pr check`;
//! without it the same merge does not renumber.

use crate::common;

use std::path::{Path, PathBuf};

use common::{assetvc_expect, git_home, isolated, run, test_data};
use serde_json::{json, Value};

const MAP: &str = "maps/town.json";
const PROFILES: &str = "[profiles]\n\"maps/*.json\" = \"tiled\"\n";

/// The real Tiled sample without the member that tells its format by content.
fn unmarked_map() -> Value {
    let text = std::fs::read_to_string(test_data().join("maps/excalibur-tiled__test.json"));
    let mut map: Value = serde_json::from_str(&text.unwrap()).unwrap();
    map.as_object_mut().unwrap().remove("tiledversion");
    map
}

/// `map` with an object named `name` added under the map's next object id.
fn with_object(map: &Value, name: &str) -> String {
    let mut map = map.clone();
    let id = map["nextobjectid"].as_u64().unwrap();
    map["nextobjectid"] = json!(id + 1);
    let objects = map["layers"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find_map(|l| l["objects"].as_array_mut())
        .unwrap();
    objects.push(json!({"id": id, "name": name, "type": "", "x": 16, "y": 16,
        "width": 16, "height": 16, "rotation": 0, "visible": true}));
    serde_json::to_string_pretty(&map).unwrap()
}

/// A repository in `home/work` whose `[profiles]` maps the map to Tiled: the map on
/// `main`, branch `a` adding a chest and branch `b` a lamp with the same new id; `a`
/// checked out.
fn setup(home: &Path) -> PathBuf {
    let dir = home.join("work");
    std::fs::create_dir_all(dir.join("maps")).unwrap();
    git_home(&dir, home, &["init", "-q", "-b", "main"]);
    let base = unmarked_map();
    std::fs::write(dir.join("assetvc.toml"), PROFILES).unwrap();
    std::fs::write(dir.join(MAP), serde_json::to_string_pretty(&base).unwrap()).unwrap();
    git_home(&dir, home, &["add", "."]);
    git_home(&dir, home, &["commit", "-q", "-m", "base"]);
    for (branch, name) in [("b", "lamp"), ("a", "chest")] {
        git_home(&dir, home, &["checkout", "-q", "-B", branch, "main"]);
        std::fs::write(dir.join(MAP), with_object(&base, name)).unwrap();
        git_home(&dir, home, &["commit", "-q", "-am", name]);
    }
    dir
}

/// Asserts that the merged map keeps both sides' objects, each with an id of its own
/// below the map's counter.
fn assert_both_kept(dir: &Path) {
    let map: Value = serde_json::from_str(&std::fs::read_to_string(dir.join(MAP)).unwrap())
        .expect("the merged map is JSON");
    let objects: Vec<&Value> = map["layers"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|l| l["objects"].as_array())
        .flatten()
        .collect();
    let id = |name: &str| {
        let found = objects.iter().find(|o| o["name"] == name);
        found.unwrap_or_else(|| panic!("{name} lost: {map}"))["id"]
            .as_u64()
            .unwrap()
    };
    let (chest, lamp) = (id("chest"), id("lamp"));
    assert_ne!(chest, lamp, "theirs renumbered: {map}");
    let next = map["nextobjectid"].as_u64().unwrap();
    assert!(chest < next && lamp < next, "{chest}, {lamp} below {next}");
}

/// PATH with the directory of the built `git-merge-assetvc` first.
fn path_with_strategy() -> std::ffi::OsString {
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_git-merge-assetvc"));
    let mut dirs = vec![exe.parent().unwrap().to_path_buf()];
    dirs.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(dirs).unwrap()
}

#[test]
fn assetvc_merge_applies_the_configured_profile() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = setup(tmp.path());
    let (_, stderr) = assetvc_expect(&dir, tmp.path(), &["merge", "b"], 0);
    assert!(stderr.contains("renumbered"), "{stderr}");
    assert_both_kept(&dir);
}

#[test]
fn the_merge_strategy_applies_the_configured_profile() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = setup(tmp.path());
    let mut git = std::process::Command::new("git");
    isolated(&mut git, &dir, tmp.path())
        .env("PATH", path_with_strategy())
        .args(["merge", "-q", "--no-edit", "-s", "assetvc", "b"]);
    let out = run(&mut git);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("renumbered"), "{stderr}");
    assert_both_kept(&dir);
}

#[test]
fn pr_check_applies_the_configured_profile_and_without_it_does_not_renumber() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = setup(tmp.path());
    let check = || assetvc_expect(&dir, tmp.path(), &["pr", "check", "b", "a", "--json"], 0);
    let (with_profile, _) = check();
    assert!(with_profile.contains("renumbered"), "{with_profile}");
    // The same merge when nothing says the file is a Tiled map.
    std::fs::write(dir.join("assetvc.toml"), "").unwrap();
    let out = run(isolated(
        common::assetvc().args(["pr", "check", "b", "a", "--json"]),
        &dir,
        tmp.path(),
    ));
    let without = String::from_utf8_lossy(&out.stdout);
    assert!(!without.contains("renumbered"), "{without}");
}
