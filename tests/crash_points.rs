//! Issue #30 items 1–2: `assetvc merge` and `assetvc sync` killed at every crash point
//! (each object written, each worktree file written, the journal, the index rename, the
//! ref move; `ASSETVC_FAILPOINT=NAME:N` aborts the debug binary at the Nth pass, as
//! SIGKILL would) leave a repository that git reads as before or after the operation —
//! never HEAD on the merge with the index at the old tree — that `git fsck` finds whole,
//! and that a rerun of the same command finishes without losing an edit.

use crate::common;
use crate::sync_support;

use std::path::Path;
use std::process::Output;

use common::{assetvc, git_home, git_home_output, isolated, run, TestRepo};
use sync_support::{Team, User};

/// Every crash point a merge or a sync passes; the counted ones are tried at each pass.
const POINTS: &[&str] = &[
    "merge-write-object",
    "head-move-after-journal",
    "checkout-write",
    "head-move-before-index",
    "head-move-before-ref",
    "head-move-before-finish",
    "merge-before-merge-head",
];

/// Whether the run was stopped by the failpoint (aborted), not finished.
fn aborted(out: &Output) -> bool {
    use std::os::unix::process::ExitStatusExt;
    out.status.signal().is_some()
}

/// `git fsck` finds every object reachable from every ref, HEAD and the index.
fn assert_fsck_clean(dir: &Path, home: &Path, when: &str) {
    let out = git_home_output(dir, home, &["fsck", "--no-dangling", "--no-progress"]);
    assert!(
        out.status.success() && out.stdout.is_empty(),
        "{when}: git fsck: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// HEAD never stands on the new commit with the index elsewhere: once HEAD moved, the
/// index is HEAD's tree (a `git commit` now could not revert the merge).
fn assert_no_staged_revert(dir: &Path, home: &Path, old_head: &str, when: &str) {
    let head = git_home(dir, home, &["rev-parse", "HEAD"])
        .trim()
        .to_string();
    if head != old_head {
        let _ = std::fs::remove_file(dir.join(".git/index.lock"));
        let staged = git_home(dir, home, &["diff", "--cached", "--name-only"]);
        assert_eq!(staged, "", "{when}: HEAD moved but the index did not");
    }
}

/// A repository with nested folders where `theirs` and HEAD changed different assets and
/// different values of one asset, and an uncommitted edit of a third file.
fn diverged() -> (TestRepo, String) {
    let r = TestRepo::new();
    for (path, text) in [
        ("levels/a/one.sjson", "x = 1\ny = 1\n"),
        ("levels/a/two.sjson", "x = 2\n"),
        ("levels/b/three.sjson", "x = 3\n"),
        ("notes.txt", "notes\n"),
        ("gone.sjson", "x = 0\n"),
    ] {
        r.write(path, text);
    }
    r.commit("base");
    r.git(&["checkout", "-q", "-b", "theirs"]);
    r.write("levels/a/one.sjson", "x = 10\ny = 1\n");
    r.write("levels/a/two.sjson", "x = 20\n");
    r.write("levels/b/new.sjson", "x = 4\n");
    std::fs::remove_file(r.path("gone.sjson")).unwrap();
    r.commit("theirs");
    r.git(&["checkout", "-q", "main"]);
    r.write("levels/a/one.sjson", "x = 1\ny = 100\n");
    r.commit("ours");
    r.write("notes.txt", "typed, not committed\n");
    let head = r.head();
    (r, head)
}

/// After the rerun: the merge is HEAD, the index is HEAD's, and every side's change and
/// the uncommitted edit are there.
fn assert_merged(r: &TestRepo, when: &str) {
    let theirs = r.git(&["rev-parse", "theirs"]);
    let is_ancestor = r.git_output(&["merge-base", "--is-ancestor", theirs.trim(), "HEAD"]);
    assert!(is_ancestor.status.success(), "{when}: theirs is not merged");
    assert_eq!(r.git(&["diff", "--cached", "--name-only"]), "", "{when}");
    assert_eq!(
        r.git(&["status", "--porcelain", "--untracked-files=no"]),
        " M notes.txt\n",
        "{when}"
    );
    assert_eq!(r.read("notes.txt"), "typed, not committed\n", "{when}");
    assert_eq!(r.read("levels/a/one.sjson"), "x = 10\ny = 100\n", "{when}");
    assert_eq!(r.read("levels/b/new.sjson"), "x = 4\n", "{when}");
    assert!(!r.path("gone.sjson").exists(), "{when}");
    assert_fsck_clean(&r.dir, &r.home, when);
}

/// Runs `make` stopped at each pass of each crash point on a fresh setup, checks the
/// state the kill left and that `rerun` finishes; returns the number of crash points tried.
fn every_crash_point<S>(
    setup: impl Fn() -> S,
    run_at: impl Fn(&S, Option<&str>) -> Output,
    check_killed: impl Fn(&S, &str),
    check_finished: impl Fn(&S, &str),
) -> usize {
    let mut tried = 0;
    for point in POINTS {
        for pass in 1.. {
            let s = setup();
            let at = format!("{point}:{pass}");
            let out = run_at(&s, Some(&at));
            if !aborted(&out) {
                assert!(out.status.success(), "{at}: {out:?}");
                break;
            }
            tried += 1;
            check_killed(&s, &at);
            let out = run_at(&s, None);
            assert!(out.status.success(), "{at}: the rerun failed: {out:?}");
            check_finished(&s, &at);
        }
    }
    tried
}

#[test]
fn a_merge_killed_at_any_crash_point_is_finished_by_a_rerun() {
    let tried = every_crash_point(
        diverged,
        |(r, _), at| {
            let mut cmd = assetvc();
            isolated(cmd.args(["merge", "theirs"]), &r.dir, &r.home);
            if let Some(at) = at {
                cmd.env("ASSETVC_FAILPOINT", at);
            }
            run(&mut cmd)
        },
        |(r, old), at| {
            assert_fsck_clean(&r.dir, &r.home, at);
            assert_no_staged_revert(&r.dir, &r.home, old, at);
        },
        |(r, _), at| assert_merged(r, at),
    );
    // Objects (trees and merged blobs), files, and the four steps of the head move.
    eprintln!("merge: {tried} crash points tried");
    assert!(tried >= 12, "only {tried} crash points");
}

/// Bob has uncommitted edits; alice pushed a change. (With a local commit too, sync
/// moves nothing: it shares the work in progress and says the branch has diverged.)
fn behind_team() -> (Team, User, String) {
    let team = Team::new();
    let url = team.file_url();
    let alice = team.clone_for("alice", &url);
    let bob = team.clone_for("bob", &url);
    alice.edit("fog = 0.1", "fog = 0.5");
    alice.commit_and_push("fog");
    bob.edit("name = \"barrel\"", "name = \"keg\"");
    bob.edit("tint = \"white\"", "tint = \"gold\"");
    let head = bob.rev("HEAD");
    (team, bob, head)
}

#[test]
fn a_sync_killed_at_any_crash_point_is_finished_by_a_rerun() {
    let tried = every_crash_point(
        behind_team,
        |(_, bob, _), at| {
            let mut cmd = bob.command(&["sync"]);
            if let Some(at) = at {
                cmd.env("ASSETVC_FAILPOINT", at);
            }
            run(&mut cmd)
        },
        |(_, bob, old), at| {
            assert_fsck_clean(&bob.dir, &bob.home, at);
            assert_no_staged_revert(&bob.dir, &bob.home, old, at);
        },
        |(team, bob, _), at| {
            let upstream = team.ref_id("main").unwrap();
            let out = git_home_output(
                &bob.dir,
                &bob.home,
                &["merge-base", "--is-ancestor", &upstream, "HEAD"],
            );
            assert!(out.status.success(), "{at}: the upstream is not merged");
            assert_eq!(bob.staged(), "", "{at}");
            let level = bob.level();
            assert!(level.contains("fog = 0.5"), "{at}: {level}");
            assert!(level.contains("\"keg\""), "{at}: {level}");
            assert!(
                level.contains("\"gold\""),
                "{at}: the edit was lost: {level}"
            );
            let committed = bob.git(&["show", "HEAD:level.sjson"]);
            assert!(
                !committed.contains("gold"),
                "{at}: the edit stays uncommitted"
            );
            assert_fsck_clean(&bob.dir, &bob.home, at);
        },
    );
    eprintln!("sync: {tried} crash points tried");
    assert!(tried >= 6, "only {tried} crash points");
}

/// Issue #30 item 3: the temporary files a killed run left beside the files it was writing
/// are removed by the next run that writes in that folder (once they are a minute old).
#[test]
fn temporaries_left_by_a_killed_run_are_removed() {
    let (r, _) = diverged();
    let stale = r.path("levels/a/.two.sjson.assetvc-tmp-AbC123");
    let fresh = r.path("levels/a/.one.sjson.assetvc-tmp-XyZ789");
    for p in [&stale, &fresh] {
        std::fs::write(p, "half written").unwrap();
    }
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(&stale)
        .unwrap()
        .set_modified(old)
        .unwrap();
    r.assetvc_expect(&["merge", "theirs"], 0);
    assert!(!stale.exists(), "a stale temporary was left");
    assert!(fresh.exists(), "a fresh one may be another run's");
}

/// A merge that leaves conflicts for the user: an asset merged by structure, a text file
/// changed on both sides (left with markers), a file added by theirs, and an uncommitted
/// edit of a file the merge does not touch.
fn conflicted() -> (TestRepo, String) {
    let r = TestRepo::new();
    for (path, text) in [
        ("levels/a/one.sjson", "x = 1\ny = 1\n"),
        ("notes.txt", "notes\n"),
        ("keep.txt", "keep\n"),
    ] {
        r.write(path, text);
    }
    r.commit("base");
    r.git(&["checkout", "-q", "-b", "theirs"]);
    r.write("levels/a/one.sjson", "x = 10\ny = 1\n");
    r.write("notes.txt", "theirs\n");
    r.write("levels/b/new.sjson", "x = 4\n");
    r.commit("theirs");
    r.git(&["checkout", "-q", "main"]);
    r.write("levels/a/one.sjson", "x = 1\ny = 100\n");
    r.write("notes.txt", "ours\n");
    r.commit("ours");
    r.write("keep.txt", "typed, not committed\n");
    let head = r.head();
    (r, head)
}

/// What git shows of a merge left for the user (`old`: HEAD before it): the index with
/// its stages, what is in progress, and the files.
fn merge_state(r: &TestRepo, old: &str) -> String {
    let merge_head = std::fs::read_to_string(r.path(".git/MERGE_HEAD")).unwrap_or_default();
    let theirs = r.git(&["rev-parse", "theirs"]);
    format!(
        "HEAD stayed: {}\nMERGE_HEAD is theirs: {}\n{}\n{}\n{}{}{}{}",
        r.head() == old,
        merge_head == theirs,
        r.git(&["ls-files", "-s"]),
        r.git(&["status", "--porcelain"]),
        r.read("levels/a/one.sjson"),
        r.read("levels/b/new.sjson"),
        r.read("notes.txt"),
        r.read("keep.txt"),
    )
}

/// `assetvc merge theirs`, stopped at `at` when given.
fn merge_at(r: &TestRepo, at: Option<&str>) -> Output {
    let mut cmd = assetvc();
    isolated(cmd.args(["merge", "theirs"]), &r.dir, &r.home);
    if let Some(at) = at {
        cmd.env("ASSETVC_FAILPOINT", at);
    }
    run(&mut cmd)
}

/// Issue #30: a merge that ends in conflicts, killed at every crash point it passes,
/// never leaves HEAD moved, a merge in progress over the old index, or an index a plain
/// `git commit` could record as a half merge; `git fsck` is clean; and the rerun leaves
/// exactly the conflicts (index stages, markers, files, MERGE_HEAD) an uninterrupted
/// merge leaves.
#[test]
fn a_conflicted_merge_killed_at_any_crash_point_is_finished_by_a_rerun() {
    let (reference, old) = conflicted();
    let out = merge_at(&reference, None);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let want = merge_state(&reference, &old);
    assert!(
        want.starts_with("HEAD stayed: true\nMERGE_HEAD is theirs: true\n"),
        "{want}"
    );
    let mut tried = 0;
    for point in POINTS {
        for pass in 1.. {
            let (r, old) = conflicted();
            let at = format!("{point}:{pass}");
            let out = merge_at(&r, Some(&at));
            if !aborted(&out) {
                assert_eq!(out.status.code(), Some(1), "{at}: {out:?}");
                break;
            }
            tried += 1;
            assert_fsck_clean(&r.dir, &r.home, &at);
            assert_eq!(r.head(), old, "{at}: HEAD moved");
            let in_progress = r.path(".git/MERGE_HEAD").exists();
            let unmerged = r.git(&["diff", "--name-only", "--diff-filter=U"]);
            let staged = r.git(&["diff", "--cached", "--name-only"]);
            assert!(
                !in_progress || unmerged.contains("notes.txt"),
                "{at}: a merge in progress over an index without its conflicts"
            );
            assert!(
                staged.is_empty() || !unmerged.is_empty(),
                "{at}: the index holds part of the merge and a plain commit would record it"
            );
            assert_eq!(r.read("keep.txt"), "typed, not committed\n", "{at}");
            let out = merge_at(&r, None);
            assert_eq!(out.status.code(), Some(1), "{at}: the rerun: {out:?}");
            assert_eq!(
                merge_state(&r, &old),
                want,
                "{at}: the rerun left other conflicts"
            );
            assert_fsck_clean(&r.dir, &r.home, &at);
        }
    }
    eprintln!("conflicted merge: {tried} crash points tried");
    assert!(tried >= 5, "only {tried} crash points");
}
