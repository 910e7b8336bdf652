//! The debug aid for surprising merges: with `ASSETVC_DEBUG=DIR` in the environment, every
//! merge of one file (`merge-file`, the merge driver) keeps, in a folder of its own under
//! DIR, its three inputs, its result, its conflict report, the explanation of what each
//! side changed and what the result kept, and what the merger matched: the pairings of
//! array elements without ids and the moves (`assetvc merge-file --explain` prints the
//! same explanation and matches). The folder is ready to attach to a bug report.

use std::path::{Path, PathBuf};

use merge::explain::Explanation;
use merge::trace::{Basis, Trace};
use serde_json::{json, Value};
use sjson::Document;

/// The environment variable that names the folder for debug bundles.
pub const ENV: &str = "ASSETVC_DEBUG";

/// The folder named by `ASSETVC_DEBUG`, if set and not empty.
pub fn dir_from_env() -> Option<PathBuf> {
    std::env::var_os(ENV)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// The three inputs of a merge, kept for its explanation and bundle.
pub struct Inputs {
    /// The common ancestor.
    pub base: Document,
    /// The current version.
    pub ours: Document,
    /// The other version.
    pub theirs: Document,
}

/// What one merge leaves in its bundle.
pub struct Bundle<'a> {
    /// The file merged, as shown to the user (names the bundle's folder).
    pub name: &'a str,
    /// The three inputs.
    pub inputs: &'a Inputs,
    /// The merged text.
    pub result: &'a str,
    /// The conflict report (JSON).
    pub report_json: &'a str,
    /// The explanation.
    pub explanation: &'a Explanation,
    /// What the merger matched.
    pub trace: &'a Trace,
}

/// Writes `bundle` into a new folder under `dir` and returns that folder:
/// `base.EXT`, `ours.EXT`, `theirs.EXT`, `result.EXT`, `report.json`, `explain.txt`,
/// `pairings.json`, `moves.json`.
pub fn keep(dir: &Path, bundle: &Bundle<'_>) -> std::io::Result<PathBuf> {
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or_default();
    let safe_name: String = bundle
        .name
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let folder = dir.join(format!("{stamp}-{}-{safe_name}", std::process::id()));
    std::fs::create_dir_all(&folder)?;
    let ext = match bundle.inputs.ours.dialect() {
        sjson::Dialect::Json => "json",
        sjson::Dialect::Sjson => "sjson",
    };
    let (pairings, moves) = trace_json(bundle.trace);
    let files: [(String, &str); 8] = [
        (format!("base.{ext}"), bundle.inputs.base.text()),
        (format!("ours.{ext}"), bundle.inputs.ours.text()),
        (format!("theirs.{ext}"), bundle.inputs.theirs.text()),
        (format!("result.{ext}"), bundle.result),
        ("report.json".into(), bundle.report_json),
        ("explain.txt".into(), &bundle.explanation.render()),
        ("pairings.json".into(), &pairings),
        ("moves.json".into(), &moves),
    ];
    for (name, text) in files {
        crate::files::write_atomic(&folder.join(name), text.as_bytes())
            .map_err(|e| std::io::Error::other(e.to_string()))?;
    }
    Ok(folder)
}

/// The explanation of a merge whose (parsed) result is `merged`.
pub fn explain(
    inputs: &Inputs,
    merged: &Document,
    conflicts: &[merge::Conflict],
    options: &merge::MergeOptions,
) -> Explanation {
    merge::explain::explain(
        &inputs.base,
        &inputs.ours,
        &inputs.theirs,
        merged,
        conflicts,
        options,
    )
}

/// What a merge matched: the structural merge of the inputs run again, recording (the
/// merge is deterministic: the same inputs and options match the same way).
pub fn trace(inputs: &Inputs, options: &merge::MergeOptions) -> Trace {
    merge::trace::trace(&inputs.base, &inputs.ours, &inputs.theirs, options)
}

/// `pairings.json` (per array, by JSON Pointer: each element's index in base, ours and
/// theirs, `null` where unmatched, and how they were matched) and `moves.json`.
fn trace_json(trace: &Trace) -> (String, String) {
    let how = |b: &Basis| match b {
        Basis::NaturalKey(key) => json!({ "by": "natural-key", "key": key }),
        Basis::Equal => json!({ "by": "equal" }),
        Basis::Similar(score) => json!({ "by": "similarity", "score": score }),
        Basis::ThroughBase => json!({ "by": "base" }),
        Basis::Position => json!({ "by": "position" }),
    };
    let arrays: Vec<Value> = trace
        .arrays
        .iter()
        .map(|a| {
            let pairs: Vec<Value> = a
                .pairs
                .iter()
                .map(|p| {
                    let mut entry = json!({ "base": p.base, "ours": p.ours, "theirs": p.theirs });
                    if let (Some(entry), Value::Object(how)) =
                        (entry.as_object_mut(), how(&p.basis))
                    {
                        entry.extend(how);
                    }
                    entry
                })
                .collect();
            json!({ "path": a.path, "pairs": pairs })
        })
        .collect();
    let moves: Vec<Value> = trace
        .moves
        .iter()
        .map(|m| json!({ "side": m.side.name(), "from": m.from, "to": m.to }))
        .collect();
    let pretty = |v: Value| serde_json::to_string_pretty(&v).unwrap_or_default() + "\n";
    (pretty(Value::from(arrays)), pretty(Value::from(moves)))
}
