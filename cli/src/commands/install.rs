//! `assetvc install` sets a clone up so that plain git merges assets by structure:
//!
//! * `.gitattributes`: `<pattern> merge=assetvc diff=assetvc` for every asset pattern of
//!   `assetvc.toml` (or the defaults), and `*.<ext>` for the JSON engine files found in
//!   the worktree (`install_engines`, with the profile offered), added once;
//! * the clone's git config: `merge.assetvc.name`, `merge.assetvc.driver` (the lean
//!   `<dir>/assetvc-merge-driver -- %O %A %B %P` when it is installed beside this binary
//!   and built from the same source, else `<abs path> merge-driver -- %O %A %B %P`:
//!   `merge_hooks`) and `diff.assetvc.command = "<abs path> diff-driver"`;
//! * the client pre-commit hook: a script that runs `<abs path> hook pre-commit`, after the
//!   hook that was there (renamed `pre-commit.local`), if any;
//! * `pull.twohead = assetvc` when the merge strategy `git-merge-assetvc` is on `PATH`
//!   (`install_strategy`; `--no-strategy` opts out);
//! * the `prepare-commit-msg` hook that lists, in the message of a merge commit made by
//!   `git merge`/`git pull`, what the driver resolved by policy (`merge_hooks`).
//!
//! It is idempotent. `assetvc install --check` (or `assetvc doctor`) reports each item and
//! exits 1 when one is missing: a clone without the driver silently falls back to a line
//! merge. Commands are only ever written to the local git config and hooks by this command,
//! from the path of the running binary: nothing read from the repository names a command.

use std::path::{Path, PathBuf};

use crate::exit::{bail, Context};
use clap::Args;
use serde::Serialize;

use super::install_error::{io, InstallError};
use super::{install_attrs, install_path, merge_hooks, porcelain};
use crate::exit::Outcome;
use crate::{files, report};
use config::Config;

/// Arguments of `assetvc install`.
#[derive(Debug, Args)]
pub struct InstallArgs {
    /// Only report whether this clone is set up (exit 1 if anything is missing).
    #[arg(long, conflicts_with = "server")]
    pub check: bool,
    /// With --check: print the report as JSON.
    #[arg(long, requires = "check")]
    pub json: bool,
    /// Install the pre-receive hook into a bare repository instead.
    #[arg(long, value_name = "BARE_REPO")]
    pub server: Option<PathBuf>,
    /// With --server: validate FILE and install it as the server's policy
    /// (`<BARE_REPO>/assetvc.toml`); the server never uses an `assetvc.toml` from a push.
    #[arg(long, value_name = "FILE", requires = "server")]
    pub config: Option<PathBuf>,
    /// Do not make the merge strategy `git-merge-assetvc` git's default (`pull.twohead`):
    /// git then merges assets with the driver, file by file.
    #[arg(long, conflicts_with = "server")]
    pub no_strategy: bool,
    /// Register this binary by its absolute path, not by the name found on PATH (moving
    /// or upgrading it then breaks commits and merges until `assetvc install` runs again).
    #[arg(long, conflicts_with_all = ["check", "server"])]
    pub absolute: bool,
}

/// Arguments of `assetvc doctor` (`assetvc install --check`).
#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

/// The marker line that identifies our hook script.
const HOOK_MARKER: &str = "# assetvc-hook: pre-commit";
/// The attributes given to asset patterns.
const ATTRIBUTES: &str = "merge=assetvc diff=assetvc";

/// One item of the set-up.
#[derive(Debug, Serialize)]
pub struct Item {
    /// `attributes`, `merge-driver`, `diff-driver`, `hook`.
    pub name: &'static str,
    /// Whether it is in place.
    pub ok: bool,
    /// What was found, or what is missing.
    pub detail: String,
}

