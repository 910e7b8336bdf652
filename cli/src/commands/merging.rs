//! What `merge-file` and `merge-driver` share: settings, reading and parsing the three
//! versions with diagnostics, and the conflict report.

use std::path::Path;

use merge::{Conflict, MergeOptions, MergeOutcome, Policy};
use serde::Serialize;
use serde_json::value::RawValue;
use sjson::{Dialect, Document, ParseOptions};

use crate::config::Config;
use crate::report;

/// Merge settings from `assetvc.toml` (searched from `dir`), with an optional policy
/// given on the command line.
pub fn options(dir: &Path, policy: Option<Policy>) -> Result<(MergeOptions, Config), String> {
    let config = Config::discover(dir).map_err(|e| e.to_string())?;
    let policy = match policy {
        Some(p) => p,
        None => config
            .merge
            .policy
            .parse()
            .map_err(|e| format!("assetvc.toml: merge.policy: {e}"))?,
    };
    let options = MergeOptions {
        policy,
        id_keys: config.merge.id_keys.clone(),
        natural_keys: config.merge.natural_keys.clone(),
        atomic_max: config.merge.atomic_max,
        references: merge::coherence::ReferenceOptions {
            keys: config.references.keys.clone(),
            parent: config.references.parent.clone(),
        },
    };
    Ok((options, config))
}

/// Reads and parses one version; the error is a ready-to-print diagnostic.
pub fn load(path: &Path, shown_as: &str, dialect: Dialect) -> Result<Document, String> {
    if path.is_dir() {
        return Err(format!("{shown_as}: is a directory"));
    }
    let bytes = std::fs::read(path).map_err(|e| format!("{shown_as}: {e}"))?;
    Document::parse_bytes(bytes, ParseOptions::new(dialect)).map_err(|e| {
        // Errors are rare: read the file again for the offending line.
        let text = std::fs::read(path).unwrap_or_default();
        report::parse_error(shown_as, &String::from_utf8_lossy(&text), &e)
    })
}

/// Reads and parses the three versions in parallel (ours, base, theirs); the first
/// error, in that order, is returned as a ready-to-print diagnostic.
pub fn load_three(
    paths: [(&Path, String); 3],
    dialect: Dialect,
) -> Result<(Document, Document, Document), String> {
    let [o, b, t] = paths;
    let (ours, (base, theirs)) = std::thread::scope(|s| {
        let base_theirs = s.spawn(|| (load(b.0, &b.1, dialect), load(t.0, &t.1, dialect)));
        let ours = load(o.0, &o.1, dialect);
        (
            ours,
            base_theirs.join().unwrap_or_else(|_| {
                (
                    Err("internal error while reading".into()),
                    Err(String::new()),
                )
            }),
        )
    });
    Ok((ours?, base?, theirs?))
}

/// Merges three documents, frees them, and checks the result parses.
pub fn merge_docs(
    base: Document,
    ours: Document,
    theirs: Document,
    options: &MergeOptions,
) -> Result<MergeOutcome, String> {
    // The structural merge, checked to parse, then made a coherent level.
    merge::merge_coherent(&base, &ours, &theirs, options).map_err(|e| match e {
        merge::MergeError::Coherence(e) => e.to_string(),
        e => format!("{e}; nothing was written"),
    })
}

/// [`merge_docs`], with the position of a bad reference named by the version's file
/// (`ours` → `names[1]`) instead of its side.
pub fn merge_docs_named(
    base: Document,
    ours: Document,
    theirs: Document,
    options: &MergeOptions,
    names: [&str; 3],
) -> Result<MergeOutcome, String> {
    merge_docs(base, ours, theirs, options).map_err(|e| {
        for (side, name) in ["base", "ours", "theirs"].into_iter().zip(names) {
            if let Some(rest) = e.strip_prefix(side).filter(|r| r.starts_with(':')) {
                return format!("{name}{rest}; nothing was written");
            }
        }
        e
    })
}

/// One conflict in a JSON report.
#[derive(Serialize)]
pub struct ConflictReport<'a> {
    path: &'a str,
    kind: &'static str,
    base: Option<Box<RawValue>>,
    ours: Option<Box<RawValue>>,
    theirs: Option<Box<RawValue>>,
    taken: &'static str,
    /// A coherence repair's object (`crate (1f2e3d4c)`).
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

/// The policy's name.
pub fn policy_name(p: Policy) -> &'static str {
    match p {
        Policy::Theirs => "theirs",
        Policy::Ours => "ours",
        Policy::Fail => "fail",
    }
}

/// The JSON report of a merged file.
pub fn file_report<'a>(path: &str, policy: Policy, conflicts: &'a [Conflict]) -> FileReport<'a> {
    FileReport {
        path: path.to_string(),
        policy: policy_name(policy),
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

/// The one-line summary: `level.sjson: merged, 2 conflicts resolved (theirs)`.
pub fn summary(path: &str, outcome: &MergeOutcome, policy: Policy) -> String {
    match outcome.conflicts.len() {
        0 => format!("{path}: merged cleanly"),
        1 => format!(
            "{path}: merged, 1 conflict resolved ({})",
            taken_name(policy)
        ),
        n => format!(
            "{path}: merged, {n} conflicts resolved ({})",
            taken_name(policy)
        ),
    }
}

fn taken_name(policy: Policy) -> &'static str {
    match policy {
        Policy::Ours => "ours",
        Policy::Theirs => "theirs",
        Policy::Fail => "theirs; policy fail",
    }
}

/// The dialect of a path by the asset patterns of `config`, else by its extension.
pub fn dialect_of(config: &Config, path: &Path) -> Dialect {
    config
        .matcher()
        .ok()
        .and_then(|m| m.dialect(path))
        .unwrap_or_else(|| Dialect::for_path(&path.to_string_lossy()))
}
