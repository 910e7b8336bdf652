//! End to end: the merge strategy `git-merge-assetvc` that `assetvc install` makes git's
//! default (`pull.twohead = assetvc`): `git merge`, `git pull`, `git rebase` and
//! `git cherry-pick` merge assets by structure in one process per merge step, and leave
//! git's usual state when paths are left for the user (unmerged entries, `git merge
//! --abort`, `git rebase --continue`). The strategy's directory is put first on git's PATH,
//! as `cargo install` would.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{data, isolated, run};
use sjson::Dialect;

/// A level with two entities and settings, the base of the strategy tests.
pub(crate) const BASE: &str = "entities = [
	{
		id = \"e1\"
		position = [0 0 0]
	}
	{
		id = \"e2\"
		position = [5 5 5]
	}
]
settings = {
	fog = 0.1
}
";

/// PATH with the directory of the built `git-merge-assetvc` first.
pub(crate) fn path_with_strategy() -> std::ffi::OsString {
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_git-merge-assetvc"));
    let dir = exe.parent().unwrap().to_path_buf();
    let rest = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs = vec![dir];
    dirs.extend(std::env::split_paths(&rest));
    std::env::join_paths(dirs).unwrap()
}

/// git in `dir` (HOME `dir`'s parent), the strategy on PATH, whatever the status.
fn git_out(dir: &Path, args: &[&str]) -> Output {
    let mut cmd = Command::new("git");
    isolated(cmd.args(args), dir, dir.parent().unwrap())
        .env("PATH", path_with_strategy())
        .env("GIT_EDITOR", "true");
    run(&mut cmd)
}

