//! The parts of `assetvc install` and `doctor` that concern merging: the merge driver's
//! registration and the `prepare-commit-msg` hook that lists, in a merge commit made by
//! `git merge` or `git pull` with the driver, what was resolved by policy.
//!
//! The driver is registered as `<dir>/assetvc-merge-driver -- %O %A %B %P` when that lean
//! binary is installed beside `assetvc` (git starts it once per merged file, and it starts
//! faster: BENCHMARKS.md, "a lean driver binary") and was built from the same source (its
//! `--version` names the source: `cargo run -- install` rebuilds `assetvc` alone), else as
//! `<assetvc> merge-driver -- %O %A %B %P`. Both do the same merge; the `--` keeps a file
//! named `-h.level` a path.

use std::path::{Path, PathBuf};

use super::install::{
    arguments_of, install_hook_script, is_executable_file, program_of, sh_quote, Item,
};
use super::install_error::InstallError;

/// The driver's arguments after the `assetvc` program, as registered.
pub const DRIVER_ARGS: &str = "merge-driver -- %O %A %B %P";
/// The lean driver binary's file name (without the platform's executable suffix).
pub const LEAN_DRIVER: &str = "assetvc-merge-driver";
/// The lean driver's arguments after its program, as registered.
pub const LEAN_DRIVER_ARGS: &str = "-- %O %A %B %P";
/// The arguments of the registration older versions wrote (no `--`).
const OLD_DRIVER_ARGS: &str = "merge-driver %O %A %B %P";
/// The marker line that identifies our prepare-commit-msg hook.
const COMMIT_MSG_MARKER: &str = "# assetvc-hook: prepare-commit-msg";

/// The script of our prepare-commit-msg hook: for a merge (`$2` is `merge`), appends the
/// conflicts of the last merge to the message file `$1`. It never fails the commit.
fn commit_msg_script(exe: &Path) -> Result<String, InstallError> {
    Ok(format!(
        "#!/bin/sh\n\
         {COMMIT_MSG_MARKER}\n\
         # Installed by `assetvc install`: lists in a merge commit's message what the merge\n\
         # driver resolved by policy. A hook that was here before is kept as\n\
         # prepare-commit-msg.local and runs first.\n\
         hook_dir=$(dirname \"$0\")\n\
         if [ -x \"$hook_dir/prepare-commit-msg.local\" ]; then\n\
         \t\"$hook_dir/prepare-commit-msg.local\" \"$@\" || exit $?\n\
         fi\n\
         if [ \"$2\" = merge ]; then\n\
         \t{} conflicts --commit-msg \"$1\" || true\n\
         fi\n\
         exit 0\n",
        sh_quote(&exe.to_string_lossy())?
    ))
}

/// Installs (or refreshes) the prepare-commit-msg hook.
pub fn install_commit_msg_hook(
    repo: &store::Repo,
    exe: &Path,
) -> Result<Option<String>, InstallError> {
    install_hook_script(
        repo,
        "prepare-commit-msg",
        &commit_msg_script(exe)?,
        COMMIT_MSG_MARKER,
    )
}

/// The lean driver binary beside `exe` (the running `assetvc`), if it is installed there.
pub fn lean_driver_beside(exe: &Path) -> Option<PathBuf> {
    let lean = exe.with_file_name(format!("{LEAN_DRIVER}{}", std::env::consts::EXE_SUFFIX));
    is_executable_file(&lean).then_some(lean)
}

/// How to make the two binaries of one build: `cargo run` builds `assetvc` alone.
pub const BUILD_BOTH: &str =
    "build both binaries with one profile: `cargo build --bins`, or `cargo build --release --bins`";

/// The line `assetvc-merge-driver --version` prints when it was built from the same
/// source as the running `assetvc` ([`crate::VERSION`] names the source).
pub fn lean_version_line() -> String {
    format!("{LEAN_DRIVER} {}", crate::VERSION)
}

/// Whether the lean driver at `lean` was built from the same source as the running
/// `assetvc`: asked for its `--version`, it names the same source.
fn built_alike(lean: &Path) -> bool {
    std::process::Command::new(lean)
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .is_ok_and(|out| {
            out.status.success()
                && String::from_utf8_lossy(&out.stdout).trim_end() == lean_version_line()
        })
}

/// The `merge.assetvc.driver` command chosen for the running `assetvc`.
#[derive(Debug)]
pub struct DriverCommand {
    /// The command to register.
    pub command: String,
    /// The lean driver beside `assetvc` when it was passed over because it was built from
    /// other source (`cargo run` rebuilds `assetvc` alone).
    pub stale_lean: Option<PathBuf>,
}

/// The `merge.assetvc.driver` command for the running `assetvc` at `exe`: the lean binary
/// beside it when there is one built from the same source, else `exe merge-driver`. Err
/// when a path cannot be quoted.
pub fn driver_command(exe: &Path) -> Result<DriverCommand, InstallError> {
    let lean = lean_driver_beside(exe);
    Ok(match lean {
        Some(lean) if built_alike(&lean) => DriverCommand {
            command: format!("{} {LEAN_DRIVER_ARGS}", sh_quote(&lean.to_string_lossy())?),
            stale_lean: None,
        },
        stale_lean => DriverCommand {
            command: format!("{} {DRIVER_ARGS}", sh_quote(&exe.to_string_lossy())?),
            stale_lean,
        },
    })
}

/// Whether `program` is the lean driver binary (by its file name).
fn is_lean_driver(program: &str) -> bool {
    Path::new(program)
        .file_stem()
        .is_some_and(|stem| stem == LEAN_DRIVER)
}

