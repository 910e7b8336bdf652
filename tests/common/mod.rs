//! Helpers shared by the end-to-end tests: the binary, real git in an [`isolated`]
//! environment, a scratch repository ([`TestRepo`]), and data comparison.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod repo;
#[allow(unused_imports)]
pub use repo::{init_bare, TestRepo};

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

/// Runs `git` in `dir` with a fixed identity (`HOME` is `dir`); panics unless it succeeds.
pub fn git(dir: &Path, args: &[&str]) -> String {
    git_home(dir, dir, args)
}

/// Runs `git` in `dir` with a fixed identity and returns its output, whatever the status.
pub fn git_output(dir: &Path, args: &[&str]) -> Output {
    git_home_output(dir, dir, args)
}

/// A document's value as JSON for comparison: objects unordered, numbers as f64.
pub fn data(text: &str, dialect: sjson::Dialect) -> serde_json::Value {
    let doc = sjson::Document::parse(text, dialect)
        .unwrap_or_else(|e| panic!("does not parse: {e}\n{text}"));
    to_json(doc.root())
}

/// An sjson value as serde_json sees it.
pub fn to_json(v: sjson::Value<'_>) -> serde_json::Value {
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

/// Makes `cmd` run in `dir` isolated from the machine it runs on: a fixed author and
/// committer, no system git configuration, `home` as `HOME` (so no user configuration but
/// what a test writes there), and no `GIT_DIR`/`GIT_WORK_TREE` inherited from a caller
/// (such as a git hook running `cargo test`). Every git and assetvc helper here uses it.
pub fn isolated<'c>(cmd: &'c mut Command, dir: &Path, home: &Path) -> &'c mut Command {
    cmd.current_dir(dir)
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.com")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.com")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", home)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
}

/// Runs the `assetvc` binary in `dir`, [`isolated`] with `HOME` at `home`, and returns its
/// output whatever the status.
pub fn assetvc_output(dir: &Path, home: &Path, args: &[&str]) -> Output {
    run(isolated(assetvc().args(args), dir, home))
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
    run(isolated(Command::new("git").args(args), dir, home))
}

/// The standard error of `out` as text.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Writes `text` to `dir/path`, creating the folders on the way.
pub fn write(dir: &Path, path: &str, text: &str) {
    let p = dir.join(path);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// Writes `base.EXT`, `ours.EXT` and `theirs.EXT` into `dir` and runs `assetvc merge-file
/// OPTIONS ours.EXT base.EXT theirs.EXT` there (`command` is `merge-file` and its options);
/// returns its output whatever the status.
pub fn merge_three(
    dir: &Path,
    ext: &str,
    [base, ours, theirs]: [&str; 3],
    command: &[&str],
) -> Output {
    let names = ["ours", "base", "theirs"].map(|n| format!("{n}.{ext}"));
    for (name, text) in names.iter().zip([ours, base, theirs]) {
        write(dir, name, text);
    }
    run(assetvc().args(command).args(&names).current_dir(dir))
}

/// Makes the file at `path` executable (mode 755).
pub fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Installs `assetvc hook pre-commit` by hand as the pre-commit hook of the repository
/// whose worktree is `work`.
pub fn install_pre_commit_hook(work: &Path) {
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
    make_executable(&hook);
}

/// Runs `assetvc install --server` on the bare repository `bare` (`HOME` is `home`, no
/// system configuration); panics unless it succeeds.
pub fn install_server(bare: &Path, home: &Path) {
    let out = run(assetvc()
        .args(["install", "--server"])
        .arg(bare)
        .env("HOME", home)
        .env("GIT_CONFIG_NOSYSTEM", "1"));
    assert!(out.status.success(), "{}", stderr(&out));
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
