//! End to end: `docs/ci/github-actions.yml` run on this machine as GitHub would run it
//! (see `workflow_support::github`). Local bare repositories play github.com: `acme/game`
//! (the base) and `someone/game` (a fork), the fork's branch exposed in the base as
//! `refs/pull/1/head` as GitHub does; `gh` answers from the pull request's data. Every job
//! is offered every event, so a job that starts when it should not fails the test too.

use serde_json::{json, Value};

use crate::pr_merge_queue::{git, with_entities};
use crate::workflow_support::forge::{only, Forge};
use crate::workflow_support::github::{run_job, workflow, Event, REPOSITORY};
use crate::workflow_support::JobRun;

/// The secret the update job pushes to a fork with.
const FORK_TOKEN: &str = "ghp_fork_token";

/// github.com for one pull request (#1, from the fork's `branch`, exposed as
/// `refs/pull/1/head`): see [`Forge`].
struct Hub(Forge);

impl std::ops::Deref for Hub {
    type Target = Forge;

    fn deref(&self) -> &Forge {
        &self.0
    }
}

impl Hub {
    /// A pull request from the fork's `branch` holding `level`.
    fn new(branch: &str, level: &str) -> Option<Hub> {
        Hub::make(branch, level, true)
    }

    /// A pull request from `branch` of the base repository itself.
    fn in_base(branch: &str, level: &str) -> Option<Hub> {
        Hub::make(branch, level, false)
    }

    fn make(branch: &str, level: &str, from_fork: bool) -> Option<Hub> {
        // Code that must never run in a job holding the base's token.
        let evil = [("evil.sh", "touch pwned-by-checkout\n")];
        let hub = Hub(Forge::make(
            "refs/pull/1/head",
            branch,
            level,
            from_fork,
            &evil,
        )?);
        // GitHub serves any commit by its id (a checkout of a pull request's does that).
        let allow = ["config", "uploadpack.allowAnySHA1InWant", "true"];
        git(&hub.host, &hub.sb.root, &allow);
        let host_path = hub.host.clone();
        hub.sb.serve("https://github.com/acme/game", &host_path);
        hub.sb.serve("https://github.com/acme/game.git", &host_path);
        let fork_url = format!("https://x-access-token:{FORK_TOKEN}@github.com/someone/game.git");
        hub.sb.serve(&fork_url, &hub.fork.clone());
        std::fs::write(
            hub.sb.api.join("token"),
            crate::workflow_support::github::TOKEN,
        )
        .unwrap();
        hub.sb.answer(
            "repos/acme/game/pulls/1",
            &json!({
                "number": 1,
                "baseRefName": "main",
                "headRefName": branch,
                "headRepository": {"id": "R_kgDOfork", "name": "game"},
                "headRepositoryOwner": {"login": if from_fork { "someone" } else { "acme" }},
                "title": "Add e3",
            }),
        );
        Some(hub)
    }

    /// Every ref of the host and the fork, to see that nothing moved.
    fn all_refs(&self) -> String {
        format!("{}{}", self.refs(&self.host), self.refs(&self.fork))
    }

    /// A `pull_request_target` event: `action`, with the label added for `labeled`.
    fn pull_request_target(&self, action: &str, label: Option<&str>) -> Event {
        let main = self.rev(&self.host, "main");
        let mut payload = json!({
            "action": action,
            "number": 1,
            "pull_request": {
                "number": 1,
                "title": "Add e3 $(touch pwned-by-title)",
                "head": {
                    "ref": self.branch,
                    "sha": self.head,
                    "label": format!("someone:{}", self.branch),
                    "repo": {"full_name": "someone/game", "fork": true},
                },
                "base": {"ref": "main", "sha": main, "repo": {"full_name": REPOSITORY}},
                "user": {"login": "someone"},
            },
            "repository": {"full_name": REPOSITORY, "default_branch": "main"},
            "sender": {"login": "someone"},
        });
        if let Some(name) = label {
            payload["label"] = json!({"name": name});
        }
        self.event("pull_request_target", payload, main)
    }

    /// An `issue_comment` on the pull request by someone of `association`.
    fn comment(&self, body: &str, association: &str) -> Event {
        let main = self.rev(&self.host, "main");
        let payload = json!({
            "action": "created",
            "issue": {
                "number": 1,
                "title": "Add e3",
                "pull_request": {"url": "https://api.github.com/repos/acme/game/pulls/1"},
            },
            "comment": {"body": body, "author_association": association},
            "repository": {"full_name": REPOSITORY, "default_branch": "main"},
            "sender": {"login": "maintainer"},
        });
        self.event("issue_comment", payload, main)
    }

