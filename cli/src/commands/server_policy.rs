//! The server's policy, for `assetvc install --server [--config FILE]`.
//!
//! The pre-receive hook never takes its policy from a push (a pusher could otherwise relax
//! the checks that judge the push): it reads `git config assetvc.config PATH`, else
//! `<BARE_REPO>/assetvc.toml`, else the defaults. An `assetvc.toml` in a push is only
//! checked as a file. `install --server` says so, and `--config FILE` validates FILE and
//! writes it (atomically) where the hook reads it.

use std::path::{Path, PathBuf};

use super::install_error::{io, InstallError};
use crate::files;
use config::{Config, FILE_NAME};

/// FILE's name and bytes once it is a valid configuration; `None` without `--config`.
pub fn validated(config: Option<&Path>) -> Result<Option<(PathBuf, Vec<u8>)>, InstallError> {
    let Some(path) = config else {
        return Ok(None);
    };
    let bytes = std::fs::read(path).map_err(io(path))?;
    let text = String::from_utf8_lossy(&bytes);
    let config = Config::parse(&text, path)?;
    config.matcher()?;
    Ok(Some((path.to_path_buf(), bytes)))
}

/// Writes the validated policy (if any) into the repository at `bare`, and says which
/// policy the server uses.
pub fn install(bare: &Path, policy: Option<(PathBuf, Vec<u8>)>) -> Result<String, InstallError> {
    let repo = super::install_server::open(bare)?;
    let target = repo.git_dir().join(FILE_NAME);
    let ignored =
        "an assetvc.toml in a push is checked as a file but never used as the server's policy";
    let configured = hooks::GitSettings::from_entries(&store::trusted_config(repo.git_dir()))
        .ok()
        .and_then(|s| s.config_file)
        .map(|p| p.display().to_string());
    if let Some((source, bytes)) = policy {
        files::write_atomic(&target, &bytes).map_err(|source| InstallError::WritePolicy {
            path: target.clone(),
            source,
        })?;
        let mut message = format!(
            "installed {} as the server's policy ({}); {ignored}",
            source.display(),
            target.display()
        );
        if let Some(other) = configured {
            message.push_str(&format!(
                "; note: git config assetvc.config = {other} takes precedence over it"
            ));
        }
        return Ok(message);
    }
    Ok(match configured {
        Some(other) => format!("the server's policy is git config assetvc.config = {other}; {ignored}"),
        None if target.is_file() => format!("the server's policy is {}; {ignored}", target.display()),
        None => format!(
            "the server uses the default policy ({ignored}); install one with `assetvc install --server {} --config assetvc.toml`",
            bare.display()
        ),
    })
}
