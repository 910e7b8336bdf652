//! End to end, object history that starts at once (issue #34): `show` reads only the
//! tree it shows, never the history before it; `log` walks back from the tip and, with
//! `-n`, reads no further than its last answer; `assetvc index` builds the whole history
//! explicitly, resumes after an interruption, and gives the same answers as the walk.

use crate::common;

use std::path::{Path, PathBuf};

use common::{assetvc_expect, git};

const DOOR: &str = "a0000000-0000-4000-8000-000000000001";

/// A repository of `commits` commits: each moves the door; every third also dims the
/// lamp; the barrel is deleted in the last commit.
fn history(dir: &Path, commits: usize) {
    git(dir, &["init", "-q", "-b", "main"]);
    for i in 0..commits {
        let barrel = if i + 1 < commits {
            "\t{ id = \"c0000000-0000-4000-8000-000000000003\" name = \"barrel\" z = 1 }\n"
        } else {
            ""
        };
        let level = format!(
            "entities = [\n\t{{ id = \"{DOOR}\" name = \"door\" x = {i} }}\n\t{{ id = \"b0000000-0000-4000-8000-000000000002\" name = \"lamp\" y = {} }}\n{barrel}]\n",
            i / 3
        );
        std::fs::write(dir.join("start.level"), level).unwrap();
        git(dir, &["add", "-A"]);
        git(dir, &["commit", "-q", "-m", &format!("step {i}")]);
    }
}

/// The files of one kind (`d` deltas, `s` snapshots, `c` build marks) in the index cache.
fn cached(dir: &Path, kind: &str) -> Vec<PathBuf> {
    let root = dir.join(".git/assetvc/object-index");
    let mut out = Vec::new();
    let Ok(settings) = std::fs::read_dir(&root) else {
        return out;
    };
    let mut stack: Vec<PathBuf> = settings.flatten().map(|e| e.path().join(kind)).collect();
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            if e.path().is_dir() {
                stack.push(e.path());
            } else if !e.file_name().to_string_lossy().starts_with(".tmp") {
                out.push(e.path());
            }
        }
    }
    out
}

fn assetvc(dir: &Path, args: &[&str]) -> String {
    assetvc_expect(dir, dir, args, 0).0
}

#[test]
fn show_reads_only_the_tree_it_shows() {
    let dir = tempfile::tempdir().unwrap();
    history(dir.path(), 12);
    let shown = assetvc(dir.path(), &["show", "door"]);
    assert!(shown.contains("x = 11"), "{shown}");
    let shown = assetvc(dir.path(), &["show", "lamp", "--rev", "HEAD~6"]);
    assert!(shown.contains("y = 1"), "{shown}");
    // No delta of any commit: the history was not read, only the two trees shown.
    assert_eq!(cached(dir.path(), "d"), Vec::<PathBuf>::new());
    assert_eq!(cached(dir.path(), "s").len(), 2);
}

#[test]
fn log_walks_back_only_as_far_as_it_answers() {
    let dir = tempfile::tempdir().unwrap();
    history(dir.path(), 12);
    let two = assetvc(dir.path(), &["log", "door", "-n", "2"]);
    assert_eq!(two.matches("step ").count(), 2, "{two}");
    assert!(two.contains("step 11") && two.contains("step 10"), "{two}");
    // The two newest commits were read, nothing older.
    assert_eq!(cached(dir.path(), "d").len(), 2);
    // The lamp changed every third step: its last change is step 9.
    let lamp = assetvc(dir.path(), &["log", "lamp", "-n", "1"]);
    assert!(
        lamp.contains("step 9") && lamp.contains("changed y"),
        "{lamp}"
    );
    assert_eq!(cached(dir.path(), "d").len(), 3);
    // Whole histories, walked back to the first commit.
    let door = assetvc(dir.path(), &["log", "door"]);
    assert_eq!(door.matches("step ").count(), 12, "{door}");
    assert!(door.lines().last().unwrap().contains("created"), "{door}");
    let barrel = assetvc(
        dir.path(),
        &[
            "log",
            "start.level#c0000000-0000-4000-8000-000000000003",
            "-n",
            "1",
        ],
    );
    assert!(
        barrel.starts_with("barrel #c0000000 in start.level")
            && barrel.contains("deleted from start.level"),
        "{barrel}"
    );
}

#[test]
fn index_builds_everything_resumes_and_agrees_with_the_walk() {
    let dir = tempfile::tempdir().unwrap();
    history(dir.path(), 10);
    let walked = assetvc(dir.path(), &["log", "lamp"]);
    let blamed = assetvc(dir.path(), &["blame", "start.level"]);
    std::fs::remove_dir_all(dir.path().join(".git/assetvc/object-index")).unwrap();
    // A partial build (the walk back of `log -n 1`), then an interrupted one: some deltas
    // of it lost, as if Ctrl-C came before they were written.
    assetvc(dir.path(), &["log", "door", "-n", "1"]);
    let (_, said) = assetvc_expect(dir.path(), dir.path(), &["index"], 0);
    assert!(said.contains("object index of HEAD built"), "{said}");
    let deltas = cached(dir.path(), "d");
    assert_eq!(deltas.len(), 10, "{deltas:?}");
    for lost in deltas.iter().take(4) {
        std::fs::remove_file(lost).unwrap();
    }
    for mark in cached(dir.path(), "c") {
        std::fs::remove_file(mark).unwrap();
    }
    assetvc(dir.path(), &["index"]);
    assert_eq!(cached(dir.path(), "d").len(), 10);
    assert_eq!(cached(dir.path(), "c").len(), 1);
    assert_eq!(assetvc(dir.path(), &["log", "lamp"]), walked);
    assert_eq!(assetvc(dir.path(), &["blame", "start.level"]), blamed);
    // A new commit: the next build indexes only it (it stops at the mark).
    std::fs::write(dir.path().join("start.level"), "entities = []\n").unwrap();
    git(dir.path(), &["commit", "-qam", "empty"]);
    assetvc(dir.path(), &["index"]);
    assert_eq!(cached(dir.path(), "d").len(), 11);
    assert_eq!(cached(dir.path(), "c").len(), 2);
}

#[test]
fn log_finds_a_deleted_object_by_name_and_suggests_close_names() {
    let dir = tempfile::tempdir().unwrap();
    history(dir.path(), 4);
    // The barrel was deleted by the last commit: found by name, and who deleted it said.
    let barrel = assetvc(dir.path(), &["log", "barrel"]);
    assert!(
        barrel.starts_with("barrel #c0000000 in start.level\n"),
        "{barrel}"
    );
    let first = barrel.lines().nth(1).unwrap();
    assert!(
        first.contains("deleted from start.level") && first.contains("step 3"),
        "{barrel}"
    );
    assert_eq!(barrel.matches("step ").count(), 2, "{barrel}");
    // A name that matches nothing, now or ever: close names and the FILE#ID form.
    let (_, said) = assetvc_expect(dir.path(), dir.path(), &["log", "dor"], 2);
    assert!(
        said.contains("no object matches \"dor\"")
            && said.contains("door #a0000000  start.level#a0000000-0000-4000-8000-000000000001")
            && said.contains("FILE#ID"),
        "{said}"
    );
}
