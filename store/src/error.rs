//! [`Error`]: the one error type of the crate.
//!
//! Causes are kept as [`std::error::Error::source`]s (gix's many error types boxed in
//! [`Error::Git`]); each message also ends with its cause's, as the command line has always
//! printed them, so print an `Error` with `{}` (not by walking the source chain, which would
//! repeat the cause).

use std::path::PathBuf;

use crate::objects::Candidate;

/// A boxed cause (gix's error types, a thread's message…).
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// What can go wrong while reading or changing a repository.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No repository contains the directory, or the directory is not one.
    #[error("not a git repository: {}", path.display())]
    NotARepository {
        /// The directory given.
        path: PathBuf,
        /// Why gix could not open it.
        #[source]
        source: BoxError,
    },
    /// The operation needs a worktree.
    #[error("{0} is a bare repository; this command needs a worktree")]
    Bare(PathBuf),
    /// A revision that does not name a commit (or a tree, where one is enough).
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
    /// A ref lock file (`packed-refs.lock`, `HEAD.lock`, `refs/…/NAME.lock`) is in the
    /// way of a ref update or a fetch; nothing was changed.
    #[error("cannot update refs: the lock file {} exists; {holder}", lock.display())]
    RefLocked {
        /// The lock file, its full path.
        lock: PathBuf,
        /// Who may hold it.
        holder: crate::ref_lock::LockHolder,
    },
    /// A tree that git would refuse to check out (`git fsck` flags it): nothing was written.
    #[error("refusing to check out {path:?}: {reason}")]
    UnsafePath {
        /// The repository-relative path, as it appears in the tree.
        path: String,
        /// Why it is unsafe.
        reason: String,
    },
    /// A file that assetvc would have to write through a symbolic link or replace it.
    #[error("{}: is a symbolic link; not writing through it or replacing it", .0.display())]
    Symlink(PathBuf),
    /// A file to write is a directory.
    #[error("{}: is a directory", .0.display())]
    Directory(PathBuf),
    /// Bad input from the caller (a path outside the worktree, a missing identity…).
    #[error("{0}")]
    Usage(String),
    /// An object spec (`FILE#ID`, an id, a name) matches no object.
    #[error("no object matches \"{0}\"")]
    NoSuchObject(String),
    /// An object spec matches several objects; the candidates are listed.
    #[error("\"{spec}\" is ambiguous: {} objects match", candidates.len())]
    AmbiguousObject {
        /// The spec.
        spec: String,
        /// What it may mean.
        candidates: Vec<Candidate>,
    },
    /// The version to restore an object from has no object with this id.
    #[error("the source has no object \"{0}\"")]
    NotInSource(String),
    /// A deleted object cannot be re-created: the array it was in does not exist any more.
    #[error("cannot re-create \"{id}\": its array {array} no longer exists")]
    NoPlace {
        /// The object's id.
        id: String,
        /// The array's JSON Pointer.
        array: String,
    },
    /// A document assetvc produced does not parse (a bug; nothing is written).
    #[error("internal error: the {what} does not parse ({source})")]
    Unparsable {
        /// Which document.
        what: &'static str,
        /// Where and why (`line:col: reason`).
        #[source]
        source: sjson::ParseError,
    },
    /// A merge journal step names versions that are not (or no longer) recorded.
    #[error("the versions of this merge are no longer recorded ({0})")]
    MissingVersions(String),
    /// The scratch object database over a pre-receive quarantine cannot be set up.
    #[error("cannot open the quarantined objects: {}: {source}", path.display())]
    Quarantine {
        /// The directory concerned.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A pushed object is missing, unreadable or of the wrong kind.
    #[error("cannot read object {id}: {source}")]
    Object {
        /// The object.
        id: gix::ObjectId,
        /// Why.
        #[source]
        source: BoxError,
    },
    /// A file system operation failed.
    #[error("{context}: {source}")]
    Io {
        /// What was being done, usually naming the path.
        context: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A record could not be written or read as JSON.
    #[error("{context}: {source}")]
    Json {
        /// Which record.
        context: String,
        /// The cause.
        #[source]
        source: serde_json::Error,
    },
    /// gix reported an error.
    #[error("{context}{}{source}", if context.is_empty() { "" } else { ": " })]
    Git {
        /// What was being done (may be empty).
        context: String,
        /// gix's error.
        #[source]
        source: BoxError,
    },
    /// A command (`git push`, `git fetch`) could not be started.
    #[error("cannot run {command}: {source}")]
    CommandStart {
        /// The command, `git fetch`.
        command: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A command ran and failed (`git fetch origin main failed (exit status: 1): …`), or
    /// was stopped (`git push: interrupted`).
    #[error(
        "{command}{}{}{reason}",
        status.map(|s| format!(" failed ({s})")).unwrap_or_default(),
        if reason.is_empty() { "" } else { ": " }
    )]
    CommandFailed {
        /// The command, `git fetch origin main`.
        command: String,
        /// Its exit status, when it exited by itself.
        status: Option<std::process::ExitStatus>,
        /// What went wrong, for people: its standard error, or why it was stopped.
        reason: String,
    },
}

impl Error {
    /// An I/O error with context.
    pub(crate) fn io(context: impl Into<String>, source: std::io::Error) -> Error {
        Error::Io {
            context: context.into(),
            source,
        }
    }

    /// An error raised by gix, without context.
    pub(crate) fn git(source: impl Into<BoxError>) -> Error {
        Error::Git {
            context: String::new(),
            source: source.into(),
        }
    }

    /// An error raised by gix (or found in what it wrote) while doing `context`.
    pub(crate) fn git_in(context: impl Into<String>, source: impl Into<BoxError>) -> Error {
        Error::Git {
            context: context.into(),
            source: source.into(),
        }
    }

    /// Whether the error is the caller's (bad input, state that prevents the operation) rather
    /// than a failure of the repository or the system: the command line maps both to exit 2.
    pub fn is_refusal(&self) -> bool {
        matches!(
            self,
            Error::Refused { .. }
                | Error::Locked { .. }
                | Error::RefLocked { .. }
                | Error::UnsafePath { .. }
        )
    }
}

impl From<gix::Error> for Error {
    fn from(e: gix::Error) -> Error {
        Error::git(e)
    }
}

/// Context for gix's errors: `.git_err("reading tree")?`.
pub(crate) trait GitContext<T> {
    /// The error as [`Error::Git`] with `context`.
    fn git_err(self, context: impl Into<String>) -> Result<T>;
}

impl<T, E: Into<BoxError>> GitContext<T> for std::result::Result<T, E> {
    fn git_err(self, context: impl Into<String>) -> Result<T> {
        self.map_err(|e| Error::Git {
            context: context.into(),
            source: e.into(),
        })
    }
}

/// The result type of the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
