//! End to end, the whole workstation workflow with real git: a bare remote and clones made
//! with `git clone`, set up with `assetvc install`; designers commit with `assetvc commit`,
//! publish with `assetvc push`, and integrate with `assetvc pull` — or with plain `git pull`,
//! which runs the merge driver `install` configured. Both give the same structured result.

use crate::common;

use std::path::{Path, PathBuf};

use common::{assetvc_expect, data, git_home, git_home_output};
use sjson::Dialect;

const BASE: &str = common::TEST_LEVEL;

/// User A: moves e1, recolours e2, changes the fog.
fn edit_a(text: &str) -> String {
    text.replace("position = [0 0 0]", "position = [1 2 3]")
        .replace(
            "position = [5 0 0]\n\t\ttint = \"white\"",
            "position = [5 0 0]\n\t\ttint = \"red\"",
        )
        .replace("fog = 0.1", "fog = 0.2")
}

/// User B: adds e3, moves e2, changes the fog too (a true conflict).
fn edit_b(text: &str) -> String {
    text.replace("fog = 0.1", "fog = 0.9")
        .replace("position = [5 0 0]", "position = [5 5 0]")
        .replace(
            "\t}\n]",
            "\t}\n\t{\n\t\tid = \"e3\"\n\t\tname = \"lamp\"\n\t\tposition = [9 9 9]\n\t\ttint = \"white\"\n\t}\n]",
        )
}

fn expected() -> serde_json::Value {
    data(
        r#"{"entities": [
            {"id": "e1", "name": "crate", "position": [1, 2, 3], "tint": "white"},
            {"id": "e2", "name": "barrel", "position": [5, 5, 0], "tint": "red"},
            {"id": "e3", "name": "lamp", "position": [9, 9, 9], "tint": "white"}],
           "settings": {"fog": 0.2}}"#,
        Dialect::Json,
    )
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

/// The team's repositories: the bare remote and the clones of A, B and C.
struct Team {
    home: PathBuf,
    remote: PathBuf,
    a: PathBuf,
    b: PathBuf,
    c: PathBuf,
}

/// A seeds the project (install, commit, push); B and C clone it and install.
fn seed(home: &Path) -> Team {
    let remote = home.join("remote.git");
    let (a, b, c) = (home.join("a"), home.join("b"), home.join("c"));
    git_home(
        home,
        home,
        &["init", "-q", "--bare", "-b", "main", "remote.git"],
    );
    // A seeds the project: install, commit the level and .gitattributes, push.
    git_home(home, home, &["clone", "-q", remote.to_str().unwrap(), "a"]);
    assetvc_expect(&a, home, &["install"], 0);
    std::fs::write(a.join("level.sjson"), BASE).unwrap();
    std::fs::write(a.join("notes.txt"), "one\ntwo\nthree\n").unwrap();
    assetvc_expect(
        &a,
        home,
        &[
            "commit",
            "-m",
            "base",
            "level.sjson",
            "notes.txt",
            ".gitattributes",
        ],
        0,
    );
    assert!(git_home(&a, home, &["status", "--porcelain"]).is_empty());
    assetvc_expect(&a, home, &["push", "-u", "origin", "main"], 0);

    // B and C clone and install; .gitattributes is already committed, so nothing changes.
    for (dir, name) in [(&b, "b"), (&c, "c")] {
        git_home(home, home, &["clone", "-q", remote.to_str().unwrap(), name]);
        assetvc_expect(dir, home, &["install"], 0);
        assert!(
            git_home(dir, home, &["status", "--porcelain"]).is_empty(),
            "install changed nothing tracked"
        );
        assetvc_expect(dir, home, &["doctor"], 0);
    }
    Team {
        home: home.to_path_buf(),
        remote,
        a,
        b,
        c,
    }
}

