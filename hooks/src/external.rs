//! External checkers (a shader compiler, a linter) and the other settings that only git
//! config of the machine running the checks may give.
//!
//! ```text
//! git config assetvc.check.glsl.pattern '*.glsl'        # repeatable
//! git config assetvc.check.glsl.command 'glslangValidator {}'
//! git config assetvc.check.glsl.timeout 30              # seconds (default 30)
//! git config assetvc.hook.everyCommit true              # pre-receive: every new commit
//! git config assetvc.hook.timeout 600                   # pre-receive: whole hook, seconds
//! git config assetvc.config /srv/git/assetvc.toml       # pre-receive: the server's policy
//! ```
//!
//! The blob is written to a temporary file named like the original (so compilers see
//! the extension); its shell-quoted path replaces `{}` in the command (or is appended),
//! and the command runs through `sh -c` with stdin closed, in its own process group,
//! killed with the group when it outlives its timeout. A non-zero exit, a timeout or a
//! failure to start is a problem carrying the command's output.
//!
//! Nothing in `assetvc.toml` or in a repository's tree can name a command: these
//! entries are read only from fully trusted git config files (system, global, the
//! repository's own `config`), never from a file in a commit.

use std::io::{Read, Seek};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use globset::GlobSet;
use store::ConfigEntry;
use wait_timeout::ChildExt as _;

use crate::problem::{Check, Problem};
use config::{globs, ConfigError};

/// The default time an external checker may take per file.
pub const DEFAULT_CHECK_TIMEOUT: Duration = Duration::from_secs(30);
/// The default time the whole pre-receive hook may take.
pub const DEFAULT_HOOK_TIMEOUT: Duration = Duration::from_secs(600);
/// The most output of a failed checker kept in its problem, in bytes.
const MAX_OUTPUT: usize = 8 * 1024;

/// A command from git config that checks files matching its patterns.
#[derive(Debug, Clone)]
pub struct ExternalChecker {
    /// The name (`glsl` in `assetvc.check.glsl.command`).
    pub name: String,
    /// The glob patterns, matched against the file name or the path.
    pub patterns: Vec<String>,
    /// The shell command; `{}` stands for the file.
    pub command: String,
    /// How long one run may take.
    pub timeout: Duration,
    matcher: GlobSet,
}

impl ExternalChecker {
    /// A checker; errors if a pattern does not compile.
    pub fn new(
        name: &str,
        patterns: Vec<String>,
        command: &str,
        timeout: Duration,
    ) -> Result<ExternalChecker, ConfigError> {
        let origin = format!("git config assetvc.check.{name}.pattern");
        let matcher = globs(&patterns, &origin)?;
        Ok(ExternalChecker {
            name: name.to_string(),
            patterns,
            command: command.to_string(),
            timeout,
            matcher,
        })
    }

    /// Whether the checker applies to `path` (its file name or the whole path matches).
    pub fn matches(&self, path: &str) -> bool {
        let p = Path::new(path);
        let name = p.file_name().map(Path::new).unwrap_or(p);
        self.matcher.is_match(name) || self.matcher.is_match(p)
    }

    /// Runs the checker on `bytes`, the content of `path`; `None` when it passes.
    pub fn run(&self, path: &str, bytes: &[u8]) -> Option<Problem> {
        let problem = |reason: String| Some(Problem::whole_file(path, Check::External, reason));
        let dir = match tempfile::Builder::new().prefix("assetvc-check-").tempdir() {
            Ok(d) => d,
            Err(e) => return problem(format!("checker `{}`: temporary directory: {e}", self.name)),
        };
        let file_name = Path::new(path)
            .file_name()
            .map_or_else(|| "blob".into(), |n| n.to_os_string());
        let file = dir.path().join(file_name);
        if let Err(e) = std::fs::write(&file, bytes) {
            return problem(format!("checker `{}`: temporary file: {e}", self.name));
        }
        let quoted = match shlex::try_quote(&file.to_string_lossy()) {
            Ok(q) => q.into_owned(),
            Err(e) => return problem(format!("checker `{}` cannot run: {e}", self.name)),
        };
        let command = if self.command.contains("{}") {
            self.command.replace("{}", &quoted)
        } else {
            format!("{} {quoted}", self.command)
        };
        let (status, output) = match run_with_timeout(&command, self.timeout) {
            Ok(r) => r,
            Err(e) => return problem(format!("checker `{}` cannot run: {e}", self.name)),
        };
        let output = output.replace(&*file.to_string_lossy(), path);
        let output = output.trim_end();
        let what = match status {
            RunStatus::Passed => return None,
            RunStatus::Failed(code) => format!("checker `{}` failed ({code})", self.name),
            RunStatus::TimedOut => format!(
                "checker `{}` timed out after {} s",
                self.name,
                self.timeout.as_secs_f64()
            ),
        };
        let reason = if output.is_empty() {
            what
        } else {
            format!("{what}:\n{output}")
        };
        let mut p = Problem::whole_file(path, Check::External, reason);
        if let Some((line, col)) = position_in_output(output, path) {
            p.line = line;
            p.col = col;
        }
        Some(p)
    }
}

