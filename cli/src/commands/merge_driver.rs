//! `assetvc merge-driver -- %O %A %B %P`, and the lean binary `assetvc-merge-driver --
//! %O %A %B %P` ([`main_lean`]): the merge driver git calls (`merge.assetvc.driver`, as
//! `assetvc install` registers it; the `--` keeps a file named `-h.level` a path).
//!
//! The result goes into %A, whole or not at all (a temporary file renamed over it; not
//! fsynced: git reads it back at once). On unparsable input %A is left untouched and the
//! exit status is 2, so git marks the path conflicted and nothing is lost. During a rebase
//! git swaps the sides: %A is the branch being rebased onto (upstream) and %B the commit
//! being replayed; policies `upstream` and `local` follow the workflow's sides, `theirs`
//! and `ours` git's.
//!
//! Every call appends a step to the merge journal (`.git/assetvc/journal/`), with the three
//! versions of a file that had conflicts, for `assetvc conflicts` and `assetvc resolve`.
//! A small merge does no repository discovery and starts no thread.

use std::path::{Path, PathBuf};

use crate::exit::{failure, Context};

use clap::Args;
use store::{self, Journal, Operation, StepPlace};

use super::merging;
use crate::exit::{Error, Outcome};

/// Arguments of `assetvc merge-driver`.
#[derive(Debug, Args)]
pub struct MergeDriverArgs {
    /// %O: the common ancestor's temporary file.
    pub base: PathBuf,
    /// %A: ours' temporary file; receives the result.
    pub current: PathBuf,
    /// %B: theirs' temporary file.
    pub other: PathBuf,
    /// %P: the path of the file in the repository.
    pub path: String,
}

/// How to call the lean driver binary.
const LEAN_USAGE: &str = "usage: assetvc-merge-driver [--] %O %A %B %P";

/// The `assetvc-merge-driver` binary's command line: `[--] BASE CURRENT OTHER PATH`, read
/// without clap (building clap's whole command tree is a measurable part of a driver
/// call), then [`run`].
pub fn main_lean(args: impl Iterator<Item = std::ffi::OsString>) -> crate::exit::Result<Outcome> {
    let mut args: Vec<_> = args.collect();
    match args.first().and_then(|a| a.to_str()) {
        Some("-h" | "--help") => {
            outln!("The merge driver git calls for assets: merges %O %A %B into %A.\n{LEAN_USAGE}");
            return Ok(Outcome::Done);
        }
        Some("-V" | "--version") => {
            outln!("{}", super::merge_hooks::lean_version_line());
            return Ok(Outcome::Done);
        }
        Some("--") => {
            args.remove(0);
        }
        _ => {}
    }
    let [base, current, other, path]: [std::ffi::OsString; 4] =
        args.try_into().map_err(|args: Vec<_>| {
            failure!("expected 4 arguments, got {}\n{LEAN_USAGE}", args.len())
        })?;
    let path = path
        .into_string()
        .map_err(|p| failure!("%P is not UTF-8: {}", p.to_string_lossy()))?;
    run(&MergeDriverArgs {
        base: base.into(),
        current: current.into(),
        other: other.into(),
        path,
    })
}

/// Runs the driver: 0 merged, 1 policy fail met a conflict (git marks the path
/// conflicted; %A holds the theirs-resolved result), 2 cannot merge (%A untouched). A
/// driver that fails (settings that do not read, a merge or a write that fails) records
/// the file as not merged, with why, in the journal before it reports the error.
pub fn run(args: &MergeDriverArgs) -> crate::exit::Result<Outcome> {
    let merged = merge_file(args);
    if let Err(e) = &merged {
        record_failure(&args.path, e);
    }
    merged
}

/// Records that the driver could not merge `path`, for `assetvc conflicts` (best effort:
/// outside a repository, or when the journal cannot be written, only the error is shown).
fn record_failure(path: &str, error: &crate::exit::Error) {
    let Some(git_dir) = store::git_dir_near(Path::new(".")) else {
        return;
    };
    let env: Vec<(String, String)> = std::env::vars()
        .filter(|(k, _)| k.starts_with("GIT"))
        .collect();
    let (operation, place) = store::detect_operation(&git_dir, &env);
    let reason = crate::exit::alternate(error);
    let step = store::FileStep {
        path: path.to_string(),
        unresolved: Some(format!(
            "the merge driver failed: {}",
            reason.lines().next().unwrap_or_default()
        )),
        ..store::FileStep::default()
    };
    record(Some(&git_dir), &operation, &place, step, None);
}

