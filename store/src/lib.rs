//! The repository, through gix: reading and writing objects, trees, the index and refs;
//! tree merges with the structured merge for assets; what a push or a commit brings in;
//! the merge journal, the object index, migration and sync.
//!
//! # The handle
//!
//! [`Repo`] is the one repository handle. Open it with [`Repo::discover`] (the repository
//! containing a directory, honouring `GIT_DIR` and the variables git sets for hooks and
//! drivers), [`Repo::discover_worktree`] (the same, refusing a bare repository),
//! [`Repo::open_bare`] (exactly this git directory) or [`Repo::open_quarantine`] (a
//! pre-receive hook inside git's quarantine, docs/design.md "Hooks"). Every operation is a method
//! of `Repo`, or takes a `&Repo`, or is a type built from one ([`Staging`],
//! [`ObjectIndex`]). gix stays inside this crate: the one gix type in the API is
//! [`ObjectId`], re-exported because callers keep commit and blob ids.
//!
//! # The error
//!
//! Every fallible function returns [`Error`] ([`Result`]): the variants a caller tells
//! apart (not a repository, unknown revision, refused with paths, locked, unsafe path, a
//! command that failed with its status…) are distinct, and causes are kept as `source`s.
//!
//! # Modules (private; their public items are re-exported here)
//!
//! - `repo`: the handle, revisions, `HEAD`, paths; `repo::quarantine` opens a pre-receive
//!   quarantine;
//! - `read`: blobs at revisions and the paths that differ (diff, apply, demo);
//! - `server`: what a push brings in (pre-receive); `staged`: what a commit would record
//!   (pre-commit); `blobs`: blob readers for worker threads; `trusted_config`: the trusted
//!   `assetvc.*` git config;
//! - `setup`: local config and the hooks directory (install); `fetch`: fetching a branch;
//! - `commit`, `worktree`, `treemerge`: committing, updating the worktree and the index,
//!   tree merges with the structured merge for assets (the porcelain);
//! - `journal`: the merge journal; `objects`: the object index (log, blame, show,
//!   restore); `migrate`, `migrate_journal`: migration; `sync`: work-in-progress refs;
//! - `atomic`: the one way a named file is written; `error`: [`Error`].

#![warn(missing_docs)]
#![forbid(unsafe_code)]

mod atomic;
mod blobs;
mod commit;
mod error;
mod failpoint;
mod fetch;
mod head_journal;
mod journal;
mod migrate;
mod migrate_journal;
mod objects;
mod read;
mod ref_lock;
mod repo;
mod server;
mod setup;
mod staged;
mod sync;
#[cfg(test)]
mod test_git;
mod treemerge;
mod trusted_config;
mod worktree;

/// A git object id (a commit, tree or blob): the one gix type in this crate's API.
pub use gix::ObjectId;

pub use atomic::{
    write_atomic, write_atomic_if_absent, write_atomic_if_unchanged, write_atomic_unsynced,
};
pub use blobs::{BlobReader, Readers};
pub use commit::{Committed, Staging};
pub use error::{BoxError, Error, Result};
pub use fetch::Fetched;
pub use journal::{
    detect as detect_operation, git_dir_near, ConflictRecord, FileStep, Journal, Meaning,
    Operation, OperationKind, OperationLog, Recorded, SideMeanings, StepPlace, Versions,
    JOURNAL_REF,
};
pub use migrate::{
    new_uuid, Destination, FileProblem, MigrateRules, MigratedFile, NoProgress, Outcome, Plan,
    ProblemKind, Progress as MigrateProgress,
};
pub use objects::at_path;
pub use objects::{
    blame, close_names, day, find_deleted, iso_time, log, log_each, restore_object, BlameLine,
    BlameObject, Candidate, Commit, Entry, FileObjects, Followed, IndexSettings, Located, LogEntry,
    LogKind, ObjectIndex, Progress as IndexProgress, Restored, TreeIndex,
};
pub use read::TreeId;
pub use ref_lock::LockHolder;
pub use repo::{rela_path, ObjectDirs, Repo};
pub use server::{Change, CommitInfo, Target, UnsafeEntry};
pub use setup::Setting;
pub use sync::{
    parse_duration, push_refusal, ref_component, remote_wip_prefix, short_id, user_of_component,
    wip_owner, wip_ref, Brought, Limits, ObjectChange, OtherWip, Postponed, WhoReport, WhoRequest,
    Wip, REMOTE_WIP_PREFIX, SAVED_PREFIX, WIP_PREFIX,
};
pub use treemerge::{
    conflict_lines, AssetRules, MergeReport, MergeResult, MergeTrees, MergedFile, PathRules,
    StrategyMerge, TreeMerger, Unresolved, UnresolvedKind,
};
pub use trusted_config::{trusted_config, ConfigEntry};
pub use worktree::{worktree_file, PathChange};

/// Deletes the lock and temporary files gix holds for this process (`index.lock`, a ref's
/// lock, a loose object being written) and the worktree file being written before its
/// swap (`worktree::pending`): safe to call from a signal handler (no allocation, no lock
/// taken), for a process about to end on Ctrl-C or `kill`, so that the locks it held do not
/// outlive it.
pub fn remove_lock_files_signal_safe() {
    gix::tempfile::registry::cleanup_tempfiles_signal_safe();
    #[cfg(target_os = "linux")]
    worktree::pending::remove_signal_safe();
}
