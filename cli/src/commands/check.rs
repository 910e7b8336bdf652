//! `assetvc check`: validates the assets of a worktree.

use std::path::{Path, PathBuf};

use clap::Args;
use serde::Serialize;
use sjson::{Document, ParseOptions};

use crate::config::Config;
use crate::{files, report};

/// Arguments of `assetvc check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Print a JSON report on stdout.
    #[arg(long)]
    pub json: bool,
    /// Files or directories (default: the current directory).
    pub paths: Vec<PathBuf>,
}

/// One problem found in a file.
#[derive(Debug, Serialize)]
pub struct Problem {
    /// The file.
    pub path: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub col: usize,
    /// What is wrong.
    pub reason: String,
    /// The offending source line.
    pub source_line: String,
}

#[derive(Serialize)]
struct JsonReport<'a> {
    files_checked: usize,
    problems: &'a [Problem],
}

/// Runs `assetvc check`: 0 all good, 1 problems found, 2 bad usage or missing path.
pub fn run(args: &CheckArgs) -> i32 {
    let roots = if args.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.paths.clone()
    };
    let matcher = match Config::discover(Path::new(".")).and_then(|c| c.matcher()) {
        Ok(m) => m,
        Err(e) => {
            report::error(e);
            return 2;
        }
    };
    let paths = match files::asset_files(&roots, &matcher) {
        Ok(p) => p,
        Err(e) => {
            report::error(e);
            return 2;
        }
    };
    let mut problems = Vec::new();
    for path in &paths {
        let name = path.display().to_string();
        let dialect = matcher
            .dialect(path)
            .unwrap_or_else(|| sjson::Dialect::for_path(&name));
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) => {
                problems.push(Problem {
                    path: name,
                    line: 0,
                    col: 0,
                    reason: e.to_string(),
                    source_line: String::new(),
                });
                continue;
            }
        };
        let lossy = String::from_utf8_lossy(&bytes).into_owned();
        if let Err(e) = Document::parse_bytes(bytes, ParseOptions::new(dialect)) {
            problems.push(Problem {
                path: name,
                line: e.line,
                col: e.col,
                reason: e.kind.to_string(),
                source_line: report::excerpt(sjson::source_line(&lossy, e.offset), e.col).0,
            });
        }
    }
    if args.json {
        let report = JsonReport {
            files_checked: paths.len(),
            problems: &problems,
        };
        println!(
            "{}",
            serde_json::to_string_pretty(&report).unwrap_or_default()
        );
    } else {
        for p in &problems {
            println!("{}:{}:{}: {}", p.path, p.line, p.col, p.reason);
            if !p.source_line.is_empty() {
                println!("    {}", p.source_line);
            }
        }
        if problems.is_empty() {
            eprintln!("assetvc: {} assets checked, no problems", paths.len());
        } else {
            eprintln!(
                "assetvc: {} assets checked, {} problems",
                paths.len(),
                problems.len()
            );
        }
    }
    i32::from(!problems.is_empty())
}