/// Runs `assetvc install` (or the check): 0 set up, 1 something missing (`--check`),
/// 2 not a repository, bad configuration or a write failed.
pub fn run(args: &InstallArgs) -> crate::exit::Result<Outcome> {
    if let Some(bare) = &args.server {
        return super::install_server::run_server(bare, args.config.as_deref());
    }
    if args.check {
        return check(args.json);
    }
    let (repo, root) = porcelain::open_worktree()?;
    let config = crate::repo_config::at_root(&root)?;
    let real = current_exe()?;
    // By the name found on PATH, unless asked (install_path).
    let exe = install_path::registered(&real, args.absolute);
    // Quoted before anything is written: a path that cannot be quoted changes nothing.
    let exe_q = sh_quote(&exe.to_string_lossy())?;
    let driver = install_path::driver_command(&real, args.absolute)?;
    if !args.absolute && exe == real {
        eprintln!("assetvc: warning: {}", install_path::absolute_note(&real));
    }
    // 1. .gitattributes
    let mut patterns = patterns(&config);
    let mut offers = Vec::new();
    for (ext, format) in super::install_engines::found(&root) {
        let pattern = format!("*.{ext}");
        if !patterns.contains(&pattern) {
            offers.push((pattern.clone(), super::install_engines::offer(ext, format)));
            patterns.push(pattern);
        }
    }
    let attributes_path = root.join(".gitattributes");
    if crate::files::goes_through_symlink(&attributes_path) {
        bail!(
            "{}: is a symbolic link; assetvc does not read or write through it (replace it by a regular file)",
            attributes_path.display()
        );
    }
    let existing = std::fs::read_to_string(&attributes_path).unwrap_or_default();
    let missing: Vec<&String> = patterns
        .iter()
        .filter(|p| !has_attributes(&existing, p))
        .collect();
    for (_, offer) in offers.iter().filter(|(p, _)| missing.contains(&p)) {
        eprintln!("{offer}");
    }
    if !missing.is_empty() {
        let newline = if existing.contains("\r\n") {
            "\r\n"
        } else {
            "\n"
        };
        let mut added = String::new();
        if existing.is_empty() {
            added.push_str("# Assets merged and diffed by structure (assetvc install)");
            added.push_str(newline);
        }
        for p in &missing {
            added.push_str(&format!("{p} {ATTRIBUTES}{newline}"));
        }
        // Before any LFS line, so that LFS keeps the files it tracks (install_attrs).
        let text = install_attrs::insert_lines(&existing, &added, newline);
        files::write_atomic(&attributes_path, text.as_bytes())?;
        eprintln!(
            "assetvc: .gitattributes: added {} pattern{} ({ATTRIBUTES}); commit it so every clone shares it",
            missing.len(),
            if missing.len() == 1 { "" } else { "s" }
        );
    }
    for (pattern, line, lfs) in install_attrs::lfs_tracked(&existing, &patterns) {
        eprintln!(
            "assetvc: note: {}",
            install_attrs::lfs_note(pattern, line, &lfs)
        );
    }
    // 2. git config
    let diff = format!("{exe_q} diff-driver");
    let settings: [store::Setting<'_>; 3] = [
        (
            "merge",
            Some("assetvc"),
            "name",
            "assetvc structured merge of SJSON/JSON assets",
        ),
        ("merge", Some("assetvc"), "driver", &driver.command),
        ("diff", Some("assetvc"), "command", &diff),
    ];
    let changed = repo.set_local_config(&settings).map_err(porcelain::fail)?;
    if !changed.is_empty() {
        eprintln!("assetvc: git config: set {}", changed.join(", "));
    }
    if let Some(lean) = &driver.stale_lean {
        eprintln!(
            "assetvc: {} was built from other source than this assetvc: registered \
             `assetvc merge-driver` instead ({})",
            lean.display(),
            merge_hooks::BUILD_BOTH
        );
    }
    // The merge strategy: git's default for merge, pull, rebase and cherry-pick.
    super::install_strategy::install(&repo, args.no_strategy)?;
    // 3. the pre-commit hook, and the prepare-commit-msg hook for merge commits
    for installed in [
        install_hook(&repo, &exe),
        merge_hooks::install_commit_msg_hook(&repo, &exe),
    ] {
        if let Some(message) = installed? {
            eprintln!("assetvc: {message}");
        }
    }
    // The configuration just written is read again.
    let repo = store::Repo::discover(&root).map_err(porcelain::fail)?;
    let items = inspect(&repo, &root, &config);
    if items.iter().all(|i| i.ok) {
        outln!("assetvc: this clone is set up: git merges assets by structure");
        Ok(Outcome::Done)
    } else {
        for i in items.iter().filter(|i| !i.ok) {
            report::error(format!("{}: {}", i.name, i.detail));
        }
        Ok(Outcome::ErrorsReported)
    }
}

/// `install --check` / `doctor`.
pub fn check(json: bool) -> crate::exit::Result<Outcome> {
    let (repo, root) = porcelain::open_worktree()?;
    let config = crate::repo_config::at_root(&root)?;
    let items = inspect(&repo, &root, &config);
    let ok = items.iter().all(|i| i.ok);
    let warnings = install_attrs::warnings(&repo, &root, &patterns(&config));
    if json {
        outln!(
            "{}",
            serde_json::to_string_pretty(
                &serde_json::json!({"ok": ok, "items": items, "warnings": warnings})
            )
            .unwrap_or_default()
        );
    } else {
        for i in &items {
            outln!(
                "{:<8} {:<13} {}",
                if i.ok { "ok" } else { "MISSING" },
                i.name,
                i.detail
            );
        }
        for w in &warnings {
            outln!("{:<8} {:<13} {}", "WARNING", "attributes", report::safe(w));
        }
        if !ok {
            eprintln!("assetvc: this clone is not fully set up; run `assetvc install`");
        }
    }
    Ok(Outcome::done_unless(!ok, Outcome::Problems))
}

