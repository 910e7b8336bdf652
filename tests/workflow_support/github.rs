//! A GitHub Actions job of `docs/ci/github-actions.yml` run as the host runs it: the job's
//! `if:` decided from the event, each step's `if:` (default `success()`), `${{ }}`
//! substituted in `with:`, `env:` and `run:`, the default variables (`GITHUB_EVENT_PATH`
//! with the event's JSON, `GITHUB_OUTPUT`, `GITHUB_STEP_SUMMARY`…), and each `run:` as
//! `bash -e FILE` (the runner's default shell) in the workspace. `uses:` steps run as
//! their local equivalent: `actions/checkout` the commands it runs (init, fetch of every
//! branch and tag from `https://github.com/OWNER/REPO`, checkout of the ref: detached
//! for a commit id, `-B` for a branch), `actions/upload-artifact` a copy into the
//! sandbox's artifacts, `actions/cache` nothing. Any other action panics.
//! The token is `github.token` and `secrets.GITHUB_TOKEN`, never a variable: the runner
//! sets no `GITHUB_TOKEN` in a step's environment unless the workflow passes it.

use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use super::expr::{condition, substitute, to_text, Scope};
use super::{bash, load_yaml, upload, JobRun, Sandbox, StepRun};

/// The repository the workflow runs in, as GitHub names it (`acme/game`).
pub const REPOSITORY: &str = "acme/game";
/// The token GitHub gives the job (`github.token`).
pub const TOKEN: &str = "ghs_job_token";

/// An event that starts the workflow.
pub struct Event {
    /// `pull_request_target`, `issue_comment`…
    pub name: &'static str,
    /// The webhook payload (`GITHUB_EVENT_PATH`, `github.event`).
    pub payload: Value,
    /// `GITHUB_REF` (for both events here: the base or default branch).
    pub git_ref: String,
    /// `GITHUB_SHA`: that branch's last commit.
    pub sha: String,
}

/// `docs/ci/github-actions.yml`.
pub fn workflow() -> Value {
    load_yaml("github-actions.yml")
}

/// Runs job `name` of `workflow` for `event`, with `secrets`.
pub fn run_job(
    sandbox: &Sandbox,
    workflow: &Value,
    name: &str,
    event: &Event,
    secrets: &Value,
) -> JobRun {
    let job = &workflow["jobs"][name];
    assert!(job.is_object(), "no job {name}");
    let work = sandbox.job_dir(name);
    let workspace = work.join("game");
    let mut runner = Runner {
        sandbox,
        event,
        contexts: contexts(event, secrets, &workspace),
        env: Map::new(),
        defaults: Vec::new(),
        temp: work.join("runner-temp"),
        work,
        run: JobRun {
            workspace,
            ..JobRun::default()
        },
    };
    let scope = runner.scope(false);
    runner.run.ran = job.get("if").is_none_or(|c| condition(&to_text(c), &scope));
    if !runner.run.ran {
        return runner.run;
    }
    for level in [&workflow["env"], &job["env"]] {
        for (k, v) in level.as_object().into_iter().flatten() {
            let value = substitute(&to_text(v), &runner.scope(false));
            runner.env.insert(k.clone(), Value::String(value));
        }
    }
    runner.defaults = runner.default_variables(name);
    let mut failed = false;
    for (i, step) in job["steps"].as_array().into_iter().flatten().enumerate() {
        let step = runner.step(i, step, failed);
        failed |= step.code.is_some_and(|c| c != 0);
        runner.run.steps.push(step);
    }
    runner.run
}

/// One job's run in progress.
struct Runner<'a> {
    sandbox: &'a Sandbox,
    event: &'a Event,
    /// The expression contexts (`env` updated before each step).
    contexts: Map<String, Value>,
    /// The workflow's and job's `env:`, and what steps wrote to `GITHUB_ENV`.
    env: Map<String, Value>,
    /// The variables the runner sets for every step.
    defaults: Vec<(String, String)>,
    work: PathBuf,
    temp: PathBuf,
    run: JobRun,
}