/// An output with its status, for assertion messages.
pub(crate) fn text(out: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// git that must succeed; its stdout.
pub(crate) fn git(dir: &Path, args: &[&str]) -> String {
    let out = git_out(dir, args);
    assert!(out.status.success(), "git {args:?}: {}", text(&out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// assetvc in `dir` with the strategy on PATH; asserts the exit status.
fn assetvc(dir: &Path, args: &[&str], code: i32) -> String {
    let mut cmd = common::assetvc();
    isolated(cmd.args(args), dir, dir.parent().unwrap()).env("PATH", path_with_strategy());
    let out = run(&mut cmd);
    assert_eq!(
        out.status.code(),
        Some(code),
        "assetvc {args:?}: {}",
        text(&out)
    );
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Writes `text` to `dir/path`.
pub(crate) fn write(dir: &Path, path: &str, text: &str) {
    std::fs::write(dir.join(path), text).unwrap();
}

fn read(dir: &Path, path: &str) -> String {
    std::fs::read_to_string(dir.join(path)).unwrap()
}

/// A repository set up by `assetvc install` (strategy on PATH) with `level.sjson` and
/// `notes.txt` committed on `main`.
pub(crate) fn setup(home: &Path) -> PathBuf {
    let dir = home.join("work");
    std::fs::create_dir(&dir).unwrap();
    git(&dir, &["init", "-q", "-b", "main"]);
    let out = assetvc(&dir, &["install"], 0);
    assert!(out.contains("pull.twohead"), "{out}");
    write(&dir, "level.sjson", BASE);
    write(&dir, "notes.txt", "one\ntwo\nthree\n");
    git(&dir, &["add", "."]);
    git(&dir, &["commit", "-q", "-m", "base"]);
    dir
}

fn commit_all(dir: &Path, message: &str) {
    git(dir, &["commit", "-q", "-a", "-m", message]);
}

fn level(dir: &Path) -> serde_json::Value {
    data(&read(dir, "level.sjson"), Dialect::Sjson)
}

/// The merged level keeps both sides' moves of [`diverge`]: e1 at [1 2 3] (side), e2 at
/// [6 6 6] (main).
pub(crate) fn assert_both_moves(level: &serde_json::Value) {
    assert_eq!(
        level["entities"][0]["position"],
        serde_json::json!([1.0, 2.0, 3.0])
    );
    assert_eq!(
        level["entities"][1]["position"],
        serde_json::json!([6.0, 6.0, 6.0])
    );
}

/// `side` moves e1 and sets the fog; main moves e2 and sets the fog otherwise.
pub(crate) fn diverge(dir: &Path) {
    git(dir, &["checkout", "-q", "-b", "side"]);
    write(
        dir,
        "level.sjson",
        &BASE
            .replace("[0 0 0]", "[1 2 3]")
            .replace("fog = 0.1", "fog = 0.5"),
    );
    commit_all(dir, "side: e1, fog");
    git(dir, &["checkout", "-q", "main"]);
    write(
        dir,
        "level.sjson",
        &BASE
            .replace("[5 5 5]", "[6 6 6]")
            .replace("fog = 0.1", "fog = 0.7"),
    );
    commit_all(dir, "main: e2, fog");
}

#[test]
fn install_makes_the_strategy_the_default_and_doctor_checks_it() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = setup(tmp.path());
    assert_eq!(git(&dir, &["config", "pull.twohead"]).trim(), "assetvc");
    let out = assetvc(&dir, &["doctor"], 0);
    assert!(out.contains("pull.twohead = assetvc"), "{out}");
    // Opting out removes the setting, and doctor accepts it.
    assetvc(&dir, &["install", "--no-strategy"], 0);
    assert!(!git_out(&dir, &["config", "pull.twohead"]).status.success());
    let out = assetvc(&dir, &["doctor"], 0);
    assert!(out.contains("--no-strategy"), "{out}");
    // Installing again withdraws the opt-out.
    assetvc(&dir, &["install"], 0);
    assert_eq!(git(&dir, &["config", "pull.twohead"]).trim(), "assetvc");
    // A setting naming a strategy git cannot find (not on PATH) fails every merge: doctor
    // says so.
    let mut cmd = common::assetvc();
    isolated(cmd.arg("doctor"), &dir, tmp.path()).env("PATH", "/usr/bin:/bin");
    let out = run(&mut cmd);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("not on PATH"));
}

#[test]
fn git_merge_merges_assets_by_structure_and_lists_the_policy_choices() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = setup(tmp.path());
    diverge(&dir);
    let out = git_out(&dir, &["merge", "--no-edit", "side"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("by the 'assetvc' strategy"),
        "{}",
        text(&out)
    );
    let merged = level(&dir);
    assert_both_moves(&merged);
    assert_eq!(merged["settings"]["fog"], serde_json::json!(0.5)); // theirs, by policy
                                                                   // A merge commit with two parents, a clean worktree, the choice in its message.
    assert_eq!(
        git(&dir, &["rev-list", "--count", "--merges", "HEAD"]).trim(),
        "1"
    );
    assert_eq!(git(&dir, &["status", "--porcelain"]), "");
    let message = git(&dir, &["log", "-1", "--format=%B"]);
    assert!(message.contains("settings.fog"), "{message}");
}

#[test]
fn a_conflict_leaves_gits_state_and_merge_abort_works() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = setup(tmp.path());
    diverge(&dir);
    git(&dir, &["checkout", "-q", "side"]);
    write(&dir, "notes.txt", "one\nTWO (side)\nthree\n");
    commit_all(&dir, "side: notes");
    git(&dir, &["checkout", "-q", "main"]);
    write(&dir, "notes.txt", "one\nTWO (main)\nthree\n");
    commit_all(&dir, "main: notes");
    let head = git(&dir, &["rev-parse", "HEAD"]);

    let out = git_out(&dir, &["merge", "--no-edit", "side"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let stages = git(&dir, &["ls-files", "-u"]);
    for stage in [" 1\tnotes.txt", " 2\tnotes.txt", " 3\tnotes.txt"] {
        assert!(stages.contains(stage), "{stages}");
    }
    assert!(!stages.contains("level.sjson"), "{stages}");
    assert!(read(&dir, "notes.txt").contains("<<<<<<< HEAD"));
    // The asset is merged by structure and staged.
    assert_eq!(
        level(&dir)["entities"][0]["position"],
        serde_json::json!([1.0, 2.0, 3.0])
    );
    let status = git(&dir, &["status", "--porcelain"]);
    assert!(status.contains("UU notes.txt"), "{status}");
    assert!(status.contains("M  level.sjson"), "{status}");
    assert!(dir.join(".git/MERGE_HEAD").is_file());

    git(&dir, &["merge", "--abort"]);
    assert_eq!(git(&dir, &["rev-parse", "HEAD"]), head);
    assert_eq!(git(&dir, &["status", "--porcelain"]), "");
}

#[test]
fn git_rebase_replays_by_structure_and_continues_after_a_conflict() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = setup(tmp.path());
    diverge(&dir);
    git(&dir, &["checkout", "-q", "side"]);
    write(&dir, "notes.txt", "one\nTWO (side)\nthree\n");
    commit_all(&dir, "side: notes");
    git(&dir, &["checkout", "-q", "main"]);
    write(&dir, "notes.txt", "one\nTWO (main)\nthree\n");
    commit_all(&dir, "main: notes");
    git(&dir, &["checkout", "-q", "side"]);

    // The first commit replays by structure; the second stops on the text conflict.
    let out = git_out(&dir, &["rebase", "main"]);
    assert!(!out.status.success(), "{}", text(&out));
    assert!(dir.join(".git/rebase-merge").is_dir());
    let stages = git(&dir, &["ls-files", "-u"]);
    assert!(
        stages.contains(" 2\tnotes.txt") && stages.contains(" 3\tnotes.txt"),
        "{stages}"
    );
    write(&dir, "notes.txt", "one\nTWO (both)\nthree\n");
    git(&dir, &["add", "notes.txt"]);
    git(&dir, &["rebase", "--continue"]);
    assert!(!dir.join(".git/rebase-merge").exists());
    // Linear history on top of main, both sides' edits kept.
    assert_eq!(
        git(&dir, &["rev-list", "--count", "main..HEAD"]).trim(),
        "2"
    );
    assert_eq!(
        git(&dir, &["rev-list", "--count", "--merges", "HEAD"]).trim(),
        "0"
    );
    let merged = level(&dir);
    assert_both_moves(&merged);
    // In a rebase "theirs" is the replayed commit: its fog wins.
    assert_eq!(merged["settings"]["fog"], serde_json::json!(0.5));
    assert_eq!(read(&dir, "notes.txt"), "one\nTWO (both)\nthree\n");
}

#[test]
fn git_cherry_pick_applies_one_commit_by_structure() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = setup(tmp.path());
    diverge(&dir);
    let out = git_out(&dir, &["cherry-pick", "side"]);
    assert!(out.status.success(), "{}", text(&out));
    let merged = level(&dir);
    assert_both_moves(&merged);
    assert_eq!(
        git(&dir, &["rev-list", "--count", "--merges", "HEAD"]).trim(),
        "0"
    );
    assert_eq!(git(&dir, &["status", "--porcelain"]), "");
}

#[test]
fn git_pull_merges_the_upstream_by_structure() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = setup(tmp.path());
    let bare = tmp.path().join("remote.git");
    git(
        tmp.path(),
        &["init", "-q", "--bare", "-b", "main", "remote.git"],
    );
    git(&dir, &["remote", "add", "origin", bare.to_str().unwrap()]);
    git(&dir, &["push", "-q", "-u", "origin", "main"]);
    let other = tmp.path().join("other");
    git(
        tmp.path(),
        &["clone", "-q", bare.to_str().unwrap(), "other"],
    );
    write(&other, "level.sjson", &BASE.replace("[0 0 0]", "[9 9 9]"));
    commit_all(&other, "other: e1");
    git(&other, &["push", "-q"]);
    write(&dir, "level.sjson", &BASE.replace("[5 5 5]", "[4 4 4]"));
    commit_all(&dir, "work: e2");
    for args in [
        &["pull", "--no-rebase", "--no-edit"][..],
        &["pull", "--rebase"][..],
    ] {
        let out = git_out(&dir, args);
        assert!(out.status.success(), "{args:?}: {}", text(&out));
        let merged = level(&dir);
        assert_eq!(
            merged["entities"][0]["position"],
            serde_json::json!([9.0, 9.0, 9.0])
        );
        assert_eq!(
            merged["entities"][1]["position"],
            serde_json::json!([4.0, 4.0, 4.0])
        );
    }
}

#[test]
fn the_strategy_and_the_driver_give_the_same_tree() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = setup(tmp.path());
    diverge(&dir);
    git(&dir, &["checkout", "-q", "side"]);
    write(&dir, "notes.txt", "zero\none\ntwo\nthree\n");
    write(&dir, "added.sjson", "a = 1\n");
    commit_all(&dir, "side: notes");
    git(&dir, &["add", "added.sjson"]);
    git(&dir, &["commit", "-q", "-m", "side: added"]);
    git(&dir, &["checkout", "-q", "main"]);
    write(&dir, "notes.txt", "one\ntwo\nthree\nfour\n");
    commit_all(&dir, "main: notes");
    let main = git(&dir, &["rev-parse", "HEAD"]);
    git(&dir, &["merge", "--no-edit", "side"]);
    let by_strategy = git(&dir, &["rev-parse", "HEAD^{tree}"]);
    git(&dir, &["reset", "-q", "--hard", main.trim()]);
    git(
        &dir,
        &["-c", "pull.twohead=ort", "merge", "--no-edit", "side"],
    );
    let by_driver = git(&dir, &["rev-parse", "HEAD^{tree}"]);
    assert_eq!(by_strategy, by_driver);
}

