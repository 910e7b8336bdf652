//! End to end: a JSON Patch written by `assetvc diff --format json-patch` applied back
//! with `assetvc apply`, and patches that must be refused with nothing written.

use crate::common;

use std::path::Path;

use common::{assetvc, data, run, TEST_LEVEL};
use sjson::Dialect;

fn assetvc_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = run(assetvc().args(args).current_dir(dir));
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_patch_from_diff_applies_back_to_give_the_new_version() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let new = TEST_LEVEL.replacen("[0 0 0]", "[4 5 6]", 1).replacen(
        "}\n]",
        "}\n\t{\n\t\tid = \"n1\"\n\t\tname = \"new\"\n\t}\n]",
        1,
    );
    assert_ne!(new, TEST_LEVEL);
    std::fs::write(dir.join("a.level"), TEST_LEVEL).unwrap();
    std::fs::write(dir.join("b.level"), &new).unwrap();
    let (code, patch, stderr) = assetvc_in(
        dir,
        &["diff", "--format", "json-patch", "a.level", "b.level"],
    );
    assert_eq!(code, 0, "{stderr}");
    std::fs::write(dir.join("p.json"), &patch).unwrap();
    let (code, _, stderr) = assetvc_in(dir, &["apply", "p.json", "a.level"]);
    assert_eq!(code, 0, "{stderr}");
    let out = std::fs::read_to_string(dir.join("a.level")).unwrap();
    assert_eq!(
        data(&out, Dialect::Sjson),
        data(&new, Dialect::Sjson),
        "{patch}\n{out}"
    );
    // The first line (a comment) is the target's own.
    assert_eq!(out.lines().next(), TEST_LEVEL.lines().next());

    // JSON files, also with a root that is not an object.
    std::fs::write(dir.join("a.json"), "[1, {\"k\": [2, 3]}, \"s\"]\n").unwrap();
    std::fs::write(dir.join("b.json"), "[1, {\"k\": [2, 3, 4], \"n\": null}]\n").unwrap();
    let (_, patch, _) = assetvc_in(dir, &["diff", "--format", "json-patch", "a.json", "b.json"]);
    std::fs::write(dir.join("pj.json"), &patch).unwrap();
    let (code, stdout, stderr) = assetvc_in(dir, &["apply", "-p", "pj.json", "a.json"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        data(&stdout, Dialect::Json),
        data("[1, {\"k\": [2, 3, 4], \"n\": null}]", Dialect::Json),
        "{patch}\n{stdout}"
    );
}

#[test]
fn bad_patches_exit_2_naming_the_operation_and_write_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let target = "{\n  \"a\": 1,\n  \"list\": [1, 2]\n}\n";
    std::fs::write(dir.join("t.json"), target).unwrap();
    for (patch, start, reason) in [
        ("[{\"op\": \"add\",", "patch.json:1:", ""),
        ("[\n  {\"op\": \"frob\", \"path\": \"/a\"}\n]", "patch.json:2:10: ", "operation 0 (frob): unknown op"),
        ("[{\"op\": \"add\", \"value\": 1}]", "patch.json:1:2: ", "operation 0 (add): missing \"path\""),
        ("[{\"op\": \"add\", \"path\": \"/a/b\", \"value\": 1}]", "patch.json:1:2: ", "/a is a number"),
        (
            "[{\"op\": \"add\", \"path\": \"/b\", \"value\": 1},\n {\"op\": \"test\", \"path\": \"/a\", \"value\": 2}]",
            "patch.json:2:2: ",
            "operation 1 (test): test failed",
        ),
        ("[{\"op\": \"remove\", \"path\": \"/list/2\"}]", "patch.json:1:2: ", "past the end"),
        ("{\"op\": \"add\"}", "patch.json:1:8: ", "a JSON Patch is an array"),
    ] {
        std::fs::write(dir.join("patch.json"), patch).unwrap();
        let (code, stdout, stderr) = assetvc_in(dir, &["apply", "patch.json", "t.json"]);
        assert_eq!(code, 2, "{patch}: {stderr}");
        assert!(stdout.is_empty());
        assert!(stderr.starts_with(start) && stderr.contains(reason), "{patch}: {stderr}");
        assert_eq!(std::fs::read_to_string(dir.join("t.json")).unwrap(), target);
    }
    // Not JSON at all: a change set line that does not parse.
    std::fs::write(dir.join("patch.json"), "add /a 1\n").unwrap();
    let (code, _, stderr) = assetvc_in(dir, &["apply", "patch.json", "t.json"]);
    assert_eq!(code, 2);
    assert!(stderr.starts_with("patch.json:1:1: "), "{stderr}");
    // A valid patch: everything applies; the untouched lines keep their bytes.
    std::fs::write(
        dir.join("patch.json"),
        "[{\"op\": \"move\", \"from\": \"/list/0\", \"path\": \"/list/-\"}, {\"op\": \"copy\", \"from\": \"/a\", \"path\": \"/b\"}]",
    )
    .unwrap();
    let (code, _, stderr) = assetvc_in(dir, &["apply", "patch.json", "t.json"]);
    assert_eq!(code, 0, "{stderr}");
    let out = std::fs::read_to_string(dir.join("t.json")).unwrap();
    assert_eq!(
        data(&out, Dialect::Json),
        data("{\"a\":1,\"list\":[2,1],\"b\":1}", Dialect::Json)
    );
    assert!(out.starts_with("{\n  \"a\": 1,\n"), "{out}");
}

