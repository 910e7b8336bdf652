//! `check` and `merge` agree: every real file that `check` accepts (the corpus and the
//! samples of `tests/data`, each with its licence there) comes back byte for byte from
//! `merge-file f f f`, whatever its extension says (a Cocos `.fire` is JSON).

use crate::common;

use std::path::{Path, PathBuf};

use common::{assetvc, run, test_data};

/// The data files under `dir`, recursively (manifests, licences and notes left out).
fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            if name != "licences" {
                files_under(&path, out);
            }
        } else if !name.ends_with(".tsv") && !name.ends_with(".md") && !name.ends_with(".txt") {
            out.push(path);
        }
    }
}

#[test]
fn every_file_check_accepts_merges_with_itself_unchanged() {
    let mut files = Vec::new();
    files_under(&test_data().join("corpus"), &mut files);
    files_under(&test_data().join("samples"), &mut files);
    assert!(files.len() >= 50, "{} files", files.len());
    let mut checked = 0;
    for file in &files {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read(file).unwrap();
        let sides = ["ours", "base", "theirs"].map(|s| format!("{s}-{name}"));
        for side in &sides {
            std::fs::write(dir.join(side), &text).unwrap();
        }
        let check = run(assetvc().args(["check", &sides[0]]).current_dir(dir));
        if check.status.code() != Some(0) {
            continue;
        }
        checked += 1;
        let out = run(assetvc().arg("merge-file").args(&sides).current_dir(dir));
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}: {}",
            file.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        let merged = std::fs::read(dir.join(&sides[0])).unwrap();
        assert!(
            merged == text,
            "{}: merged with itself, it changed",
            file.display()
        );
    }
    assert!(checked >= 50, "only {checked} files pass check");
}

#[test]
fn check_warns_of_repeated_keys_and_accepts_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(
        dir.join("en_us.json"),
        "{\n  \"_comment\": \"a\",\n  \"x\": 1,\n  \"_comment\": \"b\"\n}\n",
    )
    .unwrap();
    let out = run(assetvc().args(["check", "en_us.json"]).current_dir(dir));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("en_us.json:4:3: warning: duplicate key \"_comment\""),
        "{stderr}"
    );
}
