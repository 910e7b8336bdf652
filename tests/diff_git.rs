//! End to end in a real git repository: `assetvc diff` between revisions and against the
//! worktree, and `assetvc diff-driver` as git's external diff command (configured by
//! hand, as `assetvc install` would), so that `git diff` and `git log -p --ext-diff` show
//! object-level diffs.

use crate::common;

use std::path::Path;

use common::{assetvc, git, git_output, run};

const V1: &str = "// test level
entities = [
	{
		id = \"e1\"
		name = \"crate\"
		position = [0 0 0]
	}
	{
		id = \"e2\"
		name = \"barrel\"
		position = [5 0 0]
	}
]
settings = {
	fog = 0.1
}
";

fn v2() -> String {
    V1.replace("position = [0 0 0]", "position = [1 0 0]")
        .replace(
            "\t}\n]",
            "\t}\n\t{\n\t\tid = \"e3\"\n\t\tname = \"lamp\"\n\t\tunit = \"units/lamp\"\n\t}\n]",
        )
}

/// A repository with two commits (v1, v2) of `levels/arena.level`, a text file and a
/// binary file changed between them.
fn setup(dir: &Path) {
    git(dir, &["init", "-q", "-b", "main"]);
    std::fs::create_dir(dir.join("levels")).unwrap();
    std::fs::write(dir.join("levels/arena.level"), V1).unwrap();
    std::fs::write(dir.join("notes.txt"), "one\n").unwrap();
    std::fs::write(dir.join("icon.png"), b"\x89PNG\0\0\x01").unwrap();
    git(dir, &["add", "."]);
    git(dir, &["commit", "-q", "-m", "v1"]);
    std::fs::write(dir.join("levels/arena.level"), v2()).unwrap();
    std::fs::write(dir.join("notes.txt"), "two\n").unwrap();
    std::fs::write(dir.join("icon.png"), b"\x89PNG\0\0\x02").unwrap();
    git(dir, &["commit", "-q", "-am", "v2"]);
}