/// Issue #30 item 9: doubling `copy` operations stop at the size limit (given with
/// `--max-size`, or the default) with exit 2, the operation named, the file untouched;
/// too many operations for `--max-operations` likewise.
#[test]
fn a_patch_past_its_size_or_operation_limit_is_refused_with_nothing_written() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let level = "{\"a\": [\"x\"]}\n";
    std::fs::write(dir.join("a.json"), level).unwrap();
    let copies: Vec<&str> = (0..40)
        .map(|_| r#"{"op":"copy","from":"/a","path":"/a/0"}"#)
        .collect();
    std::fs::write(dir.join("p.json"), format!("[{}]", copies.join(","))).unwrap();
    let (code, _, stderr) = assetvc_in(dir, &["apply", "--max-size", "100000", "p.json", "a.json"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.starts_with("p.json:1:"), "{stderr}");
    assert!(
        stderr.contains("(copy)") && stderr.contains("--max-size"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(dir.join("a.json")).unwrap(), level);
    // The default limit stops the same patch (it would reach gigabytes).
    let (code, _, stderr) = assetvc_in(dir, &["apply", "p.json", "a.json"]);
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(std::fs::read_to_string(dir.join("a.json")).unwrap(), level);
    let (code, _, stderr) = assetvc_in(
        dir,
        &["apply", "--max-operations", "39", "p.json", "a.json"],
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("40 operations") && stderr.contains("--max-operations"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(dir.join("a.json")).unwrap(), level);
    // Within the limits it applies.
    std::fs::write(dir.join("p.json"), format!("[{}]", copies[..3].join(","))).unwrap();
    let (code, _, stderr) =
        assetvc_in(dir, &["apply", "--max-operations", "3", "p.json", "a.json"]);
    assert_eq!(code, 0, "{stderr}");
    let out = std::fs::read_to_string(dir.join("a.json")).unwrap();
    assert_eq!(out.matches('x').count(), 8, "{out}");
}

#[test]
fn a_replace_keeps_the_key_where_it_was() {
    // #34: a replaced member stays among its siblings, the file's only change its value.
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let level = "settings = {\n\tfog = 0.5\n\tgravity = -9.8\n\tsky = \"day\"\n}\n";
    std::fs::write(dir.join("a.level"), level).unwrap();
    std::fs::write(
        dir.join("p.json"),
        r#"[{"op": "replace", "path": "/settings/gravity", "value": -3.7}]"#,
    )
    .unwrap();
    let (code, _, stderr) = assetvc_in(dir, &["apply", "p.json", "a.level"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        std::fs::read_to_string(dir.join("a.level")).unwrap(),
        level.replace("-9.8", "-3.7")
    );
}
