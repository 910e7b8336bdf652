//! Pushing the WIP ref and fetching the upstream and everyone's WIP refs, through the `git`
//! executable: gix 0.90 cannot push, and running both through git gives them one behaviour
//! for every transport and credential helper, and one way to give up on a remote that is
//! down or too slow (the child is killed after a timeout, or when the user interrupts).

use std::path::Path;
use std::process::{Child, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use wait_timeout::ChildExt as _;

use crate::error::{Error, Result};
use crate::fetch::git_command;
use crate::Repo;

/// How a remote operation is bounded.
#[derive(Debug, Clone, Copy)]
pub struct Limits<'a> {
    /// The longest a push or fetch may take before it is abandoned.
    pub timeout: Duration,
    /// Set when the user interrupts: the running git is stopped.
    pub stop: &'a AtomicBool,
}

/// How many times a WIP push that lost a race for the remote's ref lock is tried.
const WIP_PUSH_TRIES: u32 = 4;

/// Whether a failed git command lost a race for a ref's lock to another process (the
/// receiving side says `cannot lock ref …: is at X but expected Y`), which a retry ends.
fn lost_a_ref_lock_race(e: &Error) -> bool {
    matches!(e, Error::CommandFailed { status: Some(_), reason, .. }
        if reason.contains("cannot lock ref") || reason.contains("failed to lock"))
}

impl Repo {
    /// Force-pushes `refname` to the same name on `remote` (a WIP ref is private to its
    /// user), running `git push` in the worktree.
    ///
    /// A push the remote turned away because another push of the same ref held its lock
    /// (`cannot lock ref`: a killed sync's orphaned `git push`, or a second sync of the
    /// same user) is tried again, four times in all at most: the WIP is the
    /// user's own, so the newest push is the right one to land.
    pub fn push_wip(&self, remote: &str, refname: &str, limits: Limits<'_>) -> Result<()> {
        let spec = format!("+{refname}:{refname}");
        let args = ["push", "--quiet", "--no-verify", "--", remote, &spec];
        let mut tries = 1;
        loop {
            match run_git(self.run_dir(), &args, limits) {
                Err(e) if tries < WIP_PUSH_TRIES && lost_a_ref_lock_race(&e) => {
                    std::thread::sleep(Duration::from_millis(100 << tries));
                    tries += 1;
                }
                done => return done,
            }
        }
    }

    /// Fetches `refs/heads/<branch>` of `remote` into `tracking`, and every
    /// `refs/assetvc/wip/*` into `wip_prefix*` (pruning the WIP refs the remote no longer
    /// has), running `git fetch` in the worktree.
    pub fn fetch_wip(
        &self,
        remote: &str,
        branch: &str,
        tracking: &str,
        wip_prefix: &str,
        limits: Limits<'_>,
    ) -> Result<()> {
        let upstream = format!("+refs/heads/{branch}:{tracking}");
        let wip = format!("+{}*:{wip_prefix}*", super::WIP_PREFIX);
        let args = [
            "fetch",
            "--quiet",
            "--no-tags",
            "--no-write-fetch-head",
            "--prune",
            "--",
            remote,
            &upstream,
            &wip,
        ];
        run_git(self.run_dir(), &args, limits)
    }

    /// Where `git` runs: the worktree, else the git directory.
    fn run_dir(&self) -> &Path {
        self.workdir().unwrap_or_else(|| self.git_dir())
    }
}

