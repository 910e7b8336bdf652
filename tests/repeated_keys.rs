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

const REPEATS: &str = "{\n  \"_comment\": \"a\",\n  \"x\": 1,\n  \"_comment\": \"b\"\n}\n";

#[test]
fn check_json_lists_a_repeat_as_a_warning_and_passes() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("en_us.json"), REPEATS).unwrap();
    let out = run(assetvc()
        .args(["check", "--json", "en_us.json"])
        .current_dir(tmp.path()));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let problems = report["problems"].as_array().unwrap();
    assert_eq!(problems.len(), 1, "{report:#}");
    assert_eq!(problems[0]["severity"], "warning");
    assert_eq!(problems[0]["check"], "duplicate-key");
    assert_eq!(
        (problems[0]["line"].as_u64(), problems[0]["col"].as_u64()),
        (Some(4), Some(3))
    );
}

#[test]
fn a_repeat_never_blocks_a_commit() {
    let repo = common::TestRepo::new();
    repo.write("a.json", "{}\n");
    repo.commit("base");
    repo.install_pre_commit_hook();
    repo.write("en_us.json", REPEATS);
    repo.git(&["add", "en_us.json"]);
    // The pre-commit hook prints the warning and lets the commit through.
    let out = repo.git_output(&["commit", "-q", "-m", "lang"]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("en_us.json:4:3: warning: duplicate key \"_comment\""),
        "{err}"
    );
    // So does `assetvc commit`.
    repo.write("en_us.json", &REPEATS.replace("\"b\"", "\"c\""));
    let (_, err) = repo.assetvc_expect(&["commit", "-a", "-m", "again"], 0);
    assert!(err.contains("warning: duplicate key \"_comment\""), "{err}");
}