/// A edits and publishes; B and C make the same edit, B with assetvc, C with plain git.
fn edit(t: &Team) {
    let (home, a, b, c) = (&*t.home, &t.a, &t.b, &t.c);
    std::fs::write(a.join("level.sjson"), edit_a(BASE)).unwrap();
    std::fs::write(a.join("notes.txt"), "one\ntwo\nthree\nfour (A)\n").unwrap();
    assetvc_expect(
        a,
        home,
        &["commit", "-a", "-m", "A: move e1, recolour e2"],
        0,
    );
    assetvc_expect(a, home, &["push"], 0);

    // B and C make the same edit: B with assetvc, C with plain git.
    for dir in [b, c] {
        std::fs::write(dir.join("level.sjson"), edit_b(BASE)).unwrap();
        std::fs::write(dir.join("notes.txt"), "zero (B)\none\ntwo\nthree\n").unwrap();
    }
    assetvc_expect(b, home, &["commit", "-a", "-m", "B: add e3, move e2"], 0);
    // --no-verify: this test is about merging, not the pre-commit hook.
    git_home(
        c,
        home,
        &["commit", "-q", "--no-verify", "-am", "B: add e3, move e2"],
    );
}

/// B pulls with assetvc: the structured merge, its commit and its report. Returns the
/// merged level.
fn b_pulls_with_assetvc(t: &Team) -> String {
    let (home, b) = (&*t.home, &t.b);
    let (_, stderr) = assetvc_expect(b, home, &["pull"], 0);
    assert!(
        stderr.contains("level.sjson: merged, 1 conflict resolved (theirs)"),
        "{stderr}"
    );
    let merged_b = read(&b.join("level.sjson"));
    assert_eq!(data(&merged_b, Dialect::Sjson), expected());
    assert!(
        merged_b.starts_with("// test level\n"),
        "ours' text is kept"
    );
    assert_eq!(
        read(&b.join("notes.txt")),
        "zero (B)\none\ntwo\nthree\nfour (A)\n"
    );
    assert!(git_home(b, home, &["status", "--porcelain"]).is_empty());
    let parents = git_home(b, home, &["log", "-1", "--format=%P"]);
    assert_eq!(parents.split_whitespace().count(), 2, "a merge commit");
    let message = git_home(b, home, &["log", "-1", "--format=%B"]);
    assert!(message.starts_with("Merge branch 'main' of "), "{message}");
    assert!(
        message.contains("\nlevel.sjson settings.fog: both modified, took theirs\n"),
        "{message}"
    );
    let (conflicts, _) = assetvc_expect(b, home, &["conflicts"], 0);
    assert_eq!(
        conflicts,
        "assetvc merge of origin/main: 1 file merge, 1 conflict resolved by policy\n\
         level.sjson settings.fog: both modified, took theirs\n"
    );
    let (json, _) = assetvc_expect(b, home, &["conflicts", "--json"], 0);
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(json["files"][0]["conflicts"][0]["ours"], 0.9);
    assert_eq!(json["files"][0]["conflicts"][0]["theirs"], 0.2);
    let fsck = git_home_output(b, home, &["fsck", "--strict", "--unreachable"]);
    assert!(
        fsck.status.success(),
        "{}",
        String::from_utf8_lossy(&fsck.stderr)
    );
    assert!(
        fsck.stdout.is_empty(),
        "the merge wrote only the objects it keeps:\n{}",
        String::from_utf8_lossy(&fsck.stdout)
    );
    merged_b
}

