//! End to end, `assetvc log` and `assetvc blame` on a real history with four authors: an
//! object edited, moved to another file, the file renamed with `git mv`, edits on two
//! branches and a merge, an object deleted and re-created. The tests check exactly which
//! commits `log` lists (and what it says each did) and which author `blame` names for
//! each property; and that the index cache can be deleted or corrupted and is rebuilt.

use crate::common;

use std::path::Path;
use std::process::Command;

use common::{assetvc_expect, run};
use serde_json::Value;

/// Runs git as `author`, at a fixed time `t` (seconds after a base), so that the order of
/// commits does not depend on the clock.
fn git_as(dir: &Path, author: &str, t: u32, args: &[&str]) -> String {
    let date = format!("2026-01-01T00:{:02}:{:02}Z", t / 60, t % 60);
    let out = run(Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", author)
        .env(
            "GIT_AUTHOR_EMAIL",
            format!("{}@example.com", author.to_lowercase()),
        )
        .env("GIT_COMMITTER_NAME", author)
        .env("GIT_COMMITTER_EMAIL", "ci@example.com")
        .env("GIT_AUTHOR_DATE", &date)
        .env("GIT_COMMITTER_DATE", &date)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE"));
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

struct Repo {
    dir: tempfile::TempDir,
    t: u32,
}

impl Repo {
    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn write(&self, path: &str, text: &str) {
        let p = self.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    /// Commits everything as `author`; returns the commit id.
    fn commit(&mut self, author: &str, message: &str) -> String {
        self.t += 1;
        git_as(self.path(), author, self.t, &["add", "-A"]);
        self.t += 1;
        git_as(
            self.path(),
            author,
            self.t,
            &["commit", "-q", "-m", message],
        );
        git_as(self.path(), author, self.t, &["rev-parse", "HEAD"])
    }

    fn git(&mut self, author: &str, args: &[&str]) -> String {
        self.t += 1;
        git_as(self.path(), author, self.t, args)
    }

    fn assetvc(&self, args: &[&str], code: i32) -> (String, String) {
        assetvc_expect(self.path(), self.path(), args, code)
    }

    fn json(&self, args: &[&str]) -> Value {
        let (out, _) = self.assetvc(args, 0);
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
    }
}

fn entity(id: &str, name: &str, pos: &str, rot: &str) -> String {
    format!("\t{{\n\t\tid = \"{id}\"\n\t\tname = \"{name}\"\n\t\tpos = [{pos}]\n\t\trot = [{rot}]\n\t}}\n")
}

fn level(entities: &[String]) -> String {
    format!("entities = [\n{}]\n", entities.concat())
}

const DOOR: &str = "d00r0000-1111-2222-3333-444455556666";
const GATE: &str = "6a7e0000-1111-2222-3333-444455556666";
const WALL: &str = "3a110000-1111-2222-3333-444455556666";
const TREE: &str = "6a7f0000-1111-2222-3333-444455556666";

/// The commits of the story, by name.
struct Story {
    repo: Repo,
    create: String,
    move_pos: String,
    move_file: String,
    rename: String,
    rotate: String,
    gate_feature: String,
    wall_main: String,
    merge: String,
    delete_gate: String,
    recreate_gate: String,
}

fn story() -> Story {
    let mut repo = Repo {
        dir: tempfile::tempdir().unwrap(),
        t: 0,
    };
    repo.git("Alice", &["init", "-q", "-b", "main"]);
    let door = |pos: &str, rot: &str| entity(DOOR, "door", pos, rot);
    let gate = |pos: &str| entity(GATE, "gate", pos, "0 0 0 1");
    let wall = |name: &str| entity(WALL, name, "9 9 9", "0 0 0 1");
    let tree = entity(TREE, "tree", "4 4 4", "0 0 0 1");
    repo.write(
        "levels/a.level",
        &level(&[door("0 0 0", "0 0 0 1"), gate("1 1 1"), wall("wall")]),
    );
    repo.write("levels/b.level", &level(std::slice::from_ref(&tree)));
    let create = repo.commit("Alice", "create the levels");
    repo.write(
        "levels/a.level",
        &level(&[door("5 0 0", "0 0 0 1"), gate("1 1 1"), wall("wall")]),
    );
    let move_pos = repo.commit("Bob", "move the door");
    repo.write("levels/a.level", &level(&[gate("1 1 1"), wall("wall")]));
    repo.write(
        "levels/b.level",
        &level(&[tree.clone(), door("5 0 0", "0 0 0 1")]),
    );
    let move_file = repo.commit("Carol", "door goes to b");
    repo.git("Alice", &["mv", "levels/b.level", "levels/c.level"]);
    let rename = repo.commit("Alice", "rename b to c");
    repo.write(
        "levels/c.level",
        &level(&[tree.clone(), door("5 0 0", "0 1 0 0")]),
    );
    let rotate = repo.commit("Bob", "turn the door");
    repo.git("Carol", &["checkout", "-q", "-b", "feature"]);
    repo.write("levels/a.level", &level(&[gate("2 2 2"), wall("wall")]));
    let gate_feature = repo.commit("Carol", "raise the gate");
    repo.git("Alice", &["checkout", "-q", "main"]);
    repo.write(
        "levels/a.level",
        &level(&[gate("1 1 1"), wall("great wall")]),
    );
    let wall_main = repo.commit("Alice", "rename the wall");
    // A clean text merge: the two edits are on different lines.
    repo.git("Alice", &["merge", "-q", "--no-edit", "feature"]);
    let merge = repo.git("Alice", &["rev-parse", "HEAD"]);
    assert_eq!(
        std::fs::read_to_string(repo.path().join("levels/a.level")).unwrap(),
        level(&[gate("2 2 2"), wall("great wall")])
    );
    repo.write("levels/a.level", &level(&[wall("great wall")]));
    let delete_gate = repo.commit("Bob", "remove the gate");
    repo.write(
        "levels/a.level",
        &level(&[gate("3 3 3"), wall("great wall")]),
    );
    let recreate_gate = repo.commit("Dave", "put a gate back");
    Story {
        repo,
        create,
        move_pos,
        move_file,
        rename,
        rotate,
        gate_feature,
        wall_main,
        merge,
        delete_gate,
        recreate_gate,
    }
}

/// (commit, kind, author, properties) of each commit a `log --json` lists.
pub(crate) fn listed(log: &Value) -> Vec<(String, String, String, Vec<String>)> {
    log["commits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["commit"].as_str().unwrap().to_string(),
                c["kind"].as_str().unwrap().to_string(),
                c["author"].as_str().unwrap().to_string(),
                c["properties"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|p| p.as_str().unwrap().to_string())
                    .collect(),
            )
        })
        .collect()
}

/// A row as [`listed`] gives it.
pub(crate) fn row(
    commit: &str,
    kind: &str,
    author: &str,
    props: &[&str],
) -> (String, String, String, Vec<String>) {
    (
        commit.to_string(),
        kind.to_string(),
        author.to_string(),
        props.iter().map(|p| p.to_string()).collect(),
    )
}

#[test]
fn log_follows_an_object_across_files_renames_and_merges() {
    let s = story();
    let door = s.repo.json(&["log", "door", "--json"]);
    assert_eq!(door["path"], "levels/c.level");
    assert_eq!(
        listed(&door),
        [
            row(&s.rotate, "changed", "Bob", &["rot"]),
            row(&s.rename, "moved", "Alice", &[]),
            row(&s.move_file, "moved", "Carol", &[]),
            row(&s.move_pos, "changed", "Bob", &["pos"]),
            row(&s.create, "created", "Alice", &[]),
        ]
    );
    let commits = door["commits"].as_array().unwrap();
    assert_eq!(commits[1]["old_path"], "levels/b.level");
    assert_eq!(commits[2]["old_path"], "levels/a.level");
    assert_eq!(commits[2]["path"], "levels/b.level");

    // The gate: re-created, deleted, taken by the merge from its second parent.
    let gate = s.repo.json(&["log", GATE, "--json"]);
    assert_eq!(
        listed(&gate),
        [
            row(&s.recreate_gate, "created", "Dave", &[]),
            row(&s.delete_gate, "deleted", "Bob", &[]),
            row(&s.merge, "merged", "Alice", &["pos"]),
            row(&s.gate_feature, "changed", "Carol", &["pos"]),
            row(&s.create, "created", "Alice", &[]),
        ]
    );
    let merged = &gate["commits"][2]["parent"];
    assert_eq!(merged["number"], 2);
    assert_eq!(merged["commit"], s.gate_feature.as_str());

    // The wall came through the merge's first parent: the merge is not listed.
    let wall = s.repo.json(&["log", "levels/a.level#3a11", "--json"]);
    assert_eq!(
        listed(&wall),
        [
            row(&s.wall_main, "changed", "Alice", &["name"]),
            row(&s.create, "created", "Alice", &[]),
        ]
    );

    // -n, and the text output naming the object by name and short id.
    let (text, _) = s.repo.assetvc(&["log", "door", "-n", "2"], 0);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "door #d00r0000 in levels/c.level");
    assert_eq!(lines.len(), 3, "{text}");
    assert!(lines[1].starts_with(&s.rotate[..7]) && lines[1].contains("Bob changed rot"));
    assert!(lines[2].contains("moved levels/b.level:"), "{text}");

    // From an older revision, and an object deleted there named by FILE#ID.
    let spec = format!("levels/a.level#{GATE}");
    let old = s
        .repo
        .json(&["log", &spec, "--rev", &s.delete_gate, "--json"]);
    assert_eq!(
        listed(&old),
        [
            row(&s.delete_gate, "deleted", "Bob", &[]),
            row(&s.merge, "merged", "Alice", &["pos"]),
            row(&s.gate_feature, "changed", "Carol", &["pos"]),
            row(&s.create, "created", "Alice", &[]),
        ]
    );
    assert_eq!(old["name"], "gate");
}

