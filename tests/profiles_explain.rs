//! End to end: `assetvc check --explain FILE` prints the engine profile the merge would
//! choose for the file (configuration, extension, content), and why.

use crate::common;

use std::path::Path;
use std::process::Output;

use common::{assetvc, git_home, run, stderr, write};

fn explain(dir: &Path, files: &[&str]) -> Output {
    run(assetvc()
        .args(["check", "--explain"])
        .args(files)
        .current_dir(dir)
        .env("HOME", dir)
        .env("GIT_CONFIG_NOSYSTEM", "1"))
}

#[test]
fn explain_names_the_profile_and_why_it_was_chosen() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    git_home(dir, dir, &["init", "-q", "-b", "main"]);
    write(
        dir,
        "assetvc.toml",
        "[profiles]\n\"ui/*.json\" = \"cocos3\"\n",
    );
    write(dir, "maps/w.json", r#"{"jsonVersion":"1.5.3","iid":"x"}"#);
    write(dir, "maps/t.tmj", r#"{"layers":[]}"#);
    write(dir, "ui/menu.json", "{}");
    write(dir, "levels/a.level", "units = []\n");
    let out = explain(
        dir,
        &[
            "maps/w.json",
            "maps/t.tmj",
            "ui/menu.json",
            "levels/a.level",
        ],
    );
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let section = |name: &str| {
        let start = text
            .find(&format!("{name}:\n"))
            .unwrap_or_else(|| panic!("{text}"));
        text[start..]
            .lines()
            .skip(1)
            .take_while(|l| l.starts_with("  "))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let ldtk = section("maps/w.json");
    assert!(
        ldtk.contains("format: ldtk") && ldtk.contains("content"),
        "{ldtk}"
    );
    assert!(
        ldtk.contains("not identities: realEditorValues[].id"),
        "{ldtk}"
    );
    let tiled = section("maps/t.tmj");
    assert!(
        tiled.contains("format: tiled") && tiled.contains("extension .tmj"),
        "{tiled}"
    );
    assert!(tiled.contains("nextobjectid"), "{tiled}");
    let cocos = section("ui/menu.json");
    assert!(
        cocos.contains("format: cocos3") && cocos.contains("[profiles] \"ui/*.json\""),
        "{cocos}"
    );
    let level = section("levels/a.level");
    assert!(
        level.contains("format: stingray") && level.contains("editor_metadata"),
        "{level}"
    );
}

#[test]
fn explain_reports_a_broken_file_at_its_place() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    git_home(dir, dir, &["init", "-q", "-b", "main"]);
    write(dir, "a.json", "{\n  \"a\": \n}\n");
    let out = explain(dir, &["a.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("a.json:3:1"), "{}", stderr(&out));
}