/// C pulls with plain git: the driver gives the same bytes.
fn c_pulls_with_plain_git(t: &Team, merged_b: &str) {
    let (home, b, c) = (&*t.home, &t.b, &t.c);
    let out = git_home_output(c, home, &["pull", "--no-rebase", "--no-edit"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(read(&c.join("level.sjson")), merged_b);
    assert_eq!(read(&c.join("notes.txt")), read(&b.join("notes.txt")));
    assert!(git_home(c, home, &["status", "--porcelain"]).is_empty());
    let (conflicts, _) = assetvc_expect(c, home, &["conflicts"], 0);
    assert!(
        conflicts.starts_with("pull of branch 'main' of "),
        "{conflicts}"
    );
    assert!(
        conflicts.ends_with("\nlevel.sjson settings.fog: both modified, took theirs\n"),
        "{conflicts}"
    );
}

/// B publishes the merge; A pulls it as a fast-forward; every repository checks.
fn a_fast_forwards(t: &Team, merged_b: &str) {
    let (home, remote, a, b, c) = (&*t.home, &t.remote, &t.a, &t.b, &t.c);
    assetvc_expect(b, home, &["push"], 0);
    let (stdout, _) = assetvc_expect(a, home, &["pull"], 0);
    assert!(stdout.contains("Fast-forward"), "{stdout}");
    assert_eq!(read(&a.join("level.sjson")), merged_b);
    assert!(git_home(a, home, &["status", "--porcelain"]).is_empty());
    assert_eq!(
        git_home(a, home, &["rev-parse", "HEAD"]),
        git_home(b, home, &["rev-parse", "HEAD"])
    );
    let (stdout, _) = assetvc_expect(a, home, &["pull"], 0);
    assert!(stdout.contains("Already up to date."), "{stdout}");
    for dir in [a, b, c] {
        let fsck = git_home_output(dir, home, &["fsck", "--strict"]);
        assert!(
            fsck.status.success(),
            "{}",
            String::from_utf8_lossy(&fsck.stderr)
        );
    }
    let fsck = git_home_output(remote, home, &["fsck", "--strict"]);
    assert!(fsck.status.success());
}

#[test]
fn two_designers_pull_structured_and_plain_git_agrees() {
    let tmp = tempfile::tempdir().unwrap();
    let team = seed(tmp.path());
    edit(&team);
    let merged_b = b_pulls_with_assetvc(&team);
    c_pulls_with_plain_git(&team, &merged_b);
    a_fast_forwards(&team, &merged_b);
}

#[test]
fn pull_names_remote_and_branch_and_merges_a_url() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let remote = home.join("remote.git");
    git_home(
        home,
        home,
        &["init", "-q", "--bare", "-b", "main", "remote.git"],
    );
    let a = home.join("a");
    git_home(home, home, &["clone", "-q", remote.to_str().unwrap(), "a"]);
    std::fs::write(a.join("level.sjson"), BASE).unwrap();
    assetvc_expect(&a, home, &["commit", "-m", "base", "level.sjson"], 0);
    assetvc_expect(&a, home, &["push", "origin", "main"], 0);
    // A feature branch on the remote.
    git_home(&a, home, &["checkout", "-q", "-b", "feature"]);
    std::fs::write(a.join("level.sjson"), edit_a(BASE)).unwrap();
    assetvc_expect(&a, home, &["commit", "-a", "-m", "feature"], 0);
    assetvc_expect(&a, home, &["push", "origin", "feature"], 0);

    let b = home.join("b");
    git_home(home, home, &["clone", "-q", remote.to_str().unwrap(), "b"]);
    std::fs::write(b.join("level.sjson"), edit_b(BASE)).unwrap();
    assetvc_expect(&b, home, &["commit", "-a", "-m", "b"], 0);
    // An explicit remote given as a path, and a branch.
    assetvc_expect(&b, home, &["pull", remote.to_str().unwrap(), "feature"], 0);
    assert_eq!(
        data(&read(&b.join("level.sjson")), Dialect::Sjson),
        expected()
    );
    // Unknown branch and unknown remote: exit 2, nothing changes.
    let head = git_home(&b, home, &["rev-parse", "HEAD"]);
    let (_, stderr) = assetvc_expect(&b, home, &["pull", "origin", "no-such-branch"], 2);
    assert!(stderr.contains("no-such-branch"), "{stderr}");
    assetvc_expect(&b, home, &["pull", "no-such-remote", "main"], 2);
    assert_eq!(git_home(&b, home, &["rev-parse", "HEAD"]), head);
    assert!(git_home(&b, home, &["status", "--porcelain"]).is_empty());
}
