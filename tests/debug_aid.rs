//! End to end: `merge-file --explain` and `ASSETVC_DEBUG=DIR` keep what a bug report needs.

use crate::common;

use common::{assetvc, run};

const BASE: &str = "a = 1\nb = 1\nunits = [\n\t{ id = \"u1\" x = 0 }\n]\n";
const OURS: &str = "a = 2\nb = 5\nunits = [\n\t{ id = \"u1\" x = 0 }\n]\n";
const THEIRS: &str = "a = 3\nb = 1\nunits = [\n\t{ id = \"u1\" x = 7 }\n]\n";

fn inputs() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    for (name, text) in [("base", BASE), ("ours", OURS), ("theirs", THEIRS)] {
        std::fs::write(tmp.path().join(format!("{name}.sjson")), text).unwrap();
    }
    tmp
}

#[test]
fn explain_names_each_side_change_and_whether_the_result_kept_it() {
    let tmp = inputs();
    let out = run(assetvc().current_dir(tmp.path()).args([
        "merge-file",
        "--explain",
        "ours.sjson",
        "base.sjson",
        "theirs.sjson",
    ]));
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("ours changed 2 thing(s)"), "{text}");
    assert!(text.contains("[NOT in result] a: 1 → 2"), "{text}");
    assert!(text.contains("[kept   ] b: 1 → 5"), "{text}");
    assert!(text.contains("[kept   ] units[id=u1].x: 0 → 7"), "{text}");
    assert!(text.contains("/a: both modified, took theirs"), "{text}");
}

#[test]
fn debug_dir_keeps_inputs_result_report_and_explanation() {
    let tmp = inputs();
    let dbg = tmp.path().join("dbg");
    let out = run(assetvc()
        .current_dir(tmp.path())
        .env("ASSETVC_DEBUG", &dbg)
        .args([
            "merge-file",
            "-p",
            "ours.sjson",
            "base.sjson",
            "theirs.sjson",
        ]));
    assert_eq!(out.status.code(), Some(0));
    let folders: Vec<_> = std::fs::read_dir(&dbg).unwrap().collect();
    assert_eq!(folders.len(), 1);
    let folder = folders.into_iter().next().unwrap().unwrap().path();
    let read = |name: &str| std::fs::read_to_string(folder.join(name)).unwrap();
    assert_eq!(read("base.sjson"), BASE);
    assert_eq!(read("ours.sjson"), OURS);
    assert_eq!(read("theirs.sjson"), THEIRS);
    assert_eq!(read("result.sjson"), String::from_utf8_lossy(&out.stdout));
    assert!(read("report.json").contains("both-modified"));
    assert!(read("explain.txt").contains("NOT in result"));
}

#[test]
fn explain_and_debug_dir_show_the_pairing_of_an_unkeyed_element_with_its_score() {
    let tmp = tempfile::tempdir().unwrap();
    let files = [
        (
            "base",
            "l = [\n\t{ a = 1 b = 1 c = 1 d = 1 }\n\t{ z = 1 }\n]\n",
        ),
        (
            "ours",
            "l = [\n\t{ a = 2 b = 1 c = 1 d = 1 }\n\t{ z = 1 }\n]\n",
        ),
        (
            "theirs",
            "l = [\n\t{ a = 1 b = 1 c = 1 d = 3 }\n\t{ z = 1 }\n]\n",
        ),
    ];
    for (name, text) in files {
        std::fs::write(tmp.path().join(format!("{name}.sjson")), text).unwrap();
    }
    let dbg = tmp.path().join("dbg");
    let out = run(assetvc()
        .current_dir(tmp.path())
        .env("ASSETVC_DEBUG", &dbg)
        .args(["merge-file", "--explain", "-o", "out.sjson"])
        .args(["ours.sjson", "base.sjson", "theirs.sjson"]));
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    // Ours and theirs share b and c of four members: similarity 0.5.
    assert!(text.contains("  /l\n"), "{text}");
    assert!(
        text.contains("base 0 = ours 0 = theirs 0 (similarity 0.50)"),
        "{text}"
    );
    let folder = std::fs::read_dir(&dbg)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let pairings: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(folder.join("pairings.json")).unwrap())
            .unwrap();
    assert_eq!(pairings[0]["path"], "/l");
    let first = &pairings[0]["pairs"][0];
    assert_eq!(
        (&first["base"], &first["ours"], &first["theirs"]),
        (&0.into(), &0.into(), &0.into())
    );
    assert_eq!(
        (&first["by"], &first["score"]),
        (&"similarity".into(), &0.5.into())
    );
    let moves = std::fs::read_to_string(folder.join("moves.json")).unwrap();
    assert_eq!(moves.trim(), "[]");
}
