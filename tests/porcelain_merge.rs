//! End to end: `assetvc merge BRANCH` in a real repository — what it refuses (and that it
//! then loses nothing), what it leaves for the user and how (git's own merge state), fast
//! forwards, text files beside assets, concluding a merge with `assetvc commit`.

mod common;

use std::path::Path;

use common::{assetvc_expect, data, git_home, git_home_output};
use sjson::Dialect;

const BASE: &str = "entities = [
	{
		id = \"e1\"
		position = [0 0 0]
	}
]
settings = {
	fog = 0.1
}
";

fn setup(dir: &Path) {
    git_home(dir, dir, &["init", "-q", "-b", "main"]);
    std::fs::write(dir.join("level.sjson"), BASE).unwrap();
    std::fs::write(dir.join("notes.txt"), "one\ntwo\nthree\n").unwrap();
    git_home(dir, dir, &["add", "."]);
    git_home(dir, dir, &["commit", "-q", "-m", "base"]);
}

/// Commits `files` on `branch` (created from `from`), then checks `main` out again.
fn commit_on(dir: &Path, branch: &str, from: &str, files: &[(&str, &str)]) {
    git_home(dir, dir, &["checkout", "-q", "-B", branch, from]);
    for (name, text) in files {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    git_home(dir, dir, &["add", "-A"]);
    git_home(dir, dir, &["commit", "-q", "-m", branch]);
    git_home(dir, dir, &["checkout", "-q", "main"]);
}

fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap()
}

fn head(dir: &Path) -> String {
    git_home(dir, dir, &["rev-parse", "HEAD"])
}

fn unmerged(dir: &Path) -> String {
    git_home(dir, dir, &["diff", "--name-only", "--diff-filter=U"])
}

#[test]
fn refuses_over_local_changes_and_loses_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    setup(dir);
    commit_on(
        dir,
        "theirs",
        "main",
        &[("level.sjson", &BASE.replace("fog = 0.1", "fog = 0.5"))],
    );
    commit_on(
        dir,
        "main",
        "main",
        &[("level.sjson", &BASE.replace("[0 0 0]", "[1 1 1]"))],
    );
    commit_on(dir, "adds", "theirs", &[("new.sjson", "a = 1\n")]);
    let before = head(dir);

    // An unstaged change to a path the merge touches.
    let local = BASE.replace("[0 0 0]", "[1 1 1]").replace("e1", "e1-local");
    std::fs::write(dir.join("level.sjson"), &local).unwrap();
    let (_, stderr) = assetvc_expect(dir, dir, &["merge", "theirs"], 2);
    assert!(stderr.contains("would be overwritten"), "{stderr}");
    assert!(stderr.contains("level.sjson"), "{stderr}");
    assert_eq!(
        read(dir, "level.sjson"),
        local,
        "the local change is intact"
    );
    assert_eq!(head(dir), before);
    assert!(!dir.join(".git/MERGE_HEAD").exists());
    assert!(git_home(dir, dir, &["diff", "--cached"]).is_empty());

    // A staged change anywhere: refused too.
    std::fs::write(dir.join("level.sjson"), BASE.replace("[0 0 0]", "[1 1 1]")).unwrap();
    std::fs::write(dir.join("notes.txt"), "staged\n").unwrap();
    git_home(dir, dir, &["add", "notes.txt"]);
    let (_, stderr) = assetvc_expect(dir, dir, &["merge", "theirs"], 2);
    assert!(stderr.contains("staged"), "{stderr}");
    assert_eq!(read(dir, "notes.txt"), "staged\n");
    assert_eq!(
        git_home(dir, dir, &["diff", "--cached", "--name-only"]),
        "notes.txt\n"
    );
    git_home(dir, dir, &["reset", "-q", "notes.txt"]);

    // An untracked file where the merge adds one.
    std::fs::write(dir.join("new.sjson"), "mine = 2\n").unwrap();
    let (_, stderr) = assetvc_expect(dir, dir, &["merge", "adds"], 2);
    assert!(stderr.contains("new.sjson"), "{stderr}");
    assert_eq!(read(dir, "new.sjson"), "mine = 2\n");
    assert_eq!(head(dir), before);
    std::fs::remove_file(dir.join("new.sjson")).unwrap();

    // A local change to a path the merge does not touch is carried over.
    assetvc_expect(dir, dir, &["merge", "theirs"], 0);
    assert_eq!(
        read(dir, "notes.txt"),
        "staged\n",
        "untouched local change kept"
    );
    assert_eq!(
        git_home(dir, dir, &["status", "--porcelain"]),
        " M notes.txt\n"
    );
    let merged = read(dir, "level.sjson");
    assert!(
        merged.contains("fog = 0.5") && merged.contains("[1 1 1]"),
        "{merged}"
    );
}

