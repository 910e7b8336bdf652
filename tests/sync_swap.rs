//! End to end: the last window of compare-and-swap (issue #29). Sync is held by a
//! debug-only pause point between its last compare of a file and the swap that replaces
//! or removes it; the test saves the file right there, as an editor would, and the save
//! must survive: the swap exchanges the new file into place and gives the saved one its
//! place back when what came out is not what sync read.

use crate::sync_support;

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use sync_support::{text, wait_for, Team, User};

/// How the editor writes the file.
#[derive(Clone, Copy)]
enum Save {
    /// A temporary file renamed over it.
    Rename,
    /// Truncated and written in place.
    InPlace,
}

/// Writes `content` to `path` the way `how` says.
fn save(path: &Path, content: &str, how: Save) {
    match how {
        Save::Rename => {
            let swp = path.with_file_name(".level.sjson.swp");
            std::fs::write(&swp, content).unwrap();
            std::fs::rename(&swp, path).unwrap();
        }
        Save::InPlace => std::fs::write(path, content).unwrap(),
    }
}

/// Runs `assetvc sync` for `user`, held at the swap of its first worktree write until
/// `at_pause` (the editor) has run; returns sync's stderr.
fn sync_saving_at_the_swap(team: &Team, user: &User, at_pause: impl FnOnce()) -> String {
    let (code, _, err) = saving_at_the_swap(team, user, &["sync"], at_pause);
    assert!(code.is_some(), "sync was killed: {err}");
    err
}

/// Runs `assetvc ARGS` for `user`, held at the swap of its first worktree write until
/// `at_pause` (the editor) has run; returns its exit status, stdout and stderr.
fn saving_at_the_swap(
    team: &Team,
    user: &User,
    args: &[&str],
    at_pause: impl FnOnce(),
) -> (Option<i32>, String, String) {
    let dir = team.root.join("pause");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut cmd = user.command(args);
    cmd.env("ASSETVC_PAUSE", format!("worktree-swap:{}", dir.display()))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let child = cmd.spawn().unwrap();
    let reached = dir.join("worktree-swap.reached");
    wait_for("sync to reach the swap", Duration::from_secs(60), || {
        reached.exists()
    });
    at_pause();
    std::fs::write(dir.join("worktree-swap.go"), "").unwrap();
    let out = child.wait_with_output().unwrap();
    (out.status.code(), text(&out.stdout), text(&out.stderr))
}

/// An upstream change to the level comes in; bob saves the level between sync's last
/// compare and its swap: the save stays, and the upstream change is merged into it.
fn a_save_at_the_swap_survives(how: Save) {
    let team = Team::new();
    let url = team.file_url();
    let alice = team.clone_for("alice", &url);
    let bob = team.clone_for("bob", &url);
    alice.edit("fog = 0.1", "fog = 0.7");
    alice.commit_and_push("fog");
    let path = bob.dir.join("level.sjson");
    let err = sync_saving_at_the_swap(&team, &bob, || {
        save(
            &path,
            &bob.level().replace("tint = \"white\"", "tint = \"gold\""),
            how,
        );
    });
    let level = bob.level();
    assert!(
        level.contains("tint = \"gold\""),
        "the save is gone: {level}\n{err}"
    );
    // Left alone, then (sync tries the cycle again) merged with the upstream change.
    assert!(
        level.contains("fog = 0.1") || level.contains("fog = 0.7"),
        "{level}\n{err}"
    );
    assert!(
        bob.git(&["status", "--porcelain"]).contains("level.sjson"),
        "the save shows as a local change"
    );
    bob.expect(&["sync"], 0);
    let level = bob.level();
    assert!(
        level.contains("tint = \"gold\"") && level.contains("fog = 0.7"),
        "{level}"
    );
}

#[test]
fn a_save_by_rename_at_the_swap_survives() {
    a_save_at_the_swap_survives(Save::Rename);
}

#[test]
fn a_save_in_place_at_the_swap_survives() {
    a_save_at_the_swap_survives(Save::InPlace);
}

/// Upstream deletes a file; bob saves it between sync's last compare and its removal:
/// the file stays with bob's save.
#[test]
fn a_save_at_the_removal_survives() {
    let team = Team::new();
    let url = team.file_url();
    let alice = team.clone_for("alice", &url);
    std::fs::write(alice.dir.join("old.sjson"), "a = 1\n").unwrap();
    alice.git(&["add", "old.sjson"]);
    alice.commit_and_push("old");
    let bob = team.clone_for("bob", &url);
    alice.git(&["rm", "-q", "old.sjson"]);
    alice.commit_and_push("no old");
    let path = bob.dir.join("old.sjson");
    let err = sync_saving_at_the_swap(&team, &bob, || {
        save(&path, "a = 2\n", Save::Rename);
    });
    assert_eq!(
        std::fs::read_to_string(&path).ok().as_deref(),
        Some("a = 2\n"),
        "the save is gone: {err}"
    );
}

/// `assetvc merge` (and `--json`) fast-forwarding over a file saved at the swap: the file
/// keeps the save, the merge names it as left alone, and exits 1 (paths left for the user).
#[test]
fn merge_names_the_files_it_left_alone() {
    let team = Team::new();
    let url = team.file_url();
    let alice = team.clone_for("alice", &url);
    let bob = team.clone_for("bob", &url);
    alice.edit("fog = 0.1", "fog = 0.7");
    alice.commit_and_push("fog");
    bob.git(&["fetch", "-q"]);
    let start = bob.rev("HEAD");
    let path = bob.dir.join("level.sjson");
    for json in [false, true] {
        bob.git(&["reset", "-q", "--hard", &start]);
        let args: &[&str] = if json {
            &["merge", "--json", "origin/main"]
        } else {
            &["merge", "origin/main"]
        };
        let (code, out, err) = saving_at_the_swap(&team, &bob, args, || {
            save(
                &path,
                &bob.level().replace("tint = \"white\"", "tint = \"gold\""),
                Save::Rename,
            );
        });
        assert_eq!(code, Some(1), "{out}\n{err}");
        assert!(
            err.contains("level.sjson: saved while the merge was writing it; left as you saved it"),
            "{err}"
        );
        let level = bob.level();
        assert!(
            level.contains("tint = \"gold\"") && level.contains("fog = 0.1"),
            "{level}"
        );
        assert_eq!(bob.rev("HEAD"), bob.rev("origin/main"), "the branch moved");
        if json {
            let report: serde_json::Value = serde_json::from_str(&out).unwrap();
            assert_eq!(
                report["left_alone"],
                serde_json::json!(["level.sjson"]),
                "{out}"
            );
        }
    }
}
