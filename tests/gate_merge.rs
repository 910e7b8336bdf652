//! End to end: the result gate. A merge whose result breaks an invariant base, ours and
//! theirs all kept (here: one string twice in a list of tags) ends like a conflict:
//! `merge-file` writes the result, says why, and exits 1 whatever the policy.

use crate::common;

use common::{assetvc, run, stderr, write};

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
