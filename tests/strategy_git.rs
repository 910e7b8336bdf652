//! End to end: what the merge strategy needs of git. On a git older than 2.41 (no
//! `--attr-source`; a fake `git` first on PATH reports 2.39.2 and hands everything else to
//! the real one) `doctor` says why it cannot run, `install` does not make it the default
//! and `git-merge-assetvc` exits 2, "not handled", changing nothing. And a
//! `merge=assetvc` in `.git/info/attributes` (which outranks the strategy's own
//! attributes) does not make git start the driver once per file: the driver, configured
//! to leave a marker, never runs, and the merge is the structured one.

use crate::common;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::merge_strategy::{text, write, BASE};
use common::{data, isolated, run};
use sjson::Dialect;

/// The real git's path.
fn real_git() -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|d| d.join("git"))
        .find(|p| p.is_file())
        .expect("git on PATH")
}

/// PATH: `first` (if any), the built strategy's directory, then the test's PATH.
fn path(first: Option<&Path>) -> OsString {
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_git-merge-assetvc"));
    let mut dirs: Vec<PathBuf> = first.map(Path::to_path_buf).into_iter().collect();
    dirs.push(exe.parent().unwrap().to_path_buf());
    dirs.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(dirs).unwrap()
}

/// What an old git refuses, as a shell `case` pattern over each argument, and how.
const NO_ATTR_SOURCE: &str = "--attr-source=*) echo \"unknown option: $a\" >&2; exit 129";
const NO_TREE_AS_BASE: &str =
    "--merge-base=4b825dc642cb6eb9a060e54bf8d69288fbee4904) echo \"fatal: could not lookup commit\" >&2; exit 128";

/// The script of a `git` that reports `version`, refuses what `refuses` matches (as that
/// git would) and runs the real git otherwise.
fn fake_script(version: &str, refuses: &str) -> String {
    format!(
        "#!/bin/sh\nif [ \"$1\" = \"--version\" ]; then echo 'git version {version}'; exit 0; fi\n\
         for a in \"$@\"; do case \"$a\" in {refuses};; esac; done\nexec '{}' \"$@\"\n",
        real_git().display()
    )
}

/// A directory holding [`fake_script`] as `git`.
fn fake_git(home: &Path, version: &str, refuses: &str) -> PathBuf {
    let dir = home.join("old-git");
    std::fs::create_dir(&dir).unwrap();
    let script = dir.join("git");
    std::fs::write(&script, fake_script(version, refuses)).unwrap();
    common::make_executable(&script);
    dir
}

/// `program` in `dir` with `PATH` = `path`, whatever the status.
fn run_in(mut cmd: Command, dir: &Path, path: &OsString, args: &[&str]) -> Output {
    isolated(cmd.args(args), dir, dir.parent().unwrap())
        .env("PATH", path)
        .env("GIT_EDITOR", "true");
    run(&mut cmd)
}

