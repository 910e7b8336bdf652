//! Issue #30 item 3: a ref lock file left by a kill (`packed-refs.lock`, a branch's
//! `.lock`) wedges every command until it is removed; each command's message names the
//! file by its full path and says who may hold it, and once it is removed the same
//! command finishes.

use crate::common;
use crate::sync_support;

use std::path::Path;

use common::TestRepo;
use sync_support::{Team, User};

/// The message names `lock` (its full path) and says a running git may hold it.
fn assert_names_lock(stderr: &str, lock: &Path) {
    let full = lock.canonicalize().unwrap();
    assert!(
        stderr.contains(&full.display().to_string()),
        "the lock file is not named: {stderr}"
    );
    assert!(
        stderr.contains("a running git may hold it") && stderr.contains("remove it"),
        "who holds it is not said: {stderr}"
    );
}

/// Bob is behind alice's push, with an uncommitted edit.
fn bob_behind() -> (Team, User) {
    let team = Team::new();
    let url = team.file_url();
    let alice = team.clone_for("alice", &url);
    let bob = team.clone_for("bob", &url);
    alice.edit("fog = 0.1", "fog = 0.5");
    alice.commit_and_push("fog");
    bob.edit("tint = \"white\"", "tint = \"gold\"");
    (team, bob)
}

#[test]
fn sync_and_pull_name_a_leftover_packed_refs_lock_and_finish_once_it_is_removed() {
    let (_team, bob) = bob_behind();
    let lock = bob.dir.join(".git/packed-refs.lock");
    std::fs::write(&lock, "").unwrap();
    for command in ["sync", "pull"] {
        let (_, err) = bob.expect(&[command], 2);
        assert_names_lock(&err, &lock);
        assert!(!err.contains("Could not lock packed refs"), "{err}");
    }
    std::fs::remove_file(&lock).unwrap();
    bob.expect(&["sync"], 0);
    let level = bob.level();
    assert!(level.contains("fog = 0.5"), "{level}");
    assert!(level.contains("\"gold\""), "the edit was lost: {level}");
}

#[test]
fn merge_names_a_leftover_branch_or_packed_refs_lock_and_finishes_once_it_is_removed() {
    let r = TestRepo::new();
    r.write("a.sjson", "x = 1\ny = 1\n");
    r.commit("base");
    r.git(&["checkout", "-q", "-b", "theirs"]);
    r.write("a.sjson", "x = 2\ny = 1\n");
    r.commit("theirs");
    r.git(&["checkout", "-q", "main"]);
    r.write("a.sjson", "x = 1\ny = 2\n");
    r.commit("ours");
    r.git(&["pack-refs", "--all"]);
    for name in ["packed-refs.lock", "refs/heads/main.lock"] {
        let lock = r.path(".git").join(name);
        std::fs::write(&lock, "").unwrap();
        let (_, err) = r.assetvc_expect(&["merge", "theirs"], 2);
        assert_names_lock(&err, &lock);
        std::fs::remove_file(&lock).unwrap();
    }
    r.assetvc_expect(&["merge", "theirs"], 0);
    assert_eq!(r.read("a.sjson"), "x = 2\ny = 2\n");
    assert_eq!(r.git(&["diff", "--cached", "--name-only"]), "");
}
