//! `assetvc`: structured merges and guards for SJSON/JSON game assets in plain git.
//!
//! The command line of the `assetvc` binary ([`main`]) and of the lean merge driver binary
//! `assetvc-merge-driver` ([`merge_driver_main`]). Both binaries are thin: this library is
//! the cli, the one place that turns outcomes and errors into messages and exit statuses
//! (`exit.rs`).

#![warn(missing_docs)]

#[macro_use]
mod output;

mod alloc;
mod commands;
mod debug_bundle;
mod exit;
mod files;
mod interrupt;
mod mapped;
mod progress;
mod repo_config;
mod report;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

pub use alloc::HugePages;

/// The version both binaries print: the package's, and the source they were built from
/// (a hash of the workspace's sources, by `build.rs`), so that `assetvc install` can tell
/// a lean driver built from other source.
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (source ",
    env!("ASSETVC_SOURCE_ID"),
    ")"
);

/// Edit the same levels and assets at once, in plain git, without locks.
#[derive(Debug, Parser)]
#[command(name = "assetvc", version = VERSION, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Write assets in the canonical style (in place; stdin to stdout without PATH).
    Fmt(commands::fmt::FmtArgs),
    /// Validate assets: parse, conflict markers, unique ids, Lua and expressions.
    Check(commands::check::CheckArgs),
    /// Merge three versions of an asset by structure, like `git merge-file`.
    MergeFile(commands::merge_file::MergeFileArgs),
    /// The merge driver git calls: `assetvc merge-driver -- %O %A %B %P`.
    ///
    /// The lean binary `assetvc-merge-driver -- %O %A %B %P` is the same driver, faster to
    /// start; `assetvc install` registers it when it is installed beside assetvc.
    MergeDriver(commands::merge_driver::MergeDriverArgs),
    /// Compile and run an expression of the expression language.
    Expr(commands::expr::ExprArgs),
    /// Set this clone up: .gitattributes, merge and diff drivers, the pre-commit hook.
    Install(commands::install::InstallArgs),
    /// Report whether this clone is set up (same as `install --check`).
    Doctor(commands::install::DoctorArgs),
    /// Check the assets being committed, then commit (through gix).
    Commit(commands::commit::CommitArgs),
    /// Merge a branch: assets by structure, other text by lines, in memory; then commit.
    Merge(commands::merge::MergeArgs),
    /// Fetch a branch and merge it like `assetvc merge`.
    Pull(commands::pull::PullArgs),
    /// Push with `git push` (same arguments).
    Push(commands::push::PushArgs),
    /// Pull requests in CI: check, update the branch, land through a merge queue.
    Pr(commands::pr::PrArgs),
    /// The conflicts the last merge resolved by policy, and the paths it left.
    Conflicts(commands::conflicts::ConflictsArgs),
    /// After a merge, redo the policy's choice for one object or every conflict of a file.
    Resolve(commands::resolve::ResolveArgs),
    /// Object-level diff of assets: two files, or revisions (default HEAD vs the worktree).
    Diff(commands::diff::DiffArgs),
    /// The external diff command git calls (`diff.assetvc.command = assetvc diff-driver`).
    DiffDriver(commands::diff::DiffDriverArgs),
    /// A throwaway repository, two designers, one level: git's merge vs assetvc's.
    Demo(commands::demo::DemoArgs),
    /// What the installed git hooks call: `assetvc hook pre-commit | pre-receive`.
    Hook(commands::hook::HookArgs),
    /// One-shot: ids into every array of objects that has none, in one commit.
    Migrate(commands::migrate::MigrateArgs),
    /// Apply a change set (as a three-way merge) or an RFC 6902 JSON Patch to a file.
    Apply(commands::apply::ApplyArgs),
    /// Share your uncommitted asset edits and merge the upstream in, once or --watch.
    Sync(commands::sync::SyncArgs),
    /// Who else is editing which objects (from their synced work in progress).
    Who(commands::who::WhoArgs),
    /// An object's content and where it lives (OBJECT: FILE#ID, id, id prefix or name).
    Show(commands::objects::show::ShowArgs),
    /// The commits that changed an object: author, date, properties changed.
    Log(commands::objects::log::LogArgs),
    /// For each object of a file and each property: the commit, author and date of its last change.
    Blame(commands::objects::blame::BlameArgs),
    /// Put one object back as it was at a revision; nothing else in the file changes.
    Restore(commands::objects::restore::RestoreArgs),
    /// Build the object index of the whole history now (resumable), for `log` and `blame`.
    Index(commands::objects::index::IndexArgs),
}

/// The `assetvc` command line: parses the arguments, runs the command, gives its status.
pub fn main() -> ExitCode {
    alloc::fix_mmap_threshold();
    let cli = Cli::parse();
    exit::end(run(&cli.command))
}

/// The `assetvc-merge-driver` binary: `assetvc merge-driver` without the rest of the
/// command line, for git to start once per merged file (`commands::merge_driver`).
pub fn merge_driver_main() -> ExitCode {
    alloc::fix_mmap_threshold();
    exit::end(commands::merge_driver::main_lean(
        std::env::args_os().skip(1),
    ))
}

/// The `git-merge-assetvc` binary: the merge strategy git runs once per merge step
/// (`commands::merge_strategy`).
pub fn merge_strategy_main() -> ExitCode {
    alloc::fix_mmap_threshold();
    interrupt::remove_locks_on_termination();
    exit::end(commands::merge_strategy::main(std::env::args_os().skip(1)))
}

/// Runs one command: its exit status, or the failure `main` reports.
fn run(command: &Command) -> exit::Result<exit::Outcome> {
    match command {
        Command::Fmt(args) => commands::fmt::run(args),
        Command::Check(args) => commands::check::run(args),
        Command::MergeFile(args) => commands::merge_file::run(args),
        Command::MergeDriver(args) => commands::merge_driver::run(args),
        Command::Expr(args) => commands::expr::run(args),
        Command::Install(args) => commands::install::run(args),
        Command::Doctor(args) => commands::install::doctor(args),
        Command::Commit(args) => commands::commit::run(args),
        Command::Merge(args) => commands::merge::run(args),
        Command::Pull(args) => commands::pull::run(args),
        Command::Push(args) => commands::push::run(args),
        Command::Pr(args) => commands::pr::run(args),
        Command::Conflicts(args) => commands::conflicts::run(args),
        Command::Resolve(args) => commands::resolve::run(args),
        Command::Diff(args) => commands::diff::run(args),
        Command::DiffDriver(args) => commands::diff::run_driver(args),
        Command::Demo(args) => commands::demo::run(args),
        Command::Hook(args) => commands::hook::run(args),
        Command::Migrate(args) => commands::migrate::run(args),
        Command::Apply(args) => commands::apply::run(args),
        Command::Sync(args) => commands::sync::run(args),
        Command::Who(args) => commands::who::run(args),
        Command::Show(args) => commands::objects::show::run(args),
        Command::Log(args) => commands::objects::log::run(args),
        Command::Blame(args) => commands::objects::blame::run(args),
        Command::Restore(args) => commands::objects::restore::run(args),
        Command::Index(args) => commands::objects::index::run(args),
    }
}
