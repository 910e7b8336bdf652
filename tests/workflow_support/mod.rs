//! What the `workflows_*` end-to-end tests share: the ready-to-use CI files of `docs/ci`
//! read as YAML and their shell steps run with `bash` as the hosts run them, on this
//! machine, without a network. A [`Sandbox`] plays everything the host provides around a
//! job: a fresh `HOME` whose git configuration maps the host's URLs onto local bare
//! repositories (every other URL fails at once), `assetvc` on `PATH` from this
//! build, the host's command-line tools (`gh`, GitLab's API through `curl`) answered from
//! files the test writes, `apt-get` refused (no network), and a folder for artifacts.
#![allow(dead_code)]

pub mod expr;
pub mod forge;
pub mod github;
pub mod gitlab;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

/// Every URL the sandbox does not map is rewritten here, so that it fails at once.
const NO_NETWORK: &str = "/nonexistent/no-network-in-this-test/";

/// A job's world: temporary folders, the runner's `HOME`, the tools on `PATH`.
pub struct Sandbox {
    _tmp: tempfile::TempDir,
    /// The temporary directory (canonical): repositories are made here.
    pub root: PathBuf,
    /// The runner's `HOME`: its `.gitconfig` holds only the URL map.
    pub home: PathBuf,
    /// The tools on `PATH` before the system's: `assetvc`, `gh`, `curl`, `apt-get`.
    pub bin: PathBuf,
    /// Where artifacts are copied (`artifacts/NAME/FILE`).
    pub artifacts: PathBuf,
    /// The host's API answers (`api/repos/OWNER/REPO/pulls/N.json` for `gh`,
    /// `api/projects/ID….json` for GitLab's API).
    pub api: PathBuf,
}

impl Sandbox {
    /// A new sandbox, or `None` (the skip printed and counted) when `bash` or `jq` is
    /// missing: the workflows' scripts run in bash and read the hosts' JSON with `jq`, as
    /// the hosts' runner images do; a machine with only git and the Rust toolchain has
    /// neither for certain (`.ci/run` installs `jq`).
    pub fn new() -> Option<Sandbox> {
        for (tool, args) in [("bash", ["-c", "true"]), ("jq", ["-n", "1"])] {
            let run = Command::new(tool).args(args).output();
            if !run.is_ok_and(|o| o.status.success()) {
                crate::common::skipped(&format!("workflows: {tool} is not installed"));
                return None;
            }
        }
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        let [home, bin, artifacts, api] =
            ["runner-home", "bin", "artifacts", "api"].map(|d| root.join(d));
        for d in [&home, &bin, &artifacts, &api] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_assetvc"), bin.join("assetvc")).unwrap();
        let sandbox = Sandbox {
            _tmp: tmp,
            root,
            home,
            bin,
            artifacts,
            api,
        };
        for scheme in ["https://", "http://", "ssh://", "git://", "git@"] {
            sandbox.serve(scheme, Path::new(NO_NETWORK));
        }
        sandbox.tool("gh", &GH.replace("@API@", &sandbox.api.to_string_lossy()));
        sandbox.tool(
            "curl",
            &CURL.replace("@API@", &sandbox.api.to_string_lossy()),
        );
        sandbox.tool(
            "apt-get",
            "#!/bin/sh\necho \"apt-get: no network in this test\" >&2\nexit 100\n",
        );
        Some(sandbox)
    }

