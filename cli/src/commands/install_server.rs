//! `assetvc install --server BARE_REPO`: installs the pre-receive hook that runs
//! `assetvc hook pre-receive` in a (bare) repository on a server.
//!
//! A pre-receive hook that was there before is renamed `pre-receive.local` and runs
//! first, with the same input; if it rejects the push, so does ours. Running the command
//! again refreshes our script (the binary may have moved) and changes nothing else.
//! `core.hooksPath` is honoured. `--config FILE` also installs the server's policy; see
//! [`super::server_policy`].

use std::path::Path;

use super::install_error::{io, InstallError};
use crate::exit::Outcome;

/// The marker line that identifies our pre-receive script.
const MARKER: &str = "# assetvc-hook: pre-receive";

/// Installs the pre-receive hook in the repository at `bare`, and `config` (validated
/// first) as the server's policy; says which policy the server uses. 0 done, 2 not a
/// repository, an invalid `config` or a write failed (nothing is installed then).
pub fn run_server(bare: &Path, config: Option<&Path>) -> crate::exit::Result<Outcome> {
    let messages = install_policy_checked(bare, config)
        .and_then(|policy| Ok((policy, install(bare)?)))
        .and_then(|(policy, mut messages)| {
            messages.push(super::server_policy::install(bare, policy)?);
            Ok(messages)
        })?;
    for m in messages {
        eprintln!("assetvc: {m}");
    }
    Ok(Outcome::Done)
}

fn install(bare: &Path) -> Result<Vec<String>, InstallError> {
    let repo = open(bare)?;
    let mut messages = Vec::new();
    if !repo.is_bare() {
        messages.push(format!(
            "note: {} is not a bare repository; installing anyway",
            bare.display()
        ));
    }
    let exe = std::env::current_exe()
        .and_then(|e| e.canonicalize())
        .map_err(InstallError::Executable)?;
    let dir = repo.hooks_dir();
    std::fs::create_dir_all(&dir).map_err(io(&dir))?;
    let hook = dir.join("pre-receive");
    let local = dir.join("pre-receive.local");
    let script = script(&exe)?;
    match std::fs::read(&hook) {
        Ok(old) if contains(&old, MARKER.as_bytes()) => {
            if old == script.as_bytes() {
                messages.push(format!(
                    "the pre-receive hook is already installed in {}",
                    dir.display()
                ));
            } else {
                write_hook(&hook, &script)?;
                messages.push(format!("updated the pre-receive hook in {}", dir.display()));
            }
        }
        Ok(_) => {
            if local.exists() {
                return Err(InstallError::ServerHookInTheWay { hook, local });
            }
            std::fs::rename(&hook, &local).map_err(|source| InstallError::Rename {
                path: hook.clone(),
                source,
            })?;
            write_hook(&hook, &script)?;
            messages.push(format!(
                "installed the pre-receive hook in {}; the hook that was there is now {} and runs first",
                dir.display(),
                local.display()
            ));
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            write_hook(&hook, &script)?;
            messages.push(format!(
                "installed the pre-receive hook in {}",
                dir.display()
            ));
        }
        Err(e) => return Err(io(hook)(e)),
    }
    Ok(messages)
}

/// The policy text to install, validated before anything is written.
fn install_policy_checked(
    bare: &Path,
    config: Option<&Path>,
) -> Result<Option<(std::path::PathBuf, Vec<u8>)>, InstallError> {
    open(bare)?;
    super::server_policy::validated(config)
}

/// The repository at `bare` (a worktree's too).
pub(super) fn open(bare: &Path) -> Result<store::Repo, InstallError> {
    store::Repo::open_bare(bare).map_err(|source| InstallError::NotARepository {
        path: bare.to_path_buf(),
        source,
    })
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// The hook script: the previous hook (if any) first with the same input, then ours.
fn script(exe: &Path) -> Result<String, InstallError> {
    Ok(format!(
        "#!/bin/sh\n\
         {MARKER}\n\
         # Installed by `assetvc install --server`: rejects pushes that bring in broken\n\
         # assets. A hook that was here before is kept as pre-receive.local and runs\n\
         # first with the same input.\n\
         hook_dir=$(dirname \"$0\")\n\
         input=$(cat)\n\
         if [ -x \"$hook_dir/pre-receive.local\" ]; then\n\
         \tprintf '%s\\n' \"$input\" | \"$hook_dir/pre-receive.local\" \"$@\" || exit $?\n\
         fi\n\
         printf '%s\\n' \"$input\" | {} hook pre-receive\n",
        super::install::sh_quote(&exe.to_string_lossy())?
    ))
}

fn write_hook(path: &Path, script: &str) -> Result<(), InstallError> {
    crate::files::write_atomic(path, script.as_bytes())?;
    super::install::make_executable(path)
}
