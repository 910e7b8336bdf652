//! The repository, through gix: reading and writing objects, trees, the index and refs;
//! tree merges with the structured merge for assets; reading what a push brings in.
//!
//! Module ownership while the crate is built: `repo`, `commit`, `treemerge`, `worktree`,
//! `fetch` (porcelain); `server`, `staged` (hooks); `read` (diff, demo).

pub mod atomic;
pub mod read;
pub mod server;
pub mod staged;
pub mod sync;

pub mod commit;
pub mod error;
pub mod fetch;
pub mod journal;
pub mod migrate;
pub mod migrate_journal;
pub mod objects;
pub mod repo;
pub mod setup;
pub mod treemerge;
pub mod worktree;

/// The gix version the store is built on, for callers that hold its types.
pub use gix;
