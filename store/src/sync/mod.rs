//! Live collaboration over a plain git remote: `assetvc sync` and `assetvc who`.
//!
//! One sync cycle (see docs/design.md, "Live collaboration"):
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

/// Longest ref component [`ref_component`] makes (a file name on every file system).
const MAX_COMPONENT: usize = 200;

/// Turns a user name or e-mail address into one valid ref name component, **injectively**
/// (issue #30 item 5: `alice.lock`, `.alice`, ` alice` and `alice` are four users, and so
/// are `bob smith` and `bob/smith`, `böb` and `bøb`): `A-Z a-z 0-9 _ - + @` stay, a `.`
/// stays between two other characters, and every other byte of the UTF-8 name (and a `.`
/// at either end, beside another `.`, or before a final `lock`) is written `%XX`. Nothing
/// is trimmed or folded, so two names never share a component. `None` for an empty name or
/// one too long to be a ref component.
pub fn ref_component(user: &str) -> Option<String> {
    let bytes = user.as_bytes();
    let mut out = String::with_capacity(user.len());
    for (i, &b) in bytes.iter().enumerate() {
        let keep = b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'+' | b'@');
        let plain_dot = b == b'.'
            && i > 0
            && i + 1 < bytes.len()
            && bytes[i - 1] != b'.'
            && bytes[i + 1] != b'.'
            && &bytes[i..] != b".lock";
        if keep || plain_dot {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    if out == "@" {
        out = "%40".into();
    }
    (!out.is_empty() && out.len() <= MAX_COMPONENT).then_some(out)
}

/// The name [`ref_component`] made `component` from, when it is one of its results.
pub fn user_of_component(component: &str) -> Option<String> {
    let mut bytes = Vec::with_capacity(component.len());
    let mut rest = component.as_bytes();
    while let Some((&b, tail)) = rest.split_first() {
        if b == b'%' {
            let hex = std::str::from_utf8(tail.get(..2)?).ok()?;
            bytes.push(u8::from_str_radix(hex, 16).ok()?);
            rest = &tail[2..];
        } else {
            bytes.push(b);
            rest = tail;
        }
    }
    let user = String::from_utf8(bytes).ok()?;
    (ref_component(&user).as_deref() == Some(component)).then_some(user)
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

/// Parses a duration as `sync.stale` is written: seconds (`900`), or what `humantime`
/// reads (`90s`, `15m`, `15min`, `1h 30m`, `2hours`).
pub fn parse_duration(text: &str) -> Option<std::time::Duration> {
    let text = text.trim();
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        return text.parse().ok().map(std::time::Duration::from_secs);
    }
    humantime::parse_duration(text).ok()
}
