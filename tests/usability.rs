//! End to end (issue 20 items 4, 6 and 8): what a new user tripped on — `fmt --check`
//! and `-`, `fmt --json`, progress on a terminal, the mode of a new `merge-file -o` file,
//! `commit -m ""`, an option after `--`, a byte-identical rename, duplicate ids after a
//! merge, and what `install --server` says about the server's policy.

use crate::common;

use std::path::Path;
use std::process::{Command, Output, Stdio};

use common::{assetvc, assetvc_expect, git, git_home, git_home_output, merge_three, run, write};

const UNFORMATTED: &str = "a   =   1\n";

fn repo() -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().canonicalize().unwrap();
    git_home(&dir, &dir, &["init", "-q", "-b", "main"]);
    (tmp, dir)
}

/// Runs `args` with `stdin` piped in.
fn with_stdin(dir: &Path, args: &[&str], stdin: &str) -> Output {
    use std::io::Write;
    let mut child = assetvc()
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

/// Runs the binary with a terminal on stdin, stdout and stderr (through `script`);
/// `None` where `script` is not installed.
fn on_a_terminal(dir: &Path, args: &str) -> Option<(i32, String)> {
    let command = format!("'{}' {args}", env!("CARGO_BIN_EXE_assetvc"));
    let out = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .ok()?;
    Some((
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    ))
}

#[test]
fn fmt_check_without_a_path_looks_at_the_worktree_and_dash_is_stdin() {
    let (_tmp, dir) = repo();
    write(&dir, "levels/ugly.level", UNFORMATTED);
    write(&dir, "levels/fine.level", "a = 1\n");
    // Given stdin too, `fmt --check` with no PATH still looks at the worktree.
    let out = with_stdin(&dir, &["fmt", "--check"], UNFORMATTED);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "./levels/ugly.level\n"
    );
    // `-` is stdin, with and without --check.
    let out = with_stdin(&dir, &["fmt", "--check", "-"], UNFORMATTED);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "<stdin>\n");
    let out = with_stdin(&dir, &["fmt", "-"], UNFORMATTED);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "a = 1\n");
    // `fmt` with no PATH and stdin a pipe reads stdin, as it always has.
    let out = with_stdin(&dir, &["fmt"], UNFORMATTED);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "a = 1\n");
    assert_eq!(
        std::fs::read_to_string(dir.join("levels/ugly.level")).unwrap(),
        UNFORMATTED
    );
    // `-` with paths is a usage error.
    let out = with_stdin(&dir, &["fmt", "-", "levels"], "");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn fmt_json_reports_changed_files_and_errors() {
    let (_tmp, dir) = repo();
    write(&dir, "levels/ugly.level", UNFORMATTED);
    write(&dir, "levels/fine.level", "a = 1\n");
    write(&dir, "levels/broken.level", "a = {\n");
    let (stdout, _) = assetvc_expect(&dir, &dir, &["fmt", "--check", "--json", "levels"], 2);
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["files"], 3);
    assert_eq!(report["changed"], serde_json::json!(["levels/ugly.level"]));
    assert!(
        report["errors"][0]
            .as_str()
            .unwrap()
            .starts_with("levels/broken.level:2:1: "),
        "{report:#}"
    );
    std::fs::remove_file(dir.join("levels/broken.level")).unwrap();
    let (stdout, _) = assetvc_expect(&dir, &dir, &["fmt", "--json", "levels"], 0);
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["changed"], serde_json::json!(["levels/ugly.level"]));
    assert_eq!(
        std::fs::read_to_string(dir.join("levels/ugly.level")).unwrap(),
        "a = 1\n"
    );
}

#[test]
fn at_a_terminal_fmt_asks_for_a_path_and_long_runs_show_progress() {
    let (_tmp, dir) = repo();
    for i in 0..100 {
        write(&dir, &format!("levels/l{i}.level"), "a = 1\n");
    }
    let Some((code, output)) = on_a_terminal(&dir, "fmt") else {
        common::skipped("`script` not found, no terminal to test with");
        return;
    };
    assert_eq!(code, 2, "{output}");
    assert!(output.contains("no PATH"), "{output}");
    let (code, output) = on_a_terminal(&dir, "check").unwrap();
    assert_eq!(code, 0, "{output}");
    assert!(output.contains("assetvc: checking"), "{output}");
    assert!(output.contains("100/100 files"), "{output}");
    let (_, output) = on_a_terminal(&dir, "fmt --check").unwrap();
    assert!(output.contains("assetvc: formatting"), "{output}");
    // Not on a terminal: no bar.
    let (_, stderr) = assetvc_expect(&dir, &dir, &["check"], 0);
    assert!(!stderr.contains("checking"), "{stderr}");
}

#[test]
fn merge_file_output_gets_the_usual_mode() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    for side in ["ours", "base", "theirs"] {
        write(dir, &format!("{side}.level"), "a = 1\n");
    }
    let out = run(Command::new("sh")
        .arg("-c")
        .arg(format!(
            "umask 022 && '{}' merge-file -o new.level ours.level base.level theirs.level",
            env!("CARGO_BIN_EXE_assetvc")
        ))
        .current_dir(dir));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mode = std::fs::metadata(dir.join("new.level"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o644);
}

