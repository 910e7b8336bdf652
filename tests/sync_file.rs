//! End to end: `assetvc sync` and `assetvc who` with three users over a file:// remote
//! whose pre-receive hook is installed: work in progress is shared without touching HEAD,
//! the index or the worktree; the upstream is merged into uncommitted edits by structure;
//! a file being typed is carried and not merged; WIP refs pass only to their owner.

use crate::common;
use crate::sync_support;

use std::time::Duration;

use common::data;
use sjson::Dialect;
use sync_support::{remote_has, text, Team, User};

fn team_of_three() -> (Team, User, User, User) {
    let team = Team::new();
    let url = team.file_url();
    let alice = team.clone_for("alice", &url);
    let bob = team.clone_for("bob", &url);
    let carol = team.clone_for("carol", &url);
    (team, alice, bob, carol)
}

/// Asserts that the WIP of each `(user, text)` on the remote holds that text.
fn assert_wips(team: &Team, wips: &[(&str, &str)]) {
    for (user, needle) in wips {
        let rev = format!("refs/assetvc/wip/{user}/main");
        assert!(remote_has(team, &rev, needle), "{rev} lacks {needle:?}");
    }
}

fn who_json(user: &User) -> serde_json::Value {
    let (out, _) = user.expect(&["who", "--json"], 0);
    serde_json::from_str(&out).unwrap()
}

#[test]
fn three_users_share_work_in_progress_and_who_shows_it() {
    let (team, alice, bob, carol) = team_of_three();
    let head = alice.rev("HEAD");
    alice.edit("tint = \"white\"", "tint = \"blue\"");
    bob.edit("position = [5 0 0]", "position = [6 0 0]");
    carol.edit("position = [0 0 0]", "position = [0 0 9]");
    let typed = alice.level();
    for u in [&alice, &bob, &carol, &alice] {
        u.expect(&["sync"], 0);
    }
    // Nothing local moved: HEAD, index and worktree are as they were.
    assert_eq!(alice.rev("HEAD"), head);
    assert_eq!(alice.staged(), "");
    assert_eq!(alice.level(), typed);
    assert_eq!(alice.git(&["status", "--porcelain"]), " M level.sjson\n");
    // Each WIP is on the remote, with what its owner typed.
    assert_wips(
        &team,
        &[
            ("alice", "tint = \"blue\""),
            ("bob", "position = [6 0 0]"),
            ("carol", "position = [0 0 9]"),
        ],
    );
    let who = who_json(&alice);
    let users: Vec<&str> = who["users"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["user"].as_str().unwrap())
        .collect();
    assert_eq!(users, ["bob", "carol"]);
    let bob_objects = &who["users"][0]["objects"];
    assert_eq!(bob_objects.as_array().unwrap().len(), 1, "{who:#}");
    assert_eq!(bob_objects[0]["file"], "level.sjson");
    assert_eq!(bob_objects[0]["pointer"], "/entities/[id=e2]");
    assert_eq!(bob_objects[0]["name"], "barrel");
    assert_eq!(bob_objects[0]["id"], "e2");
    assert_eq!(
        bob_objects[0]["properties"],
        serde_json::json!(["/position"])
    );
    assert!(who["users"][0]["age_seconds"].as_i64().unwrap() < 60);
    // Carol edits e1 like alice: one overlap.
    assert_eq!(who["overlaps"].as_array().unwrap().len(), 1, "{who:#}");
    assert_eq!(who["overlaps"][0]["user"], "carol");
    assert_eq!(who["overlaps"][0]["pointer"], "/entities/[id=e1]");

    let (out, _) = alice.expect(&["who"], 0);
    assert!(out.contains("bob on main"), "{out}");
    assert!(
        out.contains("level.sjson  entities[barrel #e2]  changed: position"),
        "{out}"
    );
    assert!(
        out.contains(
            "warning: carol is editing level.sjson entities[crate #e1], which you are editing too"
        ),
        "{out}"
    );
    // The same as a review page: a card per object someone else edits, a map of the level.
    let page = alice.dir.parent().unwrap().join("who.html");
    alice.expect(&["who", "--html", page.to_str().unwrap()], 0);
    let html = std::fs::read_to_string(&page).unwrap();
    if let Some(dir) = std::env::var_os("ASSETVC_REVIEW_SHOTS") {
        std::fs::copy(&page, std::path::Path::new(&dir).join("who.html")).unwrap();
    }
    for needle in ["bob", "carol", "barrel", "crate", "<svg"] {
        assert!(html.contains(needle), "{needle} missing from the who page");
    }
    assert!(!html.contains("http://") && !html.contains("https://"));
    // A path filter that matches nothing, and a stale limit that hides everyone.
    let (out, _) = alice.expect(&["who", "--json", "other/"], 0);
    let filtered: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(filtered["users"][0]["objects"]
        .as_array()
        .unwrap()
        .is_empty());
    std::fs::write(alice.dir.join("assetvc.toml"), "[sync]\nstale = \"0s\"\n").unwrap();
    // Everyone is stale once a second has passed since their last WIP: waited for as an
    // event (the listing empties), never a fixed sleep.
    sync_support::wait_for("everyone stale", Duration::from_secs(60), || {
        who_json(&alice)["users"]
            .as_array()
            .is_some_and(|u| u.is_empty())
    });
    std::fs::write(alice.dir.join("assetvc.toml"), "[sync]\nstale = \"soon\"\n").unwrap();
    let (_, err) = alice.expect(&["who"], 2);
    assert!(err.contains("sync.stale"), "{err}");
}

