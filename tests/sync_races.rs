//! End to end: live sync racing the person at the keyboard (issue #29). An editor that
//! saves while sync writes a large upstream change never loses a save (compare-and-swap
//! on every worktree write), by write-and-rename and by in-place write; a branch switched
//! while sync fetches from a slow remote is never merged into.

use crate::sync_support;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use sync_support::{text, wait_for, Team, User};

/// How many files the large upstream change touches.
const BULK: usize = 1500;

/// One small asset of the bulk change.
fn bulk_file(i: usize, version: u32) -> String {
    format!("items = [\n\t{{\n\t\tid = \"i{i}\"\n\t\tvalue = {version}\n\t}}\n]\n")
}

/// Writes the bulk files at `version` into `user`'s worktree and commits and pushes them.
fn push_bulk(user: &User, version: u32) {
    let dir = user.dir.join("bulk");
    std::fs::create_dir_all(&dir).unwrap();
    for i in 0..BULK {
        std::fs::write(dir.join(format!("f{i:04}.sjson")), bulk_file(i, version)).unwrap();
    }
    std::fs::write(
        user.dir.join("level.sjson"),
        user.level().replace(
            &format!("fog = 0.{}", version - 1),
            &format!("fog = 0.{version}"),
        ),
    )
    .unwrap();
    user.git(&["add", "-A"]);
    user.git(&["commit", "-qm", &format!("bulk {version}")]);
    user.git(&["push", "-q", "origin", "main"]);
}

/// The counter an editor saved in the level: the `N` of `name = "barrel-N"`.
fn saved_counter(level: &str) -> Option<u64> {
    let start = level.find("name = \"barrel-")? + "name = \"barrel-".len();
    let end = start + level[start..].find('"')?;
    level[start..end].parse().ok()
}

/// How the editor writes the file.
#[derive(Clone, Copy)]
enum Save {
    /// A temporary file renamed over it.
    Rename,
    /// Truncated and written in place.
    InPlace,
}

/// An editor that reloads the level, bumps its counter and saves it, over and over until
/// `stop`; counts the saves and the saves found gone from disk at the next reload.
fn editor(path: PathBuf, how: Save, stop: Arc<AtomicBool>) -> (u64, u64) {
    let (mut last, mut lost) = (0u64, 0u64);
    let swap = path.with_file_name(".level.sjson.swp");
    while !stop.load(Ordering::Relaxed) {
        let Ok(level) = std::fs::read_to_string(&path) else {
            continue;
        };
        let on_disk = saved_counter(&level).unwrap_or(0);
        if on_disk < last {
            lost += 1;
        }
        let next = last + 1;
        let Some(start) = level.find("name = \"barrel") else {
            continue; // a half-written file (in-place saves only): read again
        };
        let end = start + level[start..].find('\n').unwrap();
        let saved = format!(
            "{}name = \"barrel-{next}\"{}",
            &level[..start],
            &level[end..]
        );
        match how {
            Save::Rename => {
                std::fs::write(&swap, &saved).unwrap();
                std::fs::rename(&swap, &path).unwrap();
            }
            Save::InPlace => std::fs::write(&path, &saved).unwrap(),
        }
        last = next;
        // Bursts of saves, and between them a pause long enough for a sync cycle to get
        // through (a file saved more often than a cycle takes is merged when saves pause).
        let pause = if next % 10 == 0 { 2500 } else { 2 };
        std::thread::sleep(Duration::from_millis(pause));
    }
    (last, lost)
}

