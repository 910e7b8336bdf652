//! End to end: repeated keys (docs/design.md, "Duplicate keys"). A real lang file whose
//! ours prepended dead copies of keys base holds once merges to a file without repeats,
//! each collapse reported on stderr and in `--json`.

use crate::common;

use common::{assetvc, run, stderr, test_data};

const CASE: &str =
    "real-cases/TerraformersMC_ModMenu__1d057118bf__src_main_resources_assets_modmenu_lang_zh_cn.json";

/// Copies the case's three versions into a temporary directory.
fn case() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    for side in ["base", "ours", "theirs"] {
        let from = test_data().join(CASE).join(format!("{side}.json"));
        std::fs::copy(from, tmp.path().join(format!("{side}.json"))).unwrap();
    }
    tmp
}

fn merge_file(dir: &std::path::Path, extra: &[&str]) -> std::process::Output {
    run(assetvc()
        .arg("merge-file")
        .args(extra)
        .args(["ours.json", "base.json", "theirs.json"])
        .current_dir(dir)
        .env("HOME", dir))
}

#[test]
fn dead_copies_of_a_lang_file_collapse_to_the_last() {
    let tmp = case();
    let out = merge_file(tmp.path(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let result = std::fs::read_to_string(tmp.path().join("ours.json")).unwrap();
    let doc = sjson::Document::parse(result.as_str(), sjson::Dialect::Json).unwrap();
    assert!(doc.duplicate_keys().is_empty(), "{result}");
    let human = std::fs::read_to_string(test_data().join(CASE).join("human.json")).unwrap();
    let human: serde_json::Value = serde_json::from_str(&human).unwrap();
    let merged: serde_json::Value = serde_json::from_str(&result).unwrap();
    for key in ["modmenu.mods.n", "modmenu.mods.1", "modmenu.mods.69.secret"] {
        assert_eq!(merged[key], human[key], "{key}");
    }
    let err = stderr(&out);
    assert!(
        err.contains(
            "ours wrote \"modmenu.mods.n\" twice; JSON readers take the last; written once"
        ),
        "{err}"
    );
}

#[test]
fn collapses_are_listed_in_the_json_report() {
    let tmp = case();
    let out = merge_file(tmp.path(), &["--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let conflicts = report["conflicts"].as_array().unwrap();
    let mut repeated: Vec<&str> = conflicts
        .iter()
        .filter(|c| c["kind"] == "repeated-key")
        .map(|c| c["path"].as_str().unwrap())
        .collect();
    repeated.sort();
    assert_eq!(
        repeated,
        [
            "/modmenu.mods.1",
            "/modmenu.mods.69.secret",
            "/modmenu.mods.n"
        ],
        "{report:#}"
    );
    assert!(conflicts
        .iter()
        .filter(|c| c["kind"] == "repeated-key")
        .all(|c| c["taken"] == "ours"));
}
