//! What was being done, put before a failure ([`Error::Context`], [`Error::Io`]).

use std::fmt::Display;

use super::Error;

/// A failure that can say what was being done when it happened.
pub trait Wrap {
    /// The failure, after `what`.
    fn wrap(self, what: String) -> Error;
}

impl Wrap for Error {
    fn wrap(self, what: String) -> Error {
        Error::Context {
            what,
            source: Box::new(self),
        }
    }
}

impl Wrap for std::io::Error {
    fn wrap(self, what: String) -> Error {
        Error::Io { what, source: self }
    }
}

/// Wraps the failures that convert into an [`Error`] as they are.
macro_rules! wrap_into {
    ($($t:ty),* $(,)?) => {$(
        impl Wrap for $t {
            fn wrap(self, what: String) -> Error {
                Error::from(self).wrap(what)
            }
        }
    )*};
}

wrap_into!(
    store::Error,
    config::ConfigError,
    crate::commands::install_error::InstallError,
    crate::commands::git_version::GitError,
);

/// `context` and `with_context` on a result or an option: its failure (its absence),
/// after what was being done.
pub trait Context<T> {
    /// The failure after `what`.
    fn context<W: Display>(self, what: W) -> Result<T, Error>;
    /// The failure after what `what` says, computed only on failure.
    fn with_context<W: Display, F: FnOnce() -> W>(self, what: F) -> Result<T, Error>;
}

impl<T, E: Wrap> Context<T> for Result<T, E> {
    fn context<W: Display>(self, what: W) -> Result<T, Error> {
        self.map_err(|e| e.wrap(what.to_string()))
    }

    fn with_context<W: Display, F: FnOnce() -> W>(self, what: F) -> Result<T, Error> {
        self.map_err(|e| e.wrap(what().to_string()))
    }
}

impl<T> Context<T> for Option<T> {
    fn context<W: Display>(self, what: W) -> Result<T, Error> {
        self.ok_or_else(|| Error::Other(what.to_string()))
    }

    fn with_context<W: Display, F: FnOnce() -> W>(self, what: F) -> Result<T, Error> {
        self.ok_or_else(|| Error::Other(what().to_string()))
    }
}

/// Returns early with [`Error::Other`] in the words of `format!`.
macro_rules! bail {
    ($($arg:tt)*) => {
        return Err($crate::exit::failure!($($arg)*))
    };
}

/// An [`Error::Other`] in the words of `format!` (or of one displayable value).
macro_rules! failure {
    ($fmt:literal $(, $arg:expr)* $(,)?) => {
        $crate::exit::Error::Other(format!($fmt $(, $arg)*))
    };
    ($e:expr $(,)?) => {
        $crate::exit::Error::Other($e.to_string())
    };
}

pub(crate) use {bail, failure};
