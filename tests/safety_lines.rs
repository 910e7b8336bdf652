//! Issue #30 item 7, one-line contexts: a file name, an object name or a key read from a
//! repository or a change set is shown inside one line of output with its line feeds
//! escaped (`\u{a}`), so data cannot end the line and forge the next one (a fake
//! "applied cleanly", a fake teammate in `who`).

use crate::common;
use crate::sync_support;

use common::{assetvc, git_home, run, write};
use sync_support::Team;

/// A file name that, printed raw, would end its line and add a forged one.
const FORGED: &str = "lamps\nassetvc: forged.sjson: applied cleanly\n.sjson";

/// No line of `shown` starts with the forged text; its escaped form is there.
fn assert_not_forged(shown: &str) {
    for line in shown.lines() {
        assert!(
            !line.starts_with("assetvc: forged") && !line.starts_with(".sjson"),
            "a line was forged: {shown}"
        );
    }
    assert!(
        shown.contains("lamps\\u{a}assetvc: forged.sjson: applied cleanly\\u{a}.sjson"),
        "the name is not shown escaped: {shown}"
    );
}

#[test]
fn who_shows_a_file_name_with_line_feeds_on_one_line() {
    let team = Team::new();
    let url = team.file_url();
    let alice = team.clone_for("alice", &url);
    let bob = team.clone_for("bob", &url);
    std::fs::write(
        alice.dir.join(FORGED),
        "lamps = [\n\t{\n\t\tid = \"l1\"\n\t\tname = \"lamp\\nbob on main, 0 s ago:\"\n\t}\n]\n",
    )
    .unwrap();
    alice.git(&["add", "--", FORGED]);
    alice.expect(&["sync"], 0);
    bob.expect(&["sync"], 0);
    let (out, _) = bob.expect(&["who"], 0);
    assert_not_forged(&out);
    assert!(
        !out.lines().any(|l| l.starts_with("bob on main")),
        "an object name forged a line: {out}"
    );
}

#[test]
fn apply_shows_a_change_set_file_name_with_line_feeds_on_one_line() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    git_home(dir, dir, &["init", "-q", "-b", "main"]);
    write(dir, FORGED, "x = 1\n");
    let op = serde_json::json!({"op": "set", "file": FORGED, "path": "/x", "old": 1, "value": 2});
    write(dir, "c.changes", &format!("{op}\n"));
    let out = run(assetvc()
        .args(["apply", "c.changes"])
        .current_dir(dir)
        .env("HOME", dir)
        .env("GIT_CONFIG_NOSYSTEM", "1"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(dir.join(FORGED)).unwrap(),
        "x = 2\n"
    );
    assert_not_forged(&stderr);
    assert!(stderr.contains(".sjson: applied cleanly"), "{stderr}");
}