/// The merge driver's registration: missing, outdated (no `--`), a lean driver beside
/// this `assetvc` built from other source, or in place (either binary).
pub fn inspect_driver(repo: &store::Repo) -> Item {
    let Some(cmd) = repo.config_value("merge.assetvc.driver") else {
        return Item {
            name: "merge-driver",
            ok: false,
            detail: "merge.assetvc.driver is not set: git merges assets line by line".into(),
        };
    };
    let program = program_of(&cmd);
    let args = arguments_of(&cmd);
    let runs = super::install_path::program_runs(&program);
    let lean = is_lean_driver(&program);
    // A lean driver beside this assetvc must be of its build; one elsewhere is not judged.
    let found = super::install_path::find_program(&program);
    let stale = lean
        && found.as_deref().is_some_and(|found| {
            std::env::current_exe()
                .ok()
                .and_then(|exe| lean_driver_beside(&exe))
                .is_some_and(|beside| {
                    beside == found || beside.canonicalize().ok() == found.canonicalize().ok()
                })
                && !built_alike(found)
        });
    let ok = runs && !stale && args == if lean { LEAN_DRIVER_ARGS } else { DRIVER_ARGS };
    Item {
        name: "merge-driver",
        ok,
        detail: if stale {
            format!(
                "merge.assetvc.driver runs {program}, built from other source than this \
                 assetvc: {BUILD_BOTH}, or `assetvc install` registers `assetvc merge-driver`"
            )
        } else if ok
            && !lean
            && lean_driver_beside(Path::new(&program)).is_some_and(|l| built_alike(&l))
        {
            format!(
                "merge.assetvc.driver = {cmd} (works; `assetvc install` registers the faster \
                 {LEAN_DRIVER} beside it)"
            )
        } else if ok {
            format!("merge.assetvc.driver = {cmd}")
        } else if !runs {
            format!("merge.assetvc.driver runs {program}, which is not an executable file")
        } else if args == OLD_DRIVER_ARGS {
            format!(
                "merge.assetvc.driver = {cmd} is outdated: without `--` a file named like an \
                 option (`-h.level`) is not merged; `assetvc install` fixes it"
            )
        } else {
            format!(
                "merge.assetvc.driver = {cmd} (expected `<assetvc> {DRIVER_ARGS}` or \
                 `<{LEAN_DRIVER}> {LEAN_DRIVER_ARGS}`)"
            )
        },
    }
}

/// Whether our prepare-commit-msg hook is in place.
pub fn inspect_commit_msg_hook(repo: &store::Repo) -> Item {
    let hook = repo.hooks_dir().join("prepare-commit-msg");
    let text = std::fs::read_to_string(&hook).unwrap_or_default();
    let program = text
        .lines()
        .find(|l| l.contains(" conflicts --commit-msg "))
        .map(|l| program_of(l.trim()));
    let ok = text.contains(COMMIT_MSG_MARKER)
        && is_executable_file(&hook)
        && program
            .as_deref()
            .is_some_and(super::install_path::program_runs);
    Item {
        name: "commit-msg",
        ok,
        detail: if ok {
            format!("prepare-commit-msg hook: {}", hook.display())
        } else if text.is_empty() {
            format!(
                "no prepare-commit-msg hook at {}: merge commits made by git do not list what \
                 was resolved by policy",
                hook.display()
            )
        } else {
            format!(
                "{} is not assetvc's hook, or not executable, or its program is gone",
                hook.display()
            )
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An executable script at `path` that prints `version` when asked for `--version`.
    fn executable(path: &Path, version: &str) {
        std::fs::write(path, format!("#!/bin/sh\necho '{version}'\n")).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
    }

    #[test]
    fn the_lean_driver_is_registered_when_it_is_beside_assetvc_and_built_alike() {
        let dir = tempfile::tempdir().unwrap();
        let exe = dir.path().join("assetvc");
        executable(&exe, "");
        let full = driver_command(&exe).unwrap();
        assert_eq!(program_of(&full.command), exe.to_string_lossy());
        assert_eq!(arguments_of(&full.command), DRIVER_ARGS);
        assert!(full.stale_lean.is_none());
        // Not executable: not used.
        let lean = dir
            .path()
            .join(format!("{LEAN_DRIVER}{}", std::env::consts::EXE_SUFFIX));
        std::fs::write(&lean, "").unwrap();
        assert_eq!(driver_command(&exe).unwrap().command, full.command);
        // Built from other source: passed over, and said.
        executable(
            &lean,
            &format!("{LEAN_DRIVER} 0.1.0 (source 0123456789abcdef)"),
        );
        let stale = driver_command(&exe).unwrap();
        assert_eq!(stale.command, full.command);
        assert_eq!(stale.stale_lean.as_deref(), Some(lean.as_path()));
        // Built alike: registered.
        executable(&lean, &lean_version_line());
        let command = driver_command(&exe).unwrap().command;
        assert_eq!(program_of(&command), lean.to_string_lossy());
        assert_eq!(arguments_of(&command), LEAN_DRIVER_ARGS);
        assert!(is_lean_driver(&program_of(&command)));
        assert!(!is_lean_driver(&program_of(&full.command)));
    }

    #[test]
    fn the_hook_script_names_its_program() {
        let script = commit_msg_script(Path::new("/opt/a b/assetvc")).unwrap();
        let line = script
            .lines()
            .find(|l| l.contains(" conflicts --commit-msg "))
            .unwrap();
        assert_eq!(program_of(line.trim()), "/opt/a b/assetvc");
    }
}
