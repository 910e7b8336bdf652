//! End to end, installs that survive (issue #34): `assetvc install` registers the
//! commands it finds on PATH by name, like git-lfs, so that moving or upgrading the binary
//! keeps commits and merges working; absolute paths only with `--absolute`, and a warning
//! when it has to fall back to one.

use crate::common;

use std::path::Path;
use std::process::{Command, Output};

use common::{isolated, run};

/// `assetvc` started as `program` (a path or a name on `path`) in `dir`, with `PATH` set.
fn assetvc_via(program: &Path, dir: &Path, path: &str, args: &[&str]) -> Output {
    run(isolated(Command::new(program).args(args), dir, dir).env("PATH", path))
}

fn git_via(dir: &Path, path: &str, args: &[&str]) -> Output {
    run(isolated(Command::new("git").args(args), dir, dir).env("PATH", path))
}

fn config(dir: &Path, key: &str) -> String {
    let out = git_via(dir, &std::env::var("PATH").unwrap(), &["config", key]);
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// A directory holding only a symbolic link `assetvc` to the built binary.
#[cfg(unix)]
fn bin_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_assetvc"), dir.path().join("assetvc")).unwrap();
    dir
}

#[cfg(unix)]
#[test]
fn install_registers_names_from_path_and_survives_a_move() {
    let system = std::env::var("PATH").unwrap();
    let repo = tempfile::tempdir().unwrap();
    let dir = repo.path();
    let first = bin_dir();
    let path = format!("{}:{system}", first.path().display());
    assert!(git_via(dir, &path, &["init", "-q", "-b", "main"])
        .status
        .success());
    let out = assetvc_via(Path::new("assetvc"), dir, &path, &["install"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!String::from_utf8_lossy(&out.stderr).contains("absolute path"));
    assert_eq!(config(dir, "diff.assetvc.command"), "assetvc diff-driver");
    assert_eq!(
        config(dir, "merge.assetvc.driver"),
        "assetvc merge-driver -- %O %A %B %P"
    );
    let hook = std::fs::read_to_string(dir.join(".git/hooks/pre-commit")).unwrap();
    assert!(hook.contains("\nexec assetvc hook pre-commit"), "{hook}");
    // The binary moves: the old place is gone, the new one is on PATH.
    drop(first);
    let second = bin_dir();
    let path = format!("{}:{system}", second.path().display());
    let doctor = assetvc_via(Path::new("assetvc"), dir, &path, &["doctor"]);
    let report = String::from_utf8_lossy(&doctor.stdout);
    assert!(doctor.status.success(), "{report}");
    // A commit runs the hook, which still finds assetvc: a broken asset is refused.
    std::fs::write(dir.join("a.level"), "entities = [\n").unwrap();
    assert!(git_via(dir, &path, &["add", "a.level"]).status.success());
    let refused = git_via(dir, &path, &["commit", "-qm", "broken"]);
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success(), "{said}");
    assert!(!said.contains("not found"), "{said}");
    assert!(said.contains("a.level:"), "{said}");
    std::fs::write(dir.join("a.level"), "entities = []\n").unwrap();
    assert!(git_via(dir, &path, &["add", "a.level"]).status.success());
    let committed = git_via(dir, &path, &["commit", "-qm", "good"]);
    assert!(
        committed.status.success(),
        "{}",
        String::from_utf8_lossy(&committed.stderr)
    );
}

#[cfg(unix)]
#[test]
fn absolute_paths_only_when_asked_or_when_not_on_path() {
    let system = std::env::var("PATH").unwrap();
    let repo = tempfile::tempdir().unwrap();
    let dir = repo.path();
    let bin = bin_dir();
    let path = format!("{}:{system}", bin.path().display());
    assert!(git_via(dir, &path, &["init", "-q", "-b", "main"])
        .status
        .success());
    let real = Path::new(env!("CARGO_BIN_EXE_assetvc"))
        .canonicalize()
        .unwrap();
    let out = assetvc_via(Path::new("assetvc"), dir, &path, &["install", "--absolute"]);
    assert!(out.status.success());
    let diff = config(dir, "diff.assetvc.command");
    assert_eq!(diff, format!("{} diff-driver", real.display()));
    // Not on PATH: the absolute path, with a warning that says what it means.
    let out = assetvc_via(&real, dir, &system, &["install"]);
    assert!(out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("registered its absolute path") && said.contains("PATH"),
        "{said}"
    );
    assert_eq!(config(dir, "diff.assetvc.command"), diff);
    // Back on PATH, a plain install moves the clone to names.
    let out = assetvc_via(Path::new("assetvc"), dir, &path, &["install"]);
    assert!(out.status.success());
    assert_eq!(config(dir, "diff.assetvc.command"), "assetvc diff-driver");
}
