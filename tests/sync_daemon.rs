//! End to end: `assetvc sync --watch` against a bare repository served by `git daemon`
//! on 127.0.0.1 (receive-pack enabled, pre-receive hook installed): edits made while the
//! watch runs reach the remote, the upstream reaches the worktree, the remote going down
//! and coming back mid-watch is survived, and SIGTERM stops the watch cleanly — nothing
//! typed by anyone is lost.

use crate::common;
use crate::sync_support;

use std::process::Stdio;
use std::time::Duration;

use common::data;
use sjson::Dialect;
use sync_support::{remote_has, terminate, wait_exit, wait_for, Daemon, Team};

const LIMIT: Duration = Duration::from_secs(60);

#[test]
fn watch_survives_the_remote_going_down_and_stops_cleanly() {
    let team = Team::new();
    let mut daemon = Daemon::start(&team);
    let url = daemon.url();
    let alice = team.clone_for("alice", &url);
    let bob = team.clone_for("bob", &url);
    let carol = team.clone_for("carol", &url);

    let log = team.root.join("bob-watch.jsonl");
    let mut watch = bob
        .command(&["sync", "--watch", "0.2", "--json", "--timeout", "5"])
        .stdout(std::fs::File::create(&log).unwrap())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let cycles = || std::fs::read_to_string(&log).unwrap_or_default();

    // Bob types while the watch runs: his edit reaches the remote.
    bob.edit("position = [5 0 0]", "position = [6 0 0]");
    wait_for("bob's first edit on the remote", LIMIT, || {
        remote_has(&team, "refs/assetvc/wip/bob/main", "position = [6 0 0]")
    });
    // Alice pushes a commit: it reaches bob's worktree, his edit kept.
    alice.edit("fog = 0.1", "fog = 0.7");
    alice.commit_and_push("fog");
    let alice_commit = alice.rev("HEAD");
    wait_for("alice's commit in bob's worktree", LIMIT, || {
        bob.level().contains("fog = 0.7")
    });
    assert!(bob.level().contains("position = [6 0 0]"));

    // Carol syncs once and sees bob at work on the barrel.
    carol.expect(&["sync"], 0);
    let (out, _) = carol.expect(&["who", "--json"], 0);
    let who: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(who["users"][0]["user"], "bob", "{who:#}");
    assert_eq!(who["users"][0]["objects"][0]["name"], "barrel");

    // The remote goes down: the watch reports it and keeps going.
    daemon.stop();
    wait_for("an unreachable cycle", LIMIT, || {
        cycles().contains("\"status\":\"unreachable\"")
    });
    bob.edit("name = \"barrel\"", "name = \"keg\"");
    // Two more unreachable cycles: at least one began after the edit, and its share did
    // not get through.
    let unreachable = || cycles().matches("\"status\":\"unreachable\"").count();
    let seen = unreachable();
    wait_for("two unreachable cycles after the edit", LIMIT, || {
        unreachable() >= seen + 2
    });
    assert!(!remote_has(&team, "refs/assetvc/wip/bob/main", "keg"));
    // It comes back: the edit typed meanwhile gets through.
    daemon.restart();
    wait_for("bob's edit typed while the remote was down", LIMIT, || {
        remote_has(&team, "refs/assetvc/wip/bob/main", "name = \"keg\"")
    });

    // SIGTERM stops it cleanly.
    terminate(&watch);
    let status = wait_exit(&mut watch, LIMIT);
    let mut stderr = String::new();
    if let Some(mut e) = watch.stderr.take() {
        use std::io::Read;
        let _ = e.read_to_string(&mut stderr);
    }
    assert!(status.success(), "{status:?}\n{stderr}");
    assert!(stderr.contains("sync stopped"), "{stderr}");
    assert!(stderr.contains("retrying in"), "{stderr}");
    for line in cycles().lines() {
        let cycle: serde_json::Value = serde_json::from_str(line).expect("one JSON object a line");
        assert!(cycle["status"].is_string(), "{line}");
    }

    // Nothing typed by anyone is lost; HEAD is alice's commit; the index is HEAD's.
    assert_eq!(bob.rev("HEAD"), alice_commit);
    assert_eq!(bob.staged(), "");
    let level = data(&bob.level(), Dialect::Sjson);
    assert_eq!(level["settings"]["fog"], 0.7);
    assert_eq!(
        level["entities"][1]["position"],
        serde_json::json!([6.0, 0.0, 0.0])
    );
    assert_eq!(level["entities"][1]["name"], "keg");
    assert!(bob.level().contains("// test level"), "comments kept");
    assert_eq!(bob.git(&["status", "--porcelain"]), " M level.sjson\n");
    drop(daemon);
}

#[test]
fn a_silent_remote_is_given_up_on_and_ctrl_c_stops_a_hung_cycle() {
    let team = Team::new();
    let bob = team.clone_for("bob", &team.file_url());
    // A "remote" that accepts connections and never answers.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = silent.local_addr().unwrap().port();
    let (connected, first_connection) = std::sync::mpsc::channel();
    let held = std::thread::spawn(move || {
        let mut conns = Vec::new();
        for c in silent.incoming().take(3) {
            conns.push(c);
            let _ = connected.send(());
        }
        std::thread::sleep(Duration::from_secs(30));
    });
    bob.git(&[
        "remote",
        "add",
        "slow",
        &format!("git://127.0.0.1:{port}/srv.git"),
    ]);
    bob.edit("tint = \"white\"", "tint = \"blue\"");
    let started = std::time::Instant::now();
    let (_, err) = bob.expect(&["sync", "slow", "--timeout", "1"], 2);
    assert!(err.contains("no answer after 1 s"), "{err}");
    assert!(started.elapsed() < Duration::from_secs(15));
    // That sync's connection, taken before the watch starts.
    first_connection
        .recv_timeout(LIMIT)
        .expect("the sync connected to the silent remote");
    while first_connection.try_recv().is_ok() {}

    let mut watch = bob
        .command(&["sync", "slow", "--watch", "1", "--timeout", "60"])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Ctrl-C once the watch's cycle hangs on the silent remote (it connected): an event,
    // not a delay.
    first_connection
        .recv_timeout(LIMIT)
        .expect("the watch connects to the silent remote");
    let status = std::process::Command::new("kill")
        .args(["-INT", &watch.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let started = std::time::Instant::now();
    let status = wait_exit(&mut watch, LIMIT);
    assert!(started.elapsed() < Duration::from_secs(10));
    let mut stderr = String::new();
    if let Some(mut e) = watch.stderr.take() {
        use std::io::Read;
        let _ = e.read_to_string(&mut stderr);
    }
    assert!(status.success(), "{status:?}\n{stderr}");
    assert!(stderr.contains("sync stopped"), "{stderr}");
    assert!(bob.level().contains("tint = \"blue\""));
    assert_eq!(bob.staged(), "");
    drop(held);
}
