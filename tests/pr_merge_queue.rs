//! End to end: `assetvc pr check | update | land` against a local bare repository playing
//! the host (which runs no merge driver), from CI clones that were never set up with
//! `assetvc install`: a pull request that conflicts as text but merges by structure lands;
//! two landing at once both land; a broken level is refused with the reason; a lost race
//! is merged again; `pr update` makes the host's plain merge conflict-free.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{data, isolated, run};
use sjson::Dialect;

pub(crate) const BASE: &str = "entities = [
	{
		id = \"e1\"
		position = [0 0 0]
	}
]
settings = {
	fog = 0.1
}
";

/// BASE with entity `id` appended at the end of the array (where every such addition
/// conflicts as text with another).
pub(crate) fn with_entities(ids: &[&str]) -> String {
    let mut added = String::new();
    for id in ids {
        added.push_str(&format!(
            "\t{{\n\t\tid = \"{id}\"\n\t\tposition = [1 1 1]\n\t}}\n"
        ));
    }
    BASE.replace("]\nsettings", &format!("{added}]\nsettings"))
}

pub(crate) fn text(out: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

pub(crate) fn git_out(dir: &Path, home: &Path, args: &[&str]) -> Output {
    run(isolated(Command::new("git").args(args), dir, home))
}

pub(crate) fn git(dir: &Path, home: &Path, args: &[&str]) -> String {
    let out = git_out(dir, home, args);
    assert!(out.status.success(), "git {args:?}: {}", text(&out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub(crate) fn assetvc(dir: &Path, home: &Path, args: &[&str]) -> Output {
    run(isolated(common::assetvc().args(args), dir, home))
}

/// The host: a bare repository whose `main` holds `level.sjson` (BASE).
pub(crate) struct Host {
    pub(crate) home: PathBuf,
    pub(crate) bare: PathBuf,
}

impl Host {
    pub(crate) fn new(home: &Path) -> Host {
        let bare = home.join("host.git");
        git(
            home,
            home,
            &["init", "-q", "--bare", "-b", "main", "host.git"],
        );
        let host = Host {
            home: home.to_path_buf(),
            bare,
        };
        let seed = host.clone_as("seed");
        std::fs::write(seed.join("level.sjson"), BASE).unwrap();
        git(&seed, home, &["add", "."]);
        git(&seed, home, &["commit", "-q", "-m", "base"]);
        git(&seed, home, &["push", "-q", "origin", "main"]);
        host
    }

    pub(crate) fn clone_as(&self, name: &str) -> PathBuf {
        let url = self.bare.to_str().unwrap();
        git(&self.home, &self.home, &["clone", "-q", url, name]);
        self.home.join(name)
    }

    /// Pushes a branch `name` from main (as fetched by a new clone) whose level is `level`.
    pub(crate) fn push_branch(&self, name: &str, level: &str) {
        let dir = self.clone_as(&format!("dev-{name}"));
        git(&dir, &self.home, &["checkout", "-q", "-b", name]);
        std::fs::write(dir.join("level.sjson"), level).unwrap();
        git(
            &dir,
            &self.home,
            &["commit", "-q", "-a", "--no-verify", "-m", name],
        );
        git(&dir, &self.home, &["push", "-q", "origin", name]);
    }

    /// A new clone `name` of the host with one commit `message` on its `main` writing
    /// `files` (path, text); not pushed.
    pub(crate) fn commit_on_main(
        &self,
        name: &str,
        files: &[(&str, &str)],
        message: &str,
    ) -> PathBuf {
        let dir = self.clone_as(name);
        for (path, text) in files {
            std::fs::write(dir.join(path), text).unwrap();
        }
        git(&dir, &self.home, &["add", "."]);
        git(&dir, &self.home, &["commit", "-q", "-m", message]);
        dir
    }

    /// The host's commit of `rev`.
    pub(crate) fn rev(&self, rev: &str) -> String {
        git(&self.bare, &self.home, &["rev-parse", rev])
            .trim()
            .to_string()
    }

    /// The entity ids of the level on the host's `main`.
    pub(crate) fn ids_on_main(&self) -> Vec<String> {
        let level = git(&self.bare, &self.home, &["show", "main:level.sjson"]);
        let value = data(&level, Dialect::Sjson);
        value["entities"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["id"].as_str().unwrap().to_string())
            .collect()
    }

    pub(crate) fn is_ancestor_of_main(&self, rev: &str) -> bool {
        git_out(
            &self.bare,
            &self.home,
            &["merge-base", "--is-ancestor", rev, "main"],
        )
        .status
        .success()
    }
}

/// Main gains e4 while the pull request `feature` adds e3 at the same place.
fn text_conflicting_pull_request(host: &Host) {
    host.push_branch("feature", &with_entities(&["e3"]));
    let e4 = with_entities(&["e4"]);
    let upstream = host.commit_on_main("upstream", &[("level.sjson", &e4)], "e4");
    git(&upstream, &host.home, &["push", "-q", "origin", "main"]);
    // git's own merge (the host's merge button) conflicts.
    let merge_tree = git_out(
        &host.bare,
        &host.home,
        &["merge-tree", "--write-tree", "main", "feature"],
    );
    assert_eq!(merge_tree.status.code(), Some(1), "{}", text(&merge_tree));
}

#[test]
fn a_pull_request_that_conflicts_as_text_is_checked_clean_and_lands() {
    let tmp = tempfile::tempdir().unwrap();
    let host = Host::new(tmp.path());
    text_conflicting_pull_request(&host);
    let ci = host.clone_as("ci");
    let out = assetvc(
        &ci,
        tmp.path(),
        &[
            "pr",
            "check",
            "origin/main",
            "origin/feature",
            "--json",
            "--html",
            "page.html",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["status"], "clean");
    assert!(ci.join("page.html").is_file());

    let feature = host.rev("feature");
    let out = assetvc(
        &ci,
        tmp.path(),
        &["pr", "land", "feature", "--into", "main"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(host.ids_on_main(), ["e1", "e4", "e3"]);
    assert_eq!(host.rev("main^2"), feature);
    let message = git(
        &host.bare,
        tmp.path(),
        &["log", "-1", "--format=%s", "main"],
    );
    assert_eq!(message.trim(), "Merge branch 'feature' into main");
}

#[test]
fn a_conflict_decided_by_policy_is_listed_and_named() {
    let tmp = tempfile::tempdir().unwrap();
    let host = Host::new(tmp.path());
    host.push_branch("fog", &BASE.replace("fog = 0.1", "fog = 0.5"));
    let upstream = host.clone_as("upstream");
    std::fs::write(
        upstream.join("level.sjson"),
        BASE.replace("fog = 0.1", "fog = 0.9"),
    )
    .unwrap();
    git(
        &upstream,
        tmp.path(),
        &["commit", "-q", "-a", "-m", "fog upstream"],
    );
    git(&upstream, tmp.path(), &["push", "-q", "origin", "main"]);
    let ci = host.clone_as("ci");
    let out = assetvc(
        &ci,
        tmp.path(),
        &["pr", "check", "origin/main", "origin/fog", "--json"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let decided = json["decided"].as_array().unwrap();
    assert_eq!(decided.len(), 1, "{json}");
    assert!(
        decided[0].as_str().unwrap().contains("settings.fog"),
        "{json}"
    );
    let out = assetvc(&ci, tmp.path(), &["pr", "land", "fog", "--into", "main"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let message = git(
        &host.bare,
        tmp.path(),
        &["log", "-1", "--format=%B", "main"],
    );
    assert!(message.contains("settings.fog"), "{message}");
}

#[test]
fn two_pull_requests_landing_at_once_both_land() {
    let tmp = tempfile::tempdir().unwrap();
    let host = Host::new(tmp.path());
    host.push_branch("one", &with_entities(&["e3"]));
    host.push_branch("two", &with_entities(&["e4"]));
    let (ci1, ci2) = (host.clone_as("ci1"), host.clone_as("ci2"));
    let start = |dir: &Path, branch: &str| {
        isolated(
            common::assetvc().args(["pr", "land", branch, "--into", "main", "--tries", "20"]),
            dir,
            tmp.path(),
        )
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
    };
    let (a, b) = (start(&ci1, "one"), start(&ci2, "two"));
    for child in [a, b] {
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    }
    let mut ids = host.ids_on_main();
    ids.sort();
    assert_eq!(ids, ["e1", "e3", "e4"]);
    assert!(host.is_ancestor_of_main("one") && host.is_ancestor_of_main("two"));
}

#[test]
fn a_pull_request_that_breaks_a_level_is_refused_with_the_reason() {
    let tmp = tempfile::tempdir().unwrap();
    let host = Host::new(tmp.path());
    host.push_branch("broken", "entities = [\n\t{\n");
    let main = host.rev("main");
    let ci = host.clone_as("ci");
    let out = assetvc(
        &ci,
        tmp.path(),
        &["pr", "check", "origin/main", "origin/broken"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let out = assetvc(&ci, tmp.path(), &["pr", "land", "broken", "--into", "main"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("level.sjson"), "{stderr}");
    assert!(
        stderr.contains("does not parse") || stderr.contains("expected"),
        "{stderr}"
    );
    assert!(stderr.contains("not landed"), "{stderr}");
    assert_eq!(host.rev("main"), main);
}

#[test]
fn a_lost_race_is_merged_again_from_the_new_base() {
    let tmp = tempfile::tempdir().unwrap();
    let host = Host::new(tmp.path());
    host.push_branch("feature", &with_entities(&["e3"]));
    // Another merge reaches main while the queue step pushes: the CI clone's pre-push hook
    // (run once) pushes e4 from another clone first.
    let e4 = with_entities(&["e4"]);
    let racer = host.commit_on_main("racer", &[("level.sjson", &e4)], "e4 (racer)");
    let ci = host.clone_as("ci");
    let hook = ci.join(".git/hooks/pre-push");
    let marker = tmp.path().join("raced");
    std::fs::write(
        &hook,
        format!(
            "#!/bin/sh\nif [ ! -e '{m}' ]; then\n  touch '{m}'\n  unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE\n  cd '{r}' && git push -q origin main\nfi\nexit 0\n",
            m = marker.display(),
            r = racer.display()
        ),
    )
    .unwrap();
    common::make_executable(&hook);
    let out = assetvc(
        &ci,
        tmp.path(),
        &["pr", "land", "feature", "--into", "main"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(marker.exists());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("try 1/"),
        "{}",
        text(&out)
    );
    let mut ids = host.ids_on_main();
    ids.sort();
    assert_eq!(ids, ["e1", "e3", "e4"]);
    assert!(host.is_ancestor_of_main("feature"));
}

#[test]
fn pr_update_makes_the_hosts_plain_merge_conflict_free() {
    let tmp = tempfile::tempdir().unwrap();
    let host = Host::new(tmp.path());
    text_conflicting_pull_request(&host);
    let ci = host.clone_as("ci");
    let out = assetvc(
        &ci,
        tmp.path(),
        &["pr", "update", "feature", "--base", "main"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    // The host's merge: plain git, no driver, no strategy.
    let merge_tree = git_out(
        &host.bare,
        tmp.path(),
        &["merge-tree", "--write-tree", "main", "feature"],
    );
    assert_eq!(merge_tree.status.code(), Some(0), "{}", text(&merge_tree));
    assert!(host.is_ancestor_of_main("main"));
    let fresh = host.clone_as("fresh");
    git(
        &fresh,
        tmp.path(),
        &["merge", "-q", "--no-ff", "--no-edit", "origin/feature"],
    );
    let value = data(
        &std::fs::read_to_string(fresh.join("level.sjson")).unwrap(),
        Dialect::Sjson,
    );
    assert_eq!(value["entities"].as_array().unwrap().len(), 3);
    // Again: already up to date, nothing pushed.
    let feature = host.rev("feature");
    let out = assetvc(
        &ci,
        tmp.path(),
        &["pr", "update", "feature", "--base", "main"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(host.rev("feature"), feature);
}

#[test]
fn a_pull_request_that_deletes_a_unit_a_level_still_places_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let host = Host::new(tmp.path());
    let config = "[references]\nresources = { type = \"unit\" }\n";
    let placed = "units = [\n\t{\n\t\tid = \"e1\"\n\t\ttype = \"units/crate\"\n\t}\n]\n";
    let setup = host.clone_as("setup");
    std::fs::write(setup.join("assetvc.toml"), config).unwrap();
    std::fs::create_dir(setup.join("units")).unwrap();
    std::fs::write(setup.join("units/crate.unit"), "renderable = true\n").unwrap();
    git(&setup, tmp.path(), &["add", "."]);
    git(&setup, tmp.path(), &["commit", "-q", "-m", "units"]);
    git(&setup, tmp.path(), &["push", "-q", "origin", "main"]);
    // The pull request deletes the crate unit; meanwhile main places a crate.
    git(&setup, tmp.path(), &["checkout", "-q", "-b", "cleanup"]);
    git(&setup, tmp.path(), &["rm", "-q", "units/crate.unit"]);
    git(
        &setup,
        tmp.path(),
        &["commit", "-q", "-m", "no more crates"],
    );
    git(&setup, tmp.path(), &["push", "-q", "origin", "cleanup"]);
    git(&setup, tmp.path(), &["checkout", "-q", "main"]);
    std::fs::write(setup.join("crates.level"), placed).unwrap();
    git(&setup, tmp.path(), &["add", "crates.level"]);
    git(&setup, tmp.path(), &["commit", "-q", "-m", "a crate"]);
    git(&setup, tmp.path(), &["push", "-q", "origin", "main"]);
    let main = host.rev("main");
    let ci = host.clone_as("ci");
    let out = assetvc(
        &ci,
        tmp.path(),
        &["pr", "land", "cleanup", "--into", "main"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("crates.level") && stderr.contains("units/crate.unit"),
        "{stderr}"
    );
    assert_eq!(host.rev("main"), main);
}
