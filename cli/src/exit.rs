//! How a run ends. Every command returns `anyhow::Result<Outcome>`: `Ok` with what it did
//! ([`Outcome`]: done, conflicts left, problems found, blocked…), `Err` for a failure, a
//! typed [`Error`] when the failure has words or a status of its own, else any error
//! (its chain is the message). [`end`] is the one place that turns either into the final
//! message and the exit status: one `match` ([`status`]) over every outcome and failure.

use std::process::ExitCode;

use crate::commands::merging::LoadError;
use crate::{output, report};

/// What a command did, as far as its exit status tells: 0 for [`Outcome::Done`], 1 for
/// what is left to the user (conflicts, problems, a guard's refusal), 2 when it went on
/// past errors it already reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Done as asked: merged cleanly, nothing found, nothing to do, shown, written.
    Done,
    /// A merge left conflicts for the user: policy `fail` met one, a result broke an
    /// invariant its inputs kept, or paths were left unresolved.
    Conflicts,
    /// Files saved while a merge wrote them were left as they were saved, without the
    /// merge's changes.
    LeftAlone,
    /// Problems were found and reported (`check`, `doctor`, `migrate`, `fmt --check`, a
    /// pull request that cannot land).
    Problems,
    /// A guard stopped it (a hook refused a commit or a push; `pr land` refused).
    Blocked,
    /// There was nothing to commit.
    NothingToCommit,
    /// `sync` did not bring the upstream in (reported: a file that does not parse yet, a
    /// diverged branch, a file saved while sync wrote it).
    NotBroughtIn,
    /// `git push` was rejected or failed (git reported why).
    PushRejected,
    /// It went on past errors it already reported (one file of many, a remote).
    ErrorsReported,
}

impl Outcome {
    /// Every outcome, for the table test.
    #[cfg(test)]
    pub const ALL: [Outcome; 9] = [
        Outcome::Done,
        Outcome::Conflicts,
        Outcome::LeftAlone,
        Outcome::Problems,
        Outcome::Blocked,
        Outcome::NothingToCommit,
        Outcome::NotBroughtIn,
        Outcome::PushRejected,
        Outcome::ErrorsReported,
    ];

    /// `then` when `left` (something is left to the user), else [`Outcome::Done`].
    pub fn done_unless(left: bool, then: Outcome) -> Outcome {
        if left {
            then
        } else {
            Outcome::Done
        }
    }

    /// The graver of two outcomes (the one with the higher status; `self` on a tie), for
    /// a command that sums up many files.
    pub fn worst(self, other: Outcome) -> Outcome {
        if status(&Ending::Outcome(other)) > status(&Ending::Outcome(self)) {
            other
        } else {
            self
        }
    }
}

/// A failure with words or a status of its own. Its `Display` is what went wrong; the
/// final message frames it ([`message`]: as it is, or after `assetvc: error: `).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Bad input: the diagnostic, ready to print (`file:line:col: reason` and the
    /// offending line); exit 2, nothing written.
    #[error("{0}")]
    BadInput(String),
    /// A version could not be loaded: its diagnostic (`file:line:col: reason` and the
    /// offending line); exit 2, nothing written.
    #[error(transparent)]
    Load(#[from] LoadError),
    /// A command used the wrong way (`assetvc: <what>`); exit 2.
    #[error("{0}")]
    Usage(String),
    /// A merge of `file` could not be made: `ours.sjson:3:4: reason; nothing was
    /// written` (the version named by its file), else `<file>: reason`; exit 2.
    #[error("{}", merge_message(.error, .file, .versions))]
    Merge {
        /// What went wrong.
        error: merge::MergeError,
        /// The file being merged, as the user named it.
        file: String,
        /// Base, ours and theirs as the user knows them (files, or the file and a side).
        versions: [String; 3],
    },
    /// A guard stopped the run (a hook's refusal, in its own words); exit 1.
    #[error("{0}")]
    Blocked(String),
    /// `commit` found `problems` assets failing the checks (printed above); exit 1.
    #[error(
        "commit aborted: {problems} asset{} failed the checks; nothing was committed",
        if *.problems == 1 { "" } else { "s" }
    )]
    CommitAborted {
        /// How many assets failed.
        problems: usize,
    },
    /// A failure in final words: `assetvc: error: <message>`; exit 2.
    #[error("{0}")]
    Failed(String),
    /// The output could not be written (not closed by its reader): `<command>: cannot
    /// write output: …`; exit 2.
    #[error("{command}: cannot write output: {source}")]
    Output {
        /// The command writing.
        command: &'static str,
        /// Why.
        source: std::io::Error,
    },
}

