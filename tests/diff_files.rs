//! End to end: `assetvc diff A B` on two versions of a real Stingray level from the corpus
//! (one property of one object changed, one object added) prints only what changed, as
//! text, as an RFC 6902 JSON Patch that applied to the old level gives the new one, and
//! as change records.

use crate::common;

use std::path::Path;

use common::{assetvc, data, run, test_data};
use serde_json::Value as J;
use sjson::Dialect;

const NEW_UNIT: &str = "\t{
\t\ttype = \"core/units/primitives/cube_primitive\"
\t\tdata = {}
\t\tname = \"crate\"
\t\tlights = {}
\t\tcameras = {}
\t\tmaterials = {}
\t\tscl = [1 1 1]
\t\tmaterial = \"\"
\t\tid = \"0c3e5a52-7d1b-4a43-9d8f-2b6c1e4f5a60\"
\t\tpos = [2 3 0]
\t\trot = [0 0 0 1]
\t}
";

/// Writes the corpus level and a modified copy into `dir`; returns their texts.
fn two_versions(dir: &Path) -> (String, String) {
    let old = std::fs::read_to_string(
        test_data()
            .join("corpus/AutodeskGames__stingray-plugin/plugin/sample_project/sample.level"),
    )
    .expect("the corpus is in tests/data/corpus");
    // The light source's intensity, and a new unit at the end of `units`.
    let intensity = "\t\t\t\tintensity = 5\n";
    assert_eq!(old.matches(intensity).count(), 1);
    let new = old.replace(intensity, "\t\t\t\tintensity = 7.5\n");
    let anchor = "]\nparticle_effects = []";
    assert_eq!(new.matches(anchor).count(), 1);
    let new = new.replace(anchor, &format!("{NEW_UNIT}{anchor}"));
    std::fs::write(dir.join("old.level"), &old).unwrap();
    std::fs::write(dir.join("new.level"), &new).unwrap();
    (old, new)
}

fn diff(dir: &Path, extra: &[&str]) -> (i32, String, String) {
    let out = run(assetvc()
        .arg("diff")
        .args(extra)
        .arg("old.level")
        .arg("new.level")
        .current_dir(dir)
        .env_remove("NO_COLOR"));
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_corpus_level_diff_prints_only_the_changed_objects() {
    let tmp = tempfile::tempdir().unwrap();
    two_versions(tmp.path());
    let (code, stdout, stderr) = diff(tmp.path(), &[]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stdout,
        "units[light_source #ffd9…4d8e].lights.light.intensity: 5 → 7.5\n\
         + units[crate #0c3e…5a60]: \
         {name = \"crate\", type = \"core/units/primitives/cube_primitive\", …}\n"
    );
    assert!(!stdout.contains('\x1b'), "no colors when not on a terminal");
    // Equal files: nothing at all.
    std::fs::copy(tmp.path().join("old.level"), tmp.path().join("new.level")).unwrap();
    assert_eq!(diff(tmp.path(), &[]), (0, String::new(), String::new()));
}

/// All numbers as f64, so that `5` and `5.0` compare equal.
fn normalized(v: J) -> J {
    match v {
        J::Number(n) => {
            serde_json::Number::from_f64(n.as_f64().unwrap()).map_or(J::Null, J::Number)
        }
        J::Array(a) => J::Array(a.into_iter().map(normalized).collect()),
        J::Object(o) => J::Object(o.into_iter().map(|(k, v)| (k, normalized(v))).collect()),
        other => other,
    }
}

fn tokens(pointer: &str) -> Vec<String> {
    if pointer.is_empty() {
        return Vec::new();
    }
    pointer[1..]
        .split('/')
        .map(|t| t.replace("~1", "/").replace("~0", "~"))
        .collect()
}

fn step<'v>(v: &'v mut J, t: &str) -> &'v mut J {
    match v {
        J::Array(a) => {
            let i: usize = t.parse().unwrap();
            assert!(i < a.len(), "index {i} out of bounds");
            &mut a[i]
        }
        J::Object(o) => o.get_mut(t).unwrap_or_else(|| panic!("no member {t}")),
        _ => panic!("cannot step into a scalar with {t}"),
    }
}

fn container<'v>(root: &'v mut J, toks: &[String]) -> &'v mut J {
    toks.iter().fold(root, |v, t| step(v, t))
}

fn remove(root: &mut J, pointer: &str) -> J {
    let toks = tokens(pointer);
    let (last, up) = toks.split_last().unwrap();
    match container(root, up) {
        J::Array(a) => {
            let i: usize = last.parse().unwrap();
            assert!(i < a.len(), "remove {pointer}: out of bounds");
            a.remove(i)
        }
        J::Object(o) => o
            .remove(last)
            .unwrap_or_else(|| panic!("remove {pointer}: absent")),
        _ => panic!("remove {pointer}"),
    }
}

fn add(root: &mut J, pointer: &str, value: J) {
    let toks = tokens(pointer);
    let Some((last, up)) = toks.split_last() else {
        *root = value;
        return;
    };
    match container(root, up) {
        J::Array(a) => {
            let i = if last == "-" {
                a.len()
            } else {
                last.parse().unwrap()
            };
            assert!(i <= a.len(), "add {pointer}: out of bounds");
            a.insert(i, value);
        }
        J::Object(o) => {
            o.insert(last.clone(), value);
        }
        _ => panic!("add {pointer}"),
    }
}

