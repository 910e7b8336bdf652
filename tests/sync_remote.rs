//! End to end: how sync meets a remote that says no or holds on (issue #30, items 10 and
//! 11): a WIP push the server refuses is reported with its reason and the upstream is
//! still brought in; `--timeout` holds while a transport helper keeps standard error
//! open; SIGHUP ends `sync --watch` cleanly, like Ctrl-C.

use crate::sync_support;

use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::time::{Duration, Instant};

use sync_support::{wait_exit, Team};

/// The generous bound on anything the tests wait for.
const LIMIT: Duration = Duration::from_secs(60);

#[cfg(unix)]
fn executable(path: &std::path::Path, text: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[cfg(unix)]
#[test]
fn a_refused_wip_push_is_reported_and_the_upstream_still_comes_in() {
    let team = Team::new();
    let url = team.file_url();
    let alice = team.clone_for("alice", &url);
    let bob = team.clone_for("bob", &url);
    alice.edit("fog = 0.1", "fog = 0.8");
    alice.commit_and_push("fog");
    // This server takes no work in progress.
    executable(
        &team.bare.join("hooks/pre-receive"),
        "#!/bin/sh\nwhile read old new ref; do\n  case \"$ref\" in\n    refs/assetvc/wip/*) echo \"work in progress is not kept here\" >&2; exit 1;;\n  esac\ndone\nexit 0\n",
    );
    bob.edit("tint = \"white\"", "tint = \"gold\"");
    // Exit 2 (the work in progress was not shared), the upstream brought in all the same.
    let (out, err) = bob.expect(&["sync", "--json"], 2);
    assert!(
        err.contains("the remote refused your work in progress"),
        "{err}"
    );
    assert!(err.contains("work in progress is not kept here"), "{err}");
    assert!(!err.contains("unreachable"), "{err}");
    let cycle: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(cycle["status"], "fast-forward", "{cycle}");
    assert_eq!(cycle["pushed"], false, "{cycle}");
    assert_eq!(bob.rev("HEAD"), team.ref_id("main").unwrap());
    let level = bob.level();
    assert!(level.contains("fog = 0.8") && level.contains("tint = \"gold\""));
}

#[cfg(unix)]
#[test]
fn the_timeout_holds_while_a_transport_helper_keeps_stderr_open() {
    let team = Team::new();
    let bob = team.clone_for("bob", &team.file_url());
    // A transport whose helper never answers and keeps git's standard error open.
    let helper = team.root.join("silent-helper");
    executable(&helper, "#!/bin/sh\nsleep 120\n");
    bob.git(&["config", "protocol.ext.allow", "always"]);
    bob.git(&[
        "remote",
        "add",
        "stuck",
        &format!("ext::{}", helper.display()),
    ]);
    bob.edit("tint = \"white\"", "tint = \"blue\"");
    let started = Instant::now();
    let (_, err) = bob.expect(&["sync", "stuck", "--timeout", "1"], 2);
    assert!(err.contains("no answer after 1 s"), "{err}");
    assert!(
        started.elapsed() < LIMIT,
        "the helper held sync for {:?}",
        started.elapsed()
    );
    assert!(bob.level().contains("tint = \"blue\""));
}

#[cfg(unix)]
#[test]
fn sighup_ends_sync_watch_cleanly() {
    let team = Team::new();
    let bob = team.clone_for("bob", &team.file_url());
    bob.edit("tint = \"white\"", "tint = \"blue\"");
    let mut watch = bob
        .command(&["sync", "--watch", "1", "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait for a whole cycle (its JSON line), then hang up.
    let mut lines = BufReader::new(watch.stdout.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    assert!(first.contains("\"status\""), "{first}");
    let status = std::process::Command::new("kill")
        .args(["-HUP", &watch.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let status = wait_exit(&mut watch, LIMIT);
    let mut stderr = String::new();
    if let Some(mut e) = watch.stderr.take() {
        use std::io::Read;
        let _ = e.read_to_string(&mut stderr);
    }
    assert!(status.success(), "{status:?}\n{stderr}");
    assert!(stderr.contains("sync stopped"), "{stderr}");
    assert!(bob.level().contains("tint = \"blue\""));
    assert_eq!(bob.staged(), "");
}
