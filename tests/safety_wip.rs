//! Issue #30 items 6 and 7: one WIP ref pointing at a blob or a tree is refused by the
//! server's hook and, fetched anyway, skipped and reported by `who` instead of failing it
//! for the whole team; what `who` prints of other people's work is escaped.

use crate::sync_support;

use std::process::Output;

use crate::common::git_home_output;
use sync_support::{text, Team, User};

fn git_output(user: &User, args: &[&str]) -> Output {
    git_home_output(&user.dir, &user.home, args)
}

#[test]
fn the_hook_refuses_a_wip_ref_that_is_not_a_commit() {
    let team = Team::new();
    let alice = team.clone_for("alice", &team.file_url());
    std::fs::write(alice.dir.join("blob.txt"), "not a commit\n").unwrap();
    let blob = alice.git(&["hash-object", "-w", "blob.txt"]);
    let tree = alice.git(&["rev-parse", "HEAD^{tree}"]);
    for id in [blob.trim(), tree.trim()] {
        let spec = format!("{id}:refs/assetvc/wip/alice/main");
        let out = git_output(&alice, &["push", "origin", &spec]);
        assert!(!out.status.success(), "{id}: {}", text(&out.stderr));
        assert!(
            text(&out.stderr).contains("must be a commit"),
            "{}",
            text(&out.stderr)
        );
        assert_eq!(team.ref_id("refs/assetvc/wip/alice/main"), None);
    }
}

#[test]
fn who_skips_and_reports_a_wip_ref_that_is_not_a_commit() {
    let team = Team::new();
    let url = team.file_url();
    let alice = team.clone_for("alice", &url);
    let bob = team.clone_for("bob", &url);
    alice.edit("fog = 0.1", "fog = 0.3");
    alice.expect(&["sync"], 0);
    bob.expect(&["sync"], 0);
    // A blob under another user's name, as a broken server or a hand-made ref leaves it.
    std::fs::write(bob.dir.join("blob.txt"), "x\n").unwrap();
    let blob = bob.git(&["hash-object", "-w", "blob.txt"]);
    bob.git(&[
        "update-ref",
        "refs/assetvc/remote-wip/origin/mallory/main",
        blob.trim(),
    ]);
    let (out, err) = bob.expect(&["who"], 0);
    assert!(out.contains("alice on main"), "{out}");
    assert!(
        err.contains("mallory/main") && err.contains("not a commit"),
        "{err}"
    );
    let (json, _) = bob.expect(&["who", "--json"], 0);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["users"].as_array().unwrap().len(), 1, "{json}");
    assert!(v["skipped"][0]["ref"]
        .as_str()
        .unwrap()
        .ends_with("mallory/main"));
}

#[test]
fn who_escapes_what_other_people_named() {
    let team = Team::new();
    let url = team.file_url();
    let alice = team.clone_for("alice", &url);
    let bob = team.clone_for("bob", &url);
    let evil = "lamps\u{1b}]0;pwned\u{7}.sjson";
    std::fs::write(
        alice.dir.join(evil),
        "lamps = [\n\t{\n\t\tid = \"l1\"\n\t\tname = \"lamp\"\n\t}\n]\n",
    )
    .unwrap();
    alice.git(&["add", evil]);
    alice.expect(&["sync"], 0);
    bob.expect(&["sync"], 0);
    let (out, err) = bob.expect(&["who"], 0);
    assert!(out.contains("lamps[lamp #l1]"), "{out}");
    for shown in [&out, &err] {
        assert!(
            !shown.contains('\u{1b}') && !shown.contains('\u{7}'),
            "{shown:?}"
        );
    }
}

/// Issue #30 item 8: `who --html` over a WIP touching hundreds of files (100 000 took
/// 84 s when each file was looked up by scanning the others) names every file in its
/// summary, also those this worktree does not have (it said "in 0 files").
#[test]
fn who_html_counts_every_file_a_wip_touches() {
    let team = Team::new();
    let url = team.file_url();
    let alice = team.clone_for("alice", &url);
    let bob = team.clone_for("bob", &url);
    let dir = alice.dir.join("props");
    std::fs::create_dir(&dir).unwrap();
    for i in 0..300 {
        std::fs::write(
            dir.join(format!("p{i}.sjson")),
            format!("props = [\n\t{{\n\t\tid = \"p{i}\"\n\t\tname = \"prop {i}\"\n\t}}\n]\n"),
        )
        .unwrap();
    }
    alice.git(&["add", "props"]);
    alice.edit("fog = 0.1", "fog = 0.5");
    alice.expect(&["sync"], 0);
    bob.expect(&["sync"], 0);
    let (_, err) = bob.expect(&["who", "--html", "who.html"], 0);
    assert!(err.contains("301 changed objects in 301 files"), "{err}");
    let page = std::fs::read_to_string(bob.dir.join("who.html")).unwrap();
    assert!(page.contains("props/p299.sjson"), "a file is missing");
    assert!(page.contains("prop 299"), "an object is missing");
}