/// Runs git with `args` in `dir`; its standard error is kept for the error message.
fn run_git(dir: &Path, args: &[&str], limits: Limits<'_>) -> Result<()> {
    let what = format!("git {}", args[0]);
    let mut command = git_command(dir);
    // Its own process group: stopping it stops its transport helpers too, and a Ctrl-C
    // meant for assetvc reaches git only through assetvc.
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let mut child = command
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|source| Error::CommandStart {
            command: what.clone(),
            source,
        })?;
    // Read standard error on a thread so that a chatty git never blocks on a full pipe.
    // A transport helper (ssh, git-remote-https) may hold the pipe open after git was
    // killed: its text is waited for briefly, never for as long as the helper lives.
    let stderr = child.stderr.take();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut text = String::new();
        if let Some(mut s) = stderr {
            use std::io::Read;
            let _ = s.read_to_string(&mut text);
        }
        let _ = tx.send(text);
    });
    let status = wait_bounded(&mut child, limits);
    let linger = match status {
        Ok(_) => Duration::from_secs(5),
        Err(_) => Duration::from_millis(200),
    };
    let stderr = rx.recv_timeout(linger).unwrap_or_default();
    let stderr = stderr.trim();
    match status {
        Ok(s) if s.success() => Ok(()),
        Ok(s) => Err(Error::CommandFailed {
            command: what,
            status: Some(s),
            reason: stderr.to_string(),
        }),
        Err(why) => Err(Error::CommandFailed {
            command: what,
            status: None,
            reason: why,
        }),
    }
}

/// How often a wait for git looks at the stop flag.
const STOP_CHECK: Duration = Duration::from_millis(25);

/// Waits for `child`, killing it when the timeout passes or the stop flag is set.
fn wait_bounded(
    child: &mut Child,
    limits: Limits<'_>,
) -> std::result::Result<std::process::ExitStatus, String> {
    let start = Instant::now();
    loop {
        // Returns as soon as the child ends; the slice only bounds how late an interrupt
        // or the timeout is noticed.
        let slice = limits
            .timeout
            .saturating_sub(start.elapsed())
            .min(STOP_CHECK);
        match child.wait_timeout(slice) {
            Ok(Some(status)) => return Ok(status),
            Ok(None) => {}
            Err(e) => return Err(e.to_string()),
        }
        let why = if limits.stop.load(Ordering::Relaxed) {
            Some("interrupted".to_string())
        } else if start.elapsed() >= limits.timeout {
            Some(format!(
                "no answer after {:.0} s: the remote is down or too slow",
                limits.timeout.as_secs_f64()
            ))
        } else {
            None
        };
        if let Some(why) = why {
            kill_group(child);
            let _ = child.kill();
            let _ = child.wait();
            return Err(why);
        }
    }
}

/// Kills the process group `child` leads (git and the transport helpers it started).
fn kill_group(child: &Child) {
    #[cfg(unix)]
    {
        let group = format!("-{}", child.id());
        let _ = std::process::Command::new("kill")
            .args(["-KILL", "--", &group])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
    #[cfg(not(unix))]
    let _ = child;
}

/// Why the remote refused a push that reached it (a `[rejected]` or `[remote rejected]`
/// ref, a hook that declined), if that is how `error` failed: the remote was reached.
pub fn push_refusal(error: &Error) -> Option<String> {
    let Error::CommandFailed {
        status: Some(_),
        reason,
        ..
    } = error
    else {
        return None;
    };
    let refused = ["[rejected]", "[remote rejected]", "declined", "denied"];
    refused
        .iter()
        .any(|r| reason.contains(r))
        .then(|| reason.clone())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn failed(reason: &str, status: bool) -> Error {
        use std::os::unix::process::ExitStatusExt;
        Error::CommandFailed {
            command: "git push".into(),
            status: status.then(|| std::process::ExitStatus::from_raw(256)),
            reason: reason.into(),
        }
    }

    #[test]
    fn only_a_lost_ref_lock_race_is_tried_again() {
        let race = "remote: error: cannot lock ref 'refs/assetvc/wip/bob/main': is at 1a2b \
                    but expected 3c4d";
        assert!(lost_a_ref_lock_race(&failed(race, true)));
        assert!(
            !lost_a_ref_lock_race(&failed(race, false)),
            "a timeout is final"
        );
        assert!(!lost_a_ref_lock_race(&failed(
            "remote: refused: alice may not push another user's WIP",
            true
        )));
        assert!(!lost_a_ref_lock_race(&failed(
            "fatal: unable to access: Connection refused",
            true
        )));
    }
}
