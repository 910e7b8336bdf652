//! `assetvc fmt`: the canonical style, written in place atomically, or stdin to stdout.
//!
//! Sources: PATHs (files, or directories walked for assets); `-` for stdin. With no PATH,
//! `fmt --check` looks at the worktree like `check` does; `fmt` reads stdin when stdin is
//! a pipe (as it always has, so `fmt < a.level` keeps working) and at a terminal asks for
//! a path instead of waiting for input or rewriting the whole tree unasked.

use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};

use crate::exit::{failure, Context};
use clap::{Args, ValueEnum};
use serde::Serialize;
use sjson::{Dialect, Document, ParseOptions, Style};

use super::merging::LoadError;
use crate::exit::{Error, Outcome};
use crate::{files, progress, report};

/// A dialect named on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DialectArg {
    /// Strict JSON.
    Json,
    /// Stingray SJSON.
    Sjson,
}

impl From<DialectArg> for Dialect {
    fn from(d: DialectArg) -> Dialect {
        match d {
            DialectArg::Json => Dialect::Json,
            DialectArg::Sjson => Dialect::Sjson,
        }
    }
}

/// Arguments of `assetvc fmt`.
#[derive(Debug, Args)]
pub struct FmtArgs {
    /// List the files that would change and exit 1; write nothing.
    #[arg(long)]
    pub check: bool,
    /// Write this dialect instead of the file's own.
    #[arg(long, value_enum)]
    pub to: Option<DialectArg>,
    /// Sort object keys.
    #[arg(long)]
    pub sort_keys: bool,
    /// Print a JSON report on stdout: files looked at, files changed (or that `--check`
    /// would change), files that do not parse.
    #[arg(long)]
    pub json: bool,
    /// Files or directories; `-` is stdin (SJSON, which accepts JSON) to stdout. Without
    /// any: `--check` looks at the worktree (like `check`); `fmt` reads stdin when it is
    /// not a terminal (a pipe) and otherwise asks for a path.
    pub paths: Vec<PathBuf>,
}

/// The JSON report of `fmt --json`.
#[derive(Serialize)]
struct JsonReport {
    files: usize,
    changed: Vec<String>,
    errors: Vec<String>,
}

/// Where `fmt` reads: stdin, or these paths.
fn sources(args: &FmtArgs) -> Result<Option<Vec<PathBuf>>, &'static str> {
    let stdin = Path::new("-");
    match args.paths.as_slice() {
        [only] if only == stdin => Ok(None),
        paths if paths.iter().any(|p| p == stdin) => Err("`-` (stdin) cannot be mixed with paths"),
        [] if args.check => Ok(Some(vec![PathBuf::from(".")])),
        [] if std::io::stdin().is_terminal() => {
            Err("no PATH: give files or directories (`.` for the worktree), or `-` for stdin")
        }
        [] => Ok(None),
        paths => Ok(Some(paths.to_vec())),
    }
}

/// Runs `assetvc fmt`: 0 done (or nothing to change), 1 `--check` found files to change,
/// 2 bad input or usage (nothing written for it).
pub fn run(args: &FmtArgs) -> crate::exit::Result<Outcome> {
    let Some(roots) = sources(args).map_err(|message| failure!(message))? else {
        return run_stdin(args);
    };
    let config = crate::repo_config::for_dir(Path::new("."))?;
    let matcher = config.matcher()?;
    let paths = files::asset_files(&roots, &matcher)?;
    let mut status = Outcome::Done;
    let mut report = JsonReport {
        files: paths.len(),
        changed: Vec::new(),
        errors: Vec::new(),
    };
    let bar = progress::files_bar("formatting", paths.len());
    for path in paths {
        if let Some(bar) = &bar {
            bar.inc(1);
        }
        let name = path.display().to_string();
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) => {
                report::error(format!("{name}: {e}"));
                status = Outcome::ErrorsReported;
                continue;
            }
        };
        // JSON if the asset patterns say so, else by content (a `.fire` is JSON).
        let dialect = match matcher.dialect(&path) {
            Some(Dialect::Json) => Dialect::Json,
            _ => Dialect::detect(&name, &String::from_utf8_lossy(&bytes)),
        };
        let formatted = match format_bytes(&name, bytes.clone(), dialect, args) {
            Ok(f) => f,
            Err(error) => {
                let message = error.to_string();
                if !args.json {
                    eprintln!("{}", report::safe(&message));
                }
                report
                    .errors
                    .push(message.lines().next().unwrap_or_default().into());
                status = Outcome::ErrorsReported;
                continue;
            }
        };
        if formatted.as_bytes() == bytes.as_slice() {
            continue;
        }
        if args.check {
            if !args.json {
                outln!("{}", report::safe(&name));
            }
            report.changed.push(name);
            status = status.worst(Outcome::Problems);
        } else if let Err(e) = files::write_atomic(&path, formatted.as_bytes()) {
            report::error(e);
            status = Outcome::ErrorsReported;
        } else {
            report.changed.push(name);
        }
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    if args.json {
        outln!(
            "{}",
            serde_json::to_string_pretty(&report).unwrap_or_default()
        );
    }
    Ok(status)
}

/// Parses and formats; the error is a ready-to-print diagnostic.
fn format_bytes(
    name: &str,
    bytes: Vec<u8>,
    dialect: Dialect,
    args: &FmtArgs,
) -> Result<String, LoadError> {
    let lossy = String::from_utf8_lossy(&bytes).into_owned();
    let doc = Document::parse_bytes(bytes, ParseOptions::new(dialect)).map_err(|error| {
        LoadError::Parse {
            shown: name.to_string(),
            text: lossy,
            error,
        }
    })?;
    let mut style = Style::canonical(args.to.map_or(dialect, Dialect::from));
    style.newline = doc.newline().to_string();
    style.sort_keys = args.sort_keys;
    Ok(sjson::format(&doc, &style))
}

fn run_stdin(args: &FmtArgs) -> crate::exit::Result<Outcome> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .read_to_end(&mut bytes)
        .context("<stdin>")?;
    // SJSON accepts JSON objects; a JSON document whose root is not an object is JSON.
    let result = format_bytes("<stdin>", bytes.clone(), Dialect::Sjson, args)
        .or_else(|e| format_bytes("<stdin>", bytes.clone(), Dialect::Json, args).map_err(|_| e));
    let formatted = result.map_err(Error::Load)?;
    if args.check {
        if formatted.as_bytes() != bytes.as_slice() {
            outln!("<stdin>");
            return Ok(Outcome::Problems);
        }
        return Ok(Outcome::Done);
    }
    let mut out = crate::output::stdout();
    out.write_all(formatted.as_bytes())?;
    out.flush()?;
    Ok(Outcome::Done)
}