/// The driver's merge of one file (see [`run`]).
fn merge_file(args: &MergeDriverArgs) -> crate::exit::Result<Outcome> {
    // git runs the driver at the worktree's root: no discovery needed.
    let (mut options, config) =
        merging::options(Path::new("."), None).map_err(crate::exit::Error::Config)?;
    let git_dir = store::git_dir_near(Path::new("."));
    let env: Vec<(String, String)> = std::env::vars()
        .filter(|(k, _)| k.starts_with("GIT"))
        .collect();
    let (operation, place) = match &git_dir {
        Some(dir) => store::detect_operation(dir, &env),
        None => store::detect_operation(Path::new("/nonexistent"), &env),
    };
    let configured = options.policy;
    options.policy = configured.for_operation(operation.swapped);
    // Ours' document too, when finding its dialect parsed it (one parse, not two).
    let detected = merging::detect_file(&config, Path::new(&args.path), &args.current);
    options.profile = config.profiles.format_of(Path::new(&args.path));
    let shown = |side: &str| format!("{} ({side})", args.path);
    let docs = merging::load_three(
        [
            (args.current.as_path(), shown("ours")),
            (args.base.as_path(), shown("base")),
            (args.other.as_path(), shown("theirs")),
        ],
        detected,
    );
    let loaded = match docs {
        Ok(d) => d,
        Err(e) => {
            let message = e.to_string();
            eprintln!("{message}");
            eprintln!(
                "assetvc: {}: not merged, left for you to resolve",
                args.path
            );
            let step = merging::unresolved_step(&args.path, configured, &message);
            record(git_dir.as_deref(), &operation, &place, step, None);
            return Ok(Outcome::ErrorsReported);
        }
    };
    // The result is returned parsed (reports read it without parsing it again).
    let merged = merging::merge_loaded(loaded, &options).map_err(|error| Error::Merge {
        error: Box::new(error),
        file: args.path.clone(),
        versions: Box::new(["base", "ours", "theirs"].map(shown)),
    })?;
    // Where each conflict is, for people.
    let places = &merged.names;
    let referrers = &merged.referrers;
    // The versions are copied before %A is replaced by the result.
    let versions = match (&git_dir, merged.conflicts.is_empty()) {
        (Some(dir), false) => Some(Journal::at(dir).begin(&operation).and_then(|log| {
            log.save_version_files([&args.base, &args.current, &args.other])
                .map(|name| (log, name))
        })),
        _ => None,
    };
    write_result(&args.current, merged.text().as_bytes())
        .with_context(|| args.current.display().to_string())?;
    let sides = merging::Sides::of(&operation);
    eprintln!(
        "assetvc: {}",
        merging::summary_in(&args.path, &merged.conflicts, configured, &sides)
    );
    for (i, c) in merged.conflicts.iter().enumerate() {
        let place = places.get(i).map(String::as_str);
        let referrer = referrers.get(i).and_then(|r| r.as_deref());
        eprintln!(
            "assetvc:   {}",
            merging::conflict_line(c, configured, &sides, (place, referrer))
        );
    }
    for v in &merged.violations {
        eprintln!("assetvc:   not merged cleanly, the result breaks what its inputs kept: {v}");
    }
    let step = merging::step_report(&args.path, configured, &sides, &merged.conflicts, places)
        .with_referrers(referrers);
    match versions {
        Some(Ok((log, name))) => {
            append(&log, step, &place, Some(name));
        }
        Some(Err(e)) => eprintln!("assetvc: warning: could not record the merge: {e}"),
        None => record(git_dir.as_deref(), &operation, &place, step, None),
    }
    Ok(Outcome::done_unless(
        merged.failed(options.policy),
        Outcome::Conflicts,
    ))
}

/// Writes the result into %A whole or not at all: a temporary file next to it, named as
/// every assetvc temporary (so a killed run's is cleaned like the others), renamed over
/// it. No fsync: git reads the result back at once and writes it into its own object
/// database, which it syncs as configured.
fn write_result(path: &Path, contents: &[u8]) -> store::Result<()> {
    store::write_atomic_unsynced(path, contents)
}

/// Appends a step to the journal of the running operation (a warning when it cannot).
fn record(
    git_dir: Option<&Path>,
    operation: &Operation,
    place: &StepPlace,
    step: store::FileStep,
    versions: Option<String>,
) {
    // Outside a repository (a driver run by hand) there is nowhere to keep the report.
    let Some(dir) = git_dir else { return };
    match Journal::at(dir).begin(operation) {
        Ok(log) => append(&log, step, place, versions),
        Err(e) => eprintln!("assetvc: warning: could not record the merge: {e}"),
    }
}

/// Appends `step` at `place` (with its saved `versions`) to `log`, a warning when it cannot.
pub(super) fn append(
    log: &store::OperationLog,
    mut step: store::FileStep,
    place: &StepPlace,
    versions: Option<String>,
) {
    if versions.is_some() {
        step.versions = versions;
    }
    append_all(log, vec![step], place);
}

/// Appends `steps` at `place` to `log` in one write, a warning when it cannot.
pub(super) fn append_all(
    log: &store::OperationLog,
    mut steps: Vec<store::FileStep>,
    place: &StepPlace,
) {
    for step in &mut steps {
        step.step.clone_from(&place.step);
        step.commit.clone_from(&place.commit);
    }
    if let Err(e) = log.append_all(&steps) {
        eprintln!("assetvc: warning: could not record the merge: {e}");
    }
}
