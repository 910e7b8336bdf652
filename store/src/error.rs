//! The error type of the porcelain modules (`repo`, `worktree`, `commit`, `treemerge`,
//! `fetch`, `setup`).

use std::path::PathBuf;

/// What can go wrong while reading or changing a repository.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No repository contains the directory.
    #[error("not a git repository: {0}")]
    NotARepository(PathBuf),
    /// The operation needs a worktree.
    #[error("{0} is a bare repository; this command needs a worktree")]
    Bare(PathBuf),
    /// A revision that does not name a commit.
    #[error("unknown revision {0:?}")]
    UnknownRevision(String),
    /// The operation cannot start in the repository's present state (local changes in the
    /// way, a merge in progress, unmerged paths…); nothing was changed.
    #[error("{message}")]
    Refused {
        /// What is in the way, for people.
        message: String,
        /// The paths concerned, repository-relative.
        paths: Vec<String>,
    },
    /// Another process holds the index lock; nothing was changed.
    #[error(
        "another git process seems to be running in this repository ({} exists); \
         if not, remove that file and try again",
        lock.display()
    )]
    Locked {
        /// The lock file.
        lock: PathBuf,
    },
    /// A tree that git would refuse to check out (`git fsck` flags it): nothing was written.
    #[error("refusing to check out {path:?}: {reason}")]
    UnsafePath {
        /// The repository-relative path, as it appears in the tree.
        path: String,
        /// Why it is unsafe.
        reason: String,
    },
    /// Bad input from the caller (a path outside the worktree, a missing identity…).
    #[error("{0}")]
    Usage(String),
    /// A file system operation failed.
    #[error("{context}: {source}")]
    Io {
        /// What was being done, usually naming the path.
        context: String,
        /// The cause.
        source: std::io::Error,
    },
    /// gix reported an error.
    #[error("{0:#}")]
    Git(#[from] gix::Error),
    /// gix reported an error of another type.
    #[error("{0}")]
    GitOther(String),
    /// A command (`git push`, `git fetch`) could not run or failed.
    #[error("{0}")]
    Command(String),
}

impl Error {
    /// An I/O error with context.
    pub fn io(context: impl Into<String>, source: std::io::Error) -> Error {
        Error::Io {
            context: context.into(),
            source,
        }
    }

    /// An error raised by gix whose type is not [`gix::Error`].
    pub fn git(e: impl std::fmt::Display) -> Error {
        Error::GitOther(format!("{e:#}"))
    }

    /// Whether the error is the caller's (bad input, state that prevents the operation) rather
    /// than a failure of the repository or the system: the command line maps both to exit 2.
    pub fn is_refusal(&self) -> bool {
        matches!(
            self,
            Error::Refused { .. } | Error::Locked { .. } | Error::UnsafePath { .. }
        )
    }
}

/// The result type of the porcelain modules.
pub type Result<T, E = Error> = std::result::Result<T, E>;
