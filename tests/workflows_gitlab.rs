//! End to end: `docs/ci/gitlab-ci.yml` run on this machine as a GitLab runner would run
//! it (see `workflow_support::gitlab`). Local bare repositories play gitlab.example.com:
//! `acme/game` (project 1, the target) and `someone/game` (project 2, a fork), the fork's
//! branch exposed in the target as `refs/merge-requests/1/head` as GitLab does; GitLab's
//! API answers from the merge request's data. Every job is offered every pipeline, so a
//! job that would be created when it should not fails the test too.

use std::collections::BTreeMap;

use serde_json::json;

use crate::pr_merge_queue::with_entities;
use crate::workflow_support::forge::{only, Forge};
use crate::workflow_support::gitlab::{self, pipeline, run_job};
use crate::workflow_support::JobRun;

const JOB_TOKEN: &str = "glcbt-job";
const PUSH_TOKEN: &str = "glpat-push";
/// A self-managed instance on a port of its own: a URL without it reaches nothing.
const SERVER: &str = "gitlab.example.com";
const PORT: &str = "8443";

/// gitlab.example.com for one merge request (!1, from the fork's `branch` into `main`,
/// exposed as `refs/merge-requests/1/head`): see [`Forge`].
struct Lab(Forge);

impl std::ops::Deref for Lab {
    type Target = Forge;

    fn deref(&self) -> &Forge {
        &self.0
    }
}

impl Lab {
    /// A merge request from the fork's `branch` holding `level`.
    fn new(branch: &str, level: &str) -> Option<Lab> {
        Lab::make(branch, level, true)
    }

    /// A merge request from `branch` of the target project itself.
    fn in_target(branch: &str, level: &str) -> Option<Lab> {
        Lab::make(branch, level, false)
    }

    fn make(branch: &str, level: &str, from_fork: bool) -> Option<Lab> {
        let pr_ref = "refs/merge-requests/1/head";
        let lab = Lab(Forge::make(pr_ref, branch, level, from_fork, &[])?);
        for (project, bare) in [("acme/game", &lab.host), ("someone/game", &lab.fork)] {
            for user in [
                format!("gitlab-ci-token:{JOB_TOKEN}"),
                format!("oauth2:{PUSH_TOKEN}"),
            ] {
                let url = format!("https://{user}@{SERVER}:{PORT}/{project}.git");
                lab.sb.serve(&url, bare);
            }
        }
        std::fs::write(lab.sb.api.join("token"), PUSH_TOKEN).unwrap();
        let mr = json!({
            "iid": 1, "project_id": 1, "target_project_id": 1,
            "source_project_id": if from_fork { 2 } else { 1 },
            "target_branch": "main", "source_branch": branch, "sha": lab.head,
            "title": "Add e3 $(touch pwned-by-title)",
        });
        lab.sb.answer("projects/1/merge_requests/1", &mr);
        lab.sb.answer(
            "projects/1",
            &json!({"id": 1, "path_with_namespace": "acme/game"}),
        );
        let fork = json!({"id": 2, "path_with_namespace": "someone/game"});
        lab.sb.answer("projects/2", &fork);
        Some(lab)
    }

    fn server_vars(project: &str, id: &str) -> BTreeMap<String, String> {
        let mut v = BTreeMap::new();
        let url = format!("https://gitlab-ci-token:{JOB_TOKEN}@{SERVER}:{PORT}/{project}.git");
        for (k, x) in [
            ("CI_SERVER_HOST", SERVER.to_string()),
            ("CI_SERVER_PORT", PORT.into()),
            ("CI_SERVER_PROTOCOL", "https".into()),
            ("CI_SERVER_URL", format!("https://{SERVER}:{PORT}")),
            ("CI_API_V4_URL", format!("https://{SERVER}:{PORT}/api/v4")),
            ("CI_JOB_TOKEN", JOB_TOKEN.into()),
            ("CI_PROJECT_PATH", project.into()),
            ("CI_PROJECT_ID", id.into()),
            ("CI_REPOSITORY_URL", url),
        ] {
            v.insert(k.to_string(), x);
        }
        v
    }

