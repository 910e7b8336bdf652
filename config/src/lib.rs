//! `assetvc.toml`: the repository's declarative configuration, safe to read from any clone;
//! it never names a command.
//!
//! [`Config`] holds every section; each value is validated while the file is read, so a bad
//! value is a [`ConfigError::Invalid`] at its own `path:line:col`. The merge policy is a
//! [`merge::Policy`] and the merge defaults are `merge`'s own ([`merge::MergeOptions`]).
//! The crate reads only the one file it is given: callers find the repository root
//! (the file lives there, [`FILE_NAME`]) and pass it.
//!
//! ```
//! let c = config::Config::parse("[merge]\npolicy = \"ours\"\n", "assetvc.toml".as_ref()).unwrap();
//! assert_eq!(c.merge.policy, merge::Policy::Ours);
//! assert_eq!(c.merge.atomic_max, merge::MergeOptions::default().atomic_max);
//! ```

#![warn(missing_docs)]
#![forbid(unsafe_code)]

mod error;
mod file;
mod matcher;
mod profiles;
mod sections;
mod values;

pub use error::ConfigError;
pub use file::{Config, FILE_NAME};
pub use matcher::{globs, AssetMatcher};
pub use profiles::Profiles;
pub use sections::{
    Assets, CheckSettings, Expressions, MergeSettings, References, ReviewSettings, SyncSettings,
};
