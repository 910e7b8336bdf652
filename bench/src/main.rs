//! `levelgen`: synthetic levels for benchmarks.
//!
//! - `levelgen level N [--json] [--seed S]`: a level of N entities on stdout.
//! - `levelgen merge-inputs N DIR [--json]`: DIR/base, ours, theirs (.sjson or .json)
//!   with ~1% concurrent edits per side and 10 true conflicts.
//! - `levelgen verify N DIR MERGED`: checks MERGED holds every one-sided edit of the
//!   inputs `merge-inputs N DIR` made (exit 1 with the problems otherwise).
//! - `levelgen serde-roundtrip FILE`: parses JSON into `serde_json::Value` and prints it
//!   (the peer for `assetvc fmt --to json`).

use std::process::ExitCode;

use levelgen::edits::{verify, MergeInputs};

const SEED: u64 = 42;
const CONFLICTS: usize = 10;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let json = args.iter().any(|a| a == "--json");
    let n = |i: usize| -> usize { args.get(i).and_then(|a| a.parse().ok()).unwrap_or(1000) };
    match args.first().map(String::as_str) {
        Some("level") => {
            let level = levelgen::Level::random(n(1), SEED);
            print!(
                "{}",
                if json {
                    level.to_json()
                } else {
                    level.to_sjson()
                }
            );
        }
        Some("merge-inputs") => {
            let inputs = MergeInputs::generate(n(1), SEED, CONFLICTS);
            let dir = std::path::Path::new(&args[2]);
            let ext = if json { "json" } else { "sjson" };
            let write = |name: &str, level: &levelgen::Level| {
                let text = if json {
                    level.to_json()
                } else {
                    level.to_sjson()
                };
                std::fs::write(dir.join(format!("{name}.{ext}")), text).expect("write");
            };
            write("base", &inputs.base);
            write("ours", &inputs.apply(&inputs.ours_edits));
            write("theirs", &inputs.apply(&inputs.theirs_edits));
        }
        Some("verify") => {
            let inputs = MergeInputs::generate(n(1), SEED, CONFLICTS);
            let merged = std::fs::read_to_string(&args[3]).expect("read merged");
            let problems = verify(&inputs, &merged);
            for p in problems.iter().take(20) {
                eprintln!("{p}");
            }
            if !problems.is_empty() {
                eprintln!("{} problems", problems.len());
                return ExitCode::from(1);
            }
        }
        Some("serde-roundtrip") => {
            let text = std::fs::read_to_string(&args[1]).expect("read");
            let v: serde_json::Value = serde_json::from_str(&text).expect("parse");
            println!("{}", serde_json::to_string_pretty(&v).expect("print"));
        }
        _ => {
            eprintln!("usage: levelgen level N [--json] | merge-inputs N DIR [--json] | verify N DIR MERGED | serde-roundtrip FILE");
            return ExitCode::from(2);
        }
    }
    ExitCode::SUCCESS
}