impl Runner<'_> {
    fn scope(&self, failed: bool) -> Scope<'_> {
        Scope {
            contexts: &self.contexts,
            failed,
        }
    }

    /// The default variables, with the event's JSON and the command files written.
    fn default_variables(&self, job: &str) -> Vec<(String, String)> {
        let (event, temp) = (self.event, &self.temp);
        std::fs::create_dir_all(temp).unwrap();
        let event_path = temp.join("event.json");
        let payload = serde_json::to_string_pretty(&event.payload).unwrap();
        std::fs::write(&event_path, payload).unwrap();
        let mut vars = vec![
            ("CI", "true".to_string()),
            ("GITHUB_ACTIONS", "true".into()),
            ("GITHUB_EVENT_NAME", event.name.into()),
            ("GITHUB_EVENT_PATH", event_path.display().to_string()),
            ("GITHUB_REPOSITORY", REPOSITORY.into()),
            ("GITHUB_REPOSITORY_OWNER", "acme".into()),
            ("GITHUB_REF", event.git_ref.clone()),
            ("GITHUB_SHA", event.sha.clone()),
            ("GITHUB_BASE_REF", base_ref(event)),
            ("GITHUB_HEAD_REF", head_ref(event)),
            ("GITHUB_WORKSPACE", self.run.workspace.display().to_string()),
            ("GITHUB_SERVER_URL", "https://github.com".into()),
            ("GITHUB_API_URL", "https://api.github.com".into()),
            ("GITHUB_JOB", job.into()),
            ("GITHUB_RUN_ID", "4242".into()),
            ("RUNNER_OS", "Linux".into()),
            ("RUNNER_TEMP", temp.display().to_string()),
        ];
        for f in [
            "GITHUB_OUTPUT",
            "GITHUB_STEP_SUMMARY",
            "GITHUB_ENV",
            "GITHUB_PATH",
        ] {
            let path = temp.join(f.to_lowercase());
            std::fs::write(&path, "").unwrap();
            vars.push((f, path.display().to_string()));
        }
        vars.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
    }

    /// Runs step `i` unless its `if:` (default `success()`) says no.
    fn step(&mut self, i: usize, step: &Value, failed: bool) -> StepRun {
        self.contexts
            .insert("env".into(), Value::Object(self.env.clone()));
        let name = step["name"]
            .as_str()
            .or(step["uses"].as_str())
            .unwrap_or("run")
            .to_string();
        let cond = step.get("if").map_or("success()".to_string(), to_text);
        if !condition(&cond, &self.scope(failed)) {
            let output = String::new();
            return StepRun {
                name,
                ran: false,
                code: None,
                output,
            };
        }
        let (code, output) = if let Some(action) = step["uses"].as_str() {
            let scope = Scope {
                contexts: &self.contexts,
                failed,
            };
            let with = |key: &str| {
                step["with"]
                    .get(key)
                    .map(|v| substitute(&to_text(v), &scope))
            };
            uses(self.sandbox, &mut self.run, action, &with, self.event)
        } else {
            self.script(i, step, failed)
        };
        StepRun {
            name,
            ran: true,
            code: Some(code),
            output,
        }
    }

    /// A `run:` step: `bash -e FILE` in the workspace with its variables; what it wrote
    /// to `GITHUB_ENV` is kept for the next steps.
    fn script(&mut self, i: usize, step: &Value, failed: bool) -> (i32, String) {
        let scope = self.scope(failed);
        let mut vars = self.defaults.clone();
        vars.extend(self.env.iter().map(|(k, v)| (k.clone(), to_text(v))));
        for (k, v) in step["env"].as_object().into_iter().flatten() {
            vars.push((k.clone(), substitute(&to_text(v), &scope)));
        }
        let script = substitute(step["run"].as_str().unwrap_or(""), &scope);
        let workspace = &self.run.workspace;
        let dir = if workspace.is_dir() {
            workspace
        } else {
            &self.work
        };
        let file = self.temp.join(format!("step-{i}.sh"));
        let out = bash(self.sandbox, &["-e"], &file, &script, dir, &vars);
        let written = self.temp.join("github_env");
        let from_env = std::fs::read_to_string(&written).unwrap_or_default();
        for line in from_env.lines() {
            let (k, v) = line
                .split_once('=')
                .unwrap_or_else(|| panic!("GITHUB_ENV: {line}"));
            self.env.insert(k.to_string(), Value::String(v.to_string()));
        }
        std::fs::write(&written, "").unwrap();
        (out.status.code().unwrap_or(-1), super::text(&out))
    }
}