#[test]
fn an_unparsable_side_leaves_the_path_conflicted_with_ours_intact() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    setup(dir);
    commit_on(
        dir,
        "broken",
        "main",
        &[("level.sjson", &BASE.replace("fog = 0.1", "fog = {"))],
    );
    let ours = BASE.replace("fog = 0.1", "fog = 0.2");
    commit_on(
        dir,
        "main",
        "main",
        &[
            ("level.sjson", &ours),
            ("notes.txt", "one\ntwo\nthree\nfour\n"),
        ],
    );
    commit_on(
        dir,
        "broken",
        "broken",
        &[("notes.txt", "zero\none\ntwo\nthree\n")],
    );
    let before = head(dir);

    let (_, stderr) = assetvc_expect(dir, dir, &["merge", "broken"], 1);
    assert!(stderr.contains("level.sjson (theirs):10:1: "), "{stderr}");
    assert_eq!(read(dir, "level.sjson"), ours, "ours is intact");
    assert_eq!(
        unmerged(dir),
        "level.sjson\n",
        "git sees the path conflicted"
    );
    assert_eq!(
        read(dir, "notes.txt"),
        "zero\none\ntwo\nthree\nfour\n",
        "the rest merged"
    );
    assert!(dir.join(".git/MERGE_HEAD").exists());
    assert_eq!(head(dir), before, "no commit");
    let (conflicts, _) = assetvc_expect(dir, dir, &["conflicts"], 0);
    assert!(
        conflicts.contains("\nlevel.sjson: not merged"),
        "{conflicts}"
    );

    // assetvc commit refuses while the path is unmerged…
    assetvc_expect(dir, dir, &["commit", "-m", "merge"], 2);
    // …and concludes the merge once it is resolved and staged.
    let fixed = ours.replace("fog = 0.2", "fog = 0.3");
    std::fs::write(dir.join("level.sjson"), &fixed).unwrap();
    assetvc_expect(dir, dir, &["commit", "level.sjson"], 0);
    assert_eq!(
        git_home(dir, dir, &["log", "-1", "--format=%P"])
            .split_whitespace()
            .count(),
        2
    );
    assert!(git_home(dir, dir, &["log", "-1", "--format=%s"]).starts_with("Merge branch 'broken'"));
    assert!(!dir.join(".git/MERGE_HEAD").exists());
    assert!(git_home(dir, dir, &["status", "--porcelain"]).is_empty());
    assert_eq!(git_home(dir, dir, &["show", "HEAD:level.sjson"]), fixed);
}

#[test]
fn git_merge_abort_undoes_a_conflicted_merge() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    setup(dir);
    commit_on(dir, "t", "main", &[("notes.txt", "one\nTWO (t)\nthree\n")]);
    commit_on(
        dir,
        "main",
        "main",
        &[("notes.txt", "one\nTWO (main)\nthree\n")],
    );
    let (_, stderr) = assetvc_expect(dir, dir, &["merge", "t"], 1);
    assert!(stderr.contains("notes.txt: conflict"), "{stderr}");
    let text = read(dir, "notes.txt");
    assert!(
        text.contains("<<<<<<< HEAD") && text.contains(">>>>>>> t"),
        "{text}"
    );
    assert_eq!(unmerged(dir), "notes.txt\n");
    git_home(dir, dir, &["merge", "--abort"]);
    assert_eq!(read(dir, "notes.txt"), "one\nTWO (main)\nthree\n");
    assert!(git_home(dir, dir, &["status", "--porcelain"]).is_empty());
}

#[test]
fn fast_forward_up_to_date_and_unknown_revisions() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    setup(dir);
    commit_on(
        dir,
        "ahead",
        "main",
        &[
            ("level.sjson", &BASE.replace("fog = 0.1", "fog = 0.7")),
            ("sub/dir/new.txt", "new\n"),
        ],
    );
    let (stdout, _) = assetvc_expect(dir, dir, &["merge", "ahead"], 0);
    assert!(stdout.contains("Fast-forward"), "{stdout}");
    assert_eq!(head(dir), git_home(dir, dir, &["rev-parse", "ahead"]));
    assert!(read(dir, "level.sjson").contains("fog = 0.7"));
    assert_eq!(read(dir, "sub/dir/new.txt"), "new\n");
    assert!(git_home(dir, dir, &["status", "--porcelain"]).is_empty());
    assert_eq!(
        git_home(dir, dir, &["rev-parse", "ORIG_HEAD"]),
        git_home(dir, dir, &["rev-parse", "HEAD~1"])
    );

    let (stdout, _) = assetvc_expect(dir, dir, &["merge", "ahead"], 0);
    assert!(stdout.contains("Already up to date."), "{stdout}");
    let (_, stderr) = assetvc_expect(dir, dir, &["merge", "no-such-branch"], 2);
    assert!(stderr.contains("unknown revision"), "{stderr}");

    // A file deleted by the merge goes, with the directories it leaves empty.
    git_home(dir, dir, &["checkout", "-q", "-b", "rm"]);
    git_home(dir, dir, &["rm", "-q", "sub/dir/new.txt"]);
    git_home(dir, dir, &["commit", "-q", "-m", "rm"]);
    git_home(dir, dir, &["checkout", "-q", "main"]);
    assetvc_expect(dir, dir, &["merge", "rm"], 0);
    assert!(!dir.join("sub").exists());
    assert!(git_home(dir, dir, &["status", "--porcelain"]).is_empty());
}

