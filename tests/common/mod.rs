//! Helpers shared by the end-to-end tests: the binary, real git, and data comparison.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The `assetvc` binary built for these tests.
pub fn assetvc() -> Command {
    Command::new(env!("CARGO_BIN_EXE_assetvc"))
}

/// The test data kept in the repository (`tests/data`: the corpus and the sample cases,
/// with their sources and licences in `tests/data/README.md`).
pub fn test_data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

/// The GPL-licensed peer cases in `../shared/peer-cases` beside the checkout, which stay
/// outside the project; `None`, after a visible "skipped" line, when they are absent.
pub fn peer_cases(test: &str) -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/peer-cases");
    if dir.is_dir() {
        Some(dir)
    } else {
        // Written to the process's stderr directly: the test harness captures `eprintln!`.
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "{test}: skipped: ../shared not found (the GPL peer cases live there)"
        );
        None
    }
}

/// Runs a command and returns its output, panicking with its stderr if it cannot start.
pub fn run(cmd: &mut Command) -> Output {
    cmd.output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"))
}

/// Runs `git` in `dir` with a fixed identity; panics unless it succeeds.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = git_output(dir, args);
    assert!(
        out.status.success(),
        "git {args:?} failed in {}:\n{}\n{}",
        dir.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Runs `git` in `dir` with a fixed identity and returns its output, whatever the status.
pub fn git_output(dir: &Path, args: &[&str]) -> Output {
    run(Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.com")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.com")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE"))
}

/// A document's value as JSON for comparison: objects unordered, numbers as f64.
pub fn data(text: &str, dialect: sjson::Dialect) -> serde_json::Value {
    let doc = sjson::Document::parse(text, dialect)
        .unwrap_or_else(|e| panic!("does not parse: {e}\n{text}"));
    to_json(doc.root())
}

fn to_json(v: sjson::Value<'_>) -> serde_json::Value {
    use serde_json::Value as J;
    match v.kind() {
        sjson::Kind::Null => J::Null,
        sjson::Kind::Bool => J::Bool(v.as_bool().unwrap_or_default()),
        sjson::Kind::Number => {
            serde_json::Number::from_f64(v.as_number().map_or(0.0, |n| n.as_f64()))
                .map_or(J::Null, J::Number)
        }
        sjson::Kind::String => J::String(v.as_str().unwrap_or_default().into_owned()),
        sjson::Kind::Array => J::Array(v.children().map(to_json).collect()),
        sjson::Kind::Object => J::Object(
            v.members()
                .map(|(k, c)| (k.into_owned(), to_json(c)))
                .collect(),
        ),
    }
}

/// Runs the `assetvc` binary in `dir` with the identity and isolation of [`git_output`]
/// (`HOME` is `home`), and returns its output whatever the status.
pub fn assetvc_output(dir: &Path, home: &Path, args: &[&str]) -> Output {
    run(assetvc()
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.com")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.com")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", home)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE"))
}

/// Runs `assetvc` like [`assetvc_output`] and panics unless it exits with `code`; returns
/// stdout and stderr.
pub fn assetvc_expect(dir: &Path, home: &Path, args: &[&str], code: i32) -> (String, String) {
    let out = assetvc_output(dir, home, args);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert_eq!(
        out.status.code(),
        Some(code),
        "assetvc {args:?} in {}:\nstdout:\n{stdout}\nstderr:\n{stderr}",
        dir.display()
    );
    (stdout, stderr)
}

/// Runs `git` in `dir` like [`git`] but with `HOME` set to `home` (so that clones share a
/// global configuration); panics unless it succeeds.
pub fn git_home(dir: &Path, home: &Path, args: &[&str]) -> String {
    let out = git_home_output(dir, home, args);
    assert!(
        out.status.success(),
        "git {args:?} failed in {}:\n{}\n{}",
        dir.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// [`git_home`] returning the output whatever the status.
pub fn git_home_output(dir: &Path, home: &Path, args: &[&str]) -> Output {
    run(Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.com")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.com")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", home)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE"))
}

/// A small level with two id'd entities and a setting, used by the git end-to-end tests.
pub const TEST_LEVEL: &str = "// test level
entities = [
	{
		id = \"e1\"
		name = \"crate\"
		position = [0 0 0]
		tint = \"white\"
	}
	{
		id = \"e2\"
		name = \"barrel\"
		position = [5 0 0]
		tint = \"white\"
	}
]
settings = {
	fog = 0.1
}
";
