//! End to end: the result gate. A merge whose result breaks an invariant base, ours and
//! theirs all kept (here: one string twice in a list of tags) ends like a conflict:
//! `merge-file` writes the result, says why (`--json`: a `violations` array), and exits 1
//! whatever the policy; `assetvc merge` prints the violation and does not commit.

use crate::common;

use common::{assetvc, run, stderr, write, TestRepo};

const BASE: &str = "{\"tags\": [\"c\", \"a\", \"b\"]}\n";
const OURS: &str = "{\"tags\": [\"x\", \"c\", \"a\", \"b\"]}\n";
const THEIRS: &str = "{\"tags\": [\"c\", \"a\", \"b\", \"x\"]}\n";

/// `merge-file --json` of the three files in `dir`: its exit status and its report (the
/// standard error when the report does not read).
fn merge_file_json(dir: &std::path::Path) -> (Option<i32>, serde_json::Value) {
    let out = run(assetvc()
        .args([
            "merge-file",
            "--json",
            "ours.json",
            "base.json",
            "theirs.json",
        ])
        .current_dir(dir)
        .env("HOME", dir));
    let report =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", stderr(&out)));
    (out.status.code(), report)
}

#[test]
fn merge_file_json_lists_the_violations() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    for (name, text) in [
        ("base.json", BASE),
        ("ours.json", OURS),
        ("theirs.json", THEIRS),
    ] {
        write(dir, name, text);
    }
    let (code, report) = merge_file_json(dir);
    assert_eq!(code, Some(1), "{report:#}");
    let violations = report["violations"].as_array().unwrap();
    assert_eq!(violations.len(), 1, "{report:#}");
    assert_eq!(violations[0]["path"], "/tags");
    assert_eq!(violations[0]["invariant"], "set-elements-once");
    let reason = violations[0]["reason"].as_str().unwrap();
    assert!(reason.contains("\"x\" twice in the result"), "{reason}");
    // A clean merge lists none.
    write(dir, "ours.json", OURS);
    write(dir, "theirs.json", BASE);
    let (code, report) = merge_file_json(dir);
    assert_eq!(code, Some(0), "{report:#}");
    assert_eq!(report["violations"], serde_json::json!([]));
}

#[test]
fn porcelain_merge_prints_the_violation_and_does_not_commit() {
    let repo = TestRepo::new();
    repo.write("tags.json", BASE);
    repo.commit("base");
    repo.git(&["checkout", "-q", "-b", "t"]);
    repo.write("tags.json", THEIRS);
    repo.commit("theirs");
    repo.git(&["checkout", "-q", "main"]);
    repo.write("tags.json", OURS);
    repo.commit("ours");
    let before = repo.head();
    let (_, err) = repo.assetvc_expect(&["merge", "t"], 1);
    assert!(
        err.contains("not merged cleanly, the result breaks what its inputs kept"),
        "{err}"
    );
    assert!(err.contains("/tags: \"x\" twice in the result"), "{err}");
    assert!(err.contains("tags.json: not committed"), "{err}");
    assert_eq!(repo.head(), before, "nothing committed");
    let unmerged = repo.git(&["diff", "--name-only", "--diff-filter=U"]);
    assert_eq!(unmerged, "tags.json\n");
    // `--json` lists it per file.
    repo.git(&["merge", "--abort"]);
    let (out, _) = repo.assetvc_expect(&["merge", "--json", "t"], 1);
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    let file = &report["files"][0];
    assert_eq!(
        file["violations"][0]["invariant"], "set-elements-once",
        "{report:#}"
    );
    assert_eq!(repo.head(), before);
}

#[test]
fn merge_file_fails_when_the_result_breaks_what_its_inputs_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    // Not sorted: a list, which the merge does not merge as a set.
    write(dir, "base.json", "{\"tags\": [\"c\", \"a\", \"b\"]}\n");
    write(
        dir,
        "ours.json",
        "{\"tags\": [\"x\", \"c\", \"a\", \"b\"]}\n",
    );
    write(
        dir,
        "theirs.json",
        "{\"tags\": [\"c\", \"a\", \"b\", \"x\"]}\n",
    );
    let out = run(assetvc()
        .args(["merge-file", "ours.json", "base.json", "theirs.json"])
        .current_dir(dir)
        .env("HOME", dir));
    let result = std::fs::read_to_string(dir.join("ours.json")).unwrap();
    let data: serde_json::Value = serde_json::from_str(&result).unwrap();
    let xs = data["tags"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| *t == "x")
        .count();
    assert_eq!(xs, 2, "{result}");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("/tags: \"x\" twice in the result"), "{err}");
}

#[test]
fn merge_file_of_a_clean_merge_passes_the_gate() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    write(dir, "base.json", "{\"units\": [{\"id\": 1, \"v\": 1}]}\n");
    write(dir, "ours.json", "{\"units\": [{\"id\": 1, \"v\": 2}]}\n");
    write(
        dir,
        "theirs.json",
        "{\"units\": [{\"id\": 1, \"v\": 1}, {\"id\": 2}]}\n",
    );
    let out = run(assetvc()
        .args(["merge-file", "ours.json", "base.json", "theirs.json"])
        .current_dir(dir)
        .env("HOME", dir));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        !stderr(&out).contains("not merged cleanly"),
        "{}",
        stderr(&out)
    );
}
