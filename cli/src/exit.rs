//! How a run ends. Every command returns [`Result<Outcome>`](Result): `Ok` with what it did
//! ([`Outcome`]: done, conflicts left, problems found, blocked…), `Err` with why it failed,
//! a typed [`Error`]: a failure with words or a status of its own (bad input, usage, a
//! guard's refusal…), a library's error (store, config, install, git), an I/O error with
//! what it was done to, or any of these after what was being done ([`Context`], the
//! `context`/`with_context` of a result; [`bail!`] and [`failure!`] for words alone).
//! [`end`] is the one place that turns either into the final message and the exit status:
//! one `match` ([`status`]) over every outcome and every kind of failure.

use std::process::ExitCode;

pub(crate) use context::{bail, failure, Context};

use config::ConfigError;

use crate::commands::git_version::GitError;
use crate::commands::install_error::InstallError;
use crate::commands::merging::LoadError;
use crate::{output, report};

/// What a command gives: its outcome, or why it failed.
pub type Result<T, E = Error> = std::result::Result<T, E>;

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
        /// What went wrong (boxed, as `versions`: a failure stays small to return).
        error: Box<merge::MergeError>,
        /// The file being merged, as the user named it.
        file: String,
        /// Base, ours and theirs as the user knows them (files, or the file and a side).
        versions: Box<[String; 3]>,
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
    /// Any other failure, in words (what `bail!` says): `assetvc: error: <its contexts>:
    /// <words>`; exit 2.
    #[error("{0}")]
    Other(String),
    /// The repository could not be read or written: the store's words, complete; exit 2.
    #[error(transparent)]
    Store(#[from] store::Error),
    /// The configuration cannot be used (`file:line:col: reason`); exit 2.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A step of `install` failed; exit 2.
    #[error(transparent)]
    Install(#[from] InstallError),
    /// The installed git cannot run what was asked; exit 2.
    #[error(transparent)]
    Git(#[from] GitError),
    /// A file system operation failed: `<what>: <why>`; exit 2.
    #[error("{what}")]
    Io {
        /// What was being done, or the path it was done to.
        what: String,
        /// Why it failed.
        #[source]
        source: std::io::Error,
    },
    /// A failure with what was being done put before it: `<what>: <failure>` (unless the
    /// failure has words of its own, [`Error::ending`]); exit 2.
    #[error("{what}")]
    Context {
        /// What was being done.
        what: String,
        /// The failure.
        #[source]
        source: Box<Error>,
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

impl Error {
    /// The failure whose words end the run: `self`, or under its contexts the failure
    /// with words of its own they frame ([`Error::has_words`]); any other failure is
    /// said whole, contexts first ([`chain`]).
    pub fn ending(&self) -> &Error {
        let mut inner = self;
        while let Error::Context { source, .. } = inner {
            inner = source;
        }
        if inner.has_words() {
            inner
        } else {
            self
        }
    }

    /// Whether the failure has words of its own, said without the contexts it is in.
    fn has_words(&self) -> bool {
        match self {
            Error::BadInput(_)
            | Error::Load(_)
            | Error::Usage(_)
            | Error::Merge { .. }
            | Error::Blocked(_)
            | Error::CommitAborted { .. }
            | Error::Failed(_)
            | Error::Output { .. } => true,
            Error::Other(_)
            | Error::Store(_)
            | Error::Config(_)
            | Error::Install(_)
            | Error::Git(_)
            | Error::Io { .. }
            | Error::Context { .. } => false,
        }
    }
}

impl From<std::io::Error> for Error {
    /// An I/O failure with nothing to add: said as it is.
    fn from(source: std::io::Error) -> Error {
        Error::Io {
            what: source.to_string(),
            source,
        }
    }
}

/// How a run ended: an outcome or a failure, before it is printed.
#[derive(Debug)]
pub enum Ending<'a> {
    /// The command's outcome.
    Outcome(Outcome),
    /// A failure ([`Error::ending`]).
    Error(&'a Error),
    /// Standard output was closed by its reader (`assetvc … | head`): nothing more to do.
    OutputClosed,
}

impl<'a> Ending<'a> {
    /// How `result` ended.
    pub fn of(result: &'a Result<Outcome, Error>) -> Ending<'a> {
        match result {
            Ok(outcome) => Ending::Outcome(*outcome),
            Err(e) => Ending::failed(e),
        }
    }

    /// How a run failing with `e` ends.
    pub fn failed(e: &'a Error) -> Ending<'a> {
        if output::is_closed(e) {
            return Ending::OutputClosed;
        }
        Ending::Error(e.ending())
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
            | Error::Output { .. }
            | Error::Other(_)
            | Error::Store(_)
            | Error::Config(_)
            | Error::Install(_)
            | Error::Git(_)
            | Error::Io { .. }
            | Error::Context { .. },
        ) => 2,
    }
}

/// The final message of an ending, if any: a diagnostic or a guard's words as they are,
/// a usage error after `assetvc: `, any other failure after `assetvc: error: `; always
/// escaped for the terminal ([`report::safe`]: escaping twice changes nothing more).
pub fn message(ending: &Ending<'_>) -> Option<String> {
    let text = match ending {
        Ending::Outcome(_) | Ending::OutputClosed => return None,
        Ending::Error(
            e @ (Error::BadInput(_) | Error::Load(_) | Error::Blocked(_) | Error::Output { .. }),
        ) => e.to_string(),
        Ending::Error(e @ Error::Merge { error, .. })
            if matches!(**error, merge::MergeError::Parse { .. }) =>
        {
            e.to_string()
        }
        Ending::Error(e @ Error::Usage(_)) => format!("assetvc: {e}"),
        Ending::Error(
            e @ (Error::Merge { .. } | Error::CommitAborted { .. } | Error::Failed(_)),
        ) => {
            format!("assetvc: error: {e}")
        }
        Ending::Error(
            e @ (Error::Other(_)
            | Error::Store(_)
            | Error::Config(_)
            | Error::Install(_)
            | Error::Git(_)
            | Error::Io { .. }
            | Error::Context { .. }),
        ) => format!("assetvc: error: {}", chain(e)),
    };
    Some(report::safe(&text).into_owned())
}

/// Prints how `result` ended and gives its exit status: the one place a run ends.
pub fn end(result: Result<Outcome, Error>) -> ExitCode {
    let ending = Ending::of(&result);
    if let Some(message) = message(&ending) {
        eprintln!("{message}");
    }
    ExitCode::from(status(&ending))
}

/// Prints the message of a failure a command goes on past (`sync --watch` between cycles),
/// as [`end`] would.
pub fn report(e: &Error) {
    if let Some(message) = message(&Ending::failed(e)) {
        eprintln!("{message}");
    }
}

/// `e` and its causes, outermost first.
pub fn causes(e: &Error) -> impl Iterator<Item = &(dyn std::error::Error + 'static)> {
    std::iter::successors(Some(e as &(dyn std::error::Error + 'static)), |cause| {
        cause.source()
    })
}

/// The message of `e` and its causes, `: `-separated; a cause whose text is already in
/// the message (an error that displays its source) is not repeated, and the chain ends at
/// a [`store::Error`], whose message is complete (it says what it needs of its source).
pub fn chain(e: &Error) -> String {
    let mut text = String::new();
    for cause in causes(e) {
        let part = cause.to_string();
        if !text.contains(&part) {
            if !text.is_empty() {
                text.push_str(": ");
            }
            text.push_str(&part);
        }
        let ours = (cause.downcast_ref::<Error>())
            .or_else(|| cause.downcast_ref::<Box<Error>>().map(|e| &**e));
        if cause.is::<store::Error>() || matches!(ours, Some(Error::Store(_))) {
            break;
        }
    }
    text
}

/// Every message of `e` and its causes, `: `-separated, a message said again by the
/// next cause once (an I/O error said as it is, [`Error::Io`], is its own cause).
pub fn alternate(e: &Error) -> String {
    let mut parts: Vec<String> = causes(e).map(|cause| cause.to_string()).collect();
    parts.dedup();
    parts.join(": ")
}

pub mod context;
#[cfg(test)]
mod tests;
