//! How a run ends. Every command returns `anyhow::Result<ExitCode>`: `Ok` with the status
//! its outcome means (0 clean, 1 conflicts or problems found; 2 when it went on past
//! errors it already reported), `Err` for a failure. [`failure`] is the one place that
//! turns an error into its message and exit status.

use std::process::ExitCode;

use crate::{output, report};

/// The status of a failure ([`failure`] prints its message as `assetvc: error: …`).
pub const FAILED: u8 = 2;

/// A failure that is not `assetvc: error: …` with status 2: `message` is printed as it
/// is (nothing when empty) and the run exits with `status` (a blocked commit exits 1).
#[derive(Debug)]
pub struct Exit {
    /// The exit status.
    pub status: u8,
    /// The whole message, in its final words; empty when already reported.
    pub message: String,
}

impl Exit {
    /// Exit with `status` after printing `message` as it is.
    pub fn new(status: u8, message: impl Into<String>) -> Exit {
        Exit {
            status,
            message: message.into(),
        }
    }

    /// Exit with `status` after `assetvc: error: <message>` (as [`report::error`] prints).
    pub fn error(status: u8, message: impl std::fmt::Display) -> Exit {
        let message = format!("assetvc: error: {}", report::safe(&message.to_string()));
        Exit::new(status, message)
    }
}

impl std::fmt::Display for Exit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Exit {}

/// The message of `e` and its causes, `: `-separated; a cause whose text is already in
/// the message (an error that displays its source) is not repeated, and the chain ends at
/// a [`store::Error`], whose message is complete (it says what it needs of its source).
pub fn message(e: &anyhow::Error) -> String {
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

/// Prints why the run failed and gives its exit status: nothing and 0 when stdout was
/// closed by its reader, an [`Exit`]'s own message and status, else `assetvc: error:
/// <message>` and [`FAILED`].
pub fn failure(e: &anyhow::Error) -> ExitCode {
    if output::is_closed(e) {
        return ExitCode::SUCCESS;
    }
    if let Some(exit) = e.downcast_ref::<Exit>() {
        if !exit.message.is_empty() {
            eprintln!("{}", exit.message);
        }
        return ExitCode::from(exit.status);
    }
    report::error(message(e));
    ExitCode::from(FAILED)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct ShowsSource(std::io::Error);

    impl std::fmt::Display for ShowsSource {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "a.level: {}", self.0)
        }
    }

    impl std::error::Error for ShowsSource {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }

    #[test]
    fn contexts_are_joined_and_causes_not_repeated() {
        let io = || std::io::Error::other("disk full");
        let e = anyhow::Error::new(io()).context("cannot write a.level");
        assert_eq!(message(&e), "cannot write a.level: disk full");
        let e = anyhow::Error::new(ShowsSource(io())).context("merging");
        assert_eq!(message(&e), "merging: a.level: disk full");
    }

    #[test]
    fn a_store_error_ends_the_chain() {
        let e = store::Error::NotARepository {
            path: ".".into(),
            source: Box::new(std::io::Error::other("not found")),
        };
        let e = anyhow::Error::new(e).context("opening");
        assert_eq!(message(&e), "opening: not a git repository: .");
    }
}
