//! End to end, `assetvc log OBJECT PROPERTY` and `assetvc blame` down to leaf properties:
//! a lamp whose nested `light` object is edited leaf by leaf by different people, on two
//! branches and through a merge. `log` of one leaf lists only the commits that changed that
//! leaf; `blame` names, per leaf (`light.color`, `light.intensity`), the author who set it.

use crate::common;

use std::path::Path;
use std::process::Command;

use crate::objects_history::{listed, row};
use common::{assetvc_expect, run};
use serde_json::Value;

const LAMP: &str = "1a3b0000-1111-2222-3333-444455556666";

/// A history in a temporary repository, each commit by a named author at a fixed time.
struct History {
    dir: tempfile::TempDir,
    t: u32,
}

impl History {
    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Runs git as `author` at the next fixed time; its trimmed stdout.
    fn git(&mut self, author: &str, args: &[&str]) -> String {
        self.t += 1;
        let date = format!("2026-01-01T00:{:02}:{:02}Z", self.t / 60, self.t % 60);
        let out = run(Command::new("git")
            .args(args)
            .current_dir(self.path())
            .env("GIT_AUTHOR_NAME", author)
            .env("GIT_AUTHOR_EMAIL", format!("{author}@example.com"))
            .env("GIT_COMMITTER_NAME", author)
            .env("GIT_COMMITTER_EMAIL", "ci@example.com")
            .env("GIT_AUTHOR_DATE", &date)
            .env("GIT_COMMITTER_DATE", &date)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", self.path())
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE"));
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// Writes the level with these light values and commits it as `author`.
    fn commit(&mut self, author: &str, light: &Light, message: &str) -> String {
        std::fs::write(self.path().join("room.level"), light.level()).unwrap();
        self.git(author, &["add", "-A"]);
        self.git(author, &["commit", "-q", "-m", message]);
        self.git(author, &["rev-parse", "HEAD"])
    }

    fn assetvc(&self, args: &[&str], code: i32) -> (String, String) {
        assetvc_expect(self.path(), self.path(), args, code)
    }

    fn json(&self, args: &[&str]) -> Value {
        let (out, _) = self.assetvc(args, 0);
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
    }
}

/// The lamp's values. The leaves are lines apart, so that git merges edits of two of
/// them made on two branches as text.
#[derive(Clone)]
struct Light {
    color: &'static str,
    intensity: &'static str,
    pos: &'static str,
}

impl Light {
    fn level(&self) -> String {
        format!(
            "entities = [\n\t{{\n\t\tid = \"{LAMP}\"\n\t\tname = \"lamp\"\n\t\tlight = {{\n\
             \t\t\tcolor = [{}]\n\t\t\tcone = 30\n\t\t\tfalloff = 2\n\t\t\trange = 10\n\
             \t\t\tintensity = {}\n\t\t}}\n\t\tpos = [{}]\n\t}}\n]\n",
            self.color, self.intensity, self.pos
        )
    }
}

/// The commits of the story, by what they did.
struct Story {
    repo: History,
    create: String,
    color: String,
    intensity: String,
    feature_color: String,
    main_intensity: String,
    merge: String,
    pos: String,
}

fn story() -> Story {
    let mut repo = History {
        dir: tempfile::tempdir().unwrap(),
        t: 0,
    };
    repo.git("Alice", &["init", "-q", "-b", "main"]);
    let mut light = Light {
        color: "1 1 1",
        intensity: "1",
        pos: "0 0 0",
    };
    let create = repo.commit("Alice", &light, "add the lamp");
    light.color = "1 0.5 0";
    let color = repo.commit("Bob", &light, "warmer lamp");
    light.intensity = "3";
    let intensity = repo.commit("Carol", &light, "brighter lamp");
    repo.git("Eve", &["checkout", "-q", "-b", "feature"]);
    let mut feature = light.clone();
    feature.color = "0 0 1";
    let feature_color = repo.commit("Eve", &feature, "blue lamp");
    repo.git("Carol", &["checkout", "-q", "main"]);
    light.intensity = "5";
    let main_intensity = repo.commit("Carol", &light, "even brighter");
    repo.git("Alice", &["merge", "-q", "--no-edit", "feature"]);
    let merge = repo.git("Alice", &["rev-parse", "HEAD"]);
    let merged = std::fs::read_to_string(repo.path().join("room.level")).unwrap();
    assert!(
        merged.contains("color = [0 0 1]") && merged.contains("intensity = 5"),
        "{merged}"
    );
    light.color = "0 0 1";
    light.pos = "4 0 0";
    let pos = repo.commit("Dave", &light, "move the lamp");
    Story {
        repo,
        create,
        color,
        intensity,
        feature_color,
        main_intensity,
        merge,
        pos,
    }
}

#[test]
fn log_of_a_leaf_lists_only_the_commits_that_changed_it() {
    let s = story();
    let color = s.repo.json(&["log", "lamp", "light.color", "--json"]);
    assert_eq!(color["property"], "light.color");
    assert_eq!(
        listed(&color),
        [
            row(&s.merge, "changed", "Alice", &["light.color"]),
            row(&s.feature_color, "changed", "Eve", &["light.color"]),
            row(&s.color, "changed", "Bob", &["light.color"]),
            row(&s.create, "created", "Alice", &[]),
        ]
    );
    // The same leaf as a JSON Pointer below the object, with the object as FILE#ID.
    let spec = format!("room.level#{}", &LAMP[..8]);
    let intensity = s.repo.json(&["log", &spec, "/light/intensity", "--json"]);
    assert_eq!(
        listed(&intensity),
        [
            row(&s.main_intensity, "changed", "Carol", &["light.intensity"]),
            row(&s.intensity, "changed", "Carol", &["light.intensity"]),
            row(&s.create, "created", "Alice", &[]),
        ]
    );
    // The nested object as a whole: every change of one of its leaves, not the move.
    let whole = s.repo.json(&["log", "lamp", "light", "--json"]);
    let commits: Vec<String> = listed(&whole).into_iter().map(|r| r.0).collect();
    let commits: Vec<&String> = commits.iter().collect();
    assert_eq!(
        commits,
        [
            &s.merge,
            &s.main_intensity,
            &s.feature_color,
            &s.intensity,
            &s.color,
            &s.create
        ]
    );
    // The whole object's log names the leaves each commit changed.
    let all = s.repo.json(&["log", "lamp", "--json"]);
    assert_eq!(listed(&all)[0], row(&s.pos, "changed", "Dave", &["pos"]));
    assert_eq!(
        listed(&all)[2],
        row(&s.main_intensity, "changed", "Carol", &["light.intensity"])
    );

    // Text: the heading names the object and the leaf; -n counts the leaf's commits.
    let (text, _) = s
        .repo
        .assetvc(&["log", "lamp", "light.intensity", "-n", "1"], 0);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0], "lamp #1a3b0000 light.intensity in room.level",
        "{text}"
    );
    assert_eq!(lines.len(), 2, "{text}");
    assert!(
        lines[1].starts_with(&s.main_intensity[..7])
            && lines[1].ends_with("Carol changed light.intensity  even brighter"),
        "{text}"
    );
}