    /// Makes the URL prefix `url` reach the local repository `path` (git's `insteadOf`
    /// in the runner's global configuration: the longest prefix wins).
    pub fn serve(&self, url: &str, path: &Path) {
        let key = format!("url.{}.insteadOf", path.display());
        let out = self
            .command("git")
            .args(["config", "--global", "--add", &key, url])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out));
    }

    /// Writes the host API's answer `json` for `path` (`api/PATH.json`: a path may be
    /// another's prefix, as `projects/1` and `projects/1/merge_requests/1`).
    pub fn answer(&self, path: &str, json: &Value) {
        let file = self.api.join(format!("{path}.json"));
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, serde_json::to_string_pretty(json).unwrap()).unwrap();
    }

    /// The calls the jobs made to the host's tools (`gh`, `curl`), one a line.
    pub fn api_calls(&self) -> String {
        std::fs::read_to_string(self.api.join("calls.log")).unwrap_or_default()
    }

    /// A command with the runner's base environment only: `PATH` (the sandbox's tools,
    /// then the system's), `HOME`, no system git configuration, nothing of the test's.
    pub fn command(&self, program: &str) -> Command {
        let mut cmd = Command::new(program);
        cmd.env_clear()
            .env(
                "PATH",
                format!(
                    "{}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                    self.bin.display()
                ),
            )
            .env("HOME", &self.home)
            .env("LANG", "C.UTF-8")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .current_dir(&self.root);
        cmd
    }

    /// Runs `git args` in `dir` as the runner does (no identity configured); panics
    /// unless it succeeds; returns stdout.
    pub fn git(&self, dir: &Path, args: &[&str]) -> String {
        let out = self
            .command("git")
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "git {args:?} in {}: {}",
            dir.display(),
            text(&out)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Every file below the sandbox whose name starts with `name` (an injected command's
    /// trace: `pwned`).
    pub fn files_named(&self, name: &str) -> Vec<PathBuf> {
        let mut found = Vec::new();
        let mut dirs = vec![self.root.clone()];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let path = entry.path();
                if entry.file_name().to_string_lossy().starts_with(name) {
                    found.push(path.clone());
                }
                if entry.file_type().is_ok_and(|t| t.is_dir()) {
                    dirs.push(path);
                }
            }
        }
        found
    }

    /// A new folder for one job's run (`jobs/N-name`: a job may run more than once).
    pub fn job_dir(&self, name: &str) -> PathBuf {
        let jobs = self.root.join("jobs");
        let n = std::fs::read_dir(&jobs).map_or(0, |d| d.count());
        let dir = jobs.join(format!("{n}-{name}"));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn tool(&self, name: &str, script: &str) {
        let path = self.bin.join(name);
        std::fs::write(&path, script).unwrap();
        crate::common::make_executable(&path);
    }
}

/// `gh pr view N --repo OWNER/REPO --json FIELDS --jq QUERY`, answered as GitHub's API
/// would from `api/repos/OWNER/REPO/pulls/N.json` (only the fields asked for), with `--jq`'s
/// raw output; it needs `GH_TOKEN`, the job's token (`api/token`).
const GH: &str = r#"#!/bin/bash
set -e
api='@API@'
printf 'gh %s\n' "$*" >> "$api/calls.log"
[ "$1 $2" = "pr view" ] || { echo "gh: only 'gh pr view' is emulated: $*" >&2; exit 2; }
number=$3; shift 3
while [ $# -gt 0 ]; do
  case "$1" in
    --repo) repo=$2; shift 2 ;;
    --json) fields=$2; shift 2 ;;
    --jq) query=$2; shift 2 ;;
    *) echo "gh: $1 is not emulated" >&2; exit 2 ;;
  esac
done
[ -n "$GH_TOKEN" ] || { echo "gh: To use GitHub CLI in a GitHub Actions workflow, set the GH_TOKEN environment variable." >&2; exit 4; }
[ "$GH_TOKEN" = "$(cat "$api/token")" ] || { echo "HTTP 401: Bad credentials (https://api.github.com/graphql)" >&2; exit 1; }
file="$api/repos/$repo/pulls/$number.json"
[ -f "$file" ] || { echo "GraphQL: Could not resolve to a PullRequest with the number of $number." >&2; exit 1; }
jq --arg f "$fields" '($f | split(",")) as $k | with_entries(select(.key as $x | $k | index($x)))' "$file" | jq -r "$query"
"#;

/// `curl --silent --fail --header "PRIVATE-TOKEN: T" URL` against GitLab's API at
/// `https://gitlab.example.com:8443/api/v4`, answered from `api/PATH.json` when the token is
/// `api/token`'s; anything else fails as `--fail` does (22) or cannot connect (7).
const CURL: &str = r#"#!/bin/bash
api='@API@'
printf 'curl %s\n' "$*" >> "$api/calls.log"
header=; url=
while [ $# -gt 0 ]; do
  case "$1" in
    --silent|--fail|-s|-f|-sf|-fsS|--show-error|-S) shift ;;
    --header|-H) header=$2; shift 2 ;;
    -*) echo "curl: $1 is not emulated" >&2; exit 2 ;;
    *) url=$1; shift ;;
  esac
