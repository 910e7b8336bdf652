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
    /// Merge three versions of an asset by structure, like `git merge-file`.
    MergeFile(commands::merge_file::MergeFileArgs),
    /// The merge driver git calls: `assetvc merge-driver %O %A %B %P`.
    MergeDriver(commands::merge_driver::MergeDriverArgs),
    /// Compile and run an expression of the expression language.
    Expr(commands::expr::ExprArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let status = match &cli.command {
        Command::Fmt(args) => commands::fmt::run(args),
        Command::Check(args) => commands::check::run(args),
        Command::MergeFile(args) => commands::merge_file::run(args),
        Command::MergeDriver(args) => commands::merge_driver::run(args),
        Command::Expr(args) => commands::expr::run(args),
    };
    ExitCode::from(status.clamp(0, 255) as u8)
}
