//! End to end, the progress bar of the object index: shown on a terminal (a pseudo-terminal
//! made by `script`) while `assetvc index` indexes commits, never when stderr is a pipe or a file.

use crate::common;

use std::path::Path;
use std::process::Command;

use common::{assetvc_output, git, run};

/// A repository whose level changed in `commits` commits; returns the id of an object.
fn history(dir: &Path, commits: usize) -> String {
    git(dir, &["init", "-q", "-b", "main"]);
    for i in 0..commits {
        let level = format!(
            "entities = [\n\t{{ id = \"a0000000-0000-4000-8000-000000000001\" name = \"door\" x = {i} }}\n\t{{ id = \"b0000000-0000-4000-8000-000000000002\" name = \"lamp\" y = {} }}\n]\n",
            i * 2
        );
        std::fs::write(dir.join("start.level"), level).unwrap();
        git(dir, &["add", "-A"]);
        git(dir, &["commit", "-q", "-m", &format!("step {i}")]);
    }
    "a0000000-0000-4000-8000-000000000001".to_string()
}

/// `script` from util-linux, which runs a command on a pseudo-terminal; `None` (after a
/// visible line) on a machine without it.
fn script() -> Option<&'static str> {
    let found = Command::new("script")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        eprintln!("objects_progress: skipped: `script` (util-linux) not found");
    }
    found.then_some("script")
}

/// POSIX shell quoting of one word.
fn quoted(word: &str) -> String {
    format!("'{}'", word.replace('\'', "'\\''"))
}

#[test]
fn indexing_shows_a_bar_on_a_terminal() {
    let Some(script) = script() else { return };
    let dir = tempfile::tempdir().unwrap();
    let id = history(dir.path(), 6);
    // `log` walks back without a bar; `index` builds the whole history with one.
    let bin = quoted(env!("CARGO_BIN_EXE_assetvc"));
    let command = format!("{bin} index && {bin} log {}", quoted(&id));
    let out = run(Command::new(script)
        .args(["-qec", &command, "/dev/null"])
        .current_dir(dir.path())
        .env("HOME", dir.path())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("NO_COLOR", "1")
        .env("TERM", "xterm")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE"));
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{shown}");
    assert!(
        shown.contains("assetvc: indexing objects") && shown.contains("/6 commits"),
        "no progress bar on the terminal:\n{shown}"
    );
    // The log itself is complete: six commits changed the object.
    assert_eq!(shown.matches("step ").count(), 6, "{shown}");
}

#[test]
fn indexing_shows_no_bar_when_stderr_is_not_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let id = history(dir.path(), 6);
    let out = assetvc_output(dir.path(), home.path(), &["log", &id]);
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("indexing"), "{stderr}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout)
            .matches("step ")
            .count(),
        6
    );
}