    fn event(&self, name: &'static str, payload: Value, sha: String) -> Event {
        Event {
            name,
            payload,
            git_ref: "refs/heads/main".into(),
            sha,
        }
    }

    /// Offers `event` to every job; returns the runs of those that started, by name.
    fn run(&self, event: &Event) -> Vec<(String, JobRun)> {
        let wf = workflow();
        let secrets = json!({"ASSETVC_FORK_TOKEN": FORK_TOKEN});
        let names: Vec<String> = wf["jobs"].as_object().unwrap().keys().cloned().collect();
        let main = self.rev(&self.host, "main");
        let mut ran = Vec::new();
        for name in names {
            let run = run_job(&self.sb, &wf, &name, event, &secrets);
            if run.ran {
                self.assert_base_checkout(&name, &run, &main);
                ran.push((name, run));
            }
        }
        ran
    }

    /// The job checked out the base's commit, never the pull request's code.
    fn assert_base_checkout(&self, name: &str, run: &JobRun, main: &str) {
        let (wanted, commit) = run.checkout.clone().expect("every job checks out");
        assert_eq!(commit, main, "{name} checked out {wanted}");
        // and no step checked out anything else afterwards.
        let head = self.sb.git(&run.workspace, &["rev-parse", "HEAD"]);
        assert_eq!(head.trim(), main, "{name} moved HEAD");
        assert_ne!(wanted, self.head, "{name}");
        assert!(!wanted.contains("pull"), "{name} checked out {wanted}");
        // The pull request's files are there only once it has landed in the base.
        let landed = crate::pr_merge_queue::git_out(
            &self.host,
            &self.sb.root,
            &["merge-base", "--is-ancestor", &self.head, main],
        );
        let evil = run.workspace.join("evil.sh").exists();
        assert_eq!(evil, landed.status.success(), "{name}");
    }
}

#[test]
fn github_check_passes_a_text_conflicting_pull_request_and_keeps_the_review_page() {
    let Some(hub) = Hub::new("feature", &with_entities(&["e3"])) else {
        return;
    };
    let before = hub.all_refs();
    let check = only(hub.run(&hub.pull_request_target("opened", None)), "check");
    assert_eq!(check.failed(), None, "{}", check.log());
    let page = hub.sb.artifacts.join("assetvc-review/assetvc-review.html");
    let html = std::fs::read_to_string(&page).unwrap_or_else(|e| panic!("{e}\n{}", check.log()));
    assert!(html.contains("level.sjson"), "{html}");
    // A read-only job: nothing moved on the host or the fork.
    assert_eq!(hub.all_refs(), before);
    let synchronize = only(
        hub.run(&hub.pull_request_target("synchronize", None)),
        "check",
    );
    assert_eq!(synchronize.failed(), None, "{}", synchronize.log());
}

#[test]
fn github_check_fails_with_status_1_on_a_pull_request_that_breaks_a_level() {
    let Some(hub) = Hub::new("broken", "entities = [\n\t{\n") else {
        return;
    };
    let check = only(hub.run(&hub.pull_request_target("opened", None)), "check");
    assert_eq!(check.failed(), Some(1), "{}", check.log());
    let failing = check.steps.iter().find(|s| s.code == Some(1)).unwrap();
    assert_eq!(failing.name, "Structured merge and guards");
    assert!(failing.output.contains("level.sjson"), "{}", failing.output);
    // The review page is kept for a failed check too (`if: always()`).
    let page = hub.sb.artifacts.join("assetvc-review/assetvc-review.html");
    assert!(page.is_file(), "{}", check.log());
}

#[test]
fn github_update_on_a_label_pushes_the_merge_to_the_forks_branch() {
    let Some(hub) = Hub::new("feature", &with_entities(&["e3"])) else {
        return;
    };
    let main = hub.rev(&hub.host, "main");
    // A comment by someone outside the repository starts nothing.
    assert!(hub.run(&hub.comment("/assetvc update", "NONE")).is_empty());
    assert!(hub
        .run(&hub.pull_request_target("labeled", Some("bug")))
        .is_empty());
    let update = only(
        hub.run(&hub.pull_request_target("labeled", Some("assetvc-update"))),
        "update",
    );
    assert_eq!(update.failed(), None, "{}", update.log());
    assert_eq!(hub.rev(&hub.fork, "feature^1"), hub.head);
    assert_eq!(hub.rev(&hub.fork, "feature^2"), main);
    assert_eq!(hub.rev(&hub.host, "main"), main);
    let calls = hub.sb.api_calls();
    assert!(calls.contains("--repo acme/game"), "{calls}");
    // The host's plain merge of the updated pull request is now conflict-free.
    hub.expose();
    let out = crate::pr_merge_queue::git_out(
        &hub.host,
        &hub.sb.root,
        &["merge-tree", "--write-tree", "main", "refs/pull/1/head"],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        crate::pr_merge_queue::text(&out)
    );
}

