//! Snapshot tests (`insta`) of the CLI output a person reads: the merge report of
//! `merge-file` and of the merge driver under `git merge`, `conflicts` (one operation and
//! `--all`), and `who`. A change of wording shows as a diff of `tests/snapshots/`; review
//! it with `cargo insta review` (or `INSTA_UPDATE=always`) and commit the new snapshot.
//! Temporary paths and commit ids are replaced by placeholders before comparing.

use crate::common;
use crate::sync_support;

use std::path::Path;

use common::{assetvc_expect, git_home, git_home_output, merge_three};
use sync_support::Team;

/// `text` with `dir` written as `<DIR>`.
fn placeless(text: &str, dir: &Path) -> String {
    text.replace(&dir.display().to_string(), "<DIR>")
}

const BASE: &str = "entities = [\n\t{ id = \"e1\" name = \"crate\" position = [0 0 0] tint = \"white\" }\n\t{ id = \"e2\" name = \"gate\" open = false }\n]\nsettings = { fog = 0.1 }\n";

fn edited(pairs: &[(&str, &str)]) -> String {
    let mut text = BASE.to_string();
    for (from, to) in pairs {
        assert!(text.contains(from), "{from}");
        text = text.replacen(from, to, 1);
    }
    text
}

#[test]
fn the_merge_report_of_merge_file() {
    let tmp = tempfile::tempdir().unwrap();
    let ours = edited(&[("[0 0 0]", "[1 0 0]"), ("fog = 0.1", "fog = 0.2")]);
    let theirs = edited(&[
        ("[0 0 0]", "[2 0 0]"),
        ("fog = 0.1", "fog = 0.3"),
        ("open = false", "open = true"),
    ]);
    let out = merge_three(tmp.path(), "level", [BASE, &ours, &theirs], &["merge-file"]);
    assert_eq!(out.status.code(), Some(0));
    let stderr = placeless(&String::from_utf8_lossy(&out.stderr), tmp.path());
    insta::assert_snapshot!("merge_file_report", stderr);
}

/// A repository with the driver installed and two merges of `feature`: one resolving
/// conflicts by policy, one of a file that does not parse on a side.
fn two_merges(dir: &Path) -> (String, String) {
    git_home(dir, dir, &["init", "-q", "-b", "main"]);
    assetvc_expect(dir, dir, &["install"], 0);
    std::fs::write(dir.join("a.level"), BASE).unwrap();
    std::fs::write(dir.join("b.level"), "a = 1\n").unwrap();
    git_home(dir, dir, &["add", "."]);
    git_home(dir, dir, &["commit", "-q", "-m", "base"]);
    git_home(dir, dir, &["checkout", "-q", "-b", "feature"]);
    let theirs = edited(&[("[0 0 0]", "[2 0 0]"), ("fog = 0.1", "fog = 0.3")]);
    std::fs::write(dir.join("a.level"), theirs).unwrap();
    git_home(dir, dir, &["commit", "-q", "-am", "feature"]);
    git_home(dir, dir, &["checkout", "-q", "main"]);
    let ours = edited(&[("[0 0 0]", "[1 0 0]"), ("fog = 0.1", "fog = 0.2")]);
    std::fs::write(dir.join("a.level"), ours).unwrap();
    git_home(dir, dir, &["commit", "-q", "-am", "main"]);
    let first = git_home_output(dir, dir, &["merge", "--no-edit", "feature"]);
    assert!(first.status.success());
    git_home(dir, dir, &["checkout", "-q", "feature"]);
    std::fs::write(dir.join("b.level"), "a = \n").unwrap();
    git_home(dir, dir, &["commit", "-q", "--no-verify", "-am", "broken"]);
    git_home(dir, dir, &["checkout", "-q", "main"]);
    std::fs::write(dir.join("b.level"), "a = 2\n").unwrap();
    git_home(dir, dir, &["commit", "-q", "-am", "b"]);
    let second = git_home_output(dir, dir, &["merge", "--no-edit", "feature"]);
    assert!(!second.status.success());
    let driver = |out: &std::process::Output| {
        String::from_utf8_lossy(&out.stderr)
            .lines()
            .filter(|l| l.starts_with("assetvc") || l.contains(".level"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    (driver(&first), driver(&second))
}

#[test]
fn the_driver_report_and_conflicts() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let (first, second) = two_merges(dir);
    insta::assert_snapshot!("driver_report_merged", first);
    insta::assert_snapshot!("driver_report_not_merged", placeless(&second, dir));
    let (last, _) = assetvc_expect(dir, dir, &["conflicts"], 0);
    insta::assert_snapshot!("conflicts_last", last);
    let (all, _) = assetvc_expect(dir, dir, &["conflicts", "--all"], 0);
    insta::assert_snapshot!("conflicts_all", all);
}

#[test]
fn who_lists_what_others_edit() {
    let team = Team::new();
    let url = team.file_url();
    let alice = team.clone_for("alice", &url);
    let bob = team.clone_for("bob", &url);
    bob.edit("position = [5 0 0]", "position = [6 0 0]");
    bob.edit("tint = \"white\"", "tint = \"red\"");
    bob.expect(&["sync"], 0);
    alice.expect(&["sync"], 0);
    let (out, _) = alice.expect(&["who"], 0);
    // How long ago is the clock's: the rest is the snapshot.
    let out: String = out
        .lines()
        .map(|l| match l.find(" ago") {
            Some(i) => {
                // `bob on main, 3 s ago:`: the age is the words after the last comma.
                let start = l[..i].rfind(", ").map_or(0, |s| s + 2);
                format!("{}<AGE>{}", &l[..start], &l[i + 4..])
            }
            None => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    insta::assert_snapshot!("who", out);
}
