//! Issue 12: a killed `assetvc migrate` is resumable. The run is stopped at an exact step
//! (`ASSETVC_FAILPOINT` aborts the process there, as SIGKILL would: no cleanup), the
//! half-done state is left as a kill leaves it, and a rerun finishes that migration —
//! same commit, same ids — instead of refusing it as local changes.

use crate::common;

use std::path::Path;

use common::{assetvc, assetvc_expect, git_home, isolated, run};

const LEVEL_A: &str = "units = [\n\t{ unit = \"a\" x = 1 }\n\t{ unit = \"b\" x = 2 }\n]\n";
const LEVEL_B: &str = "lights = [\n\t{ type = \"sun\" }\n\t{ type = \"moon\" }\n]\n";

fn repo(home: &Path) -> std::path::PathBuf {
    let dir = home.join("r");
    std::fs::create_dir_all(dir.join("levels")).unwrap();
    git_home(&dir, home, &["init", "-q", "-b", "main"]);
    std::fs::write(dir.join("levels/a.level"), LEVEL_A).unwrap();
    std::fs::write(dir.join("levels/b.level"), LEVEL_B).unwrap();
    git_home(&dir, home, &["add", "."]);
    git_home(&dir, home, &["commit", "-q", "--no-verify", "-m", "base"]);
    dir
}

/// Runs `assetvc migrate` stopped at `point`; returns the journal's `(old, new)`.
fn killed_migrate(dir: &Path, home: &Path, point: &str) -> (String, String) {
    let out = run(isolated(assetvc().arg("migrate"), dir, home).env("ASSETVC_FAILPOINT", point));
    // Stopped by the failpoint (SIGABRT), not failed: the kill landed at `point`.
    use std::os::unix::process::ExitStatusExt;
    assert!(
        out.status.signal().is_some(),
        "{point}: not killed: {out:?}"
    );
    let journal = std::fs::read_to_string(dir.join(".git/assetvc/migrate-in-progress")).unwrap();
    // `OLD NEW PID`: the pid lets the rerun reclaim the index.lock its killed run left.
    let mut words = journal.split_whitespace();
    let (old, new) = (words.next().unwrap(), words.next().unwrap());
    (old.to_string(), new.to_string())
}

fn head(dir: &Path, home: &Path) -> String {
    git_home(dir, home, &["rev-parse", "HEAD"])
        .trim()
        .to_string()
}

fn assert_finished(dir: &Path, home: &Path, old: &str, new: &str) {
    let (_, stderr) = assetvc_expect(dir, home, &["migrate"], 0);
    assert!(stderr.contains("interrupted migration"), "{stderr}");
    assert_eq!(head(dir, home), new);
    assert_eq!(
        git_home(dir, home, &["rev-parse", "HEAD~1"]).trim(),
        old,
        "one migration commit on top of the base"
    );
    assert_eq!(git_home(dir, home, &["status", "--porcelain"]), "");
    for f in ["levels/a.level", "levels/b.level"] {
        let committed = git_home(dir, home, &["show", &format!("{new}:{f}")]);
        assert_eq!(std::fs::read_to_string(dir.join(f)).unwrap(), committed);
        assert!(committed.contains("id = "), "{committed}");
    }
    assert!(!dir.join(".git/assetvc/migrate-in-progress").exists());
    // A further run has nothing left to do.
    let (_, stderr) = assetvc_expect(dir, home, &["migrate"], 0);
    assert!(stderr.contains("nothing to migrate"), "{stderr}");
}

#[test]
fn killed_midway_through_the_worktree_update_a_rerun_finishes_it() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let dir = repo(home);
    let (old, new) = killed_migrate(&dir, home, "migrate-after-journal");
    assert_eq!(head(&dir, home), old);
    // The kill came after the checkout had written one file of two.
    let written = git_home(&dir, home, &["show", &format!("{new}:levels/a.level")]);
    std::fs::write(dir.join("levels/a.level"), written).unwrap();
    assert_finished(&dir, home, &old, &new);
}

#[test]
fn killed_after_the_index_was_written_a_rerun_moves_head() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let dir = repo(home);
    let (old, new) = killed_migrate(&dir, home, "migrate-after-checkout");
    assert_eq!(head(&dir, home), old, "HEAD had not moved yet");
    assert_finished(&dir, home, &old, &new);
}
