//! End to end: plain `git merge` with assetvc configured as the merge driver by hand
//! (`.gitattributes` + `merge.assetvc.driver`), in a real repository in a temp dir.

mod common;

use std::path::Path;

use common::{data, git, git_output};
use sjson::Dialect;

const BASE: &str = common::TEST_LEVEL;

fn setup(dir: &Path) {
    git(dir, &["init", "-q", "-b", "main"]);
    let driver = format!(
        "{} merge-driver -- %O %A %B %P",
        env!("CARGO_BIN_EXE_assetvc")
    );
    git(
        dir,
        &["config", "merge.assetvc.name", "assetvc structured merge"],
    );
    git(dir, &["config", "merge.assetvc.driver", &driver]);
    std::fs::write(dir.join(".gitattributes"), "*.sjson merge=assetvc\n").unwrap();
    std::fs::write(dir.join("level.sjson"), BASE).unwrap();
    git(dir, &["add", "."]);
    git(dir, &["commit", "-q", "-m", "base"]);
}

fn commit_on(dir: &Path, branch: &str, from: &str, text: &str) {
    git(dir, &["checkout", "-q", "-B", branch, from]);
    std::fs::write(dir.join("level.sjson"), text).unwrap();
    git(dir, &["commit", "-q", "-am", branch]);
}

#[test]
fn git_merge_uses_the_structured_merge() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    setup(dir);
    // A moves e1 and changes e2's tint; B adds e3 and changes the fog and e2's position.
    let a = BASE
        .replace("position = [0 0 0]", "position = [1 2 3]")
        .replace(
            "position = [5 0 0]\n\t\ttint = \"white\"",
            "position = [5 0 0]\n\t\ttint = \"red\"",
        );
    let b = BASE
        .replace("fog = 0.1", "fog = 0.3")
        .replace("position = [5 0 0]", "position = [5 5 0]")
        .replace(
            "\t}\n]",
            "\t}\n\t{\n\t\tid = \"e3\"\n\t\tname = \"lamp\"\n\t\tposition = [9 9 9]\n\t\ttint = \"white\"\n\t}\n]",
        );
    commit_on(dir, "a", "main", &a);
    commit_on(dir, "b", "main", &b);
    git(dir, &["checkout", "-q", "a"]);
    let out = git_output(dir, &["merge", "--no-edit", "b"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("assetvc: level.sjson: merged cleanly"),
        "{stderr}"
    );
    let merged = std::fs::read_to_string(dir.join("level.sjson")).unwrap();
    assert_eq!(
        data(&merged, Dialect::Sjson),
        data(
            r#"{"entities": [
                {"id": "e1", "name": "crate", "position": [1, 2, 3], "tint": "white"},
                {"id": "e2", "name": "barrel", "position": [5, 5, 0], "tint": "red"},
                {"id": "e3", "name": "lamp", "position": [9, 9, 9], "tint": "white"}],
               "settings": {"fog": 0.3}}"#,
            Dialect::Json
        )
    );
    assert!(
        merged.starts_with("// test level\n"),
        "ours' text is kept:\n{merged}"
    );
    assert!(!merged.contains("<<<<<<<"));
    // The merge commit has two parents and the worktree is clean.
    let parents = git(dir, &["log", "-1", "--format=%P"]);
    assert_eq!(parents.split_whitespace().count(), 2);
    assert!(git(dir, &["status", "--porcelain"]).is_empty());
}

#[test]
fn true_conflicts_take_theirs_and_are_reported() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    setup(dir);
    commit_on(dir, "a", "main", &BASE.replace("fog = 0.1", "fog = 0.2"));
    commit_on(dir, "b", "main", &BASE.replace("fog = 0.1", "fog = 0.9"));
    git(dir, &["checkout", "-q", "a"]);
    let out = git_output(dir, &["merge", "--no-edit", "b"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("assetvc: level.sjson: merged, 1 conflict resolved (theirs)"),
        "{stderr}"
    );
    let merged = std::fs::read_to_string(dir.join("level.sjson")).unwrap();
    assert!(merged.contains("fog = 0.9"));
    let out = common::run(
        common::assetvc()
            .args(["conflicts", "--json"])
            .current_dir(dir)
            .env_remove("GIT_DIR"),
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["operation"]["kind"], "merge");
    assert_eq!(
        report["operation"]["branch"], "b",
        "the branch, not GITHEAD_…"
    );
    assert_eq!(report["merge"], "merge of b");
    let file = &report["files"][0];
    assert_eq!(file["path"], "level.sjson");
    assert_eq!(file["conflicts"][0]["path"], "/settings/fog");
    assert_eq!(file["conflicts"][0]["ours"], 0.2);
    assert_eq!(file["conflicts"][0]["theirs"], 0.9);
    assert_eq!(file["conflicts"][0]["taken"], "theirs");
}

#[test]
fn unparsable_side_leaves_the_path_conflicted_with_ours_intact() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    setup(dir);
    let ours = BASE.replace("fog = 0.1", "fog = 0.2");
    commit_on(dir, "a", "main", &ours);
    commit_on(dir, "b", "main", &BASE.replace("fog = 0.1", "fog = {"));
    git(dir, &["checkout", "-q", "a"]);
    let out = git_output(dir, &["merge", "--no-edit", "b"]);
    assert!(!out.status.success(), "git must report a conflict");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("level.sjson (theirs):"), "{stderr}");
    assert!(
        git(dir, &["diff", "--name-only", "--diff-filter=U"]).contains("level.sjson"),
        "the path is conflicted"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("level.sjson")).unwrap(),
        ours
    );
}