/// Bob's editor saves the level all the time while alice's large change comes in: no save
/// is ever overwritten, and once the editor stops one more sync brings everything in.
fn no_save_lost_while_a_large_change_is_written(how: Save) {
    let team = Team::new();
    let url = team.file_url();
    let alice = team.clone_for("alice", &url);
    let bob = team.clone_for("bob", &url);
    push_bulk(&alice, 2);
    bob.expect(&["sync"], 0);
    let stop = Arc::new(AtomicBool::new(false));
    let path = bob.dir.join("level.sjson");
    let saving = {
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || editor(path, how, stop))
    };
    // Three large changes, each synced while the editor saves, until a cycle gets
    // through (bounded).
    let mut said = String::new();
    for version in 3..=5 {
        push_bulk(&alice, version);
        let mut synced = false;
        for _ in 0..20 {
            let out = bob.assetvc(&["sync"]);
            let err = text(&out.stderr);
            assert!(!err.contains("took theirs"), "{err}");
            said.push_str(&err);
            if out.status.success() && bob.rev("HEAD") == team.ref_id("main").unwrap() {
                synced = true;
                break;
            }
        }
        if !synced {
            stop.store(true, Ordering::Relaxed);
            panic!("sync never got through in 20 cycles:\n{said}");
        }
    }
    stop.store(true, Ordering::Relaxed);
    let (saves, lost) = saving.join().unwrap();
    assert!(saves > 0);
    assert_eq!(lost, 0, "{lost} of {saves} saves were overwritten:\n{said}");
    let level = bob.level();
    assert_eq!(saved_counter(&level), Some(saves), "the last save: {level}");
    // Everything of the upstream is there (one more cycle if the last one met a save).
    let out = bob.assetvc(&["sync"]);
    let level = bob.level();
    assert!(
        level.contains("fog = 0.5"),
        "{level}\n{said}\n{}",
        text(&out.stderr)
    );
    assert_eq!(saved_counter(&level), Some(saves), "{level}");
    for i in (0..BULK).step_by(97) {
        let file = bob.dir.join(format!("bulk/f{i:04}.sjson"));
        assert_eq!(std::fs::read_to_string(file).unwrap(), bulk_file(i, 5));
    }
}

#[test]
fn a_save_by_rename_while_sync_writes_is_never_overwritten() {
    no_save_lost_while_a_large_change_is_written(Save::Rename);
}

#[test]
fn a_save_in_place_while_sync_writes_is_never_overwritten() {
    no_save_lost_while_a_large_change_is_written(Save::InPlace);
}

/// An upload-pack for `remote.origin.uploadpack` that says it started (creates `started`)
/// and waits for `go` to exist before serving: a remote as slow as the test wants.
fn slow_upload_pack(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let (script, started, go) = (
        dir.join("slow-upload-pack"),
        dir.join("fetch-started"),
        dir.join("go"),
    );
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\ntouch '{}'\nwhile [ ! -e '{}' ]; do sleep 0.05; done\nexec git-upload-pack \"$@\"\n",
            started.display(),
            go.display()
        ),
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    (script, started, go)
}

#[cfg(unix)]
#[test]
fn a_branch_switched_during_a_slow_fetch_is_not_merged_into() {
    let team = Team::new();
    let url = team.file_url();
    let alice = team.clone_for("alice", &url);
    let bob = team.clone_for("bob", &url);
    alice.edit("fog = 0.1", "fog = 0.7");
    alice.commit_and_push("fog");
    bob.edit("tint = \"white\"", "tint = \"gold\"");
    let (script, started, go) = slow_upload_pack(&team.root);
    bob.git(&[
        "config",
        "remote.origin.uploadpack",
        &script.display().to_string(),
    ]);
    let head = bob.rev("HEAD");
    let mut sync = bob.command(&["sync", "--json"]);
    sync.stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let child = sync.spawn().unwrap();
    wait_for("the fetch to start", Duration::from_secs(60), || {
        started.exists()
    });
    bob.git(&["checkout", "-q", "-b", "feature"]);
    std::fs::write(&go, "").unwrap();
    let out = child.wait_with_output().unwrap();
    let err = text(&out.stderr);
    assert!(err.contains("branch was switched"), "{err}");
    assert_eq!(bob.rev("feature"), head, "feature did not move: {err}");
    assert_eq!(bob.rev("main"), head, "main did not move either");
    assert_eq!(
        bob.git(&["symbolic-ref", "--short", "HEAD"]).trim(),
        "feature"
    );
    let level = bob.level();
    assert!(level.contains("tint = \"gold\"") && level.contains("fog = 0.1"));
    // Back on main, the next cycle brings the upstream in.
    bob.git(&["config", "--unset", "remote.origin.uploadpack"]);
    bob.git(&["checkout", "-q", "main"]);
    bob.expect(&["sync"], 0);
    assert_eq!(bob.rev("main"), team.ref_id("main").unwrap());
    let level = bob.level();
    assert!(level.contains("tint = \"gold\"") && level.contains("fog = 0.7"));
}
