//! End to end (issue 20 item 5, issue 13): every value of `assetvc.toml` is validated by
//! `check`, the pre-commit hook and the server's pre-receive hook, with `line:col`, instead
//! of passing every guard and then failing every merge.

use crate::common;

use common::{assetvc_expect, git_home, git_home_output, install_server, write, TestRepo};

const BAD_POLICY: &str = "[merge]\npolicy = \"ourz\"\n";
const POLICY_MESSAGE: &str =
    "assetvc.toml:2:10: unknown policy \"ourz\" (expected theirs, ours, fail, upstream, local)";

/// A repository with one level (not committed).
fn repo() -> TestRepo {
    let repo = TestRepo::new();
    repo.write("levels/a.level", "entities = [\n\t{ id = \"e1\" }\n]\n");
    repo
}

#[test]
fn check_reports_an_unknown_policy_and_a_bad_glob_at_their_position() {
    let repo = repo();
    repo.write("assetvc.toml", BAD_POLICY);
    let (stdout, _) = repo.assetvc_expect(&["check"], 1);
    assert!(stdout.contains(POLICY_MESSAGE), "{stdout}");
    assert!(stdout.contains("policy = \"ourz\""), "{stdout}");

    repo.write("assetvc.toml", "[assets]\nsjson = [\"*.level\", \"[a\"]\n");
    let (stdout, _) = repo.assetvc_expect(&["check", "--json"], 1);
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
        repo.write("assetvc.toml", &format!("[merge]\npolicy = \"{policy}\"\n"));
        repo.assetvc_expect(&["check"], 0);
    }
}

#[test]
fn pre_commit_blocks_an_unknown_policy() {
    let repo = repo();
    repo.install_pre_commit_hook();
    repo.write("assetvc.toml", BAD_POLICY);
    repo.git(&["add", "-A"]);
    let out = repo.git_output(&["commit", "-q", "-m", "bad policy"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "commit went through:\n{err}");
    assert!(err.contains(POLICY_MESSAGE), "{err}");
}

#[test]
fn the_server_rejects_a_pushed_unknown_policy() {
    let repo = repo();
    let dir = &repo.dir;
    let bare = dir.join("server.git");
    repo.git(&["init", "-q", "--bare", "server.git"]);
    install_server(&bare, dir);
    let work = dir.join("work");
    repo.git(&["clone", "-q", "server.git", "work"]);
    write(&work, "assetvc.toml", BAD_POLICY);
    git_home(&work, dir, &["add", "-A"]);
    git_home(&work, dir, &["commit", "-q", "-m", "bad policy"]);
    let out = git_home_output(&work, dir, &["push", "-q", "origin", "HEAD:main"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "push accepted:\n{err}");
    assert!(err.contains(POLICY_MESSAGE), "{err}");
}

#[test]
fn merge_file_in_a_subdirectory_follows_the_root_configuration() {
    let repo = repo();
    let dir = &repo.dir;
    repo.write("sub/deep/ours.sjson", "a = 2\n");
    repo.write("sub/deep/base.sjson", "a = 1\n");
    repo.write("sub/deep/theirs.sjson", "a = 3\n");
    let args = [
        "merge-file",
        "-p",
        "ours.sjson",
        "base.sjson",
        "theirs.sjson",
    ];
    let deep = dir.join("sub/deep");
    // The default policy takes theirs; `fail` at the repository root makes it exit 1.
    let (stdout, _) = assetvc_expect(&deep, dir, &args, 0);
    assert_eq!(stdout, "a = 3\n");
    repo.write("assetvc.toml", "[merge]\npolicy = \"fail\"\n");
    assetvc_expect(&deep, dir, &args, 1);
    // A bad value there stops the merge, named at its place.
    repo.write("assetvc.toml", BAD_POLICY);
    let (_, stderr) = assetvc_expect(&deep, dir, &args, 2);
    assert!(stderr.contains(POLICY_MESSAGE), "{stderr}");
}
