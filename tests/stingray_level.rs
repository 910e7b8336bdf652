//! End to end: the Stingray sample level (`tests/data/corpus`), which writes each flow
//! node twice with one id (runtime `flow.nodes` and `editor_metadata.Flow.Nodes`), merges
//! by `merge-file` and under `git merge` with the driver; `check` accepts it.

use crate::common;

use std::path::Path;

use common::{assetvc, git, git_output, run, test_data};

fn sample_level() -> String {
    let path = "corpus/AutodeskGames__stingray-plugin/plugin/sample_project/sample.level";
    std::fs::read_to_string(test_data().join(path)).unwrap()
}

/// Ours moves the floor; theirs renames a flow group.
fn edits(level: &str) -> (String, String) {
    let floor = "\t\tname = \"floor\"";
    assert!(level.contains(floor) && level.contains("Title = \"Level Start\""));
    let at = level.find(floor).unwrap();
    let pos = at + level[at..].find("pos = [0 0 0]").unwrap();
    let ours = format!("{}pos = [4 0 0]{}", &level[..pos], &level[pos + 13..]);
    let theirs = level.replace("Title = \"Level Start\"", "Title = \"Level Begin\"");
    (ours, theirs)
}

fn assert_both_edits(merged: &str, level: &str) {
    let (ours, theirs) = edits(level);
    assert!(merged.contains("pos = [4 0 0]"), "{merged}");
    assert!(merged.contains("Title = \"Level Begin\""), "{merged}");
    assert_eq!(
        merged.len(),
        level.len() + (ours.len() - level.len()) + (theirs.len() - level.len())
    );
}

#[test]
fn the_same_level_three_times_comes_back_unchanged() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let level = sample_level();
    for name in ["base.level", "ours.level", "theirs.level"] {
        std::fs::write(dir.join(name), &level).unwrap();
    }
    let out = run(assetvc()
        .args(["merge-file", "ours.level", "base.level", "theirs.level"])
        .current_dir(dir));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("ours.level")).unwrap(),
        level
    );
    let out = run(assetvc().args(["check", "ours.level"]).current_dir(dir));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn disjoint_edits_merge_by_merge_file() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let level = sample_level();
    let (ours, theirs) = edits(&level);
    std::fs::write(dir.join("base.level"), &level).unwrap();
    std::fs::write(dir.join("ours.level"), &ours).unwrap();
    std::fs::write(dir.join("theirs.level"), &theirs).unwrap();
    let out = run(assetvc()
        .args(["merge-file", "ours.level", "base.level", "theirs.level"])
        .current_dir(dir));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_both_edits(
        &std::fs::read_to_string(dir.join("ours.level")).unwrap(),
        &level,
    );
}

fn commit_on(dir: &Path, branch: &str, text: &str) {
    git(dir, &["checkout", "-q", "-B", branch, "main"]);
    std::fs::write(dir.join("sample.level"), text).unwrap();
    git(dir, &["commit", "-q", "-am", branch]);
}

#[test]
fn disjoint_edits_merge_under_git_merge() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let level = sample_level();
    let (ours, theirs) = edits(&level);
    git(dir, &["init", "-q", "-b", "main"]);
    let driver = format!("{} merge-driver %O %A %B %P", env!("CARGO_BIN_EXE_assetvc"));
    git(dir, &["config", "merge.assetvc.driver", &driver]);
    std::fs::write(dir.join(".gitattributes"), "*.level merge=assetvc\n").unwrap();
    std::fs::write(dir.join("sample.level"), &level).unwrap();
    git(dir, &["add", "."]);
    git(dir, &["commit", "-q", "-m", "base"]);
    commit_on(dir, "theirs", &theirs);
    commit_on(dir, "ours", &ours);
    let out = git_output(dir, &["merge", "--no-edit", "theirs"]);
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_both_edits(
        &std::fs::read_to_string(dir.join("sample.level")).unwrap(),
        &level,
    );
}
