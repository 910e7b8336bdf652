//! End to end: `[references] resources` — a tree merge in which one branch deletes
//! `units/crate.unit` and the other places a crate leaves a reference to a missing file:
//! `assetvc merge` reports it, `assetvc check` and the server's pre-receive hook catch it.

mod common;

use std::path::Path;

use common::{assetvc, assetvc_output, git_home, git_home_output, run};

const CONFIG: &str = "[references]\nresources = { type = \"unit\" }\n";
const LEVEL: &str = "units = [\n\t{\n\t\tid = \"e1\"\n\t\ttype = \"units/barrel\"\n\t}\n]\n";
const PLACED: &str = "units = [\n\t{\n\t\tid = \"e1\"\n\t\ttype = \"units/barrel\"\n\t}\n\t{\n\t\tid = \"e2\"\n\t\ttype = \"units/crate\"\n\t}\n]\n";

fn write(dir: &Path, path: &str, text: &str) {
    let p = dir.join(path);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

#[test]
fn a_merge_that_leaves_a_reference_to_a_deleted_unit_is_reported_checked_and_rejected() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let bare = root.join("srv.git");
    let work = root.join("work");
    let git = |dir: &Path, args: &[&str]| git_home(dir, &root, args);
    git(&root, &["init", "-q", "--bare", "-b", "main", "srv.git"]);
    std::fs::write(bare.join("assetvc.toml"), CONFIG).unwrap();
    let out = run(assetvc()
        .args(["install", "--server"])
        .arg(&bare)
        .env("HOME", &root)
        .env("GIT_CONFIG_NOSYSTEM", "1"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    git(&root, &["init", "-q", "-b", "main", "work"]);
    git(
        &work,
        &[
            "remote",
            "add",
            "origin",
            &format!("file://{}", bare.display()),
        ],
    );
    write(&work, "assetvc.toml", CONFIG);
    write(&work, "levels/a.level", LEVEL);
    write(&work, "units/crate.unit", "renderable = true\n");
    write(&work, "units/barrel.unit", "renderable = true\n");
    git(&work, &["add", "-A"]);
    git(&work, &["commit", "-q", "-m", "start"]);
    let out = git_home_output(&work, &root, &["push", "-q", "origin", "main"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // One branch deletes the crate, the other places one.
    git(&work, &["checkout", "-q", "-b", "cleanup"]);
    git(&work, &["rm", "-q", "units/crate.unit"]);
    git(&work, &["commit", "-q", "-m", "no more crates"]);
    git(&work, &["checkout", "-q", "main"]);
    write(&work, "levels/a.level", PLACED);
    git(&work, &["commit", "-q", "-am", "a crate"]);
    let out = assetvc_output(&work, &root, &["merge", "cleanup"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let line = "levels/a.level:8:10: unit units/crate.unit does not exist";
    assert!(
        stderr.contains(&format!("assetvc: {line} (created by this merge)")),
        "{stderr}"
    );
    // `assetvc check` catches it.
    let out = assetvc_output(&work, &root, &["check"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains(line), "{stdout}");
    // And so does the server.
    let out = git_home_output(&work, &root, &["push", "origin", "main"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains(line), "{err}");
    // Bringing the unit back makes everything pass.
    write(&work, "units/crate.unit", "renderable = true\n");
    git(&work, &["add", "-A"]);
    git(&work, &["commit", "-q", "-m", "crate is back"]);
    let out = assetvc_output(&work, &root, &["check"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let out = git_home_output(&work, &root, &["push", "origin", "main"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn pre_commit_blocks_a_level_that_places_a_unit_missing_from_the_index() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let work = root.join("work");
    let git = |args: &[&str]| git_home(&work, &root, args);
    git_home(&root, &root, &["init", "-q", "-b", "main", "work"]);
    let hook = work.join(".git/hooks/pre-commit");
    std::fs::create_dir_all(hook.parent().unwrap()).unwrap();
    std::fs::write(
        &hook,
        format!(
            "#!/bin/sh\nexec {} hook pre-commit\n",
            env!("CARGO_BIN_EXE_assetvc")
        ),
    )
    .unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    write(&work, "assetvc.toml", CONFIG);
    write(&work, "levels/a.level", LEVEL);
    write(&work, "units/barrel.unit", "renderable = true\n");
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "start"]);
    // The crate exists in the worktree but is not staged: the commit would lack it.
    write(&work, "units/crate.unit", "renderable = true\n");
    write(&work, "levels/a.level", PLACED);
    let out = git_home_output(&work, &root, &["commit", "-q", "-am", "a crate"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("levels/a.level:8:10: unit units/crate.unit does not exist"),
        "{err}"
    );
    git(&["add", "units/crate.unit"]);
    let out = git_home_output(&work, &root, &["commit", "-q", "-am", "a crate"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
