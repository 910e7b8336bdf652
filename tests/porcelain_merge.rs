//! End to end: `assetvc merge BRANCH` in a real repository — what it refuses (and that it
//! then loses nothing), what it leaves for the user and how (git's own merge state), fast
//! forwards, text files beside assets, concluding a merge with `assetvc commit`.

use crate::common;

use common::{data, TestRepo};
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

/// A repository with `level.sjson` (`BASE`) and `notes.txt` committed on `main`.
fn setup() -> TestRepo {
    let repo = TestRepo::new();
    repo.write("level.sjson", BASE);
    repo.write("notes.txt", "one\ntwo\nthree\n");
    repo.commit("base");
    repo
}

/// Commits `files` on `branch` (created from `from`), then checks `main` out again.
fn commit_on(repo: &TestRepo, branch: &str, from: &str, files: &[(&str, &str)]) {
    repo.git(&["checkout", "-q", "-B", branch, from]);
    for (name, text) in files {
        repo.write(name, text);
    }
    repo.commit(branch);
    repo.git(&["checkout", "-q", "main"]);
}

/// Branch `t` sets the fog to 0.9 and `main` to 0.2: a true conflict.
fn fog_conflict(repo: &TestRepo) {
    commit_on(
        repo,
        "t",
        "main",
        &[("level.sjson", &BASE.replace("fog = 0.1", "fog = 0.9"))],
    );
    commit_on(
        repo,
        "main",
        "main",
        &[("level.sjson", &BASE.replace("fog = 0.1", "fog = 0.2"))],
    );
}

fn unmerged(repo: &TestRepo) -> String {
    repo.git(&["diff", "--name-only", "--diff-filter=U"])
}

#[test]
fn refuses_over_local_changes_and_loses_nothing() {
    let repo = setup();
    commit_on(
        &repo,
        "theirs",
        "main",
        &[("level.sjson", &BASE.replace("fog = 0.1", "fog = 0.5"))],
    );
    commit_on(
        &repo,
        "main",
        "main",
        &[("level.sjson", &BASE.replace("[0 0 0]", "[1 1 1]"))],
    );
    commit_on(&repo, "adds", "theirs", &[("new.sjson", "a = 1\n")]);
    let before = repo.head();

    // An unstaged change to a path the merge touches.
    let local = BASE.replace("[0 0 0]", "[1 1 1]").replace("e1", "e1-local");
    repo.write("level.sjson", &local);
    let (_, stderr) = repo.assetvc_expect(&["merge", "theirs"], 2);
    assert!(stderr.contains("would be overwritten"), "{stderr}");
    assert!(stderr.contains("level.sjson"), "{stderr}");
    assert_eq!(
        repo.read("level.sjson"),
        local,
        "the local change is intact"
    );
    assert_eq!(repo.head(), before);
    assert!(!repo.path(".git/MERGE_HEAD").exists());
    assert!(repo.git(&["diff", "--cached"]).is_empty());

    // A staged change anywhere: refused too.
    repo.write("level.sjson", &BASE.replace("[0 0 0]", "[1 1 1]"));
    repo.write("notes.txt", "staged\n");
    repo.git(&["add", "notes.txt"]);
    let (_, stderr) = repo.assetvc_expect(&["merge", "theirs"], 2);
    assert!(stderr.contains("staged"), "{stderr}");
    assert_eq!(repo.read("notes.txt"), "staged\n");
    assert_eq!(
        repo.git(&["diff", "--cached", "--name-only"]),
        "notes.txt\n"
    );
    repo.git(&["reset", "-q", "notes.txt"]);

    // An untracked file where the merge adds one.
    repo.write("new.sjson", "mine = 2\n");
    let (_, stderr) = repo.assetvc_expect(&["merge", "adds"], 2);
    assert!(stderr.contains("new.sjson"), "{stderr}");
    assert_eq!(repo.read("new.sjson"), "mine = 2\n");
    assert_eq!(repo.head(), before);
    std::fs::remove_file(repo.path("new.sjson")).unwrap();

    // A local change to a path the merge does not touch is carried over.
    repo.assetvc_expect(&["merge", "theirs"], 0);
    assert_eq!(
        repo.read("notes.txt"),
        "staged\n",
        "untouched local change kept"
    );
    assert_eq!(repo.git(&["status", "--porcelain"]), " M notes.txt\n");
    let merged = repo.read("level.sjson");
    assert!(
        merged.contains("fog = 0.5") && merged.contains("[1 1 1]"),
        "{merged}"
    );
}

