//! A GitLab CI job of `docs/ci/gitlab-ci.yml` run as a runner with the shell (bash)
//! executor runs it: `extends:` merged (hashes deeply, the job's keys over its parents'),
//! `!reference [job, key]` replaced and nested script arrays flattened, `rules:` decided
//! from the pipeline's variables (the first rule whose `if:` holds), then the checkout
//! (init, fetch of every branch and tag from `CI_REPOSITORY_URL`, detached checkout of
//! `CI_COMMIT_SHA`) and `before_script` and `script` in one `bash` process with
//! `set -eo pipefail`; `artifacts:` copied into the sandbox's artifacts afterwards.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::expr::to_text;
use super::{bash, load_yaml, upload, JobRun, Sandbox, StepRun};

/// `docs/ci/gitlab-ci.yml`.
pub fn pipeline() -> Value {
    load_yaml("gitlab-ci.yml")
}

/// Job `name` of `pipeline` as the runner sees it: `extends:` merged, `!reference`s
/// replaced, scripts flattened.
pub fn resolved(pipeline: &Value, name: &str) -> Value {
    let mut job = extended(pipeline, name, 0);
    references(pipeline, &mut job);
    for key in ["before_script", "script", "after_script"] {
        if let Some(lines) = job.get(key) {
            let mut flat = Vec::new();
            flatten(lines, &mut flat);
            job[key] = Value::Array(flat);
        }
    }
    job
}

fn extended(pipeline: &Value, name: &str, depth: usize) -> Value {
    assert!(depth < 11, "extends nests too deep at {name}");
    let job = pipeline
        .get(name)
        .unwrap_or_else(|| panic!("no job {name}"));
    let parents: Vec<String> = match job.get("extends") {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(a)) => a.iter().map(to_text).collect(),
        _ => Vec::new(),
    };
    let mut merged = Value::Object(Map::new());
    for parent in parents {
        deep_merge(&mut merged, &extended(pipeline, &parent, depth + 1));
    }
    deep_merge(&mut merged, job);
    if let Some(m) = merged.as_object_mut() {
        m.remove("extends");
    }
    merged
}

/// GitLab's merge for `extends:`: hashes merged key by key, anything else replaced.
fn deep_merge(into: &mut Value, from: &Value) {
    match (into, from) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in b {
                deep_merge(a.entry(k.clone()).or_insert(Value::Null), v);
            }
        }
        (into, from) => *into = from.clone(),
    }
}

/// Replaces every `{"!reference": [job, key…]}` by what it names.
fn references(pipeline: &Value, v: &mut Value) {
    if let Some(path) = v.get("!reference").and_then(Value::as_array).cloned() {
        let mut target = extended(pipeline, &to_text(&path[0]), 0);
        for key in &path[1..] {
            target = target[to_text(key).as_str()].clone();
        }
        assert!(!target.is_null(), "!reference {path:?} names nothing");
        references(pipeline, &mut target);
        *v = target;
        return;
    }
    match v {
        Value::Array(a) => a.iter_mut().for_each(|x| references(pipeline, x)),
        Value::Object(m) => m.values_mut().for_each(|x| references(pipeline, x)),
        _ => {}
    }
}

fn flatten(v: &Value, out: &mut Vec<Value>) {
    match v {
        Value::Array(a) => a.iter().for_each(|x| flatten(x, out)),
        other => out.push(other.clone()),
    }
}

/// How the pipeline with `vars` gets job `job` (resolved): `None` (not created), else its
/// `when` (`on_success`, `manual`…) from the first rule whose `if:` holds; `when: never`
/// or no rule holding keeps it out.
pub fn when(job: &Value, vars: &BTreeMap<String, String>) -> Option<String> {
    let default = || job.get("when").map_or("on_success".to_string(), to_text);
    let Some(rules) = job.get("rules").and_then(Value::as_array) else {
        return Some(default());
    };
    let rule = rules
        .iter()
        .find(|r| r.get("if").is_none_or(|c| rule_holds(&to_text(c), vars)))?;
    let when = rule.get("when").map_or_else(default, to_text);
    (when != "never").then_some(when)
}

/// A rule's `if:` made of `A && B && …` (or `||`), each `$VAR`, `$VAR == "x"`,
/// `$VAR != "x"` or `$VAR =~ /^(a|b)$/`. Anything else panics (not emulated).
fn rule_holds(expr: &str, vars: &BTreeMap<String, String>) -> bool {
    if let Some((a, b)) = expr.split_once("||") {
        return rule_holds(a, vars) || rule_holds(b, vars);
    }
    expr.split("&&").all(|clause| {
        let clause = clause.trim();
        let value = |name: &str| {
            let name = name
                .trim()
                .strip_prefix('$')
                .unwrap_or_else(|| panic!("rule {expr:?}"));
            vars.get(name).cloned()
        };
        if let Some((var, re)) = clause.split_once("=~") {
            let re = re
                .trim()
                .strip_prefix('/')
                .and_then(|r| r.strip_suffix('/'));
            let re = re.unwrap_or_else(|| panic!("rule {expr:?}: a /regex/"));
            value(var).is_some_and(|v| matches(re, &v))
        } else if let Some((var, s)) = clause.split_once("==") {
            value(var).as_deref() == Some(s.trim().trim_matches('"'))
        } else if let Some((var, s)) = clause.split_once("!=") {
            value(var).as_deref() != Some(s.trim().trim_matches('"'))
        } else {
            value(clause).is_some_and(|v| !v.is_empty())
        }
    })
}