/// Runs `assetvc doctor`.
pub fn doctor(args: &DoctorArgs) -> crate::exit::Result<Outcome> {
    check(args.json)
}

fn current_exe() -> crate::exit::Result<PathBuf> {
    std::env::current_exe()
        .and_then(|p| p.canonicalize())
        .context("cannot find the path of this program")
}

/// The asset patterns usable in `.gitattributes` (patterns with white space cannot be).
fn patterns(config: &Config) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for p in config.assets.sjson.iter().chain(&config.assets.json) {
        if p.chars().any(char::is_whitespace) {
            eprintln!(
                "assetvc: warning: pattern {p:?} has white space; not added to .gitattributes"
            );
            continue;
        }
        if !out.contains(p) {
            out.push(p.clone());
        }
    }
    out
}

/// Whether `.gitattributes` text gives `pattern` both our attributes on one line.
fn has_attributes(text: &str, pattern: &str) -> bool {
    text.lines().any(|line| {
        let mut words = line.split_whitespace();
        words.next() == Some(pattern) && {
            let rest: Vec<&str> = words.collect();
            rest.contains(&"merge=assetvc") && rest.contains(&"diff=assetvc")
        }
    })
}

/// Quotes a word (a path) for the POSIX shell that git runs drivers and hooks with; a
/// NUL byte cannot be quoted.
pub(super) fn sh_quote(s: &str) -> Result<String, InstallError> {
    shlex::try_quote(s)
        .map(|q| q.into_owned())
        .map_err(|source| InstallError::Quote {
            word: s.to_string(),
            source,
        })
}

/// The words of a shell command line, unquoted (none if its quotes do not close).
fn words(command: &str) -> Vec<String> {
    shlex::split(command).unwrap_or_default()
}

/// The program of a shell command line: its first word, unquoted.
pub(super) fn program_of(command: &str) -> String {
    words(command).into_iter().next().unwrap_or_default()
}

/// The words after the program in a shell command line, unquoted, joined by one space.
pub(super) fn arguments_of(command: &str) -> String {
    words(command).get(1..).unwrap_or_default().join(" ")
}

pub(super) fn is_executable_file(path: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.is_file() && meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        meta.is_file()
    }
}

/// The script of our pre-commit hook.
fn hook_script(exe: &Path) -> Result<String, InstallError> {
    Ok(format!(
        "#!/bin/sh\n\
         {HOOK_MARKER}\n\
         # Installed by `assetvc install`: checks the assets of every commit.\n\
         # A hook that was here before is kept as pre-commit.local and runs first.\n\
         hook_dir=$(dirname \"$0\")\n\
         if [ -x \"$hook_dir/pre-commit.local\" ]; then\n\
         \t\"$hook_dir/pre-commit.local\" \"$@\" || exit $?\n\
         fi\n\
         exec {} hook pre-commit \"$@\"\n",
        sh_quote(&exe.to_string_lossy())?
    ))
}

/// Installs (or refreshes) our pre-commit hook, chaining a foreign one. Returns what was
/// done, `None` if it was already in place.
fn install_hook(repo: &store::Repo, exe: &Path) -> Result<Option<String>, InstallError> {
    install_hook_script(repo, "pre-commit", &hook_script(exe)?, HOOK_MARKER)
}

/// Installs (or refreshes) the hook `name` with `script` (recognised by `marker`); a
/// foreign hook there is kept as `NAME.local`, which the script runs first. Returns what
/// was done, `None` if it was already in place.
pub fn install_hook_script(
    repo: &store::Repo,
    name: &str,
    script: &str,
    marker: &str,
) -> Result<Option<String>, InstallError> {
    let dir = repo.hooks_dir();
    std::fs::create_dir_all(&dir).map_err(io(&dir))?;
    let hook = dir.join(name);
    let local = dir.join(format!("{name}.local"));
    let mut message = None;
    match std::fs::read(&hook) {
        Ok(current) if current == script.as_bytes() => {
            if !is_executable_file(&hook) {
                make_executable(&hook)?;
            }
            return Ok(None);
        }
        Ok(current) if String::from_utf8_lossy(&current).contains(marker) => {
            message = Some(format!("{name} hook updated ({})", hook.display()));
        }
        Ok(_) => {
            if local.exists() {
                return Err(InstallError::HookInTheWay { hook, local });
            }
            std::fs::rename(&hook, &local).map_err(io(&hook))?;
            message = Some(format!(
                "{name} hook installed ({}); the hook that was there is now {name}.local and still runs first",
                hook.display()
            ));
        }
        Err(_) => {}
    }
    files::write_atomic(&hook, script.as_bytes())?;
    make_executable(&hook)?;
    Ok(Some(message.unwrap_or_else(|| {
        format!("{name} hook installed ({})", hook.display())
    })))
}