fn git(dir: &Path, path: &OsString, args: &[&str]) -> String {
    let out = run_in(Command::new(real_git()), dir, path, args);
    assert!(out.status.success(), "git {args:?}: {}", text(&out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn assetvc(dir: &Path, path: &OsString, args: &[&str]) -> Output {
    run_in(common::assetvc(), dir, path, args)
}

/// A repository with `level.sjson` on `main` and `side`, both changed by structure
/// compatible edits that conflict as text (the fog differs: theirs wins by policy).
fn diverged(home: &Path, path: &OsString, install: bool) -> PathBuf {
    let dir = home.join("work");
    std::fs::create_dir(&dir).unwrap();
    git(&dir, path, &["init", "-q", "-b", "main"]);
    if install {
        let out = assetvc(&dir, path, &["install"]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    }
    write(&dir, "level.sjson", BASE);
    git(&dir, path, &["add", "."]);
    git(&dir, path, &["commit", "-q", "-m", "base"]);
    git(&dir, path, &["checkout", "-q", "-b", "side"]);
    let side = BASE
        .replace("[0 0 0]", "[1 2 3]")
        .replace("fog = 0.1", "fog = 0.5");
    write(&dir, "level.sjson", &side);
    git(&dir, path, &["commit", "-q", "-a", "-m", "side"]);
    git(&dir, path, &["checkout", "-q", "main"]);
    let main = BASE
        .replace("[5 5 5]", "[6 6 6]")
        .replace("fog = 0.1", "fog = 0.7");
    write(&dir, "level.sjson", &main);
    git(&dir, path, &["commit", "-q", "-a", "-m", "main"]);
    dir
}

#[test]
fn an_old_git_is_reported_and_the_strategy_declines() {
    let tmp = tempfile::tempdir().unwrap();
    let old = path(Some(&fake_git(tmp.path(), "2.39.2", NO_ATTR_SOURCE)));
    let dir = diverged(tmp.path(), &old, false);
    // install: the driver, not the strategy, and why.
    let out = assetvc(&dir, &old, &["install"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("git 2.39.2 cannot run the merge strategy")
            && stderr.contains("git 2.41")
            && stderr.contains("--attr-source"),
        "{stderr}"
    );
    let twohead = run_in(
        Command::new(real_git()),
        &dir,
        &old,
        &["config", "pull.twohead"],
    );
    assert!(!twohead.status.success(), "{}", text(&twohead));
    // doctor: the version, and that merges use the driver.
    let out = assetvc(&dir, &old, &["doctor"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("git 2.39.2") && stdout.contains("too old"),
        "{stdout}"
    );
    // A default set by hand fails every merge: doctor says so.
    git(&dir, &old, &["config", "pull.twohead", "assetvc"]);
    let out = assetvc(&dir, &old, &["doctor"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("every merge fails"),
        "{}",
        text(&out)
    );
    // The strategy itself: exit 2, not handled, nothing changed.
    let head = git(&dir, &old, &["rev-parse", "HEAD"]);
    let before = std::fs::read_to_string(dir.join("level.sjson")).unwrap();
    let base = git(&dir, &old, &["merge-base", "main", "side"]);
    let out = run_in(
        Command::new(env!("CARGO_BIN_EXE_git-merge-assetvc")),
        &dir,
        &old,
        &[base.trim(), "--", "HEAD", "side"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("cannot run the merge strategy") && stderr.contains("--no-strategy"),
        "{stderr}"
    );
    // Through git (which puts its exec path first on the strategy's PATH: the fake git
    // is made the exec path's): the merge is refused as git refuses a failed strategy.
    let mut cmd = Command::new(real_git());
    cmd.env("GIT_EXEC_PATH", tmp.path().join("old-git"));
    let out = run_in(cmd, &dir, &old, &["merge", "--no-edit", "side"]);
    assert!(!out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("cannot run the merge strategy"),
        "{}",
        text(&out)
    );
    assert_eq!(git(&dir, &old, &["rev-parse", "HEAD"]), head);
    assert_eq!(
        std::fs::read_to_string(dir.join("level.sjson")).unwrap(),
        before
    );
}

#[test]
fn unrelated_histories_need_git_2_45_and_pr_needs_2_41() {
    let tmp = tempfile::tempdir().unwrap();
    let git_2_43 = path(Some(&fake_git(tmp.path(), "2.43.0", NO_TREE_AS_BASE)));
    let dir = diverged(tmp.path(), &git_2_43, false);
    // No merge base: the strategy would give merge-tree the empty tree as the base.
    let out = run_in(
        Command::new(env!("CARGO_BIN_EXE_git-merge-assetvc")),
        &dir,
        &git_2_43,
        &["--", "HEAD", "side"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("unrelated histories") && stderr.contains("2.45"),
        "{stderr}"
    );
    // With a merge base, git 2.43 runs it.
    let base = git(&dir, &git_2_43, &["merge-base", "main", "side"]);
    let out = run_in(
        Command::new(env!("CARGO_BIN_EXE_git-merge-assetvc")),
        &dir,
        &git_2_43,
        &[base.trim(), "--", "HEAD", "side"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    // `pr check` on a git without --attr-source: exit 2 and why.
    std::fs::write(
        tmp.path().join("old-git/git"),
        fake_script("2.40.1", NO_ATTR_SOURCE),
    )
    .unwrap();
    let out = assetvc(&dir, &git_2_43, &["pr", "check", "main", "side"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("git 2.40.1 cannot run `assetvc pr`") && stderr.contains("--attr-source"),
        "{stderr}"
    );
}

#[test]
fn a_current_git_is_reported_by_doctor() {
    let tmp = tempfile::tempdir().unwrap();
    let new = path(Some(&fake_git(tmp.path(), "2.47.3", "--never-given)")));
    let dir = diverged(tmp.path(), &new, true);
    assert_eq!(
        git(&dir, &new, &["config", "pull.twohead"]).trim(),
        "assetvc"
    );
    let out = assetvc(&dir, &new, &["doctor"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("git 2.47.3: runs the merge strategy"),
        "{stdout}"
    );
}

#[test]
fn info_attributes_naming_the_driver_do_not_make_git_run_it_per_file() {
    let tmp = tempfile::tempdir().unwrap();
    let path = path(None);
    let dir = diverged(tmp.path(), &path, true);
    assert_eq!(
        git(&dir, &path, &["config", "pull.twohead"]).trim(),
        "assetvc"
    );
    // The highest-precedence attributes name the driver, and the driver would leave a
    // marker (and fail) if git ever started it.
    let marker = tmp.path().join("driver-ran");
    std::fs::create_dir_all(dir.join(".git/info")).unwrap();
    write(
        &dir,
        ".git/info/attributes",
        "# local\n*.sjson merge=assetvc\n*.txt merge=union\n",
    );
    let driver = format!("touch '{}'; exit 1", marker.display());
    git(&dir, &path, &["config", "merge.assetvc.driver", &driver]);
    let out = run_in(
        Command::new(real_git()),
        &dir,
        &path,
        &["merge", "--no-edit", "side"],
    );
    assert!(out.status.success(), "{}", text(&out));
    assert!(!marker.exists(), "the driver ran: {}", text(&out));
    let merged = data(
        &std::fs::read_to_string(dir.join("level.sjson")).unwrap(),
        Dialect::Sjson,
    );
    assert_eq!(
        merged["entities"][0]["position"],
        serde_json::json!([1.0, 2.0, 3.0])
    );
    assert_eq!(
        merged["entities"][1]["position"],
        serde_json::json!([6.0, 6.0, 6.0])
    );
    assert_eq!(merged["settings"]["fog"], serde_json::json!(0.5));
    assert_eq!(git(&dir, &path, &["status", "--porcelain"]), "");
    // The private git directory merge-tree ran in is gone.
    let left: Vec<_> = std::fs::read_dir(dir.join(".git/assetvc"))
        .map(|d| d.flatten().map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert!(
        left.iter()
            .all(|n| !n.to_string_lossy().starts_with("merge-tree-")),
        "{left:?}"
    );
}

#[test]
fn info_attributes_still_decide_the_other_paths() {
    let tmp = tempfile::tempdir().unwrap();
    let path = path(None);
    let dir = diverged(tmp.path(), &path, true);
    // A union merge for notes, given only in info/attributes: both sides' lines kept.
    git(&dir, &path, &["checkout", "-q", "side"]);
    write(&dir, "notes.txt", "side\n");
    git(&dir, &path, &["add", "notes.txt"]);
    git(&dir, &path, &["commit", "-q", "-m", "side notes"]);
    git(&dir, &path, &["checkout", "-q", "main"]);
    write(&dir, "notes.txt", "main\n");
    git(&dir, &path, &["add", "notes.txt"]);
    git(&dir, &path, &["commit", "-q", "-m", "main notes"]);
    std::fs::create_dir_all(dir.join(".git/info")).unwrap();
    write(&dir, ".git/info/attributes", "notes.txt merge=union\n");
    let out = run_in(
        Command::new(real_git()),
        &dir,
        &path,
        &["merge", "--no-edit", "side"],
    );
    assert!(out.status.success(), "{}", text(&out));
    let notes = std::fs::read_to_string(dir.join("notes.txt")).unwrap();
    assert!(notes.contains("main") && notes.contains("side"), "{notes}");
}

#[test]
fn with_an_old_git_the_porcelain_merges_the_tree_with_gix_and_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let old = path(Some(&fake_git(tmp.path(), "2.39.2", NO_ATTR_SOURCE)));
    let dir = diverged(tmp.path(), &old, false);
    let out = assetvc(&dir, &old, &["merge", "side"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("git 2.39.2 cannot run") && stderr.contains("merged by gix instead"),
        "{stderr}"
    );
    let level = std::fs::read_to_string(dir.join("level.sjson")).unwrap();
    assert!(
        level.contains("[1 2 3]") && level.contains("[6 6 6]"),
        "{level}"
    );
    // A current git: no note.
    let tmp = tempfile::tempdir().unwrap();
    let new = path(None);
    let dir = diverged(tmp.path(), &new, false);
    let out = assetvc(&dir, &new, &["merge", "side"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("note"),
        "{}",
        text(&out)
    );
}