#[test]
fn github_update_of_a_branch_of_the_base_pushes_it_there() {
    let Some(hub) = Hub::in_base("feature", &with_entities(&["e3"])) else {
        return;
    };
    let main = hub.rev(&hub.host, "main");
    let update = only(
        hub.run(&hub.comment("/assetvc update", "COLLABORATOR")),
        "update",
    );
    assert_eq!(update.failed(), None, "{}", update.log());
    assert_eq!(hub.rev(&hub.host, "feature^1"), hub.head);
    assert_eq!(hub.rev(&hub.host, "feature^2"), main);
    assert_eq!(hub.rev(&hub.host, "main"), main);
}

#[test]
fn github_land_on_a_members_comment_pushes_the_base() {
    let Some(hub) = Hub::new("feature", &with_entities(&["e3"])) else {
        return;
    };
    let main = hub.rev(&hub.host, "main");
    assert!(hub
        .run(&hub.comment("/assetvc land", "CONTRIBUTOR"))
        .is_empty());
    let fork_refs = hub.refs(&hub.fork);
    let land = only(hub.run(&hub.comment("/assetvc land", "MEMBER")), "land");
    assert_eq!(land.failed(), None, "{}", land.log());
    assert_eq!(hub.rev(&hub.host, "main^1"), main);
    assert_eq!(hub.rev(&hub.host, "main^2"), hub.head);
    let level = git(&hub.host, &hub.sb.root, &["show", "main:level.sjson"]);
    let ids: Vec<String> = crate::common::data(&level, sjson::Dialect::Sjson)["entities"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids, ["e1", "e4", "e3"]);
    // Only the base was pushed.
    assert_eq!(hub.refs(&hub.fork), fork_refs);
    let host_refs = git(
        &hub.host,
        &hub.sb.root,
        &["for-each-ref", "--format=%(refname)"],
    );
    assert_eq!(host_refs, "refs/heads/main\nrefs/pull/1/head\n");
    let labeled = only(
        hub.run(&hub.pull_request_target("labeled", Some("assetvc-land"))),
        "land",
    );
    assert_eq!(labeled.failed(), None, "already landed: {}", labeled.log());
}

#[test]
fn github_a_branch_name_made_to_inject_a_command_never_runs_it() {
    let branch = "x;touch${IFS}pwned";
    let Some(hub) = Hub::new(branch, &with_entities(&["e3"])) else {
        return;
    };
    let check = only(hub.run(&hub.pull_request_target("opened", None)), "check");
    assert_eq!(check.failed(), None, "{}", check.log());
    let body = "/assetvc update $(touch pwned-by-comment) `touch pwned-by-comment`";
    let update = only(hub.run(&hub.comment(body, "OWNER")), "update");
    assert_eq!(update.failed(), None, "{}", update.log());
    assert_eq!(
        hub.rev(&hub.fork, &format!("refs/heads/{branch}^1")),
        hub.head
    );
    hub.expose();
    let land = only(
        hub.run(&hub.pull_request_target("labeled", Some("assetvc-land"))),
        "land",
    );
    assert_eq!(land.failed(), None, "{}", land.log());
    let landed = hub.rev(&hub.host, "main^2");
    assert_eq!(landed, hub.rev(&hub.fork, &format!("refs/heads/{branch}")));
    let traces = hub.sb.files_named("pwned");
    assert!(traces.is_empty(), "a command ran: {traces:?}");
}

#[test]
fn github_workflow_scripts_never_expand_expressions_and_check_out_only_the_base() {
    let wf = workflow();
    for (name, job) in wf["jobs"].as_object().unwrap() {
        for step in job["steps"].as_array().unwrap() {
            // Data reaches a script only through `env:`, never `${{ }}` in its text.
            let script = step["run"].as_str().unwrap_or("");
            assert!(!script.contains("${{"), "{name}: {script}");
            if step["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("actions/checkout"))
            {
                let r = step["with"]["ref"].as_str().unwrap_or("");
                assert!(
                    r.is_empty() || r.contains(".base.sha"),
                    "{name} checks out {r}"
                );
                // update and land push to origin with the credentials checkout keeps.
                assert_ne!(step["with"]["persist-credentials"], false, "{name}");
            }
        }
    }
    assert_eq!(wf["jobs"]["check"]["permissions"]["contents"], "read");
    assert_eq!(wf["permissions"]["contents"], "read");
}
