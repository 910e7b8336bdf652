//! `assetvc merge-file`: like `git merge-file`, by structure.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;
use merge::Policy;

use super::merging;
use crate::{files, report};

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
    /// The current version (ours, left); receives the result unless -p or -o.
    pub current: PathBuf,
    /// The common ancestor.
    pub base: PathBuf,
    /// The other version (theirs, right-hand).
    pub other: PathBuf,
}

/// Parses a policy name.
pub fn parse_policy(s: &str) -> Result<Policy, String> {
    s.parse()
}

/// Runs `assetvc merge-file`: 0 merged (conflicts resolved by policy theirs/ours),
/// 1 policy fail met a conflict (the result is still written), 2 bad input: nothing written.
pub fn run(args: &MergeFileArgs) -> i32 {
    let dir = args
        .current
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let (options, config) = match merging::options(dir, args.policy) {
        Ok(o) => o,
        Err(e) => {
            report::error(e);
            return 2;
        }
    };
    let dialect = merging::dialect_of(&config, &args.current);
    fn shown(p: &Path) -> (&Path, String) {
        (p, p.display().to_string())
    }
    let docs = merging::load_three(
        [shown(&args.current), shown(&args.base), shown(&args.other)],
        dialect,
    );
    let (ours, base, theirs) = match docs {
        Ok(d) => d,
        Err(message) => {
            eprintln!("{message}");
            return 2;
        }
    };
    let names = [&args.base, &args.current, &args.other].map(|p| p.display().to_string());
    let names = [names[0].as_str(), names[1].as_str(), names[2].as_str()];
    let outcome = match merging::merge_docs_named(base, ours, theirs, &options, names) {
        Ok(o) => o,
        Err(e) => {
            report::error(e);
            return 2;
        }
    };
    let name = args.current.display().to_string();
    let file_report = merging::file_report(&name, options.policy, &outcome.conflicts);
    let report_json = serde_json::to_string_pretty(&file_report).unwrap_or_default();
    if let Some(path) = &args.report {
        if let Err(e) = files::write_atomic(path, format!("{report_json}\n").as_bytes()) {
            report::error(format!("{}: {e}", path.display()));
            return 2;
        }
    }
    let written = if args.stdout {
        let mut out = std::io::stdout().lock();
        out.write_all(outcome.text.as_bytes())
            .and_then(|_| out.flush())
    } else {
        let target = args.output.as_ref().unwrap_or(&args.current);
        files::write_atomic(target, outcome.text.as_bytes())
    };
    if let Err(e) = written {
        report::error(e);
        return 2;
    }
    if args.json {
        if args.stdout {
            eprintln!("{report_json}");
        } else {
            println!("{report_json}");
        }
    } else {
        eprintln!(
            "assetvc: {}",
            merging::summary(&name, &outcome, options.policy)
        );
        for c in &outcome.conflicts {
            eprintln!("  {c}");
        }
    }
    i32::from(outcome.failed(options.policy))
}
