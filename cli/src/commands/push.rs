//! `assetvc push [ARGS...]`: `git push` with the same arguments. gix 0.90 cannot push, so
//! assetvc runs the `git` executable (as jj and GitButler do), with stdin, stdout and stderr
//! inherited: credentials, hooks and output are exactly git's.

use std::ffi::OsString;
use std::process::Stdio;

use crate::exit::Context;
use clap::Args;

use crate::exit::Outcome;

/// Arguments of `assetvc push`.
#[derive(Debug, Args)]
pub struct PushArgs {
    /// Passed to `git push` unchanged (remote, refspecs, options).
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "GIT_PUSH_ARGS"
    )]
    pub args: Vec<OsString>,
}

/// Runs `git push`: 0 pushed, 1 rejected or failed, 2 git could not run or reported bad usage.
pub fn run(args: &PushArgs) -> crate::exit::Result<Outcome> {
    let status = std::process::Command::new("git")
        .arg("push")
        .args(&args.args)
        .stdin(Stdio::inherit())
        .stdout(Stdio::inherit())
        .stderr(Stdio::inherit())
        .status()
        .context("cannot run git push")?;
    Ok(match status.code() {
        _ if status.success() => Outcome::Done,
        // git exits 128 on fatal errors (no such remote…) and 129 on bad usage.
        Some(128) | Some(129) => Outcome::ErrorsReported,
        _ => Outcome::PushRejected,
    })
}