#[test]
fn who_warns_when_two_other_people_edit_one_object() {
    let (_team, alice, bob, carol) = team_of_three();
    // Bob and carol both edit the barrel; alice edits nothing of it.
    bob.edit("position = [5 0 0]", "position = [6 0 0]");
    carol.edit(
        "name = \"barrel\"\n\t\tposition = [5 0 0]\n\t\ttint = \"white\"",
        "name = \"barrel\"\n\t\tposition = [5 0 0]\n\t\ttint = \"red\"",
    );
    for u in [&bob, &carol, &alice] {
        u.expect(&["sync"], 0);
    }
    let who = who_json(&alice);
    assert!(who["overlaps"].as_array().unwrap().is_empty(), "{who:#}");
    let shared = who["shared"].as_array().unwrap();
    assert_eq!(shared.len(), 1, "{who:#}");
    assert_eq!(shared[0]["users"], serde_json::json!(["bob", "carol"]));
    assert_eq!(shared[0]["pointer"], "/entities/[id=e2]");
    let (out, _) = alice.expect(&["who"], 0);
    assert!(
        out.contains("warning: bob and carol are each editing level.sjson entities[barrel #e2]"),
        "{out}"
    );
    // Bob sees carol on the object he edits too: the warning about himself, not this one.
    bob.expect(&["sync"], 0);
    let (out, _) = bob.expect(&["who"], 0);
    assert!(
        out.contains("carol is editing level.sjson entities[barrel #e2]"),
        "{out}"
    );
    assert!(!out.contains("are each editing"), "{out}");
}