#[test]
fn an_unparsable_side_leaves_the_path_conflicted_with_ours_intact() {
    let repo = setup();
    commit_on(
        &repo,
        "broken",
        "main",
        &[("level.sjson", &BASE.replace("fog = 0.1", "fog = {"))],
    );
    let ours = BASE.replace("fog = 0.1", "fog = 0.2");
    commit_on(
        &repo,
        "main",
        "main",
        &[
            ("level.sjson", &ours),
            ("notes.txt", "one\ntwo\nthree\nfour\n"),
        ],
    );
    commit_on(
        &repo,
        "broken",
        "broken",
        &[("notes.txt", "zero\none\ntwo\nthree\n")],
    );
    let before = repo.head();

    let (_, stderr) = repo.assetvc_expect(&["merge", "broken"], 1);
    assert!(stderr.contains("level.sjson (theirs):10:1: "), "{stderr}");
    assert_eq!(repo.read("level.sjson"), ours, "ours is intact");
    assert_eq!(
        unmerged(&repo),
        "level.sjson\n",
        "git sees the path conflicted"
    );
    assert_eq!(
        repo.read("notes.txt"),
        "zero\none\ntwo\nthree\nfour\n",
        "the rest merged"
    );
    assert!(repo.path(".git/MERGE_HEAD").exists());
    assert_eq!(repo.head(), before, "no commit");
    let (conflicts, _) = repo.assetvc_expect(&["conflicts"], 0);
    assert!(
        conflicts.contains("\nlevel.sjson: not merged"),
        "{conflicts}"
    );

    // assetvc commit refuses while the path is unmerged…
    repo.assetvc_expect(&["commit", "-m", "merge"], 2);
    // …and concludes the merge once it is resolved and staged.
    let fixed = ours.replace("fog = 0.2", "fog = 0.3");
    repo.write("level.sjson", &fixed);
    repo.assetvc_expect(&["commit", "level.sjson"], 0);
    assert_eq!(
        repo.git(&["log", "-1", "--format=%P"])
            .split_whitespace()
            .count(),
        2
    );
    assert!(repo
        .git(&["log", "-1", "--format=%s"])
        .starts_with("Merge branch 'broken'"));
    assert!(!repo.path(".git/MERGE_HEAD").exists());
    assert!(repo.git(&["status", "--porcelain"]).is_empty());
    assert_eq!(repo.git(&["show", "HEAD:level.sjson"]), fixed);
}

#[test]
fn git_merge_abort_undoes_a_conflicted_merge() {
    let repo = setup();
    commit_on(
        &repo,
        "t",
        "main",
        &[("notes.txt", "one\nTWO (t)\nthree\n")],
    );
    commit_on(
        &repo,
        "main",
        "main",
        &[("notes.txt", "one\nTWO (main)\nthree\n")],
    );
    let (_, stderr) = repo.assetvc_expect(&["merge", "t"], 1);
    assert!(stderr.contains("notes.txt: conflict"), "{stderr}");
    let text = repo.read("notes.txt");
    assert!(
        text.contains("<<<<<<< HEAD") && text.contains(">>>>>>> t"),
        "{text}"
    );
    assert_eq!(unmerged(&repo), "notes.txt\n");
    repo.git(&["merge", "--abort"]);
    assert_eq!(repo.read("notes.txt"), "one\nTWO (main)\nthree\n");
    assert!(repo.git(&["status", "--porcelain"]).is_empty());
}

#[test]
fn fast_forward_up_to_date_and_unknown_revisions() {
    let repo = setup();
    commit_on(
        &repo,
        "ahead",
        "main",
        &[
            ("level.sjson", &BASE.replace("fog = 0.1", "fog = 0.7")),
            ("sub/dir/new.txt", "new\n"),
        ],
    );
    let (stdout, _) = repo.assetvc_expect(&["merge", "ahead"], 0);
    assert!(stdout.contains("Fast-forward"), "{stdout}");
    assert_eq!(repo.head(), repo.git(&["rev-parse", "ahead"]).trim());
    assert!(repo.read("level.sjson").contains("fog = 0.7"));
    assert_eq!(repo.read("sub/dir/new.txt"), "new\n");
    assert!(repo.git(&["status", "--porcelain"]).is_empty());
    assert_eq!(
        repo.git(&["rev-parse", "ORIG_HEAD"]),
        repo.git(&["rev-parse", "HEAD~1"])
    );

    let (stdout, _) = repo.assetvc_expect(&["merge", "ahead"], 0);
    assert!(stdout.contains("Already up to date."), "{stdout}");
    let (_, stderr) = repo.assetvc_expect(&["merge", "no-such-branch"], 2);
    assert!(stderr.contains("unknown revision"), "{stderr}");

    // A file deleted by the merge goes, with the directories it leaves empty.
    repo.git(&["checkout", "-q", "-b", "rm"]);
    repo.git(&["rm", "-q", "sub/dir/new.txt"]);
    repo.git(&["commit", "-q", "-m", "rm"]);
    repo.git(&["checkout", "-q", "main"]);
    repo.assetvc_expect(&["merge", "rm"], 0);
    assert!(!repo.path("sub").exists());
    assert!(repo.git(&["status", "--porcelain"]).is_empty());
}