/// A small RFC 6902 applier: add, remove, replace, move, applied in sequence.
fn apply(doc: &mut J, patch: &J) {
    for op in patch.as_array().expect("a patch is an array") {
        let path = op["path"].as_str().unwrap();
        match op["op"].as_str().unwrap() {
            "add" => add(doc, path, op["value"].clone()),
            "remove" => {
                remove(doc, path);
            }
            "replace" => *container(doc, &tokens(path)) = op["value"].clone(),
            "move" => {
                let v = remove(doc, op["from"].as_str().unwrap());
                add(doc, path, v);
            }
            other => panic!("unexpected op {other}"),
        }
    }
}

#[test]
fn the_json_patch_turns_the_old_level_into_the_new_one() {
    let tmp = tempfile::tempdir().unwrap();
    let (old, new) = two_versions(tmp.path());
    let (code, stdout, stderr) = diff(tmp.path(), &["--format", "json-patch"]);
    assert_eq!(code, 0, "{stderr}");
    let patch: J = serde_json::from_str(&stdout).unwrap();
    let ops: Vec<&str> = patch
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["op"].as_str().unwrap())
        .collect();
    assert_eq!(ops, ["add", "replace"], "{stdout}");
    assert_eq!(patch[1]["path"], "/units/3/lights/light/intensity");
    let mut doc = normalized(data(&old, Dialect::Sjson));
    apply(&mut doc, &normalized(patch));
    assert_eq!(doc, normalized(data(&new, Dialect::Sjson)));
}

#[test]
fn change_records_name_keyed_objects_by_id() {
    let tmp = tempfile::tempdir().unwrap();
    two_versions(tmp.path());
    let (code, stdout, _) = diff(tmp.path(), &["--json"]);
    assert_eq!(code, 0);
    let records: J = serde_json::from_str(&stdout).unwrap();
    assert_eq!(records.as_array().unwrap().len(), 2);
    assert_eq!(
        records[0],
        serde_json::json!({
            "change": "changed",
            "path": "/units/[id=ffd94a57-fe64-4025-abe1-eda1d4904d8e]/lights/light/intensity",
            "old": 5,
            "new": 7.5
        })
    );
    assert_eq!(records[1]["change"], "added");
    assert_eq!(
        records[1]["path"],
        "/units/[id=0c3e5a52-7d1b-4a43-9d8f-2b6c1e4f5a60]"
    );
    assert_eq!(records[1]["value"]["name"], "crate");
}

#[test]
fn a_change_set_is_json_lines_of_operations_by_id_with_old_values() {
    let tmp = tempfile::tempdir().unwrap();
    two_versions(tmp.path());
    let (code, stdout, stderr) = diff(tmp.path(), &["--format", "changes"]);
    assert_eq!(code, 0, "{stderr}");
    let ops: Vec<J> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(ops.len(), 2, "{stdout}");
    assert_eq!(
        ops[0],
        serde_json::json!({
            "op": "set",
            "path": "/units/[id=ffd94a57-fe64-4025-abe1-eda1d4904d8e]/lights/light/intensity",
            "old": 5,
            "value": 7.5
        })
    );
    assert_eq!(ops[1]["op"], "create");
    assert_eq!(
        ops[1]["path"],
        "/units/[id=0c3e5a52-7d1b-4a43-9d8f-2b6c1e4f5a60]"
    );
    assert_eq!(ops[1]["value"]["name"], "crate");
}

#[test]
fn unparsable_input_is_a_line_diff_with_the_reason() {
    let tmp = tempfile::tempdir().unwrap();
    two_versions(tmp.path());
    std::fs::write(tmp.path().join("new.level"), "a = 1\n<<<<<<< HEAD\nb = 2\n").unwrap();
    let (code, stdout, _) = diff(tmp.path(), &["--format", "text"]);
    assert_eq!(code, 0);
    assert!(
        stdout.starts_with("does not parse, line diff: new.level:2:9: "),
        "the reason in one line expected, got {stdout}"
    );
    assert!(stdout.contains("\n+<<<<<<< HEAD\n"), "{stdout}");
    // A JSON format has no changes to give: exit 2 with the position.
    let (code, stdout, stderr) = diff(tmp.path(), &["--json"]);
    assert_eq!(code, 2);
    assert!(stdout.is_empty());
    assert!(stderr.starts_with("new.level:2:9: "), "{stderr}");
}

#[test]
fn json_files_are_diffed_as_json() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(
        dir.join("a.json"),
        r#"{"lines": [{"id": "play", "en": "Play"}, {"id": "quit", "en": "Quit"}]}"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("b.json"),
        r#"{"lines": [{"id": "quit", "en": "Exit"}, {"id": "play", "en": "Play"}]}"#,
    )
    .unwrap();
    let out = run(assetvc()
        .args(["diff", "a.json", "b.json"])
        .current_dir(dir));
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "~ lines[#quit]: moved from index 1 to 0\nlines[#quit].en: \"Quit\" → \"Exit\"\n"
    );
}
