//! What `merge-file` and `merge-driver` share: settings, reading and parsing the three
//! versions with diagnostics, and the conflict report.

use std::path::Path;

use config::Config;
use merge::{Conflict, MergeOptions, Policy, Side};
use serde::Serialize;
use serde_json::value::RawValue;
use sjson::{Detected, Dialect, Document, ParseOptions};

use crate::files::FileAgain;
use crate::{repo_config, report};

/// Merge settings from the `assetvc.toml` at the repository root `root`, with an optional
/// policy given on the command line.
pub fn options(root: &Path, policy: Option<Policy>) -> Result<(MergeOptions, Config), String> {
    let config = repo_config::at_root(root).map_err(|e| e.to_string())?;
    let mut options = config.merge_options();
    if let Some(p) = policy {
        options.policy = p;
    }
    Ok((options, config))
}

/// Reads and parses one version; the error is a ready-to-print diagnostic.
pub fn load(path: &Path, shown_as: &str, dialect: Dialect) -> Result<Document, String> {
    if path.is_dir() {
        return Err(format!("{shown_as}: is a directory"));
    }
    let bytes = std::fs::read(path).map_err(|e| format!("{shown_as}: {e}"))?;
    load_bytes(path, bytes, shown_as, dialect)
}

/// [`load`] of `bytes`, already read from `path`.
pub fn load_bytes(
    path: &Path,
    bytes: Vec<u8>,
    shown_as: &str,
    dialect: Dialect,
) -> Result<Document, String> {
    Document::parse_bytes(bytes, ParseOptions::new(dialect)).map_err(|e| {
        // Errors are rare: read the file again for the offending line.
        let text = std::fs::read(path).unwrap_or_default();
        report::parse_error(shown_as, &String::from_utf8_lossy(&text), &e)
    })
}

/// Below this many bytes in all, the three versions are read one after the other: a
/// thread costs more than parsing them.
const PARALLEL_FROM: u64 = 1 << 20;

/// The three versions of a merge, read and parsed.
pub struct Loaded {
    /// The current version (git's %A).
    pub ours: Document,
    /// The common ancestor.
    pub base: Document,
    /// The other version.
    pub theirs: Document,
    /// Base's file, to read again if a large merge frees base and a repair needs it.
    pub base_file: Option<FileAgain>,
}

/// Reads and parses the three versions (ours, base, theirs), in parallel when they are
/// large; the first error, in that order, is returned as a ready-to-print diagnostic.
/// The dialect is given as such, or as [`detect_file`] found it: ours is then not parsed
/// again when finding its dialect parsed it.
pub fn load_three(
    paths: [(&Path, String); 3],
    detected: impl Into<Detected>,
) -> Result<Loaded, String> {
    let detected = detected.into();
    let dialect = detected.dialect();
    let mut ours_parsed = detected.into_document();
    let [o, b, t] = paths;
    let load_ours = |parsed: Option<Document>| match parsed {
        Some(doc) => Ok(doc),
        None => load(o.0, &o.1, dialect),
    };
    let size: u64 = [o.0, b.0, t.0]
        .iter()
        .map(|p| std::fs::metadata(p).map_or(0, |m| m.len()))
        .sum();
    // Base's file is hashed (when it is large) as soon as it is read, beside the others.
    let load_base = || {
        load(b.0, &b.1, dialect).map(|doc| {
            let file = FileAgain::of(b.0, doc.text());
            (doc, file)
        })
    };
    if size < PARALLEL_FROM {
        let ours = load_ours(ours_parsed.take())?;
        let (base, base_file) = load_base()?;
        let theirs = load(t.0, &t.1, dialect)?;
        return Ok(Loaded {
            ours,
            base,
            theirs,
            base_file,
        });
    }
    // One thread each: on two cores the three parses take one and a half parse's time,
    // where two threads (one parsing two versions) took two.
    let (ours, base, theirs) = std::thread::scope(|s| {
        let base = s.spawn(load_base);
        let theirs = s.spawn(|| load(t.0, &t.1, dialect));
        let ours = load_ours(ours_parsed.take());
        let internal = "internal error while reading";
        let base = base.join().unwrap_or_else(|_| Err(internal.into()));
        let theirs = theirs.join().unwrap_or_else(|_| Err(internal.into()));
        (ours, base, theirs)
    });
    let (ours, (base, base_file), theirs) = (ours?, base?, theirs?);
    Ok(Loaded {
        ours,
        base,
        theirs,
        base_file,
    })
}

