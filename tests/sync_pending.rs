//! End to end: who made the upstream value of a pending conflict (issue #29) is the
//! author of the upstream commit that last changed that property, not the newest commit
//! that touched the file.

use crate::sync_support;

use sync_support::{Team, User};

/// Commits everything as `user` (the test environment fixes git's author otherwise) and
/// pushes it.
fn commit_as_and_push(user: &User, message: &str) {
    let author = format!("{} <{}@example.com>", user.name, user.name);
    user.git(&["commit", "-qam", message, "--author", &author]);
    user.git(&["push", "-q", "origin", "main"]);
}

/// Alice moves the crate, then carol moves the barrel in the same file; bob, who moved the
/// crate too without committing, syncs: the pending conflict on the crate's position is
/// alice's, on the stderr line, in `sync --json`, in `who --json` and in `conflicts`.
#[test]
fn the_upstream_value_is_by_whoever_changed_that_property() {
    let team = Team::new();
    let url = team.file_url();
    let alice = team.clone_for("alice", &url);
    let carol = team.clone_for("carol", &url);
    let bob = team.clone_for("bob", &url);
    alice.edit("position = [0 0 0]", "position = [1 1 1]");
    commit_as_and_push(&alice, "crate moved");
    carol.git(&["pull", "-q", "--ff-only"]);
    carol.edit("position = [5 0 0]", "position = [6 0 0]");
    commit_as_and_push(&carol, "barrel moved");
    bob.edit("position = [0 0 0]", "position = [2 2 2]");
    let newest = bob.git(&["log", "-1", "--format=%an", "origin/main"]);
    let (out, err) = bob.expect(&["sync", "--json"], 0);
    let newest = bob.git(&["log", "-1", "--format=%an", "origin/main"]) + &newest;
    assert!(
        newest.starts_with("carol"),
        "the newest commit is carol's: {newest}"
    );
    assert!(
        err.contains("upstream's [1,1,1] by alice is pending"),
        "{err}"
    );
    let cycle: serde_json::Value = serde_json::from_str(&out).unwrap();
    let pending = &cycle["pending"];
    assert_eq!(pending.as_array().map(Vec::len), Some(1), "{cycle}");
    assert_eq!(
        pending[0]["object"], "entities[crate #e1].position",
        "{cycle}"
    );
    assert_eq!(pending[0]["by"], "alice", "{cycle}");
    let (out, _) = bob.expect(&["who", "--json"], 0);
    let who: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(who["pending"][0]["by"], "alice", "{who}");
    let (out, _) = bob.expect(&["conflicts"], 0);
    assert!(
        out.contains("pending: the upstream's [1,1,1] by alice"),
        "{out}"
    );
    // The barrel came in as it was: carol's value, no conflict.
    assert!(
        bob.level().contains("position = [6 0 0]"),
        "{}",
        bob.level()
    );
}
