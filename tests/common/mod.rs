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

/// A document's value as JSON for comparison: objects unordered, numbers by exact
/// decimal value (`6`, `6.0` and `6e0` are `6.0`; a number `f64` cannot hold exactly is
/// its exact decimal, never the nearest float: see [`exact_number`]).
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
        sjson::Kind::Number => exact_number(v.as_number_lexeme().unwrap_or("0")),
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

/// A number lexeme as JSON, exactly: an `f64` when the `f64` nearest to it denotes the
/// same decimal value (`0.5`, `6`, `1.25e3`), else the string `#DIGITSeEXP` of its exact
/// decimal value, so that `0.10000000000000000001` never compares equal to `0.1`.
pub fn exact_number(lexeme: &str) -> serde_json::Value {
    let exact = decimal(lexeme);
    let nearest: f64 = lexeme.parse().unwrap_or(f64::NAN);
    if nearest.is_finite() && decimal(&format!("{nearest:e}")) == exact {
        if let Some(n) = serde_json::Number::from_f64(nearest) {
            return serde_json::Value::Number(n);
        }
    }
    let (negative, digits, exponent) = exact;
    serde_json::Value::String(format!(
        "#{}{digits}e{exponent}",
        if negative { "-" } else { "" }
    ))
}

/// The exact decimal value of a number lexeme: sign, significant digits (no leading or
/// trailing zeros; empty for zero) and the power of ten of the last digit.
fn decimal(lexeme: &str) -> (bool, String, i64) {
    let (negative, rest) = match lexeme.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, lexeme.strip_prefix('+').unwrap_or(lexeme)),
    };
    let (mantissa, exp) = match rest.find(['e', 'E']) {
        Some(i) => (&rest[..i], rest[i + 1..].parse::<i64>().unwrap_or(0)),
        None => (rest, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let mut digits: String = format!("{int}{frac}").trim_start_matches('0').to_string();
    let mut exponent = exp - frac.len() as i64;
    while digits.ends_with('0') {
        digits.pop();
        exponent += 1;
    }
    if digits.is_empty() {
        exponent = 0;
    }
    (negative, digits, exponent)
}

/// How many tests of this run skipped part of their work (see [`skipped`]).
pub static SKIPPED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// A test that cannot run here (a tool it needs is missing) says so and is counted: the
/// line `skipped: REASON` on stderr, one more in [`SKIPPED`], and a line in
/// `skipped.txt` of cargo's test temporary directory (so a run's skips can be listed).
/// Under CI (`CI=true`, where every tool is installed) a skip is a failure.
pub fn skipped(reason: &str) {
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "skipped under CI=true: {reason}"
    );
    let n = SKIPPED.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
    eprintln!("skipped: {reason} ({n} skipped in this run so far)");
    let list = Path::new(env!("CARGO_TARGET_TMPDIR")).join("skipped.txt");
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(list)
    {
        use std::io::Write;
        let _ = writeln!(f, "{reason}");
    }
}

#[cfg(test)]
mod exact_tests {
    use super::exact_number;
    use proptest::prelude::*;

    #[test]
    fn numbers_compare_by_exact_decimal_value() {
        assert_eq!(exact_number("6"), serde_json::json!(6.0));
        assert_eq!(exact_number("6.000"), exact_number("6e0"));
        assert_eq!(exact_number("0.5"), serde_json::json!(0.5));
        assert_eq!(exact_number("-0.25E1"), serde_json::json!(-2.5));
        // The nearest f64 of both is 0.1; only one of them is 0.1.
        assert_ne!(exact_number("0.10000000000000000001"), exact_number("0.1"));
        assert_ne!(exact_number("1e400"), exact_number("2e400"));
        assert_eq!(exact_number("1e400"), exact_number("10e399"));
    }

    proptest! {
        #[test]
        fn a_float_as_rust_prints_it_is_that_float(x in proptest::num::f64::NORMAL) {
            prop_assert_eq!(exact_number(&format!("{x}")), serde_json::json!(x));
        }
    }
}
