//! `assetvc.toml`: declarative, safe to read from any clone; it never names a command.
//!
//! The types live in the hooks crate (the server's pre-receive hook reads the same file);
//! they are re-exported here so the commands keep using `crate::config::Config`.

#[allow(unused_imports)]
pub use hooks::config::{
    find_config, AssetMatcher, Assets, CheckSettings, Config, ConfigError, Expressions,
    MergeSettings, ReviewSettings, SyncSettings, FILE_NAME,
};