    /// The merge request's pipeline: in the fork, at the branch's head.
    fn merge_request_pipeline(&self) -> BTreeMap<String, String> {
        let mut v = Lab::server_vars("someone/game", "2");
        for (k, x) in [
            ("CI_PIPELINE_SOURCE", "merge_request_event"),
            ("CI_COMMIT_SHA", self.head.as_str()),
            ("CI_COMMIT_REF_NAME", self.branch.as_str()),
            ("CI_MERGE_REQUEST_IID", "1"),
            ("CI_MERGE_REQUEST_PROJECT_ID", "1"),
            ("CI_MERGE_REQUEST_PROJECT_PATH", "acme/game"),
            ("CI_MERGE_REQUEST_SOURCE_PROJECT_PATH", "someone/game"),
            ("CI_MERGE_REQUEST_SOURCE_BRANCH_NAME", self.branch.as_str()),
            ("CI_MERGE_REQUEST_TARGET_BRANCH_NAME", "main"),
        ] {
            v.insert(k.to_string(), x.to_string());
        }
        v
    }

    /// A pipeline of the target project on `main` run by hand (`web`), with `extra`.
    fn web_pipeline(&self, extra: &[(&str, &str)]) -> BTreeMap<String, String> {
        let mut v = Lab::server_vars("acme/game", "1");
        let main = self.rev(&self.host, "main");
        for (k, x) in [
            ("CI_PIPELINE_SOURCE", "web"),
            ("CI_COMMIT_SHA", main.as_str()),
            ("CI_COMMIT_BRANCH", "main"),
            ("CI_COMMIT_REF_NAME", "main"),
            ("ASSETVC_PUSH_TOKEN", PUSH_TOKEN),
        ]
        .iter()
        .chain(extra)
        {
            v.insert(k.to_string(), x.to_string());
        }
        v
    }

    /// The pipeline `vars`: every job it creates, by name; those that start by themselves
    /// are run, manual ones only listed (see [`Lab::play`]).
    fn run(&self, vars: &BTreeMap<String, String>) -> Vec<(String, JobRun)> {
        let p = pipeline();
        let names = p
            .as_object()
            .unwrap()
            .keys()
            .filter(|k| k.starts_with("assetvc-"));
        let mut ran = Vec::new();
        for name in names {
            let job = gitlab::resolved(&p, name);
            match gitlab::when(&job, vars).as_deref() {
                None => {}
                Some("manual") => ran.push((
                    name.clone(),
                    JobRun {
                        ran: true,
                        manual: true,
                        ..JobRun::default()
                    },
                )),
                Some(_) => ran.push((name.clone(), run_job(&self.sb, &p, name, vars))),
            }
        }
        ran
    }

    /// A person starts the manual job `name` of the pipeline `vars`.
    fn play(&self, name: &str, vars: &BTreeMap<String, String>) -> JobRun {
        let run = run_job(&self.sb, &pipeline(), name, vars);
        assert!(
            run.ran && run.manual,
            "{name} is not a manual job of this pipeline"
        );
        run
    }
}

#[test]
fn gitlab_check_passes_a_text_conflicting_merge_request_and_keeps_the_review_page() {
    let Some(lab) = Lab::new("feature", &with_entities(&["e3"])) else {
        return;
    };
    let check = only(lab.run(&lab.merge_request_pipeline()), "assetvc-check");
    assert_eq!(check.failed(), None, "{}", check.log());
    let page = lab.sb.artifacts.join("assetvc-check/assetvc-review.html");
    let html = std::fs::read_to_string(&page).unwrap_or_else(|e| panic!("{e}\n{}", check.log()));
    assert!(html.contains("level.sjson"), "{html}");
}

#[test]
fn gitlab_check_fails_with_status_1_on_a_merge_request_that_breaks_a_level() {
    let Some(lab) = Lab::new("broken", "entities = [\n\t{\n") else {
        return;
    };
    let check = only(lab.run(&lab.merge_request_pipeline()), "assetvc-check");
    assert_eq!(check.failed(), Some(1), "{}", check.log());
    assert!(check.log().contains("level.sjson"), "{}", check.log());
    let page = lab.sb.artifacts.join("assetvc-check/assetvc-review.html");
    assert!(page.is_file(), "artifacts: when: always\n{}", check.log());
}

