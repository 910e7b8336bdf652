//! End to end (issue 20 item 5, issue 13): every value of `assetvc.toml` is validated by
//! `check`, the pre-commit hook and the server's pre-receive hook, with `line:col`, instead
//! of passing every guard and then failing every merge.

mod common;

use std::path::Path;

use common::{assetvc, assetvc_expect, git_home, git_home_output, run};

const BAD_POLICY: &str = "[merge]\npolicy = \"ourz\"\n";
const POLICY_MESSAGE: &str =
    "assetvc.toml:2:10: unknown policy \"ourz\" (expected theirs, ours, fail, upstream, local)";

fn write(dir: &Path, path: &str, text: &str) {
    let p = dir.join(path);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn repo() -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().canonicalize().unwrap();
    git_home(&dir, &dir, &["init", "-q", "-b", "main"]);
    write(
        &dir,
        "levels/a.level",
        "entities = [\n\t{ id = \"e1\" }\n]\n",
    );
    (tmp, dir)
}

#[test]
fn check_reports_an_unknown_policy_and_a_bad_glob_at_their_position() {
    let (_tmp, dir) = repo();
    write(&dir, "assetvc.toml", BAD_POLICY);
    let (stdout, _) = assetvc_expect(&dir, &dir, &["check"], 1);
    assert!(stdout.contains(POLICY_MESSAGE), "{stdout}");
    assert!(stdout.contains("policy = \"ourz\""), "{stdout}");

    write(
        &dir,
        "assetvc.toml",
        "[assets]\nsjson = [\"*.level\", \"[a\"]\n",
    );
    let (stdout, _) = assetvc_expect(&dir, &dir, &["check", "--json"], 1);
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let problem = &report["problems"][0];
    assert_eq!(problem["path"], "assetvc.toml", "{report:#}");
    assert_eq!(problem["line"], 2);
    assert!(
        problem["reason"]
            .as_str()
            .unwrap()
            .contains("bad glob \"[a\""),
        "{report:#}"
    );

    // Valid values, including the policies `upstream` and `local`, pass.
    for policy in ["upstream", "local", "theirs"] {
        write(
            &dir,
            "assetvc.toml",
            &format!("[merge]\npolicy = \"{policy}\"\n"),
        );
        assetvc_expect(&dir, &dir, &["check"], 0);
    }
}

#[test]
fn pre_commit_blocks_an_unknown_policy() {
    let (_tmp, dir) = repo();
    let hook = dir.join(".git/hooks/pre-commit");
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
    write(&dir, "assetvc.toml", BAD_POLICY);
    git_home(&dir, &dir, &["add", "-A"]);
    let out = git_home_output(&dir, &dir, &["commit", "-q", "-m", "bad policy"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "commit went through:\n{err}");
    assert!(err.contains(POLICY_MESSAGE), "{err}");
}

#[test]
fn the_server_rejects_a_pushed_unknown_policy() {
    let (_tmp, dir) = repo();
    let bare = dir.join("server.git");
    git_home(&dir, &dir, &["init", "-q", "--bare", "server.git"]);
    let out = run(assetvc()
        .args(["install", "--server"])
        .arg(&bare)
        .env("HOME", &dir)
        .env("GIT_CONFIG_NOSYSTEM", "1"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let work = dir.join("work");
    git_home(&dir, &dir, &["clone", "-q", "server.git", "work"]);
    write(&work, "assetvc.toml", BAD_POLICY);
    git_home(&work, &dir, &["add", "-A"]);
    git_home(&work, &dir, &["commit", "-q", "-m", "bad policy"]);
    let out = git_home_output(&work, &dir, &["push", "-q", "origin", "HEAD:main"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "push accepted:\n{err}");
    assert!(err.contains(POLICY_MESSAGE), "{err}");
}

fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn merge_file_in_a_subdirectory_follows_the_root_configuration() {
    let (_tmp, dir) = repo();
    write(&dir, "sub/deep/ours.sjson", "a = 2\n");
    write(&dir, "sub/deep/base.sjson", "a = 1\n");
    write(&dir, "sub/deep/theirs.sjson", "a = 3\n");
    let args = [
        "merge-file",
        "-p",
        "ours.sjson",
        "base.sjson",
        "theirs.sjson",
    ];
    let deep = dir.join("sub/deep");
    // The default policy takes theirs; `fail` at the repository root makes it exit 1.
    let (stdout, _) = assetvc_expect(&deep, &dir, &args, 0);
    assert_eq!(stdout, "a = 3\n");
    write(&dir, "assetvc.toml", "[merge]\npolicy = \"fail\"\n");
    assetvc_expect(&deep, &dir, &args, 1);
    // A bad value there stops the merge, named at its place.
    write(&dir, "assetvc.toml", BAD_POLICY);
    let (_, stderr) = assetvc_expect(&deep, &dir, &args, 2);
    assert!(stderr.contains(POLICY_MESSAGE), "{stderr}");
}