/// How a command ended.
#[derive(Debug, Clone, PartialEq, Eq)]
enum RunStatus {
    Passed,
    /// Exit code or signal, for people.
    Failed(String),
    TimedOut,
}

/// Runs `command` through `sh -c` in its own process group with stdin closed; stdout
/// and stderr go to one anonymous temporary file (no pipe to fill up and block on).
fn run_with_timeout(command: &str, timeout: Duration) -> std::io::Result<(RunStatus, String)> {
    let mut out = tempfile::tempfile()?;
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(command)
        .stdin(Stdio::null())
        .stdout(out.try_clone()?)
        .stderr(out.try_clone()?);
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    let mut child = cmd.spawn()?;
    let _running = Running::register(child.id());
    let status = child.wait_timeout(timeout)?;
    if status.is_none() {
        kill_group(&mut child);
        let _ = child.wait();
    }
    out.rewind()?;
    let mut bytes = Vec::new();
    out.take(MAX_OUTPUT as u64).read_to_end(&mut bytes)?;
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let status = match status {
        None => RunStatus::TimedOut,
        Some(s) if s.success() => RunStatus::Passed,
        Some(s) => RunStatus::Failed(match s.code() {
            Some(code) => format!("exit status {code}"),
            None => s.to_string(),
        }),
    };
    Ok((status, text))
}

/// The process groups of the checkers running now, so that a hook that gives up
/// (its own timeout) can end them: [`kill_running`].
static RUNNING: std::sync::Mutex<Vec<u32>> = std::sync::Mutex::new(Vec::new());

/// Registers a running checker's process group until dropped.
struct Running(u32);

impl Running {
    fn register(pid: u32) -> Running {
        if let Ok(mut r) = RUNNING.lock() {
            r.push(pid);
        }
        Running(pid)
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Ok(mut r) = RUNNING.lock() {
            r.retain(|&p| p != self.0);
        }
    }
}

/// Kills every external checker still running (with its process group).
pub fn kill_running() {
    let pids: Vec<u32> = RUNNING.lock().map(|r| r.clone()).unwrap_or_default();
    for pid in pids {
        kill_pid_group(pid);
    }
}

fn kill_pid_group(pid: u32) {
    #[cfg(unix)]
    {
        use rustix::process::{kill_process_group, Pid, Signal};
        // The process group `process_group(0)` created for the checker (its leader's pid).
        if let Some(pid) = i32::try_from(pid).ok().and_then(Pid::from_raw) {
            let _ = kill_process_group(pid, Signal::KILL);
        }
    }
}

fn kill_group(child: &mut std::process::Child) {
    kill_pid_group(child.id());
    let _ = child.kill();
}

/// The first `path:LINE[:COL]` or `path(LINE[,COL])` in a checker's output.
fn position_in_output(output: &str, path: &str) -> Option<(usize, usize)> {
    let mut rest = output;
    while let Some(i) = rest.find(path) {
        let after = &rest[i + path.len()..];
        let mut chars = after.chars();
        if let Some(sep @ (':' | '(')) = chars.next() {
            let tail = chars.as_str();
            let line: String = tail.chars().take_while(char::is_ascii_digit).collect();
            if let Ok(line) = line.parse::<usize>() {
                let tail = &tail[line.to_string().len()..];
                let col_sep = if sep == ':' { ':' } else { ',' };
                let col = tail
                    .strip_prefix(col_sep)
                    .map(|t| {
                        t.chars()
                            .take_while(char::is_ascii_digit)
                            .collect::<String>()
                    })
                    .and_then(|c| c.parse::<usize>().ok())
                    .unwrap_or(0);
                if line > 0 {
                    return Some((line, col));
                }
            }
        }
        rest = &rest[i + path.len()..];
    }
    None
}

/// Settings only trusted git config may give (see the module documentation).
#[derive(Debug, Clone)]
pub struct GitSettings {
    /// External checkers, by name order of appearance.
    pub checkers: Vec<ExternalChecker>,
    /// pre-receive: check every new commit instead of the tip differences.
    pub every_commit: bool,
    /// pre-receive: the longest the whole hook may take.
    pub hook_timeout: Duration,
    /// pre-receive: the server's policy file (`assetvc.config`).
    pub config_file: Option<PathBuf>,
}

impl Default for GitSettings {
    fn default() -> Self {
        GitSettings {
            checkers: Vec::new(),
            every_commit: false,
            hook_timeout: DEFAULT_HOOK_TIMEOUT,
            config_file: None,
        }
    }
}

