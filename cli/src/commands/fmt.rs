//! `assetvc fmt`: the canonical style, written in place atomically, or stdin to stdout.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use sjson::{Dialect, Document, ParseOptions, Style};

use crate::config::Config;
use crate::{files, report};

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
    /// Files or directories; without any, stdin (SJSON, which accepts JSON) to stdout.
    pub paths: Vec<PathBuf>,
}

/// Runs `assetvc fmt`: 0 done (or nothing to change), 1 `--check` found files to change,
/// 2 bad input (nothing written for it).
pub fn run(args: &FmtArgs) -> i32 {
    if args.paths.is_empty() {
        return run_stdin(args);
    }
    let config = match Config::discover(Path::new(".")) {
        Ok(c) => c,
        Err(e) => {
            report::error(e);
            return 2;
        }
    };
    let matcher = match config.matcher() {
        Ok(m) => m,
        Err(e) => {
            report::error(e);
            return 2;
        }
    };
    let paths = match files::asset_files(&args.paths, &matcher) {
        Ok(p) => p,
        Err(e) => {
            report::error(e);
            return 2;
        }
    };
    let mut status = 0;
    for path in paths {
        let dialect = matcher
            .dialect(&path)
            .unwrap_or_else(|| Dialect::for_path(&path.to_string_lossy()));
        let name = path.display().to_string();
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) => {
                report::error(format!("{name}: {e}"));
                status = 2;
                continue;
            }
        };
        let formatted = match format_bytes(&name, bytes.clone(), dialect, args) {
            Ok(f) => f,
            Err(message) => {
                eprintln!("{message}");
                status = 2;
                continue;
            }
        };
        if formatted.as_bytes() == bytes.as_slice() {
            continue;
        }
        if args.check {
            println!("{}", report::safe(&name));
            status = status.max(1);
        } else if let Err(e) = files::write_atomic(&path, formatted.as_bytes()) {
            report::error(e);
            status = 2;
        }
    }
    status
}

/// Parses and formats; the error is a ready-to-print diagnostic.
fn format_bytes(
    name: &str,
    bytes: Vec<u8>,
    dialect: Dialect,
    args: &FmtArgs,
) -> Result<String, String> {
    let lossy = String::from_utf8_lossy(&bytes).into_owned();
    let doc = Document::parse_bytes(bytes, ParseOptions::new(dialect))
        .map_err(|e| report::parse_error(name, &lossy, &e))?;
    let mut style = Style::canonical(args.to.map_or(dialect, Dialect::from));
    style.newline = doc.newline().to_string();
    style.sort_keys = args.sort_keys;
    Ok(sjson::format(&doc, &style))
}

fn run_stdin(args: &FmtArgs) -> i32 {
    let mut bytes = Vec::new();
    if let Err(e) = std::io::stdin().read_to_end(&mut bytes) {
        report::error(format!("<stdin>: {e}"));
        return 2;
    }
    // SJSON accepts JSON objects; a JSON document whose root is not an object is JSON.
    let result = format_bytes("<stdin>", bytes.clone(), Dialect::Sjson, args)
        .or_else(|e| format_bytes("<stdin>", bytes.clone(), Dialect::Json, args).map_err(|_| e));
    match result {
        Ok(formatted) => {
            if args.check {
                if formatted.as_bytes() != bytes.as_slice() {
                    println!("<stdin>");
                    return 1;
                }
                return 0;
            }
            let mut out = std::io::stdout().lock();
            if out
                .write_all(formatted.as_bytes())
                .and_then(|_| out.flush())
                .is_err()
            {
                return 2;
            }
            0
        }
        Err(message) => {
            eprintln!("{message}");
            2
        }
    }
}
