//! One module per command; each `run` returns the process exit status.

pub mod check;
pub mod commit;
pub mod conflicts;
mod conflicts_page;
pub mod demo;
pub mod diff;
pub mod expr;
pub mod fmt;
pub mod hook;
pub mod install;
pub mod install_server;
pub mod merge;
pub mod merge_driver;
pub mod merge_file;
mod merging;
pub mod migrate;
mod porcelain;
pub mod pull;
pub mod push;
