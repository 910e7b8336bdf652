//! Scratch repositories for the unit tests: real `git` with a fixed identity, isolated
//! from the machine's and the user's configuration.

use std::path::Path;
use std::process::Command;

/// Runs `git args` in `dir` (also its `HOME`, with no system configuration and no
/// inherited `GIT_DIR`/`GIT_WORK_TREE`); panics with git's stderr unless it succeeds;
/// returns stdout.
pub(crate) fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "T")
        .env("GIT_AUTHOR_EMAIL", "t@e")
        .env("GIT_COMMITTER_NAME", "T")
        .env("GIT_COMMITTER_EMAIL", "t@e")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}
