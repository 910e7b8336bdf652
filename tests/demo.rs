//! End to end: `assetvc demo` runs from any directory, shows git's line merge leaving
//! conflict markers and an unparsable level, and assetvc's merge giving a valid level
//! with exactly one conflict resolved by policy.

use crate::common;

use common::{assetvc, run};

fn demo(args: &[&str]) -> (i32, String, String) {
    let cwd = tempfile::tempdir().unwrap();
    let out = run(assetvc()
        .arg("demo")
        .args(args)
        .current_dir(cwd.path())
        .env("NO_COLOR", "1"));
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The lines of `out` from the one starting with `from` up to the one starting with `to`.
fn section<'a>(out: &'a str, from: &str, to: &str) -> &'a str {
    let start = out
        .find(from)
        .unwrap_or_else(|| panic!("no {from:?} in:\n{out}"));
    let end = out[start..].find(to).map_or(out.len(), |e| start + e);
    &out[start..end]
}

#[test]
fn the_demo_contrasts_git_and_assetvc() {
    let (code, out, stderr) = demo(&[]);
    assert_eq!(code, 0, "stdout:\n{out}\nstderr:\n{stderr}");
    assert!(!out.contains('\x1b'), "NO_COLOR: no escape codes");
    assert!(out.lines().count() <= 64, "keep it readable:\n{out}");

    let git = section(&out, "1. plain git merge", "2. git merge with assetvc");
    assert!(git.contains("$ git merge bob   → exit 1"), "{git}");
    assert!(
        git.contains("CONFLICT (content): Merge conflict in levels/arena.level"),
        "{git}"
    );
    assert!(
        git.contains("2 conflict regions left in levels/arena.level"),
        "{git}"
    );
    for marker in ["| <<<<<<< HEAD", "| =======", "| >>>>>>> bob"] {
        assert!(git.contains(marker), "{marker} in {git}");
    }
    // The sjson parser's error on the text-merged file: `arena.level:LINE:COL: reason`.
    let error = git
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("arena.level:"))
        .unwrap_or_else(|| panic!("no parse error in {git}"));
    let parts: Vec<&str> = error.splitn(4, ':').collect();
    assert!(
        parts[1].parse::<u32>().is_ok() && parts[2].parse::<u32>().is_ok(),
        "{error}"
    );

    let structured = section(&out, "2. git merge with assetvc", "outcome");
    assert!(
        structured.contains("$ git merge bob   → exit 0"),
        "{structured}"
    );
    assert!(
        structured.contains("levels/arena.level parses: 5 entities, 0 conflict markers"),
        "{structured}"
    );
    assert_eq!(
        structured.matches("both modified, took theirs").count(),
        1,
        "exactly one conflict reported by the driver:\n{structured}"
    );
    assert!(structured
        .contains("entities[torch_right #6f1c…4b03].light.intensity: both modified, took theirs"));
    // What was merged, by the object-level diff against each parent.
    for line in [
        "entities[torch_left #6f1c…4b02].light.intensity: 4.5 → 6.0",
        "+ entities[brazier_center #6f1c…4b06]: {name = \"brazier_center\"",
        "entities[gate_north #6f1c…4b01].position: [0.0 24.0 0.0] → [0.0 30.0 0.0]",
        "entities[barrel_red #6f1c…4b04].name: \"barrel_01\" → \"barrel_red\"",
        "- entities[spawn_player #6f1c…4b05]: {name = \"spawn_player\"",
    ] {
        assert!(structured.contains(line), "{line} in {structured}");
    }

    let outcome = section(&out, "outcome", "\u{0}");
    assert!(
        outcome.contains("git:     2 conflict regions, level does not parse"),
        "{outcome}"
    );
    assert!(
        outcome.contains("assetvc: merge committed, level parses, 1 conflict resolved"),
        "{outcome}"
    );
    assert!(!out.contains("repository kept"));
}

#[test]
fn keep_keeps_the_repository() {
    let (code, out, stderr) = demo(&["--keep"]);
    assert_eq!(code, 0, "{stderr}");
    let kept = out
        .lines()
        .find_map(|l| l.strip_prefix("repository kept: "))
        .unwrap_or_else(|| panic!("no path in:\n{out}"));
    let repo = std::path::Path::new(kept);
    assert!(repo.join(".git").is_dir() && repo.join("levels/arena.level").is_file());
    // The merge is committed there and the worktree is clean.
    let status = common::git(repo, &["status", "--porcelain"]);
    assert!(status.is_empty(), "{status}");
    std::fs::remove_dir_all(repo.parent().unwrap()).unwrap();
}

#[test]
fn a_demo_that_cannot_run_exits_2() {
    // No git on PATH: the demo cannot run; like every failure, status 2 with a message.
    let cwd = tempfile::tempdir().unwrap();
    let empty = tempfile::tempdir().unwrap();
    let out = run(assetvc()
        .arg("demo")
        .current_dir(cwd.path())
        .env("PATH", empty.path())
        .env("NO_COLOR", "1"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("assetvc: error: demo:"), "{stderr}");
}