fn diff(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = run(assetvc()
        .arg("diff")
        .args(args)
        .current_dir(dir)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE"));
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn diff_between_revisions() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    setup(dir);
    let (code, stdout, stderr) = diff(dir, &["HEAD~1", "HEAD"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stdout,
        "diff --assetvc a/icon.png b/icon.png
binary file modified
diff --assetvc a/levels/arena.level b/levels/arena.level
entities[crate #e1].position: [0 0 0] → [1 0 0]
+ entities[lamp #e3]: {name = \"lamp\", unit = \"units/lamp\"}
diff --assetvc a/notes.txt b/notes.txt
text file modified
"
    );
    // Paths after `--` (relative to the current directory) limit the diff.
    let (_, only, _) = diff(
        &dir.join("levels"),
        &["HEAD~1", "HEAD", "--", "arena.level"],
    );
    assert!(
        only.starts_with("diff --assetvc a/levels/arena.level"),
        "{only}"
    );
    assert_eq!(only.lines().count(), 3, "{only}");
    // The reverse direction.
    let (_, back, _) = diff(dir, &["HEAD", "HEAD~1", "--", "levels"]);
    assert_eq!(
        back,
        "diff --assetvc a/levels/arena.level b/levels/arena.level
entities[crate #e1].position: [1 0 0] → [0 0 0]
- entities[lamp #e3]: {name = \"lamp\", unit = \"units/lamp\"}
"
    );
    // Unknown revisions are bad input.
    let (code, _, stderr) = diff(dir, &["nope"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("nope"), "{stderr}");
}

#[test]
fn diff_against_the_worktree() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    setup(dir);
    // Nothing changed: nothing printed.
    assert_eq!(diff(dir, &[]), (0, String::new(), String::new()));
    // A staged and an unstaged edit, a new (added) asset, a reformatted file.
    let v3 = v2().replace("fog = 0.1", "fog = 0.25");
    std::fs::write(dir.join("levels/arena.level"), &v3).unwrap();
    std::fs::write(dir.join("levels/new.level"), "a = 1\n").unwrap();
    git(dir, &["add", "levels/new.level"]);
    std::fs::write(dir.join("levels/untracked.level"), "u = 1\n").unwrap();
    let (code, stdout, stderr) = diff(dir, &[]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stdout,
        "diff --assetvc a/levels/arena.level b/levels/arena.level
settings.fog: 0.1 → 0.25
diff --assetvc a/levels/new.level b/levels/new.level
new file
+ a: 1
"
    );
    // One revision: that revision against the worktree.
    let (_, stdout, _) = diff(dir, &["HEAD~1", "--", "levels/arena.level"]);
    assert_eq!(
        stdout,
        "diff --assetvc a/levels/arena.level b/levels/arena.level
entities[crate #e1].position: [0 0 0] → [1 0 0]
+ entities[lamp #e3]: {name = \"lamp\", unit = \"units/lamp\"}
settings.fog: 0.1 → 0.25
"
    );
    // A path given without `--` is a path, as with git.
    let (_, stdout, _) = diff(dir, &["levels/new.level"]);
    assert!(
        stdout.starts_with("diff --assetvc a/levels/new.level"),
        "{stdout}"
    );
    // JSON for tools: one record per file.
    let (_, stdout, _) = diff(dir, &["--format", "json-patch", "--", "levels"]);
    let records: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        records,
        serde_json::json!([
            {"path": "levels/arena.level", "status": "modified", "asset": true,
             "patch": [{"op": "replace", "path": "/settings/fog", "value": 0.25}]},
            {"path": "levels/new.level", "status": "added", "asset": true,
             "patch": [{"op": "add", "path": "/a", "value": 1}]}
        ])
    );
    // A formatting-only change says so; an unparsable worktree file is a line diff.
    std::fs::write(dir.join("levels/arena.level"), v2().replace("\t", "    ")).unwrap();
    let (_, stdout, _) = diff(dir, &["--", "levels/arena.level"]);
    assert!(
        stdout.ends_with("formatting changed, no value changed\n"),
        "{stdout}"
    );
    std::fs::write(dir.join("levels/arena.level"), "a = {\n").unwrap();
    let (code, stdout, _) = diff(dir, &["--", "levels/arena.level"]);
    assert_eq!(code, 0);
    assert!(
        stdout.contains("does not parse, line diff: levels/arena.level:2:1: "),
        "{stdout}"
    );
    assert!(stdout.contains("\n+a = {\n"), "{stdout}");
    let (code, stdout, _) = diff(dir, &["--json"]);
    assert_eq!(code, 0);
    let records: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let arena = records
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["path"] == "levels/arena.level")
        .unwrap();
    assert!(arena["unparsed"]
        .as_str()
        .unwrap()
        .starts_with("levels/arena.level:2:1: "));
    assert!(arena["line_diff"]
        .as_array()
        .unwrap()
        .contains(&serde_json::json!("+a = {")));
}

/// Configures `assetvc diff-driver` as git's diff driver for `*.level` by hand.
fn configure_driver(dir: &Path) {
    std::fs::write(dir.join(".gitattributes"), "*.level diff=assetvc\n").unwrap();
    let command = format!("'{}' diff-driver", env!("CARGO_BIN_EXE_assetvc"));
    git(dir, &["config", "diff.assetvc.command", &command]);
}

#[test]
fn git_diff_shows_object_level_changes_through_the_driver() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    setup(dir);
    configure_driver(dir);
    let stdout = git(dir, &["diff", "HEAD~1", "HEAD", "--", "levels"]);
    assert_eq!(
        stdout,
        "diff --assetvc a/levels/arena.level b/levels/arena.level
entities[crate #e1].position: [0 0 0] → [1 0 0]
+ entities[lamp #e3]: {name = \"lamp\", unit = \"units/lamp\"}
"
    );
    // The worktree too (old side a temporary file, new side the worktree file).
    std::fs::write(
        dir.join("levels/arena.level"),
        v2().replace("name = \"barrel\"", "name = \"keg\""),
    )
    .unwrap();
    let stdout = git(dir, &["diff"]);
    assert!(
        stdout.contains("diff --assetvc a/levels/arena.level b/levels/arena.level\nentities[keg #e2].name: \"barrel\" → \"keg\"\n"),
        "{stdout}"
    );
    // `git log -p --ext-diff`, with a file added in the first commit (old side /dev/null).
    let stdout = git(
        dir,
        &[
            "log",
            "-p",
            "--ext-diff",
            "--format=commit %s",
            "--",
            "levels",
        ],
    );
    assert!(
        stdout.contains("commit v2\n\ndiff --assetvc a/levels/arena.level b/levels/arena.level\nentities[crate #e1].position"),
        "{stdout}"
    );
    assert!(
        stdout.contains("commit v1\n\ndiff --assetvc a/levels/arena.level b/levels/arena.level\nnew file\n+ entities: [… 2 items]\n+ settings: {fog = 0.1}\n"),
        "{stdout}"
    );
}

#[test]
fn git_diff_and_log_go_on_past_files_that_do_not_parse() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    setup(dir);
    configure_driver(dir);
    // Three levels; the middle one (in path order) holds conflict markers, and a later
    // one changes too: git must show all three instead of dying on the second.
    std::fs::write(dir.join("levels/a.level"), "x = 1\n").unwrap();
    std::fs::write(dir.join("levels/c.level"), "z = 1\n").unwrap();
    git(dir, &["add", "."]);
    git(dir, &["commit", "-q", "-m", "three"]);
    std::fs::write(dir.join("levels/a.level"), "x = 2\n").unwrap();
    std::fs::write(
        dir.join("levels/arena.level"),
        "a = 1\n<<<<<<< HEAD\nb = 2\n=======\nb = 3\n>>>>>>> other\n",
    )
    .unwrap();
    std::fs::write(dir.join("levels/c.level"), "z = 2\n").unwrap();
    let out = git_output(dir, &["diff"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("x: 1 → 2"), "{stdout}");
    assert!(
        stdout.contains(
            "diff --assetvc a/levels/arena.level b/levels/arena.level\n\
             does not parse, line diff: levels/arena.level:2:9: "
        ),
        "{stdout}"
    );
    assert!(stdout.contains("\n+<<<<<<< HEAD\n"), "{stdout}");
    assert!(stdout.contains("z: 1 → 2"), "{stdout}");
    // Committed as is: `git log -p --ext-diff` shows that commit and the ones before it.
    git(dir, &["commit", "-q", "-am", "markers"]);
    let out = git_output(dir, &["log", "-p", "--ext-diff", "--format=commit %s"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("commit markers\n"), "{stdout}");
    assert!(stdout.contains("z: 1 → 2"), "{stdout}");
    assert!(stdout.contains("commit v1\n"), "{stdout}");
    // Called directly, as git calls it (7 arguments): a line diff too, exit 0.
    let old = dir.join("old.level");
    std::fs::write(&old, V1).unwrap();
    let out = run(assetvc()
        .args(["diff-driver", "levels/arena.level"])
        .arg(&old)
        .args(["0000000", "100644"])
        .arg(dir.join("levels/arena.level"))
        .args(["0000000", "100644"])
        .current_dir(dir));
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("does not parse, line diff: levels/arena.level:2:9: "),
        "{stdout}"
    );
    assert!(stdout.contains("\n-\t\tposition = [5 0 0]\n"), "{stdout}");
    // A deleted file: the new side is /dev/null.
    let out = run(assetvc()
        .args(["diff-driver", "levels/arena.level"])
        .arg(&old)
        .args(["0000000", "100644", "/dev/null", ".", "."])
        .current_dir(dir));
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "diff --assetvc a/levels/arena.level b/levels/arena.level\ndeleted file\n- entities: [… 2 items]\n- settings: {fog = 0.1}\n"
    );
}
