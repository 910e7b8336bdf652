//! `assetvc`: structured merges and guards for SJSON/JSON game assets in plain git.

mod commands;
mod config;
mod files;
mod report;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Edit the same levels and assets at once, in plain git, without locks.
#[derive(Debug, Parser)]
#[command(name = "assetvc", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Write assets in the canonical style (in place; stdin to stdout without PATH).
    Fmt(commands::fmt::FmtArgs),
    /// Validate assets: every file parses.
    Check(commands::check::CheckArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let status = match &cli.command {
        Command::Fmt(args) => commands::fmt::run(args),
        Command::Check(args) => commands::check::run(args),
    };
    ExitCode::from(status.clamp(0, 255) as u8)
}
