//! `store::migrate` on real repositories: what a dry run finds (and that it writes
//! nothing), the migration commit and the worktree, idempotence, where the commit goes.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use merge::migrate::MigrateOptions;
use sjson::Dialect;
use store::{Destination, MigrateRules, NoProgress, ObjectId, Plan, Repo};

/// The store's own scratch-repository helper (real git, fixed identity, isolated).
#[path = "../src/test_git.rs"]
mod test_git;
use test_git::git;

fn levels_only(path: &str) -> Option<Dialect> {
    path.ends_with(".level").then_some(Dialect::Sjson)
}

fn options() -> MigrateOptions {
    MigrateOptions {
        id_key: "id".into(),
        id_keys: vec!["id".into()],
        natural_keys: vec!["name".into()],
        all: false,
    }
}

/// A repository with `a.level` (needs ids), `b.level` (named: needs none), `c.level`
/// (does not parse) and `x.txt` (not an asset), committed on `main`; plus a branch.
fn fixture(dir: &Path) {
    git(dir, &["init", "-q", "-b", "main"]);
    git(dir, &["config", "user.name", "T"]);
    git(dir, &["config", "user.email", "t@e"]);
    std::fs::write(dir.join("a.level"), "l = [\n\t{\n\t\tv = 1\n\t}\n]\n").unwrap();
    std::fs::write(dir.join("b.level"), "l = [ {name = x} {name = y} ]\n").unwrap();
    std::fs::write(dir.join("c.level"), "l = [\n").unwrap();
    std::fs::write(dir.join("x.txt"), "l = [ {v = 1} ]\n").unwrap();
    git(dir, &["add", "."]);
    git(dir, &["commit", "-q", "-m", "base"]);
    git(dir, &["branch", "other"]);
}

#[test]
fn plans_migrates_and_finds_nothing_the_second_time() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    fixture(dir);
    let repo = Repo::discover(dir).unwrap();
    let counter = AtomicUsize::new(0);
    let new_id = || format!("n{}", counter.fetch_add(1, Ordering::Relaxed));
    let rules = MigrateRules {
        dialect_of: &levels_only,
        options: options(),
        new_id: &new_id,
    };
    let dry = repo
        .migrate("HEAD", &rules, true, None, &NoProgress)
        .unwrap();
    assert_eq!(dry.commit, None);
    assert_eq!(dry.destination, Destination::Worktree);
    assert_eq!(dry.plan.assets, 3);
    assert_eq!(dry.plan.files.len(), 1);
    assert_eq!(dry.plan.files[0].path, "a.level");
    assert!(
        !repo.has_object(dry.plan.files[0].new),
        "a dry run writes no blob"
    );
    assert_eq!(dry.plan.problems.len(), 1);
    assert_eq!(
        dry.plan.problems[0].to_string(),
        "c.level:2:1: expected value, found end of file"
    );

    let done = repo
        .migrate("HEAD", &rules, false, Some("m"), &NoProgress)
        .unwrap();
    let commit = done.commit.unwrap();
    assert_eq!(git(dir, &["rev-parse", "main"]).trim(), commit.to_string());
    assert_eq!(git(dir, &["log", "-1", "--format=%B"]).trim(), "m");
    let text = std::fs::read_to_string(dir.join("a.level")).unwrap();
    assert_eq!(text, "l = [\n\t{\n\t\tid = \"n1\"\n\t\tv = 1\n\t}\n]\n");
    assert_eq!(git(dir, &["status", "--porcelain"]), "");
    let again = repo
        .migrate("HEAD", &rules, false, None, &NoProgress)
        .unwrap();
    assert_eq!(again.commit, None);
    assert!(again.plan.files.is_empty());
}

#[test]
fn destinations() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    fixture(dir);
    git(dir, &["tag", "v1"]);
    let repo = Repo::discover(dir).unwrap();
    let head = repo.resolve_commit("HEAD").unwrap();
    let at = |rev: &str| repo.migration_destination(rev, head).unwrap();
    assert_eq!(at("HEAD"), Destination::Worktree);
    assert_eq!(at("main"), Destination::Worktree);
    assert_eq!(at("refs/heads/main"), Destination::Worktree);
    assert_eq!(at("other"), Destination::Ref("refs/heads/other".into()));
    assert_eq!(at("v1"), Destination::Nothing);
    assert_eq!(at(&head.to_string()), Destination::Nothing);
}

#[test]
fn the_default_message_counts() {
    let plan = Plan {
        commit: ObjectId::from_hex(&[b'0'; 40]).unwrap(),
        tree: ObjectId::from_hex(&[b'0'; 40]).unwrap(),
        assets: 1,
        files: Vec::new(),
        problems: Vec::new(),
    };
    assert_eq!(
        plan.default_message(),
        "assetvc migrate: ids for 0 arrays in 0 files\n\n0 elements got an id.\n"
    );
}
