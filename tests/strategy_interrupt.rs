//! End to end: a merge strategy interrupted while it holds git's `index.lock` (held at a
//! pause point in its worktree write) removes the lock as it ends. Ctrl-C reaches git and
//! the strategy alike (git's whole process group): afterwards `git reset --hard` works,
//! where a lock left behind made every command that writes the index refuse. A `kill` of
//! the strategy alone: git, still running, puts the worktree back itself.

use crate::merge_strategy::{diverge, git, path_with_strategy, setup, text, BASE};
use crate::sync_support::wait_for;

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

/// `git merge side` in `dir`, held at the strategy's first worktree swap; `signal` is sent
/// there (`to_group`: to git's whole process group, as Ctrl-C is; else to the strategy
/// alone, whose pid its lock's owner note names). Returns git's output.
fn merge_interrupted(home: &Path, dir: &Path, signal: &str, to_group: bool) -> Output {
    let pause = home.join("pause");
    std::fs::create_dir_all(&pause).unwrap();
    let mut cmd = Command::new("git");
    crate::common::isolated(cmd.args(["merge", "--no-edit", "side"]), dir, home)
        .env("PATH", path_with_strategy())
        .env("GIT_EDITOR", "true")
        .env(
            "ASSETVC_PAUSE",
            format!("worktree-swap:{}", pause.display()),
        )
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let child = cmd.spawn().unwrap();
    let reached = pause.join("worktree-swap.reached");
    wait_for(
        "the strategy's worktree write",
        Duration::from_secs(60),
        || reached.exists(),
    );
    let lock = dir.join(".git/index.lock");
    assert!(
        lock.exists(),
        "the strategy holds index.lock while it writes"
    );
    let target = if to_group {
        format!("-{}", child.id())
    } else {
        let owner = std::fs::read_to_string(dir.join(".git/assetvc/index.lock.owner")).unwrap();
        owner.trim().to_string()
    };
    let sent = Command::new("kill")
        .args([format!("-{signal}"), "--".into(), target])
        .status()
        .unwrap();
    assert!(sent.success());
    let out = child.wait_with_output().unwrap();
    assert!(!out.status.success(), "the merge went on: {}", text(&out));
    out
}

#[test]
fn ctrl_c_during_a_strategy_merge_leaves_no_index_lock() {
    let home = tempfile::tempdir().unwrap();
    let dir = setup(home.path());
    diverge(&dir);
    let main_level = std::fs::read_to_string(dir.join("level.sjson")).unwrap();
    merge_interrupted(home.path(), &dir, "INT", true);
    assert!(
        !dir.join(".git/index.lock").exists(),
        "index.lock outlived the interrupted strategy"
    );
    // git's own way back works, and gives main's level back.
    git(&dir, &["reset", "-q", "--hard"]);
    assert_eq!(
        std::fs::read_to_string(dir.join("level.sjson")).unwrap(),
        main_level
    );
    assert_eq!(git(&dir, &["status", "--porcelain"]), "");
}

#[test]
fn a_killed_strategy_leaves_no_index_lock_and_git_restores_the_worktree() {
    let home = tempfile::tempdir().unwrap();
    let dir = setup(home.path());
    diverge(&dir);
    let main_level = std::fs::read_to_string(dir.join("level.sjson")).unwrap();
    assert_ne!(main_level, BASE);
    let out = merge_interrupted(home.path(), &dir, "TERM", false);
    // git survived its strategy and said so.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("assetvc"), "{}", text(&out));
    assert!(!dir.join(".git/index.lock").exists(), "{}", text(&out));
    assert_eq!(
        std::fs::read_to_string(dir.join("level.sjson")).unwrap(),
        main_level
    );
    assert_eq!(git(&dir, &["status", "--porcelain"]), "", "{}", text(&out));
}
