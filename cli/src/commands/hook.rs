//! `assetvc hook pre-commit | pre-receive`: what the installed git hooks call.
//!
//! Both print their report on stderr (git shows a pre-commit hook's output to the
//! committer and relays a pre-receive hook's to the pusher as `remote: …`) and exit 1
//! to stop the commit or reject the push, 0 to let it through.

use std::io::Read;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};

use crate::exit::{Error, Outcome};

/// Arguments of `assetvc hook`.
#[derive(Debug, Args)]
pub struct HookArgs {
    /// The hook git is running.
    #[command(subcommand)]
    pub hook: HookKind,
}

/// The hooks.
#[derive(Debug, Subcommand)]
pub enum HookKind {
    /// Check the staged files before git records a commit (client side).
    PreCommit,
    /// Check what a push brings in before git updates any ref (server side; reads
    /// `old new ref` lines on stdin).
    PreReceive,
}

/// Runs a hook: 0 let it through, 1 stop it.
pub fn run(args: &HookArgs) -> crate::exit::Result<Outcome> {
    match args.hook {
        HookKind::PreCommit => pre_commit(),
        HookKind::PreReceive => pre_receive(),
    }
}

fn pre_commit() -> crate::exit::Result<Outcome> {
    let report = hooks::pre_commit::run(Path::new("."));
    let hint = "fix them and `git add` the files; `git commit --no-verify` skips this check";
    if let Some(fatal) = &report.fatal {
        let fatal = crate::report::safe(&fatal.to_string()).into_owned();
        let message = format!(
            "assetvc: commit blocked: cannot check it: {fatal}\n\
             assetvc: `git commit --no-verify` skips this check"
        );
        return Err(Error::Blocked(message));
    }
    for p in &report.problems {
        eprintln!("{}", p.render());
    }
    // Warnings are printed above and never block.
    let n = report.problems.iter().filter(|p| p.is_error()).count();
    if n == 0 {
        return Ok(Outcome::Done);
    }
    eprintln!(
        "assetvc: commit blocked: {n} problem{} in staged files ({hint})",
        if n == 1 { "" } else { "s" }
    );
    Ok(Outcome::Blocked)
}

fn pre_receive() -> crate::exit::Result<Outcome> {
    let mut input = Vec::new();
    if let Err(e) = std::io::stdin().read_to_end(&mut input) {
        let message = format!("assetvc: push rejected: cannot read the hook's input: {e}");
        return Err(Error::Blocked(message));
    }
    let input = String::from_utf8_lossy(&input);
    let git_dir = std::env::var_os("GIT_DIR").map_or_else(|| PathBuf::from("."), PathBuf::from);
    let quarantine = store::ObjectDirs::from_env();
    let result = catch_unwind(AssertUnwindSafe(|| {
        hooks::pre_receive::run(&input, &git_dir, quarantine.as_ref())
    }));
    match result {
        Ok(report) => {
            eprint!("{}", crate::report::safe(&report.render()));
            Ok(Outcome::done_unless(!report.accepted(), Outcome::Blocked))
        }
        Err(_) => {
            let message = "assetvc: push rejected: internal error (a crash); please report it";
            Err(Error::Blocked(message.into()))
        }
    }
}