/// Makes the hook at `path` executable (0755; nothing to do off Unix).
pub(super) fn make_executable(path: &Path) -> Result<(), InstallError> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).map_err(io(path))?;
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

/// Reports each item of the set-up.
pub fn inspect(repo: &store::Repo, root: &Path, config: &Config) -> Vec<Item> {
    let mut items = Vec::new();
    // .gitattributes (committed or not; info/attributes counts too).
    let mut text = std::fs::read_to_string(root.join(".gitattributes")).unwrap_or_default();
    text.push('\n');
    text.push_str(
        &std::fs::read_to_string(repo.common_dir().join("info/attributes")).unwrap_or_default(),
    );
    let patterns = patterns(config);
    let missing: Vec<&String> = patterns
        .iter()
        .filter(|p| !has_attributes(&text, p))
        .collect();
    items.push(Item {
        name: "attributes",
        ok: missing.is_empty(),
        detail: if missing.is_empty() {
            format!(
                ".gitattributes: {} asset patterns have {ATTRIBUTES}",
                patterns.len()
            )
        } else {
            format!(
                ".gitattributes: no {ATTRIBUTES} for {}",
                missing
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(" ")
            )
        },
    });
    // The merge driver.
    items.push(merge_hooks::inspect_driver(repo));
    // The diff driver.
    items.push(match repo.config_value("diff.assetvc.command") {
        None => Item {
            name: "diff-driver",
            ok: false,
            detail: "diff.assetvc.command is not set".into(),
        },
        Some(cmd) => {
            let program = program_of(&cmd);
            let ok = install_path::program_runs(&program) && arguments_of(&cmd) == "diff-driver";
            Item {
                name: "diff-driver",
                ok,
                detail: if ok {
                    format!("diff.assetvc.command = {cmd}")
                } else {
                    format!("diff.assetvc.command = {cmd} (expected `<assetvc> diff-driver`)")
                },
            }
        }
    });
    // The hook.
    let hook = repo.hooks_dir().join("pre-commit");
    let text = std::fs::read_to_string(&hook).unwrap_or_default();
    let exec_line = text
        .lines()
        .find(|l| l.starts_with("exec ") && l.contains(" hook pre-commit"));
    let program = exec_line.map(|l| program_of(&l["exec ".len()..]));
    let ok = text.contains(HOOK_MARKER)
        && is_executable_file(&hook)
        && program.as_deref().is_some_and(install_path::program_runs);
    items.push(Item {
        name: "hook",
        ok,
        detail: if ok {
            format!("pre-commit hook: {}", hook.display())
        } else if text.is_empty() {
            format!("no pre-commit hook at {}", hook.display())
        } else {
            format!(
                "{} is not assetvc's hook, or not executable, or its program is gone",
                hook.display()
            )
        },
    });
    items.push(merge_hooks::inspect_commit_msg_hook(repo));
    items.push(super::install_strategy::inspect_git());
    items.push(super::install_strategy::inspect(repo));
    items
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_round_trips() {
        for p in [
            "/usr/bin/assetvc",
            "/home/a b/assetvc",
            "/tmp/it's/assetvc",
            "/tmp/it's a \"dir\"/$HOME/assetvc",
        ] {
            let cmd = format!("{} {}", sh_quote(p).unwrap(), merge_hooks::DRIVER_ARGS);
            assert_eq!(program_of(&cmd), p, "{cmd}");
            assert_eq!(arguments_of(&cmd), merge_hooks::DRIVER_ARGS);
        }
        assert!(sh_quote("a\0b").is_err());
    }

    #[cfg(unix)]
    #[test]
    fn the_shell_reads_a_quoted_path_back_unchanged() {
        let p = "/tmp/it's a \"dir\"/$HOME/`x`/assetvc";
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("printf %s {}", sh_quote(p).unwrap()))
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), p);
    }

    #[test]
    fn attribute_lines_are_recognised() {
        let text = "*.level text\n*.level merge=assetvc diff=assetvc\n*.unit merge=assetvc\n";
        assert!(has_attributes(text, "*.level"));
        assert!(!has_attributes(text, "*.unit"));
        assert!(!has_attributes(text, "*.json"));
    }
}
