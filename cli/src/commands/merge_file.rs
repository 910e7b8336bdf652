//! `assetvc merge-file`: like `git merge-file`, by structure.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;
use merge::Policy;

use super::merging;
use crate::exit::{Error, Outcome};
use crate::{debug_bundle, files, repo_config};

/// Arguments of `assetvc merge-file`.
#[derive(Debug, Args)]
pub struct MergeFileArgs {
    /// Print the result on stdout instead of writing CURRENT.
    #[arg(short = 'p', long = "stdout", conflicts_with = "output")]
    pub stdout: bool,
    /// Write the result to OUT instead of CURRENT.
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// How true conflicts are resolved: theirs (default), ours, or fail (theirs, exit 1).
    #[arg(long, value_parser = parse_policy)]
    pub policy: Option<Policy>,
    /// Write the conflict report (JSON) to FILE.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Print the conflict report as JSON (on stdout, or stderr with -p).
    #[arg(long)]
    pub json: bool,
    /// Explain the merge: what each side changed, what the result kept, the conflicts, the
    /// pairings of array elements without ids and the moves (on stdout, or stderr with
    /// -p). `ASSETVC_DEBUG=DIR` keeps the same with the inputs.
    #[arg(long)]
    pub explain: bool,
    /// The current version (ours, left); receives the result unless -p or -o.
    pub current: PathBuf,
    /// The common ancestor.
    pub base: PathBuf,
    /// The other version (theirs, right-hand).
    pub other: PathBuf,
}

/// Parses a policy name.
pub fn parse_policy(s: &str) -> Result<Policy, UnknownPolicy> {
    s.parse().map_err(UnknownPolicy)
}

/// A policy name that is none of [`Policy::ALL`], in the merge crate's words.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UnknownPolicy(String);

/// Runs `assetvc merge-file`: 0 merged (conflicts resolved by policy theirs/ours; ids
/// repeated in the result are reported, not an error: the inputs held them already),
/// 1 policy fail met a conflict (the result is still written), 2 bad input: nothing
/// written.
pub fn run(args: &MergeFileArgs) -> crate::exit::Result<Outcome> {
    let dir = args
        .current
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let (mut options, config) = merging::options(&repo_config::root_for(dir), args.policy)
        .map_err(crate::exit::Error::Config)?;
    // Ours' document too, when finding its dialect parsed it (one parse, not two).
    let detected = merging::detect_file(&config, &args.current, &args.current);
    options.profile = config.profiles.format_of(&args.current);
    fn shown(p: &Path) -> (&Path, String) {
        (p, p.display().to_string())
    }
    let docs = merging::load_three(
        [shown(&args.current), shown(&args.base), shown(&args.other)],
        detected,
    );
    let loaded = docs.map_err(Error::Load)?;
    let debug_dir = debug_bundle::dir_from_env();
    let inputs = (args.explain || debug_dir.is_some()).then(|| debug_bundle::Inputs {
        base: loaded.base.clone(),
        ours: loaded.ours.clone(),
        theirs: loaded.theirs.clone(),
    });
    let versions = [&args.base, &args.current, &args.other].map(|p| p.display().to_string());
    let name = args.current.display().to_string();
    // The merge names the conflicts' places the way people do while the coherence pass
    // checks the result.
    let merged = merging::merge_loaded(loaded, &options).map_err(|error| Error::Merge {
        error: Box::new(error),
        file: name.clone(),
        versions: Box::new(versions),
    })?;
    let lines = merged.lines();
    let (outcome, result) = (&merged, &merged.document);
    // The ids the result repeats (an input whose keyed array repeats an id cannot be
    // merged by id; the result fails `check`): none when the coherence pass found no id
    // held twice in the whole result, which it indexed anyway.
    let duplicates = match merged.unique_ids {
        true => Vec::new(),
        false => hooks::checks::duplicate_ids_in(&name, result, &options.id_keys),
    };
    let file_report = merging::file_report(&name, options.policy, &outcome.conflicts);
    let report_json = named_report(
        &file_report,
        &merged.names,
        &duplicates,
        &outcome.violations,
    );
    if let Some(inputs) = &inputs {
        explain_and_keep(args, inputs, &name, &report_json, outcome, &options)?;
    }
    if let Some(path) = &args.report {
        files::write_atomic(path, format!("{report_json}\n").as_bytes())?;
    }
    if args.stdout {
        let mut out = crate::output::stdout();
        out.write_all(result.text().as_bytes())?;
        out.flush()?;
    } else {
        let target = args.output.as_ref().unwrap_or(&args.current);
        files::write_atomic(target, result.text().as_bytes())?;
    }
    if args.json {
        if args.stdout {
            eprintln!("{report_json}");
        } else {
            outln!("{report_json}");
        }
    } else {
        if duplicates.is_empty() || !outcome.conflicts.is_empty() {
            eprintln!(
                "assetvc: {}",
                merging::summary(&name, &outcome.conflicts, options.policy)
            );
        } else {
            eprintln!("assetvc: {name}: merged, but ids are not unique (`assetvc check` fails):");
        }
        for line in &lines {
            eprintln!("  {line}");
        }
        for p in &duplicates {
            eprintln!("  {p}");
        }
        for v in &outcome.violations {
            eprintln!("  not merged cleanly, the result breaks what its inputs kept: {v}");
        }
    }
    Ok(Outcome::done_unless(
        outcome.failed(options.policy),
        Outcome::Conflicts,
    ))
}

/// `--explain` and `ASSETVC_DEBUG`: prints the explanation and keeps the debug bundle.
fn explain_and_keep(
    args: &MergeFileArgs,
    inputs: &debug_bundle::Inputs,
    name: &str,
    report_json: &str,
    outcome: &merge::Merged,
    options: &merge::MergeOptions,
) -> std::io::Result<()> {
    let result = &outcome.document;
    let explanation = debug_bundle::explain(inputs, result, &outcome.conflicts, options);
    let trace = debug_bundle::trace(inputs, options);
    if let Some(dir) = debug_bundle::dir_from_env() {
        let bundle = debug_bundle::Bundle {
            name,
            inputs,
            result: result.text(),
            report_json,
            explanation: &explanation,
            trace: &trace,
        };
        match debug_bundle::keep(&dir, &bundle) {
            Ok(folder) => eprintln!("assetvc: debug bundle in {}", folder.display()),
            Err(e) => eprintln!("assetvc: warning: cannot keep the debug bundle: {e}"),
        }
    }
    if args.explain {
        let text = explanation.render() + &trace.render();
        if args.stdout {
            eprint!("{text}");
        } else {
            out!("{text}");
        }
    }
    Ok(())
}

/// The JSON report with each conflict's `name` (the path for people) beside its pointer,
/// `duplicate_ids` when the result repeats ids, and the result gate's `violations`.
fn named_report(
    report: &merging::FileReport<'_>,
    names: &[String],
    duplicates: &[hooks::Problem],
    violations: &[merge::GateViolation],
) -> String {
    let mut value = serde_json::to_value(report).unwrap_or_default();
    value["violations"] = merging::violations_json(violations);
    if !duplicates.is_empty() {
        value["duplicate_ids"] = serde_json::to_value(duplicates).unwrap_or_default();
    }
    if let Some(list) = value["conflicts"].as_array_mut() {
        for (entry, name) in list.iter_mut().zip(names) {
            if let Some(object) = entry.as_object_mut() {
                object.insert("name".into(), name.as_str().into());
            }
        }
    }
    serde_json::to_string_pretty(&value).unwrap_or_default()
}
