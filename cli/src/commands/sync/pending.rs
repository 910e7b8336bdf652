//! The pending conflicts of a sync: a true conflict between an uncommitted local value and
//! the upstream's leaves the local value in the worktree (uncommitted, on top of the
//! upstream) and is reported with both values and who made the upstream one, for people on
//! stderr and for editors in the cycle's JSON.

use serde_json::{json, Value};

use crate::report;

/// Reports the pending conflicts of `files` (merged between the uncommitted edits and the
/// upstream; `heads` = (HEAD before, the upstream), to find who changed each property): one
/// line each on stderr; the JSON entries, one per conflict: `file`, `object` (the place as
/// people name it), `property` (the JSON Pointer), `local`, `upstream`, `base`, `by`.
pub fn report(
    repo: &store::Repo,
    heads: (store::ObjectId, store::ObjectId),
    files: &[store::MergedFile],
) -> Vec<Value> {
    let mut out = Vec::new();
    for f in files.iter().filter(|f| !f.conflicts.is_empty()) {
        // Who made each upstream value: the newest upstream commit that changed that
        // property (the file's newest, where the property cannot be followed).
        let properties: Vec<&sjson::Path> = f.conflicts.iter().map(|c| &c.path).collect();
        let authors = repo
            .upstream_authors(heads.0, heads.1, &f.path, &properties)
            .unwrap_or_default();
        for (i, (c, place)) in f.conflicts.iter().zip(f.places_or_none()).enumerate() {
            let by = authors.get(i).cloned().flatten();
            let at = place.map_or_else(|| c.path.to_string(), str::to_string);
            let value = |v: &Option<String>| v.clone().unwrap_or_else(|| "(deleted)".into());
            let who = by.as_deref().map_or(String::new(), |b| format!(" by {b}"));
            eprintln!(
                "assetvc:   {} {}: {}, kept your {} in the worktree; upstream's {}{} is \
                 pending (assetvc resolve {} --all --take upstream)",
                report::safe_line(&f.path),
                report::safe_line(&at),
                c.kind.describe(),
                report::safe_line(&value(&c.ours)),
                report::safe_line(&value(&c.theirs)),
                report::safe_line(&who),
                report::safe_line(&f.path),
            );
            out.push(json!({
                "file": f.path,
                "object": place,
                "property": c.path.to_string(),
                "kind": c.kind.name(),
                "local": as_json(&c.ours),
                "upstream": as_json(&c.theirs),
                "base": as_json(&c.base),
                "by": by,
            }));
        }
    }
    out
}

/// A conflict's value (compact JSON; `None`: absent) as a JSON value (`null` when absent).
fn as_json(value: &Option<String>) -> Value {
    value
        .as_deref()
        .map(|v| serde_json::from_str(v).unwrap_or_else(|_| Value::String(v.to_string())))
        .unwrap_or(Value::Null)
}

/// The pending conflicts the newest sync recorded in the merge journal (as
/// [`report`]'s JSON entries) whose file is still among the uncommitted `edited` files:
/// what `who --json` gives an editor to show. Empty when the journal cannot be read.
pub fn recorded(repo: &store::Repo, edited: &[String]) -> Vec<Value> {
    let Ok(operations) = store::Journal::at(repo.git_dir()).operations() else {
        return Vec::new();
    };
    for op in operations.iter().rev() {
        if !op.operation.key.starts_with("assetvc sync ") {
            continue;
        }
        let mut out = Vec::new();
        for (step, c) in op.conflicts() {
            if !c.pending || !edited.contains(&step.path) {
                continue;
            }
            out.push(json!({
                "file": step.path,
                "object": c.name,
                "property": c.path.to_string(),
                "kind": c.kind,
                "local": as_json(&c.ours),
                "upstream": as_json(&c.theirs),
                "base": as_json(&c.base),
                "by": c.by,
            }));
        }
        if op.conflicts().next().is_some() {
            return out;
        }
    }
    Vec::new()
}
