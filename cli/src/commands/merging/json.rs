//! The JSON report of a merged file (`merge-file --json`, `--report`).

use merge::{Conflict, Policy};
use serde::Serialize;
use serde_json::value::RawValue;

/// One conflict in a JSON report.
#[derive(Serialize)]
pub struct ConflictReport<'a> {
    path: &'a str,
    kind: &'static str,
    base: Option<Box<RawValue>>,
    ours: Option<Box<RawValue>>,
    theirs: Option<Box<RawValue>>,
    taken: &'static str,
    /// A coherence repair's object (`crate #1f2e3d4c`).
    #[serde(skip_serializing_if = "Option::is_none")]
    object: Option<&'a str>,
    /// A coherence repair's referrer (JSON Pointer).
    #[serde(skip_serializing_if = "Option::is_none")]
    referrer: Option<&'a str>,
}

/// The report of one merged file.
#[derive(Serialize)]
pub struct FileReport<'a> {
    /// The file's path.
    pub path: String,
    /// The policy used.
    pub policy: &'static str,
    /// Every conflict and the side taken.
    pub conflicts: Vec<ConflictReport<'a>>,
}

fn raw(json: &Option<String>) -> Option<Box<RawValue>> {
    json.as_ref()
        .and_then(|j| RawValue::from_string(j.clone()).ok())
}

/// The JSON report of a merged file.
pub fn file_report<'a>(path: &str, policy: Policy, conflicts: &'a [Conflict]) -> FileReport<'a> {
    FileReport {
        path: path.to_string(),
        policy: policy.name(),
        conflicts: conflicts
            .iter()
            .map(|c| ConflictReport {
                path: &c.path,
                kind: c.kind.name(),
                base: raw(&c.base),
                ours: raw(&c.ours),
                theirs: raw(&c.theirs),
                taken: c.taken.name(),
                object: c.object.as_deref(),
                referrer: c.referrer.as_deref(),
            })
            .collect(),
    }
}

/// The result gate's violations for a JSON report: `[{"path", "invariant", "reason"}]`.
pub fn violations_json(violations: &[merge::GateViolation]) -> serde_json::Value {
    let list = violations.iter().map(|v| {
        serde_json::json!({
            "path": v.path(),
            "invariant": v.invariant(),
            "reason": v.to_string(),
        })
    });
    serde_json::Value::Array(list.collect())
}