#[test]
fn the_upstream_is_merged_into_uncommitted_edits_by_structure() {
    let (team, alice, bob, _carol) = team_of_three();
    alice.edit("tint = \"white\"", "tint = \"blue\"");
    alice.commit_and_push("blue crate");
    bob.edit("position = [5 0 0]", "position = [6 0 0]");
    let (out, err) = bob.expect(&["sync", "--json"], 0);
    let cycle: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(cycle["status"], "fast-forward", "{err}");
    assert!(
        err.contains("(your 1 uncommitted asset edit kept)"),
        "{err}"
    );
    assert_eq!(
        cycle["changed"],
        serde_json::json!(["level.sjson"]),
        "{cycle}"
    );
    for step in ["record", "push", "fetch", "merge"] {
        assert!(cycle["ms"][step].is_number(), "{cycle}");
    }
    // HEAD is the upstream, the index is HEAD's, the edit is still uncommitted.
    assert_eq!(bob.rev("HEAD"), team.ref_id("main").unwrap());
    assert_eq!(bob.staged(), "");
    assert_eq!(bob.git(&["status", "--porcelain"]), " M level.sjson\n");
    let level = data(&bob.level(), Dialect::Sjson);
    assert_eq!(level["entities"][0]["tint"], "blue");
    assert_eq!(
        level["entities"][1]["position"],
        serde_json::json!([6.0, 0.0, 0.0])
    );
    assert!(!bob.level().contains("<<<<<<<"));

    // Both change the same property: the person at the keyboard wins in the worktree,
    // the branch still moves to the upstream, and the conflict is pending.
    alice.edit("position = [0 0 0]", "position = [1 1 1]");
    alice.commit_and_push("crate moved");
    bob.edit("position = [0 0 0]", "position = [2 2 2]");
    let (out, err) = bob.expect(&["sync", "--json"], 0);
    assert!(
        err.contains("entities[crate #e1].position: both modified, kept your [2,2,2]"),
        "{err}"
    );
    let author = bob.git(&["log", "-1", "--format=%an", "origin/main"]);
    let author = author.trim();
    assert!(
        err.contains(&format!("upstream's [1,1,1] by {author} is pending")),
        "{err}"
    );
    assert!(!err.contains("took theirs"), "{err}");
    let cycle: serde_json::Value = serde_json::from_str(&out).unwrap();
    let pending = &cycle["pending"][0];
    assert_eq!(pending["file"], "level.sjson", "{cycle}");
    assert_eq!(pending["local"], serde_json::json!([2, 2, 2]), "{cycle}");
    assert_eq!(pending["upstream"], serde_json::json!([1, 1, 1]), "{cycle}");
    assert_eq!(pending["object"], "entities[crate #e1].position", "{cycle}");
    assert_eq!(pending["by"], author, "{cycle}");
    assert_eq!(
        cycle["changed"],
        serde_json::json!([]),
        "bob's file is as he left it"
    );
    assert_eq!(bob.rev("HEAD"), team.ref_id("main").unwrap());
    assert_eq!(bob.git(&["status", "--porcelain"]), " M level.sjson\n");
    let level = data(&bob.level(), Dialect::Sjson);
    assert_eq!(
        level["entities"][0]["position"],
        serde_json::json!([2.0, 2.0, 2.0])
    );
    assert_eq!(
        level["entities"][1]["position"],
        serde_json::json!([6.0, 0.0, 0.0])
    );
    let (out, _) = bob.expect(&["conflicts"], 0);
    assert!(out.contains("entities[crate #e1].position"), "{out}");
    assert!(
        out.contains(&format!("pending: the upstream's [1,1,1] by {author}")),
        "{out}"
    );
    // `who --json` gives an editor the pending conflict with both values.
    let (out, _) = bob.expect(&["who", "--json"], 0);
    let who: serde_json::Value = serde_json::from_str(&out).unwrap();
    let pending = &who["pending"][0];
    assert_eq!(pending["file"], "level.sjson", "{who}");
    assert_eq!(pending["local"], serde_json::json!([2, 2, 2]), "{who}");
    assert_eq!(pending["upstream"], serde_json::json!([1, 1, 1]), "{who}");
    assert_eq!(pending["by"], author, "{who}");
    // `resolve --take upstream` takes alice's value for that conflict and changes nothing
    // else; `--take local` takes bob's back.
    let before = bob.level();
    bob.expect(
        &["resolve", "level.sjson", "--all", "--take", "upstream"],
        0,
    );
    let resolved = bob.level();
    assert_eq!(
        resolved,
        before.replacen("position = [2 2 2]", "position = [1 1 1]", 1),
        "{resolved}"
    );
    bob.expect(&["resolve", "level.sjson", "--all", "--take", "local"], 0);
    assert_eq!(bob.level(), before);
}