done
case "$url" in
  https://gitlab.example.com:8443/api/v4/*) path=${url#https://gitlab.example.com:8443/api/v4/} ;;
  *) echo "curl: (7) Failed to connect: $url" >&2; exit 7 ;;
esac
[ "$header" = "PRIVATE-TOKEN: $(cat "$api/token")" ] || exit 22
[ -f "$api/$path.json" ] || exit 22
cat "$api/$path.json"
"#;

/// A workflow file of `docs/ci` as JSON: YAML tags kept as `{"!tag": value}`.
pub fn load_yaml(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("docs/ci")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    let yaml: serde_norway::Value =
        serde_norway::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    to_json(yaml)
}

fn to_json(v: serde_norway::Value) -> Value {
    use serde_norway::Value as Y;
    match v {
        Y::Null => Value::Null,
        Y::Bool(b) => Value::Bool(b),
        Y::Number(n) => serde_json::from_str(&n.to_string()).unwrap_or(Value::Null),
        Y::String(s) => Value::String(s),
        Y::Sequence(s) => Value::Array(s.into_iter().map(to_json).collect()),
        Y::Mapping(m) => Value::Object(
            m.into_iter()
                .map(|(k, v)| {
                    let key = match to_json(k) {
                        Value::String(s) => s,
                        other => other.to_string(),
                    };
                    (key, to_json(v))
                })
                .collect(),
        ),
        Y::Tagged(t) => {
            let mut m = serde_json::Map::new();
            m.insert(t.tag.to_string(), to_json(t.value));
            Value::Object(m)
        }
    }
}

/// What a job did.
#[derive(Debug, Default)]
pub struct JobRun {
    /// Whether the host would start the job at all (its `if:` or `rules:`).
    pub ran: bool,
    /// GitLab: the job waits for a person to start it (`when: manual`).
    pub manual: bool,
    /// The checkout's folder.
    pub workspace: PathBuf,
    /// The ref the checkout was asked for, and the commit it checked out.
    pub checkout: Option<(String, String)>,
    /// The steps (GitHub) or the one script (GitLab), in order.
    pub steps: Vec<StepRun>,
}

impl JobRun {
    /// The exit status of the first step that failed (`None`: the job succeeded).
    pub fn failed(&self) -> Option<i32> {
        self.steps.iter().find_map(|s| s.code.filter(|c| *c != 0))
    }

    /// Every step's output, for assertion messages.
    pub fn log(&self) -> String {
        self.steps
            .iter()
            .map(|s| {
                format!(
                    "--- {} ({:?}, ran: {})\n{}",
                    s.name, s.code, s.ran, s.output
                )
            })
            .collect()
    }
}

/// What a step did.
#[derive(Debug)]
pub struct StepRun {
    /// Its name (or `uses:` / the start of its script).
    pub name: String,
    /// Whether it ran (its `if:` held).
    pub ran: bool,
    /// Its exit status (`Some(0)` for a `uses:` step emulated without error).
    pub code: Option<i32>,
    /// Its standard output and error.
    pub output: String,
}

/// Runs `script` with `bash OPTIONS FILE` in `dir` with `env` over the sandbox's base
/// environment, the script written to `file` first.
pub fn bash(
    sandbox: &Sandbox,
    options: &[&str],
    file: &Path,
    script: &str,
    dir: &Path,
    env: &[(String, String)],
) -> Output {
    std::fs::write(file, script).unwrap();
    let mut cmd = sandbox.command("bash");
    cmd.args(options).arg(file).current_dir(dir);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

/// An output as text, for assertion messages.
pub fn text(out: &Output) -> String {
    format!(
        "status {:?}\n{}{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Copies `path` (relative to `from`), when it exists, to `artifacts/name/`.
pub fn upload(sandbox: &Sandbox, from: &Path, name: &str, path: &str) {
    let src = from.join(path);
    if src.is_file() {
        let dir = sandbox.artifacts.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::copy(&src, dir.join(src.file_name().unwrap())).unwrap();
    }
}