#[test]
fn commit_with_an_empty_message_is_refused() {
    let (_tmp, dir) = repo();
    write(&dir, "levels/a.level", "a = 1\n");
    let (_, stderr) = assetvc_expect(&dir, &dir, &["commit", "-m", "", "levels/a.level"], 2);
    assert!(stderr.contains("empty commit message"), "{stderr}");
    let out = git_home_output(&dir, &dir, &["rev-parse", "--verify", "-q", "HEAD"]);
    assert!(!out.status.success(), "nothing was committed");
}

#[test]
fn an_option_after_double_dash_is_not_silently_a_path() {
    let (_tmp, dir) = repo();
    write(&dir, "levels/a.level", "a = 1\n");
    git(&dir, &["add", "."]);
    git(&dir, &["commit", "-q", "-m", "a"]);
    write(&dir, "levels/a.level", "a = 2\n");
    let (_, stderr) = assetvc_expect(
        &dir,
        &dir,
        &["diff", "--", "levels/a.level", "--format", "changes"],
        2,
    );
    assert!(
        stderr.contains("--format: an option after `--`"),
        "{stderr}"
    );
    let (stdout, _) = assetvc_expect(
        &dir,
        &dir,
        &["diff", "--format", "changes", "--", "levels"],
        0,
    );
    // A change set: one operation per line, each naming its file.
    let first: serde_json::Value =
        serde_json::from_str(stdout.lines().next().unwrap_or_default()).unwrap();
    assert_eq!(first["file"], "levels/a.level", "{first:#}");
    assert_eq!(first["path"], "/a", "{first:#}");
}

#[test]
fn a_byte_identical_rename_is_shown_as_a_rename() {
    let (_tmp, dir) = repo();
    write(&dir, ".gitattributes", "*.level diff=assetvc\n");
    let command = format!("'{}' diff-driver", env!("CARGO_BIN_EXE_assetvc"));
    git(&dir, &["config", "diff.assetvc.command", &command]);
    write(&dir, "levels/a.level", "a = 1\nb = { c = 2 }\n");
    git(&dir, &["add", "."]);
    git(&dir, &["commit", "-q", "-m", "a"]);
    git(&dir, &["mv", "levels/a.level", "levels/b.level"]);
    git(&dir, &["commit", "-q", "-m", "rename"]);
    let stdout = git(&dir, &["diff", "-M", "HEAD~1", "HEAD"]);
    assert_eq!(
        stdout,
        "diff --assetvc a/levels/a.level b/levels/b.level\nrenamed from levels/a.level, content unchanged\n"
    );
    assert!(!stdout.contains("formatting changed"));
}

#[test]
fn duplicate_ids_after_a_merge_are_reported() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let base = "units = [\n\t{ id = a x = 1 }\n\t{ id = a x = 2 }\n]\n";
    let theirs = base.replace("x = 2", "x = 3");
    let out = merge_three(dir, "level", [base, base, &theirs], &["merge-file", "-p"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("merged cleanly"), "{stderr}");
    assert!(stderr.contains("ids are not unique"), "{stderr}");
    assert!(
        stderr.contains("ours.level:3:4: duplicate id \"a\" in this array (first at line 2)"),
        "{stderr}"
    );
    let out = run(assetvc()
        .args(["merge-file", "--json", "-o", "out.level"])
        .args(["ours.level", "base.level", "theirs.level"])
        .current_dir(dir));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["duplicate_ids"][0]["line"], 3, "{report:#}");
}

#[test]
fn install_server_says_whose_policy_counts_and_installs_one() {
    let (_tmp, dir) = repo();
    git_home(&dir, &dir, &["init", "-q", "--bare", "server.git"]);
    let bare = dir.join("server.git");
    let install = |extra: &[&str]| {
        let mut args = vec!["install", "--server", "server.git"];
        args.extend_from_slice(extra);
        common::assetvc_output(&dir, &dir, &args)
    };
    // An invalid policy file installs nothing.
    write(&dir, "bad.toml", "[merge]\npolicy = \"ourz\"\n");
    let out = install(&["--config", "bad.toml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad.toml:2:10: unknown policy"));
    assert!(!bare.join("hooks/pre-receive").exists());
    assert!(!bare.join("assetvc.toml").exists());
    // Without --config: the defaults, and the pushed file does not count.
    let out = install(&[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("the server uses the default policy"),
        "{stderr}"
    );
    assert!(
        stderr.contains("never used as the server's policy"),
        "{stderr}"
    );
    // With --config: installed where the hook reads it, and used.
    write(
        &dir,
        "policy.toml",
        "[[expressions]]\nkeys = [\"*_expr\"]\nvariables = [\"t\"]\n",
    );
    let out = install(&["--config", "policy.toml"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("installed policy.toml as the server's policy"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(bare.join("assetvc.toml")).unwrap(),
        std::fs::read_to_string(dir.join("policy.toml")).unwrap()
    );
    let work = dir.join("work");
    git_home(&dir, &dir, &["clone", "-q", "server.git", "work"]);
    write(&work, "fx/e.particles", "size_expr = \"t +\"\n");
    git_home(&work, &dir, &["add", "-A"]);
    git_home(&work, &dir, &["commit", "-q", "-m", "bad expression"]);
    let out = git_home_output(&work, &dir, &["push", "-q", "origin", "HEAD:main"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "push accepted:\n{err}");
    assert!(err.contains("does not compile"), "{err}");
}