#[test]
fn an_unparsable_asset_is_left_conflicted_with_ours() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = setup(tmp.path());
    diverge(&dir);
    git(&dir, &["checkout", "-q", "side"]);
    write(&dir, "level.sjson", "entities = [ {\n");
    // The pre-commit hook would refuse it: committed past it, as a careless tool might.
    git(
        &dir,
        &["commit", "-q", "-a", "--no-verify", "-m", "side: broken"],
    );
    git(&dir, &["checkout", "-q", "main"]);
    let ours = read(&dir, "level.sjson");
    let out = git_out(&dir, &["merge", "--no-edit", "side"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("level.sjson"), "{}", text(&out));
    assert_eq!(read(&dir, "level.sjson"), ours);
    let stages = git(&dir, &["ls-files", "-u"]);
    assert!(stages.contains(" 3\tlevel.sjson"), "{stages}");
}

#[test]
fn x_ours_chooses_the_policy_and_a_criss_cross_merge_uses_every_base() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = setup(tmp.path());
    diverge(&dir);
    let out = git_out(&dir, &["merge", "--no-edit", "-X", "ours", "side"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(level(&dir)["settings"]["fog"], serde_json::json!(0.7));

    // Criss-cross: two branches each merge the other's first commit; their next merge
    // has two merge bases.
    let tmp = tempfile::tempdir().unwrap();
    let dir = setup(tmp.path());
    git(&dir, &["checkout", "-q", "-b", "a"]);
    write(&dir, "level.sjson", &BASE.replace("[0 0 0]", "[1 1 1]"));
    commit_all(&dir, "a1");
    git(&dir, &["checkout", "-q", "-b", "b", "main"]);
    write(&dir, "level.sjson", &BASE.replace("[5 5 5]", "[2 2 2]"));
    commit_all(&dir, "b1");
    git(&dir, &["merge", "-q", "--no-edit", "a~0"]);
    git(&dir, &["checkout", "-q", "a"]);
    git(&dir, &["merge", "-q", "--no-edit", "b~1"]);
    write(
        &dir,
        "level.sjson",
        &read(&dir, "level.sjson").replace("fog = 0.1", "fog = 0.3"),
    );
    commit_all(&dir, "a2");
    git(&dir, &["checkout", "-q", "b"]);
    write(&dir, "notes.txt", "one\ntwo\nthree\nfour\n");
    commit_all(&dir, "b2");
    let bases = git(&dir, &["merge-base", "--all", "a", "b"]);
    assert_eq!(bases.lines().count(), 2, "{bases}");
    let out = git_out(&dir, &["merge", "--no-edit", "a"]);
    assert!(out.status.success(), "{}", text(&out));
    let merged = level(&dir);
    assert_eq!(
        merged["entities"][0]["position"],
        serde_json::json!([1.0, 1.0, 1.0])
    );
    assert_eq!(
        merged["entities"][1]["position"],
        serde_json::json!([2.0, 2.0, 2.0])
    );
    assert_eq!(merged["settings"]["fog"], serde_json::json!(0.3));
    assert_eq!(read(&dir, "notes.txt"), "one\ntwo\nthree\nfour\n");
}

#[test]
fn a_merge_that_leaves_a_reference_to_a_deleted_unit_is_reported() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = setup(tmp.path());
    write(
        &dir,
        "assetvc.toml",
        "[references]\nresources = { type = \"unit\" }\n",
    );
    std::fs::create_dir(dir.join("units")).unwrap();
    write(&dir, "units/crate.unit", "renderable = true\n");
    git(&dir, &["add", "."]);
    git(&dir, &["commit", "-q", "-m", "units"]);
    git(&dir, &["checkout", "-q", "-b", "cleanup"]);
    git(&dir, &["rm", "-q", "units/crate.unit"]);
    git(&dir, &["commit", "-q", "-m", "no more crates"]);
    git(&dir, &["checkout", "-q", "main"]);
    write(
        &dir,
        "crates.level",
        "units = [\n\t{\n\t\tid = \"e1\"\n\t\ttype = \"units/crate\"\n\t}\n]\n",
    );
    git(&dir, &["add", "crates.level"]);
    git(&dir, &["commit", "-q", "--no-verify", "-m", "a crate"]);
    let out = git_out(&dir, &["merge", "--no-edit", "cleanup"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains(
            "crates.level:4:10: unit units/crate.unit does not exist (created by this merge)"
        ),
        "{}",
        text(&out)
    );
}

#[test]
fn every_sample_case_merges_to_the_same_bytes_as_with_the_driver() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = setup(tmp.path());
    let cases = common::test_data().join("cases");
    let mut names: Vec<(String, &str)> = Vec::new();
    for entry in std::fs::read_dir(&cases).unwrap() {
        let case = entry.unwrap().path();
        let ext = if case.join("base.json").exists() {
            "json"
        } else if case.join("base.sjson").exists() {
            "sjson"
        } else {
            continue;
        };
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        names.push((name, ext));
    }
    assert!(names.len() >= 5, "{names:?}");
    let put = |side: &str| {
        for (name, ext) in &names {
            std::fs::create_dir_all(dir.join("cases").join(name)).unwrap();
            let text = std::fs::read(cases.join(name).join(format!("{side}.{ext}"))).unwrap();
            std::fs::write(dir.join(format!("cases/{name}/asset.{ext}")), text).unwrap();
        }
    };
    put("base");
    git(&dir, &["add", "."]);
    git(&dir, &["commit", "-q", "--no-verify", "-m", "cases: base"]);
    git(&dir, &["checkout", "-q", "-b", "theirs"]);
    put("theirs");
    git(
        &dir,
        &["commit", "-q", "-a", "--no-verify", "-m", "cases: theirs"],
    );
    git(&dir, &["checkout", "-q", "main"]);
    put("ours");
    git(
        &dir,
        &["commit", "-q", "-a", "--no-verify", "-m", "cases: ours"],
    );
    let ours = git(&dir, &["rev-parse", "HEAD"]);

    let out = git_out(&dir, &["merge", "--no-edit", "--no-verify", "theirs"]);
    assert!(out.status.success(), "{}", text(&out));
    let by_strategy = git(&dir, &["rev-parse", "HEAD^{tree}"]);
    git(&dir, &["reset", "-q", "--hard", ours.trim()]);
    let out = git_out(
        &dir,
        &[
            "-c",
            "pull.twohead=ort",
            "merge",
            "--no-edit",
            "--no-verify",
            "theirs",
        ],
    );
    assert!(out.status.success(), "{}", text(&out));
    let by_driver = git(&dir, &["rev-parse", "HEAD^{tree}"]);
    let diff = git(
        &dir,
        &["diff", "--stat", by_driver.trim(), by_strategy.trim()],
    );
    assert_eq!(by_strategy, by_driver, "{diff}");
}