#[test]
fn policy_fail_leaves_conflicts_for_the_user() {
    let repo = setup();
    repo.write("assetvc.toml", "[merge]\npolicy = \"fail\"\n");
    repo.git(&["add", "assetvc.toml"]);
    repo.git(&["commit", "-q", "-m", "config"]);
    fog_conflict(&repo);
    let (_, stderr) = repo.assetvc_expect(&["merge", "t"], 1);
    assert!(
        stderr.contains("settings.fog: both modified, took theirs"),
        "{stderr}"
    );
    assert_eq!(unmerged(&repo), "level.sjson\n");
    assert!(repo.read("level.sjson").contains("fog = 0.9"));
    // The command line overrides the configured policy.
    repo.git(&["merge", "--abort"]);
    repo.assetvc_expect(&["merge", "--policy", "ours", "t"], 0);
    assert!(repo.read("level.sjson").contains("fog = 0.2"));
    let message = repo.git(&["log", "-1", "--format=%B"]);
    assert!(
        message.contains("level.sjson settings.fog: both modified, took ours"),
        "{message}"
    );
}

#[test]
fn json_assets_and_renames_merge_by_structure() {
    let repo = setup();
    let loc = "{\n  \"strings\": {\n    \"hello\": \"Hello\",\n    \"bye\": \"Bye\"\n  }\n}\n";
    repo.write("loc.json", loc);
    repo.git(&["add", "loc.json"]);
    repo.git(&["commit", "-q", "-m", "loc"]);
    // theirs renames the level and edits it; ours edits the level and the JSON table.
    repo.git(&["checkout", "-q", "-b", "t"]);
    repo.git(&["mv", "level.sjson", "renamed.sjson"]);
    std::fs::write(
        repo.path("renamed.sjson"),
        BASE.replace("fog = 0.1", "fog = 0.4"),
    )
    .unwrap();
    repo.write("loc.json", &loc.replace("\"Bye\"", "\"Goodbye\""));
    repo.git(&["commit", "-q", "-am", "t"]);
    repo.git(&["checkout", "-q", "main"]);
    repo.write("level.sjson", &BASE.replace("[0 0 0]", "[3 3 3]"));
    repo.write("loc.json", &loc.replace("\"Hello\"", "\"Hi\""));
    repo.git(&["commit", "-q", "-am", "main"]);
    repo.assetvc_expect(&["merge", "t"], 0);
    assert!(!repo.path("level.sjson").exists());
    let level = repo.read("renamed.sjson");
    assert!(
        level.contains("fog = 0.4") && level.contains("[3 3 3]"),
        "{level}"
    );
    assert_eq!(
        data(&repo.read("loc.json"), Dialect::Json),
        data(
            r#"{"strings": {"hello": "Hi", "bye": "Goodbye"}}"#,
            Dialect::Json
        )
    );
    assert!(repo.git(&["status", "--porcelain"]).is_empty());
    let fsck = repo.git_output(&["fsck", "--strict"]);
    assert!(fsck.status.success());
}

#[test]
fn commit_all_concludes_a_merge_with_its_prepared_message() {
    let repo = setup();
    fog_conflict(&repo);
    repo.assetvc_expect(&["merge", "--policy", "fail", "t"], 1);
    assert_eq!(unmerged(&repo), "level.sjson\n");
    // The user looks at the result (theirs' value), keeps it, and commits everything.
    let (stdout, _) = repo.assetvc_expect(&["commit", "-a"], 0);
    assert!(stdout.contains("(merge)"), "{stdout}");
    let message = repo.git(&["log", "-1", "--format=%B"]);
    assert!(message.starts_with("Merge branch 't'\n"), "{message}");
    assert!(
        message.contains("level.sjson settings.fog: both modified, took theirs"),
        "{message}"
    );
    assert!(!message.contains("# Conflicts"), "{message}");
    assert_eq!(
        repo.git(&["log", "-1", "--format=%P"])
            .split_whitespace()
            .count(),
        2
    );
    assert!(repo.git(&["status", "--porcelain"]).is_empty());
    assert!(repo.read("level.sjson").contains("fog = 0.9"));
}

#[test]
fn renames_deletions_and_binary_files_end_as_git_merge_leaves_them() {
    let repo = setup();
    repo.write("img.bin", "\0base\0");
    repo.commit("binary");
    // t renames notes.txt and edits it, and changes the binary file; main deletes
    // notes.txt and changes the binary file otherwise.
    repo.git(&["checkout", "-q", "-b", "t"]);
    repo.git(&["mv", "notes.txt", "docs.txt"]);
    repo.write("docs.txt", "one\ntwo\nthree\nfour\n");
    repo.write("img.bin", "\0theirs\0");
    repo.commit("t");
    repo.git(&["checkout", "-q", "main"]);
    repo.git(&["rm", "-q", "notes.txt"]);
    repo.write("img.bin", "\0ours\0");
    repo.commit("main");
    let state = || {
        (
            repo.git(&["ls-files", "-s"]),
            repo.git(&["status", "--porcelain"]),
            repo.read("docs.txt"),
            repo.read("img.bin"),
        )
    };
    let (_, stderr) = repo.assetvc_expect(&["merge", "t"], 1);
    assert!(stderr.contains("img.bin: conflict"), "{stderr}");
    let by_assetvc = state();
    repo.git(&["merge", "--abort"]);
    let out = repo.git_output(&["merge", "-s", "ort", "--no-edit", "t"]);
    assert_eq!(out.status.code(), Some(1), "{}", common::stderr(&out));
    assert_eq!(by_assetvc, state(), "assetvc merge and git merge agree");
}