/// A merge error as the cli words it: a version's parse error at its file's position, the
/// rest with what was (not) written.
fn merge_message(error: &merge::MergeError, file: &str, versions: &[String; 3]) -> String {
    let reason = match error {
        merge::MergeError::Parse { version, error } => {
            let version = report::safe_line(&versions[version.index()]);
            return format!(
                "{version}:{}:{}: {}; nothing was written",
                error.line, error.col, error.kind
            );
        }
        // A coherence error says itself what was (not) written.
        merge::MergeError::Coherence(e) => e.to_string(),
        e => format!("{e}; nothing was written"),
    };
    format!("{file}: {reason}")
}

/// How a run ended: an outcome or a failure, before it is printed.
#[derive(Debug)]
pub enum Ending<'a> {
    /// The command's outcome.
    Outcome(Outcome),
    /// A failure with words of its own.
    Error(&'a Error),
    /// Standard output was closed by its reader (`assetvc … | head`): nothing more to do.
    OutputClosed,
    /// Any other failure: `assetvc: error: <its chain>`.
    Other(&'a anyhow::Error),
}

impl<'a> Ending<'a> {
    /// How `result` ended.
    pub fn of(result: &'a anyhow::Result<Outcome>) -> Ending<'a> {
        match result {
            Ok(outcome) => Ending::Outcome(*outcome),
            Err(e) => Ending::failed(e),
        }
    }

    /// How a run failing with `e` ends.
    pub fn failed(e: &'a anyhow::Error) -> Ending<'a> {
        if output::is_closed(e) {
            return Ending::OutputClosed;
        }
        match e.downcast_ref::<Error>() {
            Some(error) => Ending::Error(error),
            None => Ending::Other(e),
        }
    }
}

/// The exit status of every ending: the one table (README: 0 success; 1 conflicts or
/// problems left for the user; 2 bad input, usage or failure).
pub fn status(ending: &Ending<'_>) -> u8 {
    match ending {
        Ending::Outcome(Outcome::Done) | Ending::OutputClosed => 0,
        Ending::Outcome(
            Outcome::Conflicts
            | Outcome::LeftAlone
            | Outcome::Problems
            | Outcome::Blocked
            | Outcome::NothingToCommit
            | Outcome::NotBroughtIn
            | Outcome::PushRejected,
        ) => 1,
        Ending::Error(Error::Blocked(_) | Error::CommitAborted { .. }) => 1,
        Ending::Outcome(Outcome::ErrorsReported)
        | Ending::Error(
            Error::BadInput(_)
            | Error::Load(_)
            | Error::Usage(_)
            | Error::Merge { .. }
            | Error::Failed(_)
            | Error::Output { .. },
        )
        | Ending::Other(_) => 2,
    }
}

/// The final message of an ending, if any: a diagnostic or a guard's words as they are,
/// a usage error after `assetvc: `, any other failure after `assetvc: error: `; always
/// escaped for the terminal ([`report::safe`]: escaping twice changes nothing more).
pub fn message(ending: &Ending<'_>) -> Option<String> {
    let text = match ending {
        Ending::Outcome(_) | Ending::OutputClosed => return None,
        Ending::Error(
            e @ (Error::BadInput(_)
            | Error::Load(_)
            | Error::Blocked(_)
            | Error::Output { .. }
            | Error::Merge {
                error: merge::MergeError::Parse { .. },
                ..
            }),
        ) => e.to_string(),
        Ending::Error(e @ Error::Usage(_)) => format!("assetvc: {e}"),
        Ending::Error(
            e @ (Error::Merge { .. } | Error::CommitAborted { .. } | Error::Failed(_)),
        ) => {
            format!("assetvc: error: {e}")
        }
        Ending::Other(e) => format!("assetvc: error: {}", chain(e)),
    };
    Some(report::safe(&text).into_owned())
}

/// Prints how `result` ended and gives its exit status: the one place a run ends.
pub fn end(result: anyhow::Result<Outcome>) -> ExitCode {
    let ending = Ending::of(&result);
    if let Some(message) = message(&ending) {
        eprintln!("{message}");
    }
    ExitCode::from(status(&ending))
}

/// Prints the message of a failure a command goes on past (`sync --watch` between cycles),
/// as [`end`] would.
pub fn report(e: &anyhow::Error) {
    if let Some(message) = message(&Ending::failed(e)) {
        eprintln!("{message}");
    }
}

/// The message of `e` and its causes, `: `-separated; a cause whose text is already in
/// the message (an error that displays its source) is not repeated, and the chain ends at
/// a [`store::Error`], whose message is complete (it says what it needs of its source).
pub fn chain(e: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in e.chain() {
        let part = cause.to_string();
        if !text.contains(&part) {
            if !text.is_empty() {
                text.push_str(": ");
            }
            text.push_str(&part);
        }
        if cause.is::<store::Error>() {
            break;
        }
    }
    text
}

#[cfg(test)]
mod tests;