#[test]
fn local_commits_are_not_merged_the_work_in_progress_is_shared() {
    let (team, alice, bob, _carol) = team_of_three();
    alice.edit("fog = 0.1", "fog = 0.5");
    alice.commit_and_push("fog");
    bob.edit("name = \"barrel\"", "name = \"keg\"");
    bob.git(&["commit", "-qam", "keg"]);
    let head = bob.rev("HEAD");
    bob.edit("tint = \"white\"", "tint = \"gold\"");
    let (out, err) = bob.expect(&["sync", "--json"], 1);
    assert!(err.contains("diverged"), "{err}");
    let cycle: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(cycle["status"], "diverged", "{cycle}");
    assert_eq!(bob.rev("HEAD"), head, "no merge commit");
    assert!(bob.level().contains("tint = \"gold\""));
    assert!(!bob.level().contains("fog = 0.5"), "nothing merged");
    assert!(
        team.show("refs/assetvc/wip/bob/main", "level.sjson")
            .unwrap()
            .contains("tint = \"gold\""),
        "the work in progress is shared"
    );
    // A second cycle piles nothing up either.
    bob.expect(&["sync"], 1);
    assert_eq!(bob.rev("HEAD"), head);
}

#[test]
fn a_file_being_typed_is_carried_as_is_and_not_merged() {
    let (team, alice, bob, _carol) = team_of_three();
    alice.edit("fog = 0.1", "fog = 0.2");
    alice.commit_and_push("fog");
    bob.edit("name = \"barrel\"", "name = \"bar");
    let typed = bob.level();
    let head = bob.rev("HEAD");
    let (_, err) = bob.expect(&["sync"], 1);
    assert!(err.contains("does not parse yet"), "{err}");
    assert!(err.contains("level.sjson:"), "{err}");
    assert_eq!(bob.level(), typed, "the user's bytes are kept");
    assert_eq!(bob.rev("HEAD"), head);
    assert_eq!(
        team.show("refs/assetvc/wip/bob/main", "level.sjson")
            .unwrap(),
        typed,
        "carried in the WIP as it is, past the pre-receive hook"
    );
    // Finished typing: the next sync merges.
    bob.edit("name = \"bar", "name = \"barrel2\"");
    bob.expect(&["sync"], 0);
    let level = data(&bob.level(), Dialect::Sjson);
    assert_eq!(level["settings"]["fog"], 0.2);
    assert_eq!(level["entities"][1]["name"], "barrel2");
}

#[test]
fn wip_refs_pass_only_to_their_owner_when_the_server_knows_the_pusher() {
    let (team, alice, bob, _carol) = team_of_three();
    bob.edit("tint = \"white\"", "tint = \"blue\"");
    // The local transport runs the hook with the pusher's environment.
    let out = bob
        .command(&["sync"])
        .env("REMOTE_USER", "alice")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("work in progress of \"bob\""), "{err}");
    assert_eq!(team.ref_id("refs/assetvc/wip/bob/main"), None);
    let out = bob
        .command(&["sync"])
        .env("GL_USERNAME", "bob")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(team.ref_id("refs/assetvc/wip/bob/main").is_some());
    // Other refs are checked as before: a broken level cannot reach main.
    alice.edit("name = \"crate\"", "name = \"crate");
    alice.git(&["commit", "-qam", "broken"]);
    let out = sync_support::text(
        &common::git_home_output(&alice.dir, &alice.home, &["push", "origin", "main"]).stderr,
    );
    assert!(out.contains("push rejected"), "{out}");
}

