//! One module per command; each `run` returns the process exit status.

pub mod check;
pub mod expr;
pub mod fmt;
pub mod merge_driver;
pub mod merge_file;
mod merging;
