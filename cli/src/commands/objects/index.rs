//! `assetvc index [--rev REV]`: builds the object index of the whole history reachable
//! from REV now, with a progress bar on a terminal. `show`, `log` and `blame` never wait
//! for it (they read only the commits they need); a built index makes `log` and `blame`
//! over long histories fast. What is built is kept as it goes: after Ctrl-C, the next run
//! goes on from where it stopped.

use clap::Args;

use super::open;
use crate::exit::Outcome;

/// Arguments of `assetvc index`.
#[derive(Debug, Args)]
pub struct IndexArgs {
    /// Index the history reachable from this revision.
    #[arg(long, default_value = "HEAD")]
    pub rev: String,
}

/// Runs `assetvc index`.
pub fn run(args: &IndexArgs) -> crate::exit::Result<Outcome> {
    let repo = open()?;
    let mut index = repo.index();
    let commit = index.resolve_commit(&args.rev)?;
    let started = std::time::Instant::now();
    index.ensure(commit)?;
    eprintln!(
        "assetvc: object index of {} built ({:.1} s)",
        crate::report::safe(&args.rev),
        started.elapsed().as_secs_f64()
    );
    Ok(Outcome::Done)
}
