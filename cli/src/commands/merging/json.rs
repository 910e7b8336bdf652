//! The JSON report of a merged file (`merge-file --json`, `--report`).

use merge::{Conflict, Policy};
use serde::Serialize;

/// The report of one merged file.
#[derive(Serialize)]
pub struct FileReport<'a> {
    /// The file's path.
    pub path: String,
    /// The policy used.
    pub policy: &'static str,
    /// Every conflict and the side taken, as `merge::Conflict` serialises itself (its place
    /// as a pointer, its values as JSON).
    pub conflicts: &'a [Conflict],
}

/// The JSON report of a merged file.
pub fn file_report<'a>(path: &str, policy: Policy, conflicts: &'a [Conflict]) -> FileReport<'a> {
    FileReport {
        path: path.to_string(),
        policy: policy.name(),
        conflicts,
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
