//! One module per command; each `run` returns `crate::exit::Result<Outcome>`: what it did
//! ([`crate::exit::Outcome`]), or the failure that `main` reports ([`crate::exit`] maps
//! both to the message and the exit status).

pub mod apply;
pub mod check;
pub mod commit;
pub mod conflicts;
mod conflicts_page;
pub mod demo;
pub mod diff;
pub mod expr;
pub mod fmt;
pub mod git_version;
pub mod hook;
pub mod install;
pub mod install_attrs;
mod install_engines;
pub mod install_error;
pub mod install_path;
pub mod install_server;
mod install_strategy;
pub mod merge;
pub mod merge_driver;
pub mod merge_file;
mod merge_hooks;
pub mod merge_strategy;
pub(crate) mod merging;
pub mod migrate;
pub mod objects;
mod porcelain;
pub mod pr;
mod profile_explain;
pub mod pull;
pub mod push;
mod record;
pub mod resolve;
pub mod resources;
mod server_policy;
pub mod sync;
pub mod who;
mod who_page;