#[test]
fn log_of_a_property_the_object_lacks_says_so_and_lists_nothing() {
    let s = story();
    let (out, err) = s.repo.assetvc(&["log", "lamp", "light.colour"], 0);
    assert_eq!(out, "lamp #1a3b0000 light.colour in room.level\n");
    assert!(
        err.contains("lamp #1a3b0000 has no property light.colour now")
            && err.contains("light.color"),
        "{err}"
    );
}

#[test]
fn blame_names_the_author_of_each_leaf() {
    let s = story();
    let blame = s.repo.json(&["blame", "room.level", "--json"]);
    let lamp = blame["objects"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["id"] == LAMP)
        .unwrap_or_else(|| panic!("no lamp in {blame}"));
    let who: Vec<(String, String, String)> = lamp["properties"]
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
        .collect();
    let t = |p: &str, a: &str, c: &str| (p.to_string(), a.to_string(), c.to_string());
    assert_eq!(
        who,
        [
            t("id", "Alice", &s.create),
            t("name", "Alice", &s.create),
            t("light.color", "Eve", &s.feature_color),
            t("light.cone", "Alice", &s.create),
            t("light.falloff", "Alice", &s.create),
            t("light.range", "Alice", &s.create),
            t("light.intensity", "Carol", &s.main_intensity),
            t("pos", "Dave", &s.pos),
        ]
    );

    // Before the merge, on main, the colour is Bob's.
    let before = s
        .repo
        .json(&["blame", "room.level", "--rev", &s.main_intensity, "--json"]);
    let color = &before["objects"][0]["properties"][2];
    assert_eq!(color["property"], "light.color");
    assert_eq!(color["author"], "Bob");

    let (text, _) = s.repo.assetvc(&["blame", "room.level"], 0);
    assert!(text.starts_with("lamp #1a3b0000  /entities/[id="), "{text}");
    assert!(
        text.contains(&format!(
            "    light.intensity  {} 2026-01-01 Carol  even brighter",
            &s.main_intensity[..7]
        )),
        "{text}"
    );
}
