//! Which `assetvc.toml` applies: the one at the root of the repository containing a
//! directory, found by the store's repository discovery (gix); the `config` crate reads it.

use std::path::{Path, PathBuf};

use config::{Config, ConfigError};

/// The directory whose `assetvc.toml` applies to `dir`: the worktree root of the
/// repository containing `dir` (its git directory if it is bare), or `dir` itself outside a
/// repository; canonical when it can be, so that messages name the file absolutely.
pub fn root_for(dir: &Path) -> PathBuf {
    let root = match store::Repo::discover(dir) {
        Ok(repo) => repo.workdir().unwrap_or(repo.git_dir()).to_path_buf(),
        Err(_) => dir.to_path_buf(),
    };
    canonical(&root)
}

/// `dir` made canonical, or as it is if it cannot be.
pub fn canonical(dir: &Path) -> PathBuf {
    dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf())
}

/// The configuration of the repository whose root is `root` (the defaults when there is
/// no file); `root` is made canonical first, as [`root_for`] does.
pub fn at_root(root: &Path) -> Result<Config, ConfigError> {
    Config::at_root(&canonical(root))
}

/// The configuration that applies to `dir` (the defaults when there is no file).
pub fn for_dir(dir: &Path) -> Result<Config, ConfigError> {
    Config::at_root(&root_for(dir))
}