impl GitSettings {
    /// Reads the settings from `assetvc.*` entries of trusted git config (later entries
    /// override earlier ones; `pattern` accumulates). Unknown names are ignored.
    pub fn from_entries(entries: &[ConfigEntry]) -> Result<GitSettings, ConfigError> {
        #[derive(Default)]
        struct Raw {
            patterns: Vec<String>,
            command: Option<String>,
            timeout: Option<String>,
        }
        let mut settings = GitSettings::default();
        let mut raw: Vec<(String, Raw)> = Vec::new();
        for e in entries {
            let value = e.value.clone();
            let key = |name: &str| match &e.subsection {
                Some(s) => format!("assetvc.{s}.{name}"),
                None => format!("assetvc.{name}"),
            };
            match (e.subsection.as_deref(), e.name.as_str()) {
                (Some("hook"), "everycommit") => {
                    settings.every_commit = parse_bool(value.as_deref(), &key("everyCommit"))?;
                }
                (Some("hook"), "timeout") => {
                    settings.hook_timeout = parse_seconds(value.as_deref(), &key("timeout"))?;
                }
                (None, "config") => {
                    settings.config_file = value.filter(|v| !v.is_empty()).map(PathBuf::from);
                }
                (Some(sub), name) if sub.starts_with("check.") => {
                    let checker = &sub["check.".len()..];
                    let i = match raw.iter().position(|(n, _)| n == checker) {
                        Some(i) => i,
                        None => {
                            raw.push((checker.to_string(), Raw::default()));
                            raw.len() - 1
                        }
                    };
                    let r = &mut raw[i].1;
                    match name {
                        "pattern" => r.patterns.extend(value),
                        "command" => r.command = value,
                        "timeout" => r.timeout = value,
                        _ => {}
                    }
                }
                _ => {}
            }
        }
        for (name, r) in raw {
            let setting = |n: &str| format!("assetvc.check.{name}.{n}");
            let Some(command) = r.command.filter(|c| !c.trim().is_empty()) else {
                if r.patterns.is_empty() {
                    continue;
                }
                return Err(ConfigError::Setting {
                    setting: setting("command"),
                    message: "a checker with a pattern needs a command".into(),
                });
            };
            if r.patterns.is_empty() {
                return Err(ConfigError::Setting {
                    setting: setting("pattern"),
                    message: "a checker with a command needs a pattern".into(),
                });
            }
            let timeout = match r.timeout {
                Some(t) => parse_seconds(Some(&t), &setting("timeout"))?,
                None => DEFAULT_CHECK_TIMEOUT,
            };
            settings
                .checkers
                .push(ExternalChecker::new(&name, r.patterns, &command, timeout)?);
        }
        Ok(settings)
    }
}

/// A git boolean: `true yes on 1` / `false no off 0 ""`; a bare name is true.
fn parse_bool(value: Option<&str>, setting: &str) -> Result<bool, ConfigError> {
    match value.map(|v| v.trim().to_ascii_lowercase()).as_deref() {
        None | Some("true" | "yes" | "on" | "1") => Ok(true),
        Some("false" | "no" | "off" | "0" | "") => Ok(false),
        Some(other) => Err(ConfigError::Setting {
            setting: setting.to_string(),
            message: format!("{other:?} is not a boolean"),
        }),
    }
}

