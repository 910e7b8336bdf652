//! Fetching a branch: through gix for `file://`, local paths, `ssh://` and `git://` remotes;
//! through the `git` executable for every other scheme (https and remote helpers), because
//! this build of gix leaves its HTTP transport out (it would add a TLS stack and minutes of
//! build time) — `git fetch` then behaves, credentials included, exactly as git does.

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::AtomicBool;

use gix::bstr::ByteSlice;
use gix::ObjectId;

use crate::error::{Error, Result};
use crate::Repo;

/// A fetched branch tip.
#[derive(Debug, Clone)]
pub struct Fetched {
    /// The commit the remote branch points to.
    pub id: ObjectId,
    /// The remote's URL as shown to people (credentials removed).
    pub url: String,
    /// The remote-tracking ref that was updated, if the remote's refspecs name one.
    pub tracking_ref: Option<String>,
    /// Whether the `git` executable did the fetch.
    pub via_git: bool,
}

impl Repo {
    /// Fetches branch `branch` (a short name, `main`, or a full ref) of `remote` (a
    /// configured remote's name, or a URL or path), updating the remote-tracking refs as
    /// configured.
    pub fn fetch_branch(&self, remote: &str, branch: &str) -> Result<Fetched> {
        fetch_branch(&self.git, remote, branch)
    }

    /// The upstream of branch `branch`: (remote, branch) from `branch.<name>.remote` and
    /// `branch.<name>.merge`, if configured.
    pub fn upstream(&self, branch: &str) -> Option<(String, String)> {
        upstream(&self.git, branch)
    }
}

/// Fetches `branch` of `remote`.
fn fetch_branch(repo: &gix::Repository, remote: &str, branch: &str) -> Result<Fetched> {
    let full_ref = if branch.starts_with("refs/") {
        branch.to_string()
    } else {
        format!("refs/heads/{branch}")
    };
    let not_found = || {
        Error::Usage(format!(
            "{remote}: not a remote, nor a repository URL or path"
        ))
    };
    let remote_obj = match repo.try_find_remote(remote) {
        Some(found) => found.map_err(|e| Error::Usage(format!("{remote}: {e:#}")))?,
        None => {
            let looks_like_url = remote.contains("://")
                || Path::new(remote).exists()
                || remote
                    .split_once(':')
                    .is_some_and(|(host, _)| !host.contains('/'));
            if !looks_like_url {
                return Err(not_found());
            }
            repo.remote_at(remote).map_err(|_| not_found())?
        }
    };
    let url = remote_obj
        .url(gix::remote::Direction::Fetch)
        .ok_or_else(|| Error::Usage(format!("{remote}: the remote has no URL")))?
        .clone();
    let shown_url = url.to_bstring().to_str_lossy().into_owned();
    use gix::url::Scheme;
    match url.scheme {
        Scheme::File | Scheme::Ssh | Scheme::Git => {}
        _ => return fetch_with_git(repo, remote, &full_ref, shown_url),
    }

    let spec = gix::refspec::parse(
        full_ref.as_str().into(),
        gix::refspec::parse::Operation::Fetch,
    )
    .map_err(|e| Error::Usage(format!("{branch}: not a branch name ({e})")))?
    .to_owned();
    let connection = remote_obj.connect(gix::remote::Direction::Fetch)?;
    let options = gix::remote::ref_map::Options {
        extra_refspecs: vec![spec],
        ..Default::default()
    };
    let outcome = crate::ref_lock::guarded(repo, || {
        connection
            .prepare_fetch(gix::progress::Discard, options)?
            .receive(gix::progress::Discard, &AtomicBool::new(false))
    })?;
    let mut id = None;
    let mut tracking_ref = None;
    for mapping in &outcome.ref_map.mappings {
        if mapping.remote.as_name().map(|n| n == full_ref.as_str()) != Some(true) {
            continue;
        }
        if let Some(oid) = mapping.remote.as_id() {
            id = Some(oid.to_owned());
        }
        if let Some(local) = &mapping.local {
            tracking_ref = Some(local.to_str_lossy().into_owned());
        }
    }
    let id = id.ok_or_else(|| {
        Error::Usage(format!(
            "couldn't find remote ref {full_ref} in {shown_url}"
        ))
    })?;
    Ok(Fetched {
        id,
        url: shown_url,
        tracking_ref,
        via_git: false,
    })
}

/// `git fetch REMOTE REF`, then the tip from `FETCH_HEAD`.
fn fetch_with_git(
    repo: &gix::Repository,
    remote: &str,
    full_ref: &str,
    shown_url: String,
) -> Result<Fetched> {
    let dir = repo.workdir().unwrap_or_else(|| repo.git_dir());
    let status = git_command(dir)
        .args(["fetch", "--", remote, full_ref])
        .stdin(Stdio::inherit())
        .stdout(Stdio::inherit())
        .stderr(Stdio::inherit())
        .status()
        .map_err(|source| Error::CommandStart {
            command: "git fetch".into(),
            source,
        })?;
    if !status.success() {
        return Err(Error::CommandFailed {
            command: format!("git fetch {remote} {full_ref}"),
            status: Some(status),
            reason: String::new(),
        });
    }
    let path = repo.git_dir().join("FETCH_HEAD");
    let text =
        std::fs::read_to_string(&path).map_err(|e| Error::io(path.display().to_string(), e))?;
    let first = text
        .split_whitespace()
        .next()
        .ok_or_else(|| Error::git_in(path.display().to_string(), "empty"))?;
    let id = ObjectId::from_hex(first.as_bytes())
        .map_err(|e| Error::git_in(path.display().to_string(), e))?;
    Ok(Fetched {
        id,
        url: shown_url,
        tracking_ref: None,
        via_git: true,
    })
}

/// The `git` executable, run in `dir`. gix 0.90 cannot push and this build does not fetch
/// over https, so assetvc calls git for those — as jj and GitButler do.
pub(crate) fn git_command(dir: &Path) -> Command {
    let mut cmd = Command::new("git");
    cmd.current_dir(dir);
    cmd
}

/// The upstream of `branch`.
fn upstream(repo: &gix::Repository, branch: &str) -> Option<(String, String)> {
    let config = repo.config_snapshot();
    let remote = config.string(format!("branch.{branch}.remote").as_str())?;
    let merge = config.string(format!("branch.{branch}.merge").as_str())?;
    let merge = merge.to_str_lossy();
    let short = merge
        .strip_prefix("refs/heads/")
        .unwrap_or(&merge)
        .to_string();
    Some((remote.to_str_lossy().into_owned(), short))
}