#[test]
fn gitlab_update_pushes_the_merge_to_the_forks_branch() {
    let Some(lab) = Lab::new("feature", &with_entities(&["e3"])) else {
        return;
    };
    let main = lab.rev(&lab.host, "main");
    // Without ASSETVC_MR, a pipeline of the target project starts no assetvc job.
    assert!(lab.run(&lab.web_pipeline(&[])).is_empty());
    let vars = lab.web_pipeline(&[("ASSETVC_MR", "1")]);
    let fork_refs = lab.refs(&lab.fork);
    // With it, both pushing jobs wait for a person: neither starts by itself.
    let created = lab.run(&vars);
    let names: Vec<(&str, bool)> = created
        .iter()
        .map(|(n, r)| (n.as_str(), r.manual))
        .collect();
    assert_eq!(names, [("assetvc-land", true), ("assetvc-update", true)]);
    assert_eq!(lab.refs(&lab.fork), fork_refs);
    assert_eq!(lab.rev(&lab.host, "main"), main);
    let update = lab.play("assetvc-update", &vars);
    assert_eq!(update.failed(), None, "{}", update.log());
    // Checked out: the target's own commit.
    assert_eq!(update.checkout.as_ref().unwrap().1, main);
    assert_eq!(lab.rev(&lab.fork, "feature^1"), lab.head);
    assert_eq!(lab.rev(&lab.fork, "feature^2"), main);
    let calls = lab.sb.api_calls();
    assert!(calls.contains("/projects/1/merge_requests/1"), "{calls}");
}

#[test]
fn gitlab_update_of_a_branch_of_the_target_pushes_it_there() {
    let Some(lab) = Lab::in_target("feature", &with_entities(&["e3"])) else {
        return;
    };
    let main = lab.rev(&lab.host, "main");
    let update = lab.play("assetvc-update", &lab.web_pipeline(&[("ASSETVC_MR", "1")]));
    assert_eq!(update.failed(), None, "{}", update.log());
    assert_eq!(lab.rev(&lab.host, "feature^1"), lab.head);
    assert_eq!(lab.rev(&lab.host, "feature^2"), main);
    assert_eq!(lab.rev(&lab.host, "main"), main);
}

#[test]
fn gitlab_land_pushes_the_target_only() {
    let Some(lab) = Lab::new("feature", &with_entities(&["e3"])) else {
        return;
    };
    let main = lab.rev(&lab.host, "main");
    let fork_refs = lab.refs(&lab.fork);
    let land = lab.play("assetvc-land", &lab.web_pipeline(&[("ASSETVC_MR", "1")]));
    assert_eq!(land.failed(), None, "{}", land.log());
    assert_eq!(land.checkout.as_ref().unwrap().1, main);
    assert_eq!(lab.rev(&lab.host, "main^1"), main);
    assert_eq!(lab.rev(&lab.host, "main^2"), lab.head);
    assert_eq!(lab.refs(&lab.fork), fork_refs);
}

#[test]
fn gitlab_a_branch_name_made_to_inject_a_command_never_runs_it() {
    let branch = "x;touch${IFS}pwned";
    let Some(lab) = Lab::new(branch, &with_entities(&["e3"])) else {
        return;
    };
    let check = only(lab.run(&lab.merge_request_pipeline()), "assetvc-check");
    assert_eq!(check.failed(), None, "{}", check.log());
    let vars = lab.web_pipeline(&[("ASSETVC_MR", "1")]);
    let update = lab.play("assetvc-update", &vars);
    assert_eq!(update.failed(), None, "{}", update.log());
    lab.expose();
    let land = lab.play("assetvc-land", &lab.web_pipeline(&[("ASSETVC_MR", "1")]));
    assert_eq!(land.failed(), None, "{}", land.log());
    let branch_head = lab.rev(&lab.fork, &format!("refs/heads/{branch}"));
    assert_eq!(lab.rev(&lab.host, "main^2"), branch_head);
    let traces = lab.sb.files_named("pwned");
    assert!(traces.is_empty(), "a command ran: {traces:?}");
}
