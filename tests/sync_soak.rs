//! End to end: live sync under load (issue #29). A soak: `sync --watch 1` in two clones
//! while scripted editors save every 50–200 ms (alice also commits and pushes now and
//! then): no save is ever gone from disk, and each clone ends holding its last saves.
//! And SIGKILL of sync at arbitrary points of many cycles: `git fsck` stays clean and no
//! edit is lost. `ASSETVC_SOAK_SECS` (default 20) and `ASSETVC_KILL_CYCLES` (default 40)
//! make them longer.

use crate::common;
use crate::sync_support;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use sjson::Dialect;
use sync_support::{terminate, text, wait_exit, Team, User};

/// The generous bound on anything the tests wait for.
const LIMIT: Duration = Duration::from_secs(120);

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The level's `settings.fog` and the x of entity `entity`'s position (0: crate, 1:
/// barrel), if it parses.
fn values(level: &str, entity: usize) -> Option<(i64, i64)> {
    let doc = sjson::Document::parse(level, Dialect::Sjson).ok()?;
    let value = common::to_json(doc.root());
    let x = value["entities"][entity]["position"][0].as_f64()? as i64;
    let fog = value["settings"]["fog"].as_f64()? as i64;
    Some((x, fog))
}

/// `level` with entity `entity`'s position x and the fog set, as an editor writes it.
fn with_values(level: &str, entity: usize, x: i64, fog: i64) -> String {
    let mut seen = 0;
    level
        .lines()
        .map(|line| {
            let t = line.trim_start();
            if t.starts_with("position = [") {
                seen += 1;
                if seen == entity + 1 {
                    let y_z = t.trim_start_matches("position = [");
                    let rest = y_z.split_once(' ').map_or("0 0]", |(_, r)| r);
                    return format!("\t\tposition = [{x} {rest}");
                }
            } else if t.starts_with("fog = ") {
                return format!("\tfog = {fog}");
            }
            line.to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

/// What an editor did: saves, saves found gone at the next reload, its last values.
#[derive(Debug, Default, Clone, Copy)]
struct Edited {
    saves: u64,
    lost: u64,
    last_x: i64,
    last_fog: i64,
}

/// A scripted editor in `dir`: reloads the level, saves its own entity's position and the
/// shared fog (write-and-rename) every 50–200 ms (every twelfth save a 1.5 s pause); with `commits`, commits and pushes every
/// tenth save. Runs until `stop`.
fn editor(user: User, entity: usize, commits: bool, stop: Arc<AtomicBool>) -> Edited {
    let path = user.dir.join("level.sjson");
    let swap = user.dir.join(".level.sjson.swp");
    let mut e = Edited::default();
    let mut seed = 7u64 + entity as u64;
    while !stop.load(Ordering::Relaxed) {
        let level = std::fs::read_to_string(&path).unwrap();
        let Some((x, fog)) = values(&level, entity) else {
            continue;
        };
        if e.saves > 0 && (x != e.last_x || fog != e.last_fog) {
            e.lost += 1;
        }
        e.saves += 1;
        e.last_x = e.saves as i64 + 100;
        e.last_fog = e.saves as i64 * 2 + entity as i64;
        std::fs::write(&swap, with_values(&level, entity, e.last_x, e.last_fog)).unwrap();
        std::fs::rename(&swap, &path).unwrap();
        if commits && e.saves % 10 == 0 {
            let mut git = std::process::Command::new("git");
            git.args(["commit", "-qam", "soak"])
                .current_dir(&user.dir)
                .env("HOME", &user.home)
                .env("GIT_CONFIG_NOSYSTEM", "1");
            if git.output().is_ok_and(|o| o.status.success()) {
                let _ = std::process::Command::new("git")
                    .args(["push", "-q", "origin", "main"])
                    .current_dir(&user.dir)
                    .env("HOME", &user.home)
                    .env("GIT_CONFIG_NOSYSTEM", "1")
                    .output();
            }
        }
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        // Every 50–200 ms, and now and then a longer pause, as people take.
        let pause = if e.saves % 12 == 0 {
            1500
        } else {
            50 + (seed >> 33) % 151
        };
        std::thread::sleep(Duration::from_millis(pause));
    }
    e
}

/// `sync --watch 1 --json` for `user`, with a thread counting its cycles and the pending
/// conflicts they reported.
fn watch(user: &User, cycles: Arc<AtomicU64>, pending: Arc<AtomicU64>) -> Child {
    let mut child = user
        .command(&["sync", "--watch", "1", "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let out = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines() {
            let Ok(line) = line else { break };
            cycles.fetch_add(1, Ordering::Relaxed);
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(&line) {
                if std::env::var_os("ASSETVC_SOAK_VERBOSE").is_some() {
                    eprintln!("soak cycle: {} {} {}", v["user"], v["status"], v["error"]);
                }
                let n = v["pending"].as_array().map_or(0, Vec::len);
                pending.fetch_add(n as u64, Ordering::Relaxed);
            }
        }
    });
    child
}

#[test]
fn a_soak_of_two_clones_syncing_while_editors_save_loses_nothing() {
    let seconds = env_number("ASSETVC_SOAK_SECS", 20);
    let team = Team::new();
    let url = team.file_url();
    let users = [team.clone_for("alice", &url), team.clone_for("bob", &url)];
    let stop = Arc::new(AtomicBool::new(false));
    let (cycles, pending) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    let mut watchers: Vec<Child> = users
        .iter()
        .map(|u| watch(u, Arc::clone(&cycles), Arc::clone(&pending)))
        .collect();
    let editors: Vec<_> = users
        .iter()
        .enumerate()
        .map(|(i, u)| {
            let user = User {
                dir: u.dir.clone(),
                home: u.home.clone(),
                name: u.name.clone(),
            };
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || editor(user, i, i == 0, stop))
        })
        .collect();
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(seconds) {
        std::thread::sleep(Duration::from_millis(200));
    }
    stop.store(true, Ordering::Relaxed);
    let edited: Vec<Edited> = editors.into_iter().map(|e| e.join().unwrap()).collect();
    for w in &mut watchers {
        terminate(w);
        assert!(wait_exit(w, LIMIT).success());
    }
    let cycles = cycles.load(Ordering::Relaxed);
    let pending = pending.load(Ordering::Relaxed);
    let saves: u64 = edited.iter().map(|e| e.saves).sum();
    let lost: u64 = edited.iter().map(|e| e.lost).sum();
    eprintln!(
        "soak: {seconds} s, {saves} saves, {cycles} cycles, {pending} pending conflicts, lost {lost}"
    );
    assert!(cycles > 0 && saves > 0);
    assert_eq!(lost, 0, "{edited:?}");
    // Each clone ends holding its last saves.
    for (i, (user, e)) in users.iter().zip(&edited).enumerate() {
        let level = user.level();
        assert_eq!(
            values(&level, i),
            Some((e.last_x, e.last_fog)),
            "{}: {level}",
            user.name
        );
        let fsck = user.git(&["fsck", "--no-progress"]);
        assert!(!fsck.contains("error"), "{fsck}");
    }
}

/// Removes the `*.lock` files under `dir` (what killed git processes leave behind).
fn remove_locks(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            remove_locks(&path);
        } else if path.extension().is_some_and(|e| e == "lock") {
            let _ = std::fs::remove_file(&path);
        }
    }
}