#[test]
fn two_users_syncing_at_the_same_instant_both_get_through() {
    let (team, alice, bob, carol) = team_of_three();
    carol.edit("fog = 0.1", "fog = 0.3");
    carol.commit_and_push("fog");
    alice.edit("tint = \"white\"", "tint = \"blue\"");
    bob.edit("position = [5 0 0]", "position = [6 0 0]");
    let start = std::sync::Barrier::new(2);
    let (a, b) = std::thread::scope(|s| {
        let a = s.spawn(|| {
            start.wait();
            alice.assetvc(&["sync"])
        });
        let b = s.spawn(|| {
            start.wait();
            bob.assetvc(&["sync"])
        });
        (a.join().unwrap(), b.join().unwrap())
    });
    assert!(a.status.success(), "{}", text(&a.stderr));
    assert!(b.status.success(), "{}", text(&b.stderr));
    for u in [&alice, &bob] {
        assert_eq!(u.rev("HEAD"), team.ref_id("main").unwrap());
        assert!(u.level().contains("fog = 0.3"));
    }
    assert!(alice.level().contains("tint = \"blue\""));
    assert!(bob.level().contains("position = [6 0 0]"));
    assert_wips(
        &team,
        &[("alice", "tint = \"blue\""), ("bob", "position = [6 0 0]")],
    );
    // After one more sync each sees the other.
    alice.expect(&["sync"], 0);
    let who = who_json(&alice);
    assert_eq!(who["users"][0]["user"], "bob", "{who:#}");
}

#[test]
fn bad_usage_exits_2() {
    let (_team, alice, _bob, _carol) = team_of_three();
    let (_, err) = alice.expect(&["sync", "nowhere"], 2);
    assert!(err.contains("nowhere: not a configured remote"), "{err}");
    alice.git(&["config", "--unset", "assetvc.user"]);
    alice.git(&["config", "--unset", "user.email"]);
    let (_, err) = alice.expect(&["sync"], 2);
    assert!(err.contains("assetvc.user"), "{err}");
    alice.git(&["config", "assetvc.user", "alice"]);
    alice.git(&["checkout", "-q", "--detach"]);
    let (_, err) = alice.expect(&["sync"], 2);
    assert!(err.contains("detached"), "{err}");
}

#[test]
fn a_new_staged_asset_is_shared_and_stays_staged() {
    let (team, alice, bob, _carol) = team_of_three();
    alice.edit("fog = 0.1", "fog = 0.4");
    alice.commit_and_push("fog");
    std::fs::write(
        bob.dir.join("lamps.sjson"),
        "lamps = [\n\t{\n\t\tid = \"l1\"\n\t\tname = \"lamp\"\n\t}\n]\n",
    )
    .unwrap();
    bob.git(&["add", "lamps.sjson"]);
    bob.edit("tint = \"white\"", "tint = \"blue\"");
    bob.expect(&["sync"], 0);
    assert_eq!(bob.rev("HEAD"), team.ref_id("main").unwrap());
    assert_eq!(bob.staged(), "lamps.sjson\n");
    assert!(bob.level().contains("fog = 0.4") && bob.level().contains("tint = \"blue\""));
    assert!(team
        .show("refs/assetvc/wip/bob/main", "lamps.sjson")
        .is_some());
    alice.expect(&["sync"], 0);
    let (out, _) = alice.expect(&["who", "lamps.sjson"], 0);
    assert!(out.contains("lamps.sjson  lamps[lamp #l1]  added"), "{out}");
    assert!(!out.contains("level.sjson"), "{out}");
    // A staged deletion is not carried: sync records it but does not merge.
    bob.git(&["commit", "-qm", "lamps"]);
    bob.git(&["push", "-q"]);
    alice.expect(&["sync"], 0);
    alice.edit("fog = 0.4", "fog = 0.6");
    alice.commit_and_push("fog again");
    bob.git(&["rm", "-q", "lamps.sjson"]);
    let (_, err) = bob.expect(&["sync"], 2);
    assert!(
        err.contains("staged changes that sync does not carry"),
        "{err}"
    );
    assert!(team
        .show("refs/assetvc/wip/bob/main", "lamps.sjson")
        .is_none());
    assert!(bob.level().contains("tint = \"blue\""));
}
