//! End to end: the merges that run git's merge-ort (`git merge-tree`) — the merge strategy,
//! `assetvc pr land`/`update` and the porcelain — leave no object in the repository that
//! nothing reaches (git's merged tree, the attribute tree, a line merge of an asset), and
//! the scratch directory of a merge killed mid-way is removed by the next one.

use crate::common;
use crate::merge_strategy::{assert_both_moves, path_with_strategy, text, BASE};
use crate::pr_merge_queue::{with_entities, Host};

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{data, isolated, run};
use sjson::Dialect;

/// git in `dir` (HOME `home`), the strategy on PATH, whatever the status.
fn git_out(dir: &Path, home: &Path, args: &[&str]) -> Output {
    let mut cmd = Command::new("git");
    isolated(cmd.args(args), dir, home)
        .env("PATH", path_with_strategy())
        .env("GIT_EDITOR", "true");
    run(&mut cmd)
}

fn git(dir: &Path, home: &Path, args: &[&str]) -> String {
    let out = git_out(dir, home, args);
    assert!(out.status.success(), "git {args:?}: {}", text(&out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The objects of `dir`'s repository that no ref, index entry or HEAD reaches (reflogs
/// do not count), sorted.
fn unreachable(dir: &Path, home: &Path) -> Vec<String> {
    let out = git(
        dir,
        home,
        &["fsck", "--unreachable", "--no-reflogs", "--no-progress"],
    );
    let mut lines: Vec<String> = out.lines().map(str::to_string).collect();
    lines.sort();
    lines
}

/// The scratch directories merges left in `dir`'s `.git/assetvc`.
fn scratch_dirs(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir.join(".git/assetvc")) else {
        return Vec::new();
    };
    entries
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("merge-tree-"))
        .collect()
}

/// Nothing a merge wrote is left behind in `dir`: its unreachable objects are still
/// `before` (`what` says after what) and no scratch directory remains.
fn assert_nothing_left(dir: &Path, home: &Path, before: &[String], what: &str) {
    assert_eq!(unreachable(dir, home), before, "{what}");
    assert!(scratch_dirs(dir).is_empty(), "{:?}", scratch_dirs(dir));
}

/// A repository set up by `assetvc install` (the strategy git's default) whose `side`
/// and `main` both changed `levels/level.sjson` (an asset) and `docs/notes.txt` (a text
/// file git merges itself), in subdirectories so that git writes subtrees too.
fn diverged(home: &Path) -> PathBuf {
    let dir = home.join("work");
    std::fs::create_dir_all(dir.join("levels")).unwrap();
    std::fs::create_dir_all(dir.join("docs")).unwrap();
    git(&dir, home, &["init", "-q", "-b", "main"]);
    let mut install = common::assetvc();
    isolated(install.arg("install"), &dir, home).env("PATH", path_with_strategy());
    let out = run(&mut install);
    assert!(out.status.success(), "{}", text(&out));
    let write = |path: &str, text: &str| std::fs::write(dir.join(path), text).unwrap();
    write("levels/level.sjson", BASE);
    write("docs/notes.txt", "one\ntwo\nthree\nfour\n");
    git(&dir, home, &["add", "."]);
    git(&dir, home, &["commit", "-q", "-m", "base"]);
    git(&dir, home, &["checkout", "-q", "-b", "side"]);
    write("levels/level.sjson", &BASE.replace("[0 0 0]", "[1 2 3]"));
    write("docs/notes.txt", "one (side)\ntwo\nthree\nfour\n");
    git(&dir, home, &["commit", "-q", "-a", "-m", "side"]);
    git(&dir, home, &["checkout", "-q", "main"]);
    write("levels/level.sjson", &BASE.replace("[5 5 5]", "[6 6 6]"));
    write("docs/notes.txt", "one\ntwo\nthree\nfour (main)\n");
    git(&dir, home, &["commit", "-q", "-a", "-m", "main"]);
    dir
}

/// The merge of `side` into `main` is in the worktree: both edits of each file.
fn assert_merged(dir: &Path) {
    let level = std::fs::read_to_string(dir.join("levels/level.sjson")).unwrap();
    assert_both_moves(&data(&level, Dialect::Sjson));
    assert_eq!(
        std::fs::read_to_string(dir.join("docs/notes.txt")).unwrap(),
        "one (side)\ntwo\nthree\nfour (main)\n"
    );
}

#[test]
fn a_strategy_merge_writes_only_the_objects_its_result_keeps() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let dir = diverged(home);
    let before = unreachable(&dir, home);
    let out = git_out(&dir, home, &["merge", "--no-edit", "side"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("'assetvc' strategy"), "{}", text(&out));
    assert_merged(&dir);
    assert_nothing_left(&dir, home, &before, "no object left unreachable");
}

#[test]
fn the_porcelain_merge_writes_only_the_objects_its_result_keeps() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let dir = diverged(home);
    let before = unreachable(&dir, home);
    let out = run(isolated(
        common::assetvc().args(["merge", "side"]),
        &dir,
        home,
    ));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_merged(&dir);
    assert_eq!(git(&dir, home, &["status", "--porcelain"]), "");
    assert_nothing_left(&dir, home, &before, "no object left unreachable");
}

#[test]
fn a_killed_strategy_leaves_a_scratch_directory_the_next_merge_removes() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let dir = diverged(home);
    let before = unreachable(&dir, home);
    // Killed after git merge-tree wrote its objects, before anything else.
    let mut cmd = Command::new("git");
    isolated(cmd.args(["merge", "--no-edit", "side"]), &dir, home)
        .env("PATH", path_with_strategy())
        .env("ASSETVC_FAILPOINT", "merge-tree-ran");
    let out = run(&mut cmd);
    assert!(!out.status.success(), "{}", text(&out));
    assert_eq!(scratch_dirs(&dir).len(), 1, "{}", text(&out));
    // One from an older assetvc (no lock file), planted.
    std::fs::create_dir_all(dir.join(".git/assetvc/merge-tree-planted/objects")).unwrap();
    // git's own lock, left by the kill as by any killed git command, is git's to refuse:
    // the user removes it as git says.
    let _ = std::fs::remove_file(dir.join(".git/index.lock"));
    let out = git_out(&dir, home, &["merge", "--no-edit", "side"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_merged(&dir);
    assert_nothing_left(&dir, home, &before, "the killed merge wrote nothing");
}

#[test]
fn pr_update_and_land_write_only_the_objects_they_push() {
    let tmp = tempfile::tempdir().unwrap();
    let host = Host::new(tmp.path());
    // Both add an entity at the same place: a text conflict the structured merge solves.
    host.push_branch("feature", &with_entities(&["e3"]));
    let e4 = with_entities(&["e4"]);
    let upstream = host.commit_on_main(
        "upstream",
        &[("level.sjson", &e4), ("notes.txt", "main\n")],
        "e4",
    );
    git(&upstream, &host.home, &["push", "-q", "origin", "main"]);
    let ci = host.clone_as("ci");
    let before = unreachable(&ci, &host.home);
    let pr = |args: &[&str]| {
        let out = run(isolated(common::assetvc().args(args), &ci, &host.home));
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    };
    pr(&["pr", "update", "feature", "--base", "main"]);
    assert_eq!(unreachable(&ci, &host.home), before, "after pr update");
    pr(&["pr", "land", "feature", "--into", "main"]);
    let mut ids = host.ids_on_main();
    ids.sort();
    assert_eq!(ids, ["e1", "e3", "e4"]);
    assert_nothing_left(&ci, &host.home, &before, "after pr land");
    assert!(unreachable(&host.bare, &host.home).is_empty(), "the host");
}
