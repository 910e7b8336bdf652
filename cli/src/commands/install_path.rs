//! How `assetvc install` names the programs it registers (git config, hooks): by the bare
//! name git finds on `PATH`, like git-lfs, so that moving or upgrading the binary keeps
//! every clone working; by absolute path only when asked (`--absolute`) or when the name
//! on `PATH` is not this binary (then `install` says so). `doctor` finds a registered
//! bare name on `PATH` the way git's shell will.

use std::path::{Path, PathBuf};

use super::install::{is_executable_file, program_of, sh_quote};
use super::install_error::InstallError;
use super::merge_hooks::{self, DriverCommand, DRIVER_ARGS, LEAN_DRIVER};

/// The program at `name` as a shell finds it: a name with a `/` as a path, a bare name
/// in the directories of `PATH` (the first executable file of that name).
pub fn find_program(name: &str) -> Option<PathBuf> {
    if name.is_empty() {
        return None;
    }
    if name.contains('/') || name.contains(std::path::MAIN_SEPARATOR) {
        let path = PathBuf::from(name);
        return is_executable_file(&path).then_some(path);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .filter(|dir| !dir.as_os_str().is_empty())
        .map(|dir| dir.join(format!("{name}{}", std::env::consts::EXE_SUFFIX)))
        .find(|p| is_executable_file(p))
}

/// Whether a registered program (a path or a bare name) runs.
pub fn program_runs(name: &str) -> bool {
    find_program(name).is_some()
}

/// The bare file name of `path` when that name, looked up in `PATH`, is this very file.
pub fn on_path(path: &Path) -> Option<String> {
    let name = path.file_stem()?.to_str()?.to_string();
    let found = find_program(&name)?.canonicalize().ok()?;
    (found == path.canonicalize().ok()?).then_some(name)
}

/// How `install` names the running `assetvc` (at `exe`, absolute) in what it registers:
/// its bare name when found on `PATH` (unless `absolute`), else `exe`.
pub fn registered(exe: &Path, absolute: bool) -> PathBuf {
    match on_path(exe) {
        Some(name) if !absolute => PathBuf::from(name),
        _ => exe.to_path_buf(),
    }
}

/// The `merge.assetvc.driver` command: [`merge_hooks::driver_command`], its program by
/// bare name when on `PATH` (unless `absolute`). The lean driver keeps its absolute path
/// only when `assetvc` is not on `PATH` either: surviving a move is worth more than the
/// lean driver's faster start.
pub fn driver_command(exe: &Path, absolute: bool) -> Result<DriverCommand, InstallError> {
    let full = merge_hooks::driver_command(exe)?;
    if absolute {
        return Ok(full);
    }
    let program = PathBuf::from(program_of(&full.command));
    let lean = program.file_stem().is_some_and(|s| s == LEAN_DRIVER);
    let command = match (lean, on_path(&program), on_path(exe)) {
        (true, Some(name), _) => format!("{} {}", sh_quote(&name)?, merge_hooks::LEAN_DRIVER_ARGS),
        (_, _, Some(name)) => format!("{} {DRIVER_ARGS}", sh_quote(&name)?),
        _ => full.command,
    };
    Ok(DriverCommand {
        command,
        stale_lean: full.stale_lean,
    })
}

/// What `install` says when it registered an absolute path without being asked.
pub fn absolute_note(exe: &Path) -> String {
    format!(
        "{} is not found as `assetvc` on PATH (or PATH's is another binary): registered its \
         absolute path; moving or upgrading it elsewhere breaks commits and merges. Put its \
         directory on PATH and run `assetvc install` again (or pass --absolute to mean it)",
        exe.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_found_as_given_and_a_missing_name_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let exe = dir.path().join("tool");
        std::fs::write(&exe, "#!/bin/sh\n").unwrap();
        assert!(find_program(&exe.to_string_lossy()).is_none());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
            assert_eq!(find_program(&exe.to_string_lossy()), Some(exe.clone()));
        }
        assert!(find_program("").is_none());
        assert!(!program_runs("assetvc-no-such-program-anywhere"));
    }
}
