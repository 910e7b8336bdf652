//! Repository guards: the checks every asset, script and text file must pass, and the
//! hook entry points that run them.
//!
//! One set of checks ([`check_blob`], [`check_change`]) serves `assetvc check` (files on
//! disk, [`worktree::check_files`]), `assetvc commit`, the pre-commit hook
//! ([`pre_commit::run`]) and the server's pre-receive hook ([`pre_receive::run`]). See
//! [`checks`] for what is checked; [`external`] for commands, which only trusted git
//! config may name; the `config` crate for `assetvc.toml`, which never names one.
//!
//! ```
//! let policy = hooks::Policy::new(&config::Config::default()).unwrap();
//! let problems = hooks::check_blob("levels/a.level", b"a = [1 2\n", &policy);
//! assert_eq!(problems[0].to_string(), "levels/a.level:2:1: expected value, found end of file");
//! ```

#![warn(missing_docs)]
#![forbid(unsafe_code)]

pub mod checks;
pub mod engine;
pub mod external;
pub mod policy;
pub mod pre_commit;
pub mod pre_receive;
pub mod problem;
pub mod wip_refs;
pub mod worktree;

pub use checks::{check_blob, check_change, check_many, is_binary};
pub use external::{ExternalChecker, GitSettings};
pub use policy::{FileClass, Policy};
pub use problem::{Check, Problem, Severity};

use config::{Config, ConfigError};

/// The policy of `config` (the repository's `assetvc.toml`, which the caller found and
/// read) with the external checkers of the trusted git config of the repository
/// containing `dir` (system, global and the repository's own; none outside a repository).
pub fn policy_with_checkers(config: &Config, dir: &std::path::Path) -> Result<Policy, ConfigError> {
    let settings = GitSettings::from_entries(&store::trusted_config(dir))?;
    Ok(Policy::new(config)?.with_checkers(settings.checkers))
}