/// A positive number of seconds (fractions allowed).
fn parse_seconds(value: Option<&str>, setting: &str) -> Result<Duration, ConfigError> {
    value
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s > 0.0 && *s < 1e9)
        .map(Duration::from_secs_f64)
        .ok_or_else(|| ConfigError::Setting {
            setting: setting.to_string(),
            message: format!(
                "{:?} is not a positive number of seconds",
                value.unwrap_or("")
            ),
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    fn entry(sub: Option<&str>, name: &str, value: &str) -> ConfigEntry {
        ConfigEntry {
            subsection: sub.map(String::from),
            name: name.to_ascii_lowercase(),
            value: Some(value.to_string()),
        }
    }

    #[test]
    fn settings_from_git_config() {
        let s = GitSettings::from_entries(&[
            entry(Some("check.glsl"), "pattern", "*.glsl"),
            entry(Some("check.glsl"), "pattern", "*.hlsl"),
            entry(Some("check.glsl"), "command", "validate {}"),
            entry(Some("check.glsl"), "timeout", "2.5"),
            entry(Some("hook"), "everyCommit", "yes"),
            entry(Some("hook"), "timeout", "60"),
            entry(None, "config", "/srv/policy.toml"),
            entry(Some("merge"), "whatever", "x"),
        ])
        .unwrap();
        assert_eq!(s.checkers.len(), 1);
        let c = &s.checkers[0];
        assert_eq!(c.name, "glsl");
        assert_eq!(c.timeout, Duration::from_millis(2500));
        assert!(c.matches("shaders/a.hlsl") && c.matches("b.glsl") && !c.matches("c.lua"));
        assert!(s.every_commit);
        assert_eq!(s.hook_timeout, Duration::from_secs(60));
        assert_eq!(s.config_file, Some(PathBuf::from("/srv/policy.toml")));
        let implicit = ConfigEntry {
            subsection: Some("hook".into()),
            name: "everycommit".into(),
            value: None,
        };
        assert!(GitSettings::from_entries(&[implicit]).unwrap().every_commit);
    }

    #[test]
    fn incomplete_checkers_and_bad_values_are_errors() {
        let e = GitSettings::from_entries(&[entry(Some("check.x"), "pattern", "*.x")]);
        assert!(matches!(e, Err(ConfigError::Setting { .. })));
        let e = GitSettings::from_entries(&[entry(Some("check.x"), "command", "true")]);
        assert!(matches!(e, Err(ConfigError::Setting { .. })));
        let e = GitSettings::from_entries(&[entry(Some("hook"), "everycommit", "maybe")]);
        assert!(e.is_err());
        let e = GitSettings::from_entries(&[entry(Some("hook"), "timeout", "-1")]);
        assert!(e.is_err());
    }

    #[test]
    fn positions_are_found_in_compiler_output() {
        assert_eq!(
            position_in_output("ERROR: a/b.glsl:12: bad", "a/b.glsl"),
            Some((12, 0))
        );
        assert_eq!(
            position_in_output("a/b.hlsl(7,3): error X3000", "a/b.hlsl"),
            Some((7, 3))
        );
        assert_eq!(position_in_output("a/b.x:4:9: oops", "a/b.x"), Some((4, 9)));
        assert_eq!(position_in_output("no position", "a/b.x"), None);
    }

    #[cfg(unix)]
    #[test]
    fn the_file_reaches_the_command_as_one_word() {
        // The temporary file is named like the original: a space and a quote must reach
        // the command quoted, as one argument.
        let one_word = ExternalChecker::new(
            "words",
            vec!["*".into()],
            "test $# -eq 1 || exit 3; case \"$1\" in *\"/it's a.glsl\") exit 0;; esac; exit 4",
            Duration::from_secs(10),
        )
        .unwrap();
        // `sh -c CMD FILE`-style: wrap so that the quoted path becomes "$1".
        let wrapped = ExternalChecker::new(
            "wrapped",
            vec!["*".into()],
            &format!(
                "sh -c {} sh {{}}",
                shlex::try_quote(&one_word.command).unwrap()
            ),
            Duration::from_secs(10),
        )
        .unwrap();
        assert_eq!(wrapped.run("d/it's a.glsl", b"x"), None);
        let p = wrapped.run("d/other.glsl", b"x").unwrap();
        assert!(p.reason.contains("exit status 4"), "{}", p.reason);
    }

    #[cfg(unix)]
    #[test]
    fn commands_pass_fail_and_time_out() {
        let dir = tempfile::tempdir().unwrap();
        // A fake compiler: fails on files containing "bad", printing a position.
        let script = dir.path().join("fakecc");
        std::fs::write(
            &script,
            "#!/bin/sh\nif grep -q bad \"$1\"; then echo \"$1:3: error: bad token\"; exit 2; fi\n",
        )
        .unwrap();
        let slow = dir.path().join("slow");
        std::fs::write(&slow, "#!/bin/sh\nsleep 30\n").unwrap();
        for s in [&script, &slow] {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(s, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let cc = ExternalChecker::new(
            "cc",
            vec!["*.glsl".into()],
            &format!("{} {{}}", script.display()),
            Duration::from_secs(10),
        )
        .unwrap();
        assert_eq!(cc.run("s/a.glsl", b"void main() {}"), None);
        let p = cc.run("s/a.glsl", b"bad").unwrap();
        assert_eq!(p.check, Check::External);
        assert_eq!((p.line, p.col), (3, 0));
        assert!(p.reason.contains("exit status 2"), "{}", p.reason);
        assert!(
            p.reason.contains("s/a.glsl:3: error: bad token"),
            "{}",
            p.reason
        );
        let sleeper = ExternalChecker::new(
            "slow",
            vec!["*".into()],
            &slow.display().to_string(),
            Duration::from_millis(300),
        )
        .unwrap();
        let start = Instant::now();
        let p = sleeper.run("x.glsl", b"").unwrap();
        assert!(p.reason.contains("timed out"), "{}", p.reason);
        assert!(start.elapsed() < Duration::from_secs(10));
        let missing = ExternalChecker::new(
            "missing",
            vec!["*".into()],
            "/nonexistent/compiler",
            Duration::from_secs(5),
        )
        .unwrap();
        assert!(missing
            .run("x", b"")
            .unwrap()
            .reason
            .contains("exit status 127"));
    }
}
