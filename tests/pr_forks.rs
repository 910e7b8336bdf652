//! End to end: pull requests from a fork. Two local bare repositories play the host: the
//! base repository and a fork of it. The host exposes the fork's branch in the base
//! repository as `refs/pull/1/head`, as GitHub does (GitLab: `refs/merge-requests/1/head`);
//! the CI clone of the base never has the fork's branch among its remote-tracking
//! branches. `pr check` merges the fetched head, `pr land --head refs/pull/1/head` lands a
//! text-conflicting pull request and pushes only the base, and `pr update --push-to FORK`
//! pushes the merge to the fork so that the host's plain merge is conflict-free.

use std::path::{Path, PathBuf};

use crate::pr_merge_queue::{assetvc, git, git_out, text, with_entities, Host};

/// The fork: a bare clone of the host, its `feature` (entity e3 added) pushed by its
/// owner, exposed in the base repository as `refs/pull/1/head`; meanwhile the base's
/// `main` gains e4 at the same place, so git's own merge conflicts.
struct Fork {
    bare: PathBuf,
}

impl Fork {
    fn new(host: &Host) -> Fork {
        let home = &host.home;
        let url = host.bare.to_str().unwrap();
        git(home, home, &["clone", "-q", "--bare", url, "fork.git"]);
        let bare = home.join("fork.git");
        let dev = home.join("fork-dev");
        git(
            home,
            home,
            &["clone", "-q", bare.to_str().unwrap(), "fork-dev"],
        );
        git(&dev, home, &["checkout", "-q", "-b", "feature"]);
        std::fs::write(dev.join("level.sjson"), with_entities(&["e3"])).unwrap();
        git(
            &dev,
            home,
            &["commit", "-q", "-a", "-m", "e3 from the fork"],
        );
        git(&dev, home, &["push", "-q", "origin", "feature"]);
        let fork = Fork { bare };
        fork.expose(host);
        let upstream = host.clone_as("upstream");
        std::fs::write(upstream.join("level.sjson"), with_entities(&["e4"])).unwrap();
        git(&upstream, home, &["commit", "-q", "-a", "-m", "e4"]);
        git(&upstream, home, &["push", "-q", "origin", "main"]);
        let merge_tree = git_out(
            &host.bare,
            home,
            &["merge-tree", "--write-tree", "main", "refs/pull/1/head"],
        );
        assert_eq!(merge_tree.status.code(), Some(1), "{}", text(&merge_tree));
        fork
    }

    /// What the host does on every push to the pull request: the fork's branch becomes
    /// `refs/pull/1/head` in the base repository.
    fn expose(&self, host: &Host) {
        git(
            &host.bare,
            &host.home,
            &[
                "fetch",
                "-q",
                self.bare.to_str().unwrap(),
                "+refs/heads/feature:refs/pull/1/head",
            ],
        );
    }

    fn rev(&self, home: &Path, rev: &str) -> String {
        git(&self.bare, home, &["rev-parse", rev])
            .trim()
            .to_string()
    }
}