#[test]
fn blame_names_the_author_of_each_property() {
    let s = story();
    let blame = s.repo.json(&["blame", "levels/c.level", "--json"]);
    let who = |blame: &Value, id: &str| -> Vec<(String, String, String)> {
        let obj = blame["objects"]
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["id"] == id)
            .unwrap_or_else(|| panic!("{id} not in {blame}"));
        obj["properties"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                (
                    p["property"].as_str().unwrap().to_string(),
                    p["author"].as_str().unwrap().to_string(),
                    p["commit"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    let t = |p: &str, a: &str, c: &str| (p.to_string(), a.to_string(), c.to_string());
    assert_eq!(
        who(&blame, DOOR),
        [
            t("id", "Alice", &s.create),
            t("name", "Alice", &s.create),
            t("pos", "Bob", &s.move_pos),
            t("rot", "Bob", &s.rotate),
        ]
    );
    assert_eq!(who(&blame, TREE)[2], t("pos", "Alice", &s.create));

    let blame = s.repo.json(&["blame", "levels/a.level", "--json"]);
    assert_eq!(
        who(&blame, GATE),
        [
            t("id", "Dave", &s.recreate_gate),
            t("name", "Dave", &s.recreate_gate),
            t("pos", "Dave", &s.recreate_gate),
            t("rot", "Dave", &s.recreate_gate),
        ]
    );
    assert_eq!(who(&blame, WALL)[1], t("name", "Alice", &s.wall_main));
    assert_eq!(who(&blame, WALL)[2], t("pos", "Alice", &s.create));

    // Before the deletion, the gate's position is Carol's, through the merge.
    let blame = s
        .repo
        .json(&["blame", "levels/a.level", "--rev", &s.merge, "--json"]);
    assert_eq!(who(&blame, GATE)[2], t("pos", "Carol", &s.gate_feature));

    let (text, _) = s.repo.assetvc(&["blame", "levels/c.level"], 0);
    assert!(
        text.contains("door #d00r0000  /entities/[id=d00r0000-1111-2222-3333-444455556666]"),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "    rot   {} 2026-01-01 Bob  turn the door",
            &s.rotate[..7]
        )),
        "{text}"
    );
}

#[test]
fn the_index_cache_is_rebuilt_when_deleted_or_corrupt() {
    let s = story();
    let first = s.repo.json(&["log", "door", "--json"]);
    let cache = s.repo.path().join(".git/assetvc/object-index");
    assert!(cache.is_dir());
    // Corrupt every cached file: each is ignored and rebuilt.
    let mut corrupted = 0;
    let mut stack = vec![cache.clone()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            if e.path().is_dir() {
                stack.push(e.path());
            } else {
                std::fs::write(e.path(), b"garbage").unwrap();
                corrupted += 1;
            }
        }
    }
    assert!(corrupted > 5);
    assert_eq!(s.repo.json(&["log", "door", "--json"]), first);
    std::fs::remove_dir_all(&cache).unwrap();
    assert_eq!(s.repo.json(&["log", "door", "--json"]), first);
}

