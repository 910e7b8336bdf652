//! End to end (issue 20 items 2 and 8): reports name objects the way people do —
//! `entities[lamp_01 #6f1c…4b03].light.intensity` — while JSON keeps the full pointer and
//! adds the name; a number id `5` and a string id `"5"` get distinct paths.

use crate::common;

use common::{assetvc, git, merge_three, run, write};

const BASE: &str = "entities = [
\t{
\t\tid = \"6f1c2a40-1f43-4c8e-9a57-0d1e2f3a4b03\"
\t\tname = \"lamp_01\"
\t\tlight = { intensity = 1 }
\t}
\t{
\t\tid = \"6f1c2a40-1f43-4c8e-9a57-0d1e2f3a4b04\"
\t\tname = \"barrel\"
\t}
]
";

#[test]
fn merge_file_names_objects_by_name_and_short_id() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let ours = BASE.replace("intensity = 1", "intensity = 2");
    let theirs = BASE.replace("intensity = 1", "intensity = 3");
    let out = merge_three(dir, "level", [BASE, &ours, &theirs], &["merge-file", "-p"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr
            .contains("  entities[lamp_01 #6f1c…4b03].light.intensity: both modified, took theirs"),
        "{stderr}"
    );
    let out = run(assetvc()
        .args(["merge-file", "--json", "-o", "out.level"])
        .args(["ours.level", "base.level", "theirs.level"])
        .current_dir(dir));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let conflict = &report["conflicts"][0];
    assert_eq!(
        conflict["path"],
        "/entities/[id=6f1c2a40-1f43-4c8e-9a57-0d1e2f3a4b03]/light/intensity"
    );
    assert_eq!(
        conflict["name"],
        "entities[lamp_01 #6f1c…4b03].light.intensity"
    );
}

#[test]
fn a_number_id_and_a_string_id_get_distinct_paths() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let base = r#"{"a": [{"id": 5, "v": 0}, {"id": "5", "v": 0}]}"#;
    let ours = base.replace("\"v\": 0", "\"v\": 1");
    let theirs = base.replace("\"v\": 0", "\"v\": 2");
    let out = merge_three(
        dir,
        "json",
        [base, &ours, &theirs],
        &["merge-file", "--json", "-p"],
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stderr).unwrap();
    let paths: Vec<&str> = report["conflicts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["/a/[id=5]/v", "/a/[id=\"5\"]/v"], "{report:#}");

    // And in `assetvc diff`, between revisions of a real repository.
    git(dir, &["init", "-q", "-b", "main"]);
    git(dir, &["add", "base.json"]);
    git(
        dir,
        &[
            "-c",
            "user.name=T",
            "-c",
            "user.email=t@e",
            "commit",
            "-q",
            "-m",
            "base",
        ],
    );
    write(dir, "base.json", &base.replace("\"v\": 0", "\"v\": 1"));
    let out = run(assetvc().args(["diff", "--", "base.json"]).current_dir(dir));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("a[#5].v: 0 → 1\n"), "{stdout}");
    assert!(stdout.contains("a[#\"5\"].v: 0 → 1\n"), "{stdout}");
}