#[test]
fn a_forks_text_conflicting_pull_request_is_checked_and_lands_from_its_pull_ref() {
    let tmp = tempfile::tempdir().unwrap();
    let host = Host::new(tmp.path());
    let fork = Fork::new(&host);
    let head = fork.rev(tmp.path(), "feature");
    let ci = host.clone_as("ci");
    // check: any fetched commit (CI fetches the pull request's ref).
    git(
        &ci,
        tmp.path(),
        &["fetch", "-q", "origin", "refs/pull/1/head"],
    );
    let out = assetvc(
        &ci,
        tmp.path(),
        &["pr", "check", "origin/main", "FETCH_HEAD", "--json"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["status"], "clean", "{json}");
    assert_eq!(json["head"], head.as_str());

    let out = assetvc(
        &ci,
        tmp.path(),
        &[
            "pr",
            "land",
            "feature",
            "--into",
            "main",
            "--head",
            "refs/pull/1/head",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(host.ids_on_main(), ["e1", "e4", "e3"]);
    assert_eq!(host.rev("main^2"), head);
    // Only the base was pushed: the fork is untouched and the host has no `feature`.
    assert_eq!(fork.rev(tmp.path(), "feature"), head);
    let branches = git(&host.bare, tmp.path(), &["branch", "--list"]);
    assert_eq!(branches.trim(), "* main", "{branches}");
    let subject = git(
        &host.bare,
        tmp.path(),
        &["log", "-1", "--format=%s", "main"],
    );
    assert_eq!(subject.trim(), "Merge branch 'feature' into main");
}

#[test]
fn a_fork_given_by_url_lands_with_from() {
    let tmp = tempfile::tempdir().unwrap();
    let host = Host::new(tmp.path());
    let fork = Fork::new(&host);
    let head = fork.rev(tmp.path(), "feature");
    let ci = host.clone_as("ci");
    let url = fork.bare.to_str().unwrap();
    let out = assetvc(
        &ci,
        tmp.path(),
        &["pr", "land", "feature", "--into", "main", "--from", url],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(host.is_ancestor_of_main(&head));
    assert_eq!(host.ids_on_main(), ["e1", "e4", "e3"]);
}

#[test]
fn pr_update_push_to_the_fork_makes_the_hosts_plain_merge_conflict_free() {
    let tmp = tempfile::tempdir().unwrap();
    let host = Host::new(tmp.path());
    let fork = Fork::new(&host);
    let before = fork.rev(tmp.path(), "feature");
    let main = host.rev("main");
    let ci = host.clone_as("ci");
    git(
        &ci,
        tmp.path(),
        &["remote", "add", "fork", fork.bare.to_str().unwrap()],
    );
    let out = assetvc(
        &ci,
        tmp.path(),
        &[
            "pr",
            "update",
            "feature",
            "--base",
            "main",
            "--push-to",
            "fork",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    // The fork's branch moved to a merge of main; the base did not move.
    let after = fork.rev(tmp.path(), "feature");
    assert_ne!(after, before);
    assert_eq!(fork.rev(tmp.path(), "feature^1"), before);
    assert_eq!(fork.rev(tmp.path(), "feature^2"), main);
    assert_eq!(host.rev("main"), main);
    // The host's merge of the updated pull request: plain git, no driver, no strategy.
    fork.expose(&host);
    let merge_tree = git_out(
        &host.bare,
        tmp.path(),
        &["merge-tree", "--write-tree", "main", "refs/pull/1/head"],
    );
    assert_eq!(merge_tree.status.code(), Some(0), "{}", text(&merge_tree));
    let fresh = host.clone_as("fresh");
    git(
        &fresh,
        tmp.path(),
        &["fetch", "-q", "origin", "refs/pull/1/head"],
    );
    git(
        &fresh,
        tmp.path(),
        &["merge", "-q", "--no-ff", "--no-edit", "FETCH_HEAD"],
    );
    let level = std::fs::read_to_string(fresh.join("level.sjson")).unwrap();
    let value = common_data(&level);
    let ids: Vec<&str> = value["entities"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_str().unwrap())
        .collect();
    // The branch's merge keeps its own addition first.
    assert_eq!(ids, ["e1", "e3", "e4"]);
    // Again: already up to date, nothing pushed.
    let out = assetvc(
        &ci,
        tmp.path(),
        &[
            "pr",
            "update",
            "feature",
            "--base",
            "main",
            "--push-to",
            "fork",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(fork.rev(tmp.path(), "feature"), after);
}

#[test]
fn pr_update_pushes_to_the_branchs_upstream_and_refuses_a_moved_fork() {
    let tmp = tempfile::tempdir().unwrap();
    let host = Host::new(tmp.path());
    let fork = Fork::new(&host);
    let ci = host.clone_as("ci");
    let url = fork.bare.to_str().unwrap();
    git(&ci, tmp.path(), &["remote", "add", "fork", url]);
    git(
        &ci,
        tmp.path(),
        &["config", "branch.feature.remote", "fork"],
    );
    // The fork's owner pushes while the update merges: the CI clone's pre-push hook pushes
    // a new commit to the fork's branch first, so the lease must refuse the update.
    let dev = tmp.path().join("fork-dev");
    std::fs::write(dev.join("notes.txt"), "more\n").unwrap();
    git(&dev, tmp.path(), &["add", "notes.txt"]);
    git(&dev, tmp.path(), &["commit", "-q", "-m", "more"]);
    let hook = ci.join(".git/hooks/pre-push");
    std::fs::write(
        &hook,
        format!(
            "#!/bin/sh\nunset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE\ncd '{}' && git push -q origin feature\n",
            dev.display()
        ),
    )
    .unwrap();
    crate::common::make_executable(&hook);
    let out = assetvc(
        &ci,
        tmp.path(),
        &["pr", "update", "feature", "--base", "main"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let moved = git(&dev, tmp.path(), &["rev-parse", "HEAD"]);
    assert_eq!(fork.rev(tmp.path(), "feature"), moved.trim());
    // Without the race, the upstream (the fork) receives the merge.
    std::fs::remove_file(&hook).unwrap();
    let out = assetvc(
        &ci,
        tmp.path(),
        &["pr", "update", "feature", "--base", "main"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(fork.rev(tmp.path(), "feature^1"), moved.trim());
    assert_eq!(fork.rev(tmp.path(), "feature^2"), host.rev("main"));
}

fn common_data(level: &str) -> serde_json::Value {
    crate::common::data(level, sjson::Dialect::Sjson)
}
