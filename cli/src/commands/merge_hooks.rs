//! The parts of `assetvc install` and `doctor` that concern merging: the merge driver's
//! registration (`<assetvc> merge-driver -- %O %A %B %P`; the `--` keeps a file named
//! `-h.level` a path) and the `prepare-commit-msg` hook that lists, in a merge commit made
//! by `git merge` or `git pull` with the driver, what was resolved by policy.

use std::path::Path;

use super::install::{
    arguments_of, install_hook_script, is_executable_file, program_of, sh_quote, Item,
};

/// The driver's arguments after the program, as registered.
pub const DRIVER_ARGS: &str = "merge-driver -- %O %A %B %P";
/// The arguments of the registration older versions wrote (no `--`).
const OLD_DRIVER_ARGS: &str = "merge-driver %O %A %B %P";
/// The marker line that identifies our prepare-commit-msg hook.
const COMMIT_MSG_MARKER: &str = "# assetvc-hook: prepare-commit-msg";

/// The script of our prepare-commit-msg hook: for a merge (`$2` is `merge`), appends the
/// conflicts of the last merge to the message file `$1`. It never fails the commit.
fn commit_msg_script(exe: &Path) -> Result<String, String> {
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
pub fn install_commit_msg_hook(repo: &store::Repo, exe: &Path) -> Result<Option<String>, String> {
    install_hook_script(
        repo,
        "prepare-commit-msg",
        &commit_msg_script(exe)?,
        COMMIT_MSG_MARKER,
    )
}

/// The merge driver's registration: missing, outdated (no `--`), or in place.
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
    let runs = is_executable_file(Path::new(&program));
    let ok = runs && args == DRIVER_ARGS;
    Item {
        name: "merge-driver",
        ok,
        detail: if ok {
            format!("merge.assetvc.driver = {cmd}")
        } else if !runs {
            format!("merge.assetvc.driver runs {program}, which is not an executable file")
        } else if args == OLD_DRIVER_ARGS {
            format!(
                "merge.assetvc.driver = {cmd} is outdated: without `--` a file named like an \
                 option (`-h.level`) is not merged; `assetvc install` fixes it"
            )
        } else {
            format!("merge.assetvc.driver = {cmd} (expected `<assetvc> {DRIVER_ARGS}`)")
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
            .is_some_and(|p| is_executable_file(Path::new(p)));
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