/// [`merge::merge`] on versions read from files, given up to it ([`merge::Inputs::Owned`]):
/// a large base is freed during the merge and read again from its file only if a repair
/// needs it.
pub fn merge_loaded(
    loaded: Loaded,
    options: &MergeOptions,
) -> Result<merge::Merged, merge::MergeError> {
    let Loaded {
        ours,
        base,
        theirs,
        base_file,
    } = loaded;
    let read_again = base_file.map(|file| move || file.read());
    let base_again = read_again
        .as_ref()
        .map(|read| read as merge::coherence::BaseAgain<'_>);
    let inputs = merge::Inputs::Owned {
        base,
        ours,
        theirs,
        base_again,
    };
    merge::merge(inputs, options)
}

/// A merge error as the diagnostic the cli prints.
pub fn describe(e: merge::MergeError) -> String {
    match e {
        merge::MergeError::Coherence(e) => e.to_string(),
        e => format!("{e}; nothing was written"),
    }
}

/// An error of [`merge_loaded`], described, with the position of a bad reference
/// named by the version's file (`ours` → `names[1]`) instead of its side.
pub fn name_sides(e: String, names: [&str; 3]) -> String {
    for (side, name) in ["base", "ours", "theirs"].into_iter().zip(names) {
        if let Some(rest) = e.strip_prefix(side).filter(|r| r.starts_with(':')) {
            return format!("{name}{rest}; nothing was written");
        }
    }
    e
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

/// The one-line summary: `level.sjson: merged, 2 conflicts resolved (theirs)`.
pub fn summary(path: &str, conflicts: &[Conflict], policy: Policy) -> String {
    let path = crate::report::safe_line(path);
    match conflicts.len() {
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

/// The side a policy took, for the summary: the policy's name, and for `fail` the side
/// it took before failing.
fn taken_name(policy: Policy) -> &'static str {
    match policy {
        Policy::Fail => "theirs; policy fail",
        other => other.name(),
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

/// The dialect of the file at `path` holding `text`: what `assetvc.toml`'s own asset
/// patterns say (JSON patterns, or SJSON patterns the file sets), else by its content
/// ([`Dialect::detect_parsed`]: a Cocos `.fire` starting with `[` is JSON), with the
/// document where finding it parsed `text`.
fn detect_text(config: &Config, path: &Path, text: &str) -> Detected {
    let configured = config.matcher().ok().and_then(|m| m.dialect(path));
    let explicit =
        |d: &Dialect| *d == Dialect::Json || config.assets.sjson != config::Assets::default().sjson;
    match configured.filter(explicit) {
        Some(d) => Detected::Dialect(d),
        None => Dialect::detect_parsed(&path.to_string_lossy(), text),
    }
}

/// How much of a file [`detect_file`] reads first: enough for the first significant
/// character and for a small file whole.
const HEAD: u64 = 64 << 10;

/// The dialect of the file at `path` (read from `file`; by name alone if it cannot be
/// read, which loading then reports), with its document when finding the dialect parsed
/// the whole file (a braced JSON file not named `.json`), for [`load_three`]. Only its
/// head is read, unless a large file opens with `{` or a comment and is not named
/// `.json`: whether it is JSON then takes its whole text.
pub fn detect_file(config: &Config, path: &Path, file: &Path) -> Detected {
    use std::io::Read;
    let mut head = Vec::new();
    let read = std::fs::File::open(file).and_then(|f| f.take(HEAD).read_to_end(&mut head));
    if read.is_err() {
        return Detected::Dialect(dialect_of(config, path));
    }
    let whole = (head.len() as u64) < HEAD;
    let text = String::from_utf8_lossy(&head);
    let found = detect_text(config, path, &text);
    let opens = text.trim_start_matches('\u{FEFF}').trim_start();
    let whole_needed = !whole
        && found.dialect() == Dialect::Sjson
        && (opens.starts_with('{') || opens.starts_with('/'));
    if whole_needed {
        return match std::fs::read(file) {
            Ok(bytes) => {
                let text = String::from_utf8_lossy(&bytes);
                let exact = matches!(text, std::borrow::Cow::Borrowed(_));
                keep_if(exact, detect_text(config, path, &text))
            }
            Err(_) => found,
        };
    }
    // A document of the head is the file's only when the head is the whole file, and its
    // text the file's bytes (no invalid UTF-8 replaced).
    let exact = whole && matches!(text, std::borrow::Cow::Borrowed(_));
    keep_if(exact, found)
}

/// `found`, without its document unless `exact` (the document's text is the file's).
fn keep_if(exact: bool, found: Detected) -> Detected {
    match exact {
        true => found,
        false => Detected::Dialect(found.dialect()),
    }
}

/// The engine profile of `path`: `assetvc.toml`'s `[profiles]`, else by extension;
/// `None` leaves it to the content of ours at the merge.
pub fn profile_of(profiles: &config::Profiles, path: &Path) -> Option<merge::profile::Format> {
    match profiles.for_path(path) {
        Some((format, _)) => Some(format),
        None => merge::profile::Format::by_file_name(&path.to_string_lossy()),
    }
}

/// What git's two sides mean in the operation that runs a merge: in a merge, a pull or a
/// cherry-pick "ours" is the local branch and "theirs" the upstream; a rebase swaps them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sides {
    /// What git's "ours" is: `local` or `upstream`.
    pub ours: &'static str,
    /// What git's "theirs" is.
    pub theirs: &'static str,
    /// The operation's name: `merge`, `rebase`, `cherry-pick`…
    pub operation: &'static str,
}

impl Sides {
    /// The sides of `operation`.
    pub fn of(operation: &store::Operation) -> Sides {
        Sides::named(
            store::SideMeanings::of(operation.swapped),
            operation.kind.name(),
        )
    }

    /// The sides of a merge (`assetvc merge`, `assetvc pull`).
    pub fn merge() -> Sides {
        Sides::named(store::SideMeanings::MERGE, "merge")
    }

    fn named(meanings: store::SideMeanings, operation: &'static str) -> Sides {
        Sides {
            ours: meanings.ours.name(),
            theirs: meanings.theirs.name(),
            operation,
        }
    }

    /// What git's sides mean here, as the journal records it.
    pub fn meanings(&self) -> store::SideMeanings {
        store::SideMeanings::of(self.ours == store::Meaning::Upstream.name())
    }

    /// What `side` means here.
    pub fn meaning(&self, side: Side) -> &'static str {
        match side {
            Side::Ours => self.ours,
            Side::Theirs => self.theirs,
        }
    }
}

/// Whether a policy names the workflow's sides (reports then say what it meant).
fn by_meaning(policy: Policy) -> bool {
    matches!(policy, Policy::Upstream | Policy::Local)
}

/// `kept local (ours in this rebase)`, or git's `took theirs` for side-naming policies.
pub fn taken_phrase(taken: Side, configured: Policy, sides: &Sides) -> String {
    if by_meaning(configured) {
        format!(
            "kept {} ({} in this {})",
            sides.meaning(taken),
            taken.name(),
            sides.operation
        )
    } else {
        format!("took {}", taken.name())
    }
}

/// One conflict for people: `/settings/fog: both modified, kept local (theirs in this rebase)`.
/// A coherence repair reads as the merge reports it (kind, object, referrer, side); `place`
/// names the conflict's place the way people do (`entities[lamp_01 #6f1c…4b03].light`).
pub fn conflict_line(
    c: &Conflict,
    configured: Policy,
    sides: &Sides,
    place: Option<&str>,
) -> String {
    if c.kind.is_repair() {
        // The object named like every other place; the line says the side it came from.
        return c.line_at(place);
    }
    let path = match place {
        Some(place) => place.to_string(),
        None if c.path.is_empty() => "/".to_string(),
        None => sjson::string::terminal_safe_line(&c.path).into_owned(),
    };
    format!(
        "{path}: {}, {}",
        c.kind.describe(),
        taken_phrase(c.taken, configured, sides)
    )
}

/// The one-line summary, with the meaning of a workflow policy:
/// `level.sjson: merged, 1 conflict resolved (kept local: theirs in this rebase)`.
pub fn summary_in(path: &str, conflicts: &[Conflict], configured: Policy, sides: &Sides) -> String {
    if !by_meaning(configured) || conflicts.is_empty() {
        return summary(path, conflicts, configured);
    }
    let side = configured
        .for_operation(sides.meanings() == store::SideMeanings::SWAPPED)
        .side();
    let n = conflicts.len();
    format!(
        "{path}: merged, {n} conflict{} resolved (kept {}: {} in this {})",
        if n == 1 { "" } else { "s" },
        sides.meaning(side),
        side.name(),
        sides.operation
    )
}

/// The journal's record of one merged file: the policy as configured, what git's sides
/// meant and, per conflict, the side kept by meaning and the place as people name it.
pub fn step_report(
    path: &str,
    configured: Policy,
    sides: &Sides,
    conflicts: &[Conflict],
    places: &[String],
) -> store::FileStep {
    store::FileStep::merged(
        path,
        configured,
        sides.meanings(),
        sides.operation,
        conflicts,
        places,
    )
}

/// The journal's record of a file that could not be merged.
pub fn unresolved_step(path: &str, configured: Policy, reason: &str) -> store::FileStep {
    store::FileStep::unresolved(path, configured, reason)
}
