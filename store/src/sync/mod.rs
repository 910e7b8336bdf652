//! Live collaboration over a plain git remote: `assetvc sync` and `assetvc who`.
//!
//! One sync cycle (see DESIGN.md, "Live collaboration"):
//!
//! 1. [`Repo::record_wip`] records the worktree's uncommitted asset edits as a commit on
//!    `refs/assetvc/wip/<user>/<branch>` (parent HEAD, tree HEAD's tree plus the asset
//!    files as they are on disk), without touching HEAD, the index or the worktree;
//! 2. [`Repo::push_wip`] force-pushes that one ref, [`Repo::fetch_wip`] fetches the upstream
//!    branch and every `refs/assetvc/wip/*` into `refs/assetvc/remote-wip/<remote>/*`;
//! 3. [`Repo::bring_upstream`] fast-forwards the branch to the upstream and merges it into
//!    the worktree by structure, the uncommitted edits being "ours" and winning every true
//!    conflict (left pending), or changes nothing and says why (diverged branch, a file
//!    saved while sync wrote it, the branch switched…).
//!
//! [`Repo::who`] reads the fetched WIP refs of the other users and lists the objects they change.
//! The submodules: `wip` (recording), `remote` (push and fetch through `git`), `bring`
//! (the merge), `pending` (who made an upstream value), `who` (the object-level report).

use crate::Repo;

mod bring;
mod pending;
mod remote;
mod who;
mod wip;

#[cfg(test)]
mod tests;

pub use bring::{Brought, Postponed, SAVED_PREFIX};
pub use remote::{push_refusal, Limits};
pub use who::{short_id, ObjectChange, OtherWip, WhoReport, WhoRequest};
pub use wip::Wip;

/// The namespace of the work-in-progress refs on the remote.
pub const WIP_PREFIX: &str = "refs/assetvc/wip/";

/// The local namespace of the fetched WIP refs: `refs/assetvc/remote-wip/<remote>/…`.
pub const REMOTE_WIP_PREFIX: &str = "refs/assetvc/remote-wip/";

/// Turns a user name or e-mail address into one valid ref name component: characters
/// outside `A-Z a-z 0-9 . _ - + @` become `-`, `..` and `@{` cannot appear, and it neither
/// starts with `.` nor ends with `.` or `.lock`. `None` when nothing is left.
pub fn ref_component(user: &str) -> Option<String> {
    let mut out = String::with_capacity(user.len());
    for c in user.trim().chars() {
        let keep = c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '+' | '@');
        let c = if keep { c } else { '-' };
        if c == '.' && out.ends_with('.') {
            continue;
        }
        out.push(c);
    }
    let mut out = out.trim_start_matches('.').to_string();
    loop {
        if let Some(s) = out.strip_suffix(".lock") {
            out = s.to_string();
        } else if let Some(s) = out.strip_suffix('.') {
            out = s.to_string();
        } else {
            break;
        }
    }
    if out.is_empty() || out == "@" {
        return None;
    }
    Some(out)
}

impl Repo {
    /// The sync user of `repo`: `git config assetvc.user`, else `user.email`, as a ref
    /// component (see [`ref_component`]).
    pub fn sync_user(&self) -> Option<String> {
        let repo = &self.git;
        let config = repo.config_snapshot();
        ["assetvc.user", "user.email"]
            .iter()
            .filter_map(|key| config.string(*key))
            .find_map(|value| ref_component(&String::from_utf8_lossy(value.as_ref())))
    }
}

/// `refs/assetvc/wip/<user>/<branch>`.
pub fn wip_ref(user: &str, branch: &str) -> String {
    format!("{WIP_PREFIX}{user}/{branch}")
}

/// Where the WIP refs of `remote` are fetched to: `refs/assetvc/remote-wip/<remote>/`.
pub fn remote_wip_prefix(remote: &str) -> String {
    let remote = ref_component(remote).unwrap_or_else(|| "remote".into());
    format!("{REMOTE_WIP_PREFIX}{remote}/")
}

/// The owner named by a WIP ref (`refs/assetvc/wip/<user>/…`), if it is one.
pub fn wip_owner(refname: &str) -> Option<&str> {
    let rest = refname.strip_prefix(WIP_PREFIX)?;
    let (user, branch) = rest.split_once('/')?;
    (!user.is_empty() && !branch.is_empty()).then_some(user)
}

/// Parses a duration as `sync.stale` is written: seconds (`900`), or a number with `s`,
/// `m` or `h` (`90s`, `15m`, `1h`).
pub fn parse_duration(text: &str) -> Option<std::time::Duration> {
    let text = text.trim();
    let (number, unit) = match text.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => text.split_at(i),
        None => (text, ""),
    };
    let n: u64 = number.parse().ok()?;
    let seconds = match unit.trim() {
        "" | "s" => n,
        "m" | "min" => n.checked_mul(60)?,
        "h" => n.checked_mul(3600)?,
        _ => return None,
    };
    Some(std::time::Duration::from_secs(seconds))
}
