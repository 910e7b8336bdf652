//! Why `assetvc install` (client or `--server`) could not set something up: the typed
//! errors of its steps, each worded as the step always said it.

use std::path::PathBuf;

/// A step of `install` that failed; nothing after it was done.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    /// A path the shell cannot quote (a NUL byte): `"<path>": <why>`.
    #[error("{word:?}: {source}")]
    Quote {
        /// The path, as it was to be quoted.
        word: String,
        /// Why it cannot be quoted.
        source: shlex::QuoteError,
    },
    /// A file system operation on `path` failed: `<path>: <why>`.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The hook that was there could not be kept as `NAME.local` (`install --server`).
    #[error("cannot rename {}: {source}", .path.display())]
    Rename {
        /// The hook that was there.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A hook that is not assetvc's is in the way, and so is its `NAME.local`.
    #[error(
        "{} exists and is not assetvc's, and {} exists too: merge them by hand, then run \
         `assetvc install` again",
        .hook.display(),
        .local.display()
    )]
    HookInTheWay {
        /// The foreign hook.
        hook: PathBuf,
        /// Where it would have been kept.
        local: PathBuf,
    },
    /// As [`InstallError::HookInTheWay`], for the server's pre-receive hook.
    #[error(
        "{} is not assetvc's and {} exists too: merge them by hand",
        .hook.display(),
        .local.display()
    )]
    ServerHookInTheWay {
        /// The foreign hook.
        hook: PathBuf,
        /// Where it would have been kept.
        local: PathBuf,
    },
    /// A file could not be written (the message names it; it ends the message).
    #[error("{0}")]
    Write(#[from] store::Error),
    /// The policy file could not be written where the server hook reads it.
    #[error("{}: {source}", .path.display())]
    WritePolicy {
        /// Where the policy goes.
        path: PathBuf,
        /// Why.
        source: store::Error,
    },
    /// `--server` names no git repository.
    #[error("{}: not a git repository: {source}", .path.display())]
    NotARepository {
        /// The path given.
        path: PathBuf,
        /// Why it did not open.
        source: store::Error,
    },
    /// The running binary's path could not be found.
    #[error("cannot find the assetvc executable: {0}")]
    Executable(#[source] std::io::Error),
    /// The `--config` file is not a valid configuration.
    #[error(transparent)]
    Config(#[from] config::ConfigError),
}

/// An `Io` error about `path`, for `map_err`.
pub fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> InstallError {
    let path = path.into();
    move |source| InstallError::Io { path, source }
}
