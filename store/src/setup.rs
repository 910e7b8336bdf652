//! What `assetvc install` changes in a clone's git directory: the local configuration and
//! the hooks directory. Reading and writing configuration goes through gix-config, which
//! keeps the file's comments and layout.

use std::path::PathBuf;

use gix::bstr::ByteSlice;

use crate::atomic::write_atomic;
use crate::error::{Error, Result};
use crate::Repo;

/// A configuration value to set: section, subsection, key, value.
pub type Setting<'a> = (&'a str, Option<&'a str>, &'a str, &'a str);

impl Repo {
    /// Sets `settings` in the repository's local configuration file (`.git/config`, shared
    /// by linked worktrees). Returns the keys whose value changed; the file is rewritten
    /// only then.
    pub fn set_local_config(&self, settings: &[Setting<'_>]) -> Result<Vec<String>> {
        let path = self.git.common_dir().join("config");
        let mut file =
            gix::config::File::from_path_no_includes(path.clone(), gix::config::Source::Local)
                .map_err(Error::git)?;
        let mut changed = Vec::new();
        for &(section, subsection, key, value) in settings {
            let subsection = subsection.map(|s| s.as_bytes().as_bstr());
            let current = file.raw_value_by(section, subsection, key).ok();
            if current.as_deref().map(|v| v.as_bytes()) == Some(value.as_bytes()) {
                continue;
            }
            file.set_raw_value_by(section, subsection, key, value)
                .map_err(Error::git)?;
            changed.push(match subsection {
                Some(sub) => format!("{section}.{sub}.{key}"),
                None => format!("{section}.{key}"),
            });
        }
        if !changed.is_empty() {
            let mut out = Vec::new();
            file.write_to(&mut out)
                .map_err(|e| Error::io(path.display().to_string(), e))?;
            write_atomic(&path, &out)?;
        }
        Ok(changed)
    }

    /// The value of `key` (`merge.assetvc.driver`) in the repository's configuration, all
    /// levels included, as git would see it.
    pub fn config_value(&self, key: &str) -> Option<String> {
        self.git
            .config_snapshot()
            .string(key)
            .map(|v| v.to_str_lossy().into_owned())
    }

    /// The directory git runs hooks from: `core.hooksPath` (relative to the worktree's
    /// root) or `.git/hooks`.
    pub fn hooks_dir(&self) -> PathBuf {
        let repo = &self.git;
        let config = repo.config_snapshot();
        if let Ok(Some(path)) = config.trusted_path("core.hooksPath") {
            if path.is_absolute() {
                return path;
            }
            let base = repo.workdir().unwrap_or_else(|| repo.git_dir());
            return base.join(path);
        }
        let dir = repo.common_dir().join("hooks");
        dir.canonicalize().unwrap_or(dir)
    }
}