/// What `github.*`, `secrets`, `runner` and `env` hold for the event.
fn contexts(event: &Event, secrets: &Value, workspace: &Path) -> Map<String, Value> {
    let mut secrets = secrets.as_object().cloned().unwrap_or_default();
    secrets.insert("GITHUB_TOKEN".into(), json!(TOKEN));
    let github = json!({
        "event_name": event.name,
        "event": event.payload,
        "repository": REPOSITORY,
        "repository_owner": "acme",
        "ref": event.git_ref,
        "sha": event.sha,
        "base_ref": base_ref(event),
        "head_ref": head_ref(event),
        "token": TOKEN,
        "workspace": workspace.display().to_string(),
        "server_url": "https://github.com",
        "run_id": "4242",
    });
    let mut m = Map::new();
    m.insert("github".into(), github);
    m.insert("secrets".into(), Value::Object(secrets));
    m.insert("runner".into(), json!({"os": "Linux"}));
    m.insert("env".into(), json!({}));
    m
}

/// `GITHUB_BASE_REF`: the base branch for pull request events, else empty.
fn base_ref(event: &Event) -> String {
    to_text(&event.payload["pull_request"]["base"]["ref"])
}

/// `GITHUB_HEAD_REF`: the head branch for pull request events, else empty.
fn head_ref(event: &Event) -> String {
    to_text(&event.payload["pull_request"]["head"]["ref"])
}

/// A `uses:` step: its exit status and output.
fn uses(
    sandbox: &Sandbox,
    run: &mut JobRun,
    action: &str,
    with: &dyn Fn(&str) -> Option<String>,
    event: &Event,
) -> (i32, String) {
    let name = action.split('@').next().unwrap_or(action);
    match name {
        "actions/checkout" => {
            let wanted = with("ref").filter(|r| !r.is_empty());
            let depth = with("fetch-depth").unwrap_or_else(|| "1".into());
            assert_eq!(depth, "0", "only full checkouts are emulated");
            let commit = checkout(sandbox, &run.workspace, wanted.as_deref(), event);
            run.checkout = Some((wanted.unwrap_or_else(|| event.git_ref.clone()), commit));
            (0, String::new())
        }
        "actions/cache" => (0, String::new()),
        "actions/upload-artifact" => {
            let (artifact, path) = (
                with("name").unwrap_or_default(),
                with("path").unwrap_or_default(),
            );
            upload(sandbox, &run.workspace, &artifact, &path);
            let found = sandbox.artifacts.join(&artifact).is_dir();
            let missing = with("if-no-files-found").unwrap_or_else(|| "warn".into());
            let code = i32::from(!found && missing == "error");
            (
                code,
                format!(
                    "artifact {artifact}: {}",
                    if found { "uploaded" } else { "no files" }
                ),
            )
        }
        other => panic!("action {other} is not emulated"),
    }
}

/// What `actions/checkout` runs with `fetch-depth: 0`; returns the commit checked out.
fn checkout(sandbox: &Sandbox, workspace: &Path, wanted: Option<&str>, event: &Event) -> String {
    std::fs::create_dir_all(workspace).unwrap();
    let git = |args: &[&str]| sandbox.git(workspace, args);
    git(&["init", "-q"]);
    git(&[
        "remote",
        "add",
        "origin",
        &format!("https://github.com/{REPOSITORY}"),
    ]);
    git(&[
        "fetch",
        "-q",
        "--prune",
        "--no-recurse-submodules",
        "origin",
        "+refs/heads/*:refs/remotes/origin/*",
        "+refs/tags/*:refs/tags/*",
    ]);
    match wanted {
        Some(sha) if sha.len() == 40 && sha.bytes().all(|b| b.is_ascii_hexdigit()) => {
            // A commit no branch holds (a pull request's) is fetched by its id, as
            // checkout does and GitHub allows.
            let mut present = sandbox.command("git");
            present.args(["cat-file", "-e", sha]).current_dir(workspace);
            if !present.status().unwrap().success() {
                git(&["fetch", "-q", "origin", sha]);
            }
            git(&["checkout", "-q", "--force", sha]);
        }
        Some(branch) => {
            let branch = branch.strip_prefix("refs/heads/").unwrap_or(branch);
            let tracking = format!("refs/remotes/origin/{branch}");
            git(&["checkout", "-q", "--force", "-B", branch, &tracking]);
        }
        None => {
            // The event's own ref at the event's commit (GITHUB_REF, GITHUB_SHA).
            let branch = event
                .git_ref
                .strip_prefix("refs/heads/")
                .expect("a branch event");
            git(&["checkout", "-q", "--force", "-B", branch, &event.sha]);
        }
    }
    git(&["rev-parse", "HEAD"]).trim().to_string()
}