#[test]
fn sigkill_at_any_point_of_a_sync_loses_no_edit_and_keeps_the_repository_sound() {
    let rounds = env_number("ASSETVC_KILL_CYCLES", 40);
    let team = Team::new();
    let url = team.file_url();
    let alice = team.clone_for("alice", &url);
    let bob = team.clone_for("bob", &url);
    let level = bob.dir.join("level.sjson");
    let mut seed = 3u64;
    for round in 0..rounds {
        if round % 5 == 0 {
            let text = alice.level();
            let (x, _) = values(&text, 0).unwrap();
            std::fs::write(
                alice.dir.join("level.sjson"),
                with_values(&text, 0, x + 1, 0),
            )
            .unwrap();
            alice.commit_and_push("moved");
        }
        // Bob saves, and sync is killed somewhere in its cycle.
        let text = std::fs::read_to_string(&level).unwrap();
        let saved = with_values(&text, 1, 1000 + round as i64, 500 + round as i64);
        std::fs::write(&level, &saved).unwrap();
        let mut child = bob
            .command(&["sync"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        std::thread::sleep(Duration::from_millis((seed >> 33) % 400));
        let _ = child.kill();
        let _ = child.wait();
        // A killed git leaves its locks behind, as git itself does: the user removes them.
        remove_locks(&bob.dir.join(".git"));
        let now = std::fs::read_to_string(&level).unwrap();
        assert_eq!(
            values(&now, 1).map(|(x, _)| x),
            Some(1000 + round as i64),
            "round {round}: bob's edit is gone:\n{now}"
        );
    }
    let fsck = bob.git(&["fsck", "--no-progress"]);
    assert!(!fsck.contains("error"), "{fsck}");
    // A last cycle brings everything in, bob's edits kept.
    let out = bob.assetvc(&["sync"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let now = bob.level();
    assert_eq!(values(&now, 1).map(|(x, _)| x), Some(999 + rounds as i64));
    assert_eq!(bob.rev("HEAD"), team.ref_id("main").unwrap());
}