#[test]
fn bad_specs_and_revisions_exit_2() {
    let s = story();
    let (_, err) = s.repo.assetvc(&["log", "nothing-like-this"], 2);
    assert!(
        err.contains("no object matches \"nothing-like-this\""),
        "{err}"
    );
    let (_, err) = s.repo.assetvc(&["log", "door", "--rev", "nope"], 2);
    assert!(err.contains("unknown revision \"nope\""), "{err}");
    let (_, err) = s.repo.assetvc(&["blame", "levels/nope.level"], 2);
    assert!(err.contains("levels/nope.level: not in HEAD"), "{err}");
    // Ids sharing a prefix: the candidates are listed.
    let (_, err) = s.repo.assetvc(&["show", "6a7"], 2);
    assert!(
        err.contains("\"6a7\" is ambiguous: 2 objects match"),
        "{err}"
    );
    assert!(
        err.contains(&format!("gate #6a7e0000  levels/a.level#{GATE}")),
        "{err}"
    );
    assert!(
        err.contains(&format!("tree #6a7f0000  levels/c.level#{TREE}")),
        "{err}"
    );
    let _ = (&s.move_file, &s.rename);
}

#[test]
fn a_shallow_clone_starts_history_at_its_boundary() {
    let s = story();
    let shallow = tempfile::tempdir().unwrap();
    let url = format!("file://{}", s.repo.path().display());
    let target = shallow.path().join("c");
    let target_str = target.to_str().unwrap();
    common::git(
        shallow.path(),
        &["clone", "-q", "--depth", "1", &url, target_str],
    );
    let (out, _) = assetvc_expect(&target, shallow.path(), &["log", "door", "--json"], 0);
    let log: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        listed(&log),
        [row(&s.recreate_gate, "created", "Dave", &[])]
    );
}