#[test]
fn policy_fail_leaves_conflicts_for_the_user() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    setup(dir);
    std::fs::write(dir.join("assetvc.toml"), "[merge]\npolicy = \"fail\"\n").unwrap();
    git_home(dir, dir, &["add", "assetvc.toml"]);
    git_home(dir, dir, &["commit", "-q", "-m", "config"]);
    commit_on(
        dir,
        "t",
        "main",
        &[("level.sjson", &BASE.replace("fog = 0.1", "fog = 0.9"))],
    );
    commit_on(
        dir,
        "main",
        "main",
        &[("level.sjson", &BASE.replace("fog = 0.1", "fog = 0.2"))],
    );
    let (_, stderr) = assetvc_expect(dir, dir, &["merge", "t"], 1);
    assert!(
        stderr.contains("settings.fog: both modified, took theirs"),
        "{stderr}"
    );
    assert_eq!(unmerged(dir), "level.sjson\n");
    assert!(read(dir, "level.sjson").contains("fog = 0.9"));
    // The command line overrides the configured policy.
    git_home(dir, dir, &["merge", "--abort"]);
    assetvc_expect(dir, dir, &["merge", "--policy", "ours", "t"], 0);
    assert!(read(dir, "level.sjson").contains("fog = 0.2"));
    let message = git_home(dir, dir, &["log", "-1", "--format=%B"]);
    assert!(
        message.contains("level.sjson settings.fog: both modified, took ours"),
        "{message}"
    );
}

#[test]
fn json_assets_and_renames_merge_by_structure() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    setup(dir);
    let loc = "{\n  \"strings\": {\n    \"hello\": \"Hello\",\n    \"bye\": \"Bye\"\n  }\n}\n";
    std::fs::write(dir.join("loc.json"), loc).unwrap();
    git_home(dir, dir, &["add", "loc.json"]);
    git_home(dir, dir, &["commit", "-q", "-m", "loc"]);
    // theirs renames the level and edits it; ours edits the level and the JSON table.
    git_home(dir, dir, &["checkout", "-q", "-b", "t"]);
    git_home(dir, dir, &["mv", "level.sjson", "renamed.sjson"]);
    std::fs::write(
        dir.join("renamed.sjson"),
        BASE.replace("fog = 0.1", "fog = 0.4"),
    )
    .unwrap();
    std::fs::write(dir.join("loc.json"), loc.replace("\"Bye\"", "\"Goodbye\"")).unwrap();
    git_home(dir, dir, &["commit", "-q", "-am", "t"]);
    git_home(dir, dir, &["checkout", "-q", "main"]);
    std::fs::write(dir.join("level.sjson"), BASE.replace("[0 0 0]", "[3 3 3]")).unwrap();
    std::fs::write(dir.join("loc.json"), loc.replace("\"Hello\"", "\"Hi\"")).unwrap();
    git_home(dir, dir, &["commit", "-q", "-am", "main"]);
    assetvc_expect(dir, dir, &["merge", "t"], 0);
    assert!(!dir.join("level.sjson").exists());
    let level = read(dir, "renamed.sjson");
    assert!(
        level.contains("fog = 0.4") && level.contains("[3 3 3]"),
        "{level}"
    );
    assert_eq!(
        data(&read(dir, "loc.json"), Dialect::Json),
        data(
            r#"{"strings": {"hello": "Hi", "bye": "Goodbye"}}"#,
            Dialect::Json
        )
    );
    assert!(git_home(dir, dir, &["status", "--porcelain"]).is_empty());
    let fsck = git_home_output(dir, dir, &["fsck", "--strict"]);
    assert!(fsck.status.success());
}

#[test]
fn commit_all_concludes_a_merge_with_its_prepared_message() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    setup(dir);
    commit_on(
        dir,
        "t",
        "main",
        &[("level.sjson", &BASE.replace("fog = 0.1", "fog = 0.9"))],
    );
    commit_on(
        dir,
        "main",
        "main",
        &[("level.sjson", &BASE.replace("fog = 0.1", "fog = 0.2"))],
    );
    assetvc_expect(dir, dir, &["merge", "--policy", "fail", "t"], 1);
    assert_eq!(unmerged(dir), "level.sjson\n");
    // The user looks at the result (theirs' value), keeps it, and commits everything.
    let (stdout, _) = assetvc_expect(dir, dir, &["commit", "-a"], 0);
    assert!(stdout.contains("(merge)"), "{stdout}");
    let message = git_home(dir, dir, &["log", "-1", "--format=%B"]);
    assert!(message.starts_with("Merge branch 't'\n"), "{message}");
    assert!(
        message.contains("level.sjson settings.fog: both modified, took theirs"),
        "{message}"
    );
    assert!(!message.contains("# Conflicts"), "{message}");
    assert_eq!(
        git_home(dir, dir, &["log", "-1", "--format=%P"])
            .split_whitespace()
            .count(),
        2
    );
    assert!(git_home(dir, dir, &["status", "--porcelain"]).is_empty());
    assert!(read(dir, "level.sjson").contains("fog = 0.9"));
}
