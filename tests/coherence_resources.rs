//! End to end: `[references] resources` — a tree merge in which one branch deletes
//! `units/crate.unit` and the other places a crate leaves a reference to a missing file:
//! `assetvc merge` reports it, `assetvc check` and the server's pre-receive hook catch it.

use crate::common;

use common::{install_server, TestRepo};

const CONFIG: &str = "[references]\nresources = { type = \"unit\" }\n";
const LEVEL: &str = "units = [\n\t{\n\t\tid = \"e1\"\n\t\ttype = \"units/barrel\"\n\t}\n]\n";
const PLACED: &str = "units = [\n\t{\n\t\tid = \"e1\"\n\t\ttype = \"units/barrel\"\n\t}\n\t{\n\t\tid = \"e2\"\n\t\ttype = \"units/crate\"\n\t}\n]\n";

#[test]
fn a_merge_that_leaves_a_reference_to_a_deleted_unit_is_reported_checked_and_rejected() {
    let repo = TestRepo::new_in("work");
    let bare = repo.bare("srv.git");
    std::fs::write(bare.join("assetvc.toml"), CONFIG).unwrap();
    install_server(&bare, &repo.home);
    repo.git(&[
        "remote",
        "add",
        "origin",
        &format!("file://{}", bare.display()),
    ]);
    repo.write("assetvc.toml", CONFIG);
    repo.write("levels/a.level", LEVEL);
    repo.write("units/crate.unit", "renderable = true\n");
    repo.write("units/barrel.unit", "renderable = true\n");
    repo.commit("start");
    let out = repo.git_output(&["push", "-q", "origin", "main"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // One branch deletes the crate, the other places one.
    repo.git(&["checkout", "-q", "-b", "cleanup"]);
    repo.git(&["rm", "-q", "units/crate.unit"]);
    repo.git(&["commit", "-q", "-m", "no more crates"]);
    repo.git(&["checkout", "-q", "main"]);
    repo.write("levels/a.level", PLACED);
    repo.git(&["commit", "-q", "-am", "a crate"]);
    let out = repo.assetvc(&["merge", "cleanup"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let line = "levels/a.level:8:10: unit units/crate.unit does not exist";
    assert!(
        stderr.contains(&format!("assetvc: {line} (created by this merge)")),
        "{stderr}"
    );
    // `assetvc check` catches it.
    let out = repo.assetvc(&["check"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains(line), "{stdout}");
    // And so does the server.
    let out = repo.git_output(&["push", "origin", "main"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains(line), "{err}");
    // Bringing the unit back makes everything pass.
    repo.write("units/crate.unit", "renderable = true\n");
    repo.commit("crate is back");
    let out = repo.assetvc(&["check"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let out = repo.git_output(&["push", "origin", "main"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn pre_commit_blocks_a_level_that_places_a_unit_missing_from_the_index() {
    let repo = TestRepo::new_in("work");
    repo.install_pre_commit_hook();
    repo.write("assetvc.toml", CONFIG);
    repo.write("levels/a.level", LEVEL);
    repo.write("units/barrel.unit", "renderable = true\n");
    repo.commit("start");
    // The crate exists in the worktree but is not staged: the commit would lack it.
    repo.write("units/crate.unit", "renderable = true\n");
    repo.write("levels/a.level", PLACED);
    let out = repo.git_output(&["commit", "-q", "-am", "a crate"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("levels/a.level:8:10: unit units/crate.unit does not exist"),
        "{err}"
    );
    repo.git(&["add", "units/crate.unit"]);
    let out = repo.git_output(&["commit", "-q", "-am", "a crate"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