/// `^(a|b|c)$`, `^abc$` or a bare literal (contained): the regular expressions the rules
/// use; any other panics.
fn matches(re: &str, value: &str) -> bool {
    let anchored = re.strip_prefix('^').and_then(|r| r.strip_suffix('$'));
    let body = anchored.unwrap_or(re);
    let body = body
        .strip_prefix('(')
        .and_then(|b| b.strip_suffix(')'))
        .unwrap_or(body);
    assert!(
        !body.contains(['(', ')', '*', '+', '?', '[', '.', '\\']),
        "regex {re:?} is not emulated"
    );
    body.split('|').any(|alt| {
        if anchored.is_some() {
            value == alt
        } else {
            value.contains(alt)
        }
    })
}

/// Runs job `name` of `pipeline` for a pipeline with `vars` (predefined and CI/CD
/// variables; the pipeline's `variables:` and the job's are added, and `CI_PROJECT_DIR`):
/// the checkout of `CI_COMMIT_SHA` from `CI_REPOSITORY_URL`, then its scripts. A job the
/// pipeline does not create is not run (`ran` false); a manual one runs: it is played.
pub fn run_job(
    sandbox: &Sandbox,
    pipeline: &Value,
    name: &str,
    vars: &BTreeMap<String, String>,
) -> JobRun {
    let job = resolved(pipeline, name);
    let work = sandbox.job_dir(name);
    let dir = work.join("builds");
    let when = when(&job, vars);
    let mut run = JobRun {
        ran: when.is_some(),
        manual: when.as_deref() == Some("manual"),
        workspace: dir.clone(),
        ..JobRun::default()
    };
    if !run.ran {
        return run;
    }
    let mut env: Vec<(String, String)> = Vec::new();
    for level in [&pipeline["variables"], &job["variables"]] {
        for (k, v) in level.as_object().into_iter().flatten() {
            env.push((k.clone(), to_text(v)));
        }
    }
    env.extend(vars.iter().map(|(k, v)| (k.clone(), v.clone())));
    env.push(("CI".into(), "true".into()));
    env.push(("GITLAB_CI".into(), "true".into()));
    env.push(("CI_PROJECT_DIR".into(), dir.display().to_string()));
    let var = |k: &str| {
        vars.get(k)
            .unwrap_or_else(|| panic!("{k} not given"))
            .clone()
    };
    std::fs::create_dir_all(&dir).unwrap();
    let git = |args: &[&str]| sandbox.git(&dir, args);
    git(&["init", "-q"]);
    git(&["remote", "add", "origin", &var("CI_REPOSITORY_URL")]);
    git(&[
        "fetch",
        "-q",
        "--prune",
        "origin",
        "+refs/heads/*:refs/remotes/origin/*",
        "+refs/tags/*:refs/tags/*",
    ]);
    git(&["checkout", "-q", "--force", &var("CI_COMMIT_SHA")]);
    let commit = git(&["rev-parse", "HEAD"]).trim().to_string();
    run.checkout = Some((var("CI_COMMIT_SHA"), commit));
    let mut script = String::from("set -eo pipefail\n");
    for key in ["before_script", "script"] {
        for line in job[key].as_array().into_iter().flatten() {
            script.push_str(line.as_str().unwrap_or_else(|| panic!("{name}: {line}")));
            script.push('\n');
        }
    }
    let out = bash(sandbox, &[], &work.join("script.sh"), &script, &dir, &env);
    let code = out.status.code().unwrap_or(-1);
    let artifacts = &job["artifacts"];
    let when = artifacts["when"].as_str().unwrap_or("on_success");
    if when == "always" || (when == "on_success") == (code == 0) {
        for path in artifacts["paths"].as_array().into_iter().flatten() {
            upload(sandbox, &dir, name, &to_text(path));
        }
    }
    run.steps.push(StepRun {
        name: name.to_string(),
        ran: true,
        code: Some(code),
        output: super::text(&out),
    });
    run
}

#[test]
fn gitlab_rules_and_extends_resolve_as_gitlab_does() {
    let p = pipeline();
    let land = resolved(&p, "assetvc-land");
    let script: Vec<&str> = land["script"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    // The shared lines first (from `!reference`), then the job's own.
    assert!(script[0].starts_with("command -v jq"), "{script:?}");
    assert!(
        script.last().unwrap().starts_with("assetvc pr land"),
        "{script:?}"
    );
    // before_script comes from .assetvc-install, two levels up.
    assert!(land["before_script"]
        .as_array()
        .is_some_and(|b| !b.is_empty()));
    let vars = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    };
    let web = vars(&[
        ("ASSETVC_MR", "1"),
        ("CI_PIPELINE_SOURCE", "web"),
        ("CI_COMMIT_BRANCH", "main"),
    ]);
    // Pushing jobs wait for a person to start them.
    assert_eq!(when(&land, &web).as_deref(), Some("manual"));
    let mr = vars(&[
        ("ASSETVC_MR", "1"),
        ("CI_PIPELINE_SOURCE", "merge_request_event"),
    ]);
    assert_eq!(when(&land, &mr), None);
    let push = vars(&[
        ("ASSETVC_MR", "1"),
        ("CI_PIPELINE_SOURCE", "push"),
        ("CI_COMMIT_BRANCH", "main"),
    ]);
    assert_eq!(when(&land, &push), None);
    let check = resolved(&p, "assetvc-check");
    assert_eq!(when(&check, &mr).as_deref(), Some("on_success"));
    assert_eq!(when(&check, &web), None);
}

#[test]
fn gitlab_every_script_line_is_a_string() {
    // GitLab refuses a pipeline whose script holds anything else (a line with an
    // unquoted `: ` is a mapping to YAML), which a YAML check alone never sees.
    let p = pipeline();
    for name in p.as_object().unwrap().keys() {
        let job = resolved(&p, name);
        for key in ["before_script", "script"] {
            for line in job[key].as_array().into_iter().flatten() {
                assert!(line.is_string(), "{name} {key}: {line}");
            }
        }
    }
}