#[test]
fn a_cherry_pick_conflict_stops_and_continues() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = setup(tmp.path());
    diverge(&dir);
    git(&dir, &["checkout", "-q", "side"]);
    write(&dir, "notes.txt", "one\nTWO (side)\nthree\n");
    write(
        &dir,
        "level.sjson",
        &read(&dir, "level.sjson").replace("[5 5 5]", "[8 8 8]"),
    );
    commit_all(&dir, "side: notes and e2");
    git(&dir, &["checkout", "-q", "main"]);
    write(&dir, "notes.txt", "one\nTWO (main)\nthree\n");
    commit_all(&dir, "main: notes");

    let out = git_out(&dir, &["cherry-pick", "side"]);
    assert!(!out.status.success(), "{}", text(&out));
    assert!(dir.join(".git/CHERRY_PICK_HEAD").is_file());
    let stages = git(&dir, &["ls-files", "-u"]);
    assert!(stages.contains(" 3\tnotes.txt"), "{stages}");
    write(&dir, "notes.txt", "one\nTWO (both)\nthree\n");
    git(&dir, &["add", "notes.txt"]);
    git(&dir, &["cherry-pick", "--continue"]);
    assert!(!dir.join(".git/CHERRY_PICK_HEAD").exists());
    // Only the picked commit's change to e2 comes along (e1 and the fog were not in it).
    let merged = level(&dir);
    assert_eq!(
        merged["entities"][1]["position"],
        serde_json::json!([8.0, 8.0, 8.0])
    );
    assert_eq!(
        merged["entities"][0]["position"],
        serde_json::json!([0.0, 0.0, 0.0])
    );
    assert_eq!(merged["settings"]["fog"], serde_json::json!(0.7));
    assert_eq!(git(&dir, &["status", "--porcelain"]), "");
}
