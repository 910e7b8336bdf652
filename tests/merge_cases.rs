//! `assetvc merge-file -p` on every sample case of `tests/data/cases` and the peer cases
//! of `../shared/peer-cases` (skipped visibly when absent), compared as data with the
//! expected result.

use crate::common;

use std::path::Path;

use common::{assetvc, data, peer_cases, run, test_data};
use sjson::Dialect;

/// Runs `merge-file -p ours base theirs` in `dir` and returns (status, stdout, stderr).
fn merge_file(dir: &Path, ext: &str) -> (i32, String, String) {
    let out = run(assetvc()
        .arg("merge-file")
        .arg("-p")
        .args(["ours", "base", "theirs"].map(|s| dir.join(format!("{s}.{ext}")))));
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn check_case_dir(dir: &Path) {
    let ext = if dir.join("base.json").exists() {
        "json"
    } else {
        "sjson"
    };
    let dialect = if ext == "json" {
        Dialect::Json
    } else {
        Dialect::Sjson
    };
    let (status, stdout, stderr) = merge_file(dir, ext);
    assert_eq!(status, 0, "{}: {stderr}", dir.display());
    let expected = std::fs::read_to_string(dir.join("expected.json")).unwrap();
    assert_eq!(
        data(&stdout, dialect),
        data(&expected, Dialect::Json),
        "{}:\n{stdout}",
        dir.display()
    );
}

fn case_dirs(root: &Path) -> Vec<std::path::PathBuf> {
    let mut dirs: Vec<_> = std::fs::read_dir(root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

#[test]
fn shared_sample_cases_merge_as_expected() {
    let dirs = case_dirs(&test_data().join("cases"));
    assert_eq!(dirs.len(), 8, "the sample cases are in tests/data/cases");
    for dir in dirs {
        check_case_dir(&dir);
    }
}

#[test]
fn mergiraf_json_cases_merge_as_expected() {
    let Some(peers) = peer_cases("mergiraf_json_cases_merge_as_expected") else {
        return;
    };
    let dirs = case_dirs(&peers.join("mergiraf-json"));
    assert_eq!(dirs.len(), 8, "mergiraf's eight JSON cases");
    for dir in dirs {
        if dir.ends_with("duplicate_keys_in_base") {
            continue;
        }
        check_case_dir(&dir);
    }
}

#[test]
fn duplicate_keys_are_kept_and_merged() {
    let Some(peers) = peer_cases("duplicate_keys_are_kept_and_merged") else {
        return;
    };
    let src = peers.join("mergiraf-json/duplicate_keys_in_base");
    let tmp = tempfile::tempdir().unwrap();
    for s in ["base", "ours", "theirs"] {
        std::fs::copy(
            src.join(format!("{s}.json")),
            tmp.path().join(format!("{s}.json")),
        )
        .unwrap();
    }
    let out = run(assetvc()
        .arg("merge-file")
        .args(["ours", "base", "theirs"].map(|s| tmp.path().join(format!("{s}.json")))));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let merged = std::fs::read_to_string(tmp.path().join("ours.json")).unwrap();
    let expected = std::fs::read_to_string(src.join("expected.json")).unwrap();
    assert_eq!(merged, expected);
}

#[test]
fn bitsquid_cases_merge_by_structure() {
    let Some(peers) = peer_cases("bitsquid_cases_merge_by_structure") else {
        return;
    };
    let dir = peers.join("bitsquid");
    let merge = |n: u32| {
        let out = run(assetvc()
            .arg("merge-file")
            .arg("-p")
            .args(["left", "base", "right"].map(|s| dir.join(format!("merge{n}.{s}.sjson")))));
        assert_eq!(out.status.code(), Some(0));
        data(&String::from_utf8_lossy(&out.stdout), Dialect::Sjson)
    };
    assert_eq!(
        merge(1),
        data(
            r#"{"c": {"a": 1, "b": 2, "d": 4, "e": 5}, "name": "marian"}"#,
            Dialect::Json
        )
    );
    // `a` is a sequence (its length changes): left deletes 2, right appends 4.
    // `o` is keyed by id: left deletes 2 and adds 4, right deletes 3 and adds 6.
    assert_eq!(
        merge(2),
        data(
            r#"{"a": [1, 3, 4], "b": "marian", "c": {"a": 1, "b": 2, "d": 4, "e": 5},
                "o": [{"id": 1}, {"id": 4}, {"id": 6}]}"#,
            Dialect::Json
        )
    );
}

#[test]
fn merge_file_writes_current_in_place_and_reports() {
    let tmp = tempfile::tempdir().unwrap();
    let case = test_data().join("cases/true_conflict_theirs_wins");
    for s in ["base", "ours", "theirs"] {
        std::fs::copy(
            case.join(format!("{s}.sjson")),
            tmp.path().join(format!("{s}.sjson")),
        )
        .unwrap();
    }
    let report = tmp.path().join("report.json");
    let out = run(assetvc()
        .arg("merge-file")
        .arg("--report")
        .arg(&report)
        .args(["ours", "base", "theirs"].map(|s| tmp.path().join(format!("{s}.sjson")))));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let merged = std::fs::read_to_string(tmp.path().join("ours.sjson")).unwrap();
    assert!(merged.contains("tint = \"theirs\""));
    let r: serde_json::Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    let c = &r["conflicts"][0];
    assert_eq!(c["path"], "/units/[id=u-99]/tint");
    assert_eq!(c["kind"], "both-modified");
    assert_eq!(c["ours"], "ours");
    assert_eq!(c["theirs"], "theirs");
    assert_eq!(c["taken"], "theirs");

    // Policy fail: same result written, exit 1.
    std::fs::copy(case.join("ours.sjson"), tmp.path().join("ours.sjson")).unwrap();
    let out = run(assetvc()
        .args(["merge-file", "--policy", "fail"])
        .args(["ours", "base", "theirs"].map(|s| tmp.path().join(format!("{s}.sjson")))));
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        std::fs::read_to_string(tmp.path().join("ours.sjson")).unwrap(),
        merged
    );

    // Policy ours keeps ours' value.
    std::fs::copy(case.join("ours.sjson"), tmp.path().join("ours.sjson")).unwrap();
    let out = run(assetvc()
        .args(["merge-file", "--policy", "ours", "-o"])
        .arg(tmp.path().join("out.sjson"))
        .args(["ours", "base", "theirs"].map(|s| tmp.path().join(format!("{s}.sjson")))));
    assert_eq!(out.status.code(), Some(0));
    let out_text = std::fs::read_to_string(tmp.path().join("out.sjson")).unwrap();
    assert!(out_text.contains("tint = \"ours\""));
    assert_eq!(
        std::fs::read(tmp.path().join("ours.sjson")).unwrap(),
        std::fs::read(case.join("ours.sjson")).unwrap(),
        "-o leaves CURRENT alone"
    );
}

#[test]
fn unparsable_side_exits_2_and_leaves_current_untouched() {
    let tmp = tempfile::tempdir().unwrap();
    let p = |s: &str| tmp.path().join(format!("{s}.sjson"));
    std::fs::write(p("base"), "a = 1\n").unwrap();
    std::fs::write(p("ours"), "a = 2\n").unwrap();
    std::fs::write(p("theirs"), "a = {\n").unwrap();
    let out = run(assetvc()
        .arg("merge-file")
        .args([p("ours"), p("base"), p("theirs")]));
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("theirs.sjson:2:1: expected key, found end of file"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(p("ours")).unwrap(), "a = 2\n");
}
