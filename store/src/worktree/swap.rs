//! The swap of compare-and-swap, with no window between the last compare and the swap.
//!
//! A compare followed by a rename leaves two system calls in which an editor's save can
//! slip in and be replaced. On Linux the new file is therefore *exchanged* into place
//! (`renameat2(RENAME_EXCHANGE)`, atomic) and what came out — now at the temporary path —
//! is compared afterwards: if it is not what the caller checked, the two are exchanged back
//! and the file is left alone. A file that did not exist is created with
//! `RENAME_NOREPLACE`, so a file created meanwhile is never replaced. A removal renames
//! the file aside, compares it there, and deletes it or puts it back.
//!
//! Where the exchange is not available (another system, a file system that refuses it),
//! the caller falls back to compare then rename ([`Swap::Unsupported`]).

use std::path::Path;

use crate::error::{Error, Result};

/// What an attempted swap did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Swap {
    /// The new content is in place; what it replaced was what the caller checked.
    Done,
    /// What was there is not what the caller checked: it is in place again, untouched.
    LeftAlone,
    /// The platform or the file system cannot exchange: use compare then rename.
    Unsupported,
}

/// Whether this platform has the atomic exchange ([`exchange`]); a file system may still
/// refuse it ([`Swap::Unsupported`]).
pub(crate) const CAN_EXCHANGE: bool = cfg!(target_os = "linux");

/// Exchanges the files at `a` and `b` atomically (both must exist). `Ok(false)` when the
/// platform or file system cannot; `Err` with `NotFound` when one of them is missing.
#[cfg(target_os = "linux")]
pub(crate) fn exchange(a: &Path, b: &Path) -> std::io::Result<bool> {
    use rustix::fs::{renameat_with, RenameFlags, CWD};
    match renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE) {
        Ok(()) => Ok(true),
        Err(e) if unsupported(e) => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// Exchanges the files at `a` and `b` atomically: never available here.
#[cfg(not(target_os = "linux"))]
pub(crate) fn exchange(_a: &Path, _b: &Path) -> std::io::Result<bool> {
    Ok(false)
}

/// Renames `from` to `to` only if nothing is at `to` (atomically where the platform can):
/// `Ok(false)` when something is there.
pub(crate) fn rename_no_replace(from: &Path, to: &Path) -> std::io::Result<bool> {
    #[cfg(target_os = "linux")]
    {
        use rustix::fs::{renameat_with, RenameFlags, CWD};
        match renameat_with(CWD, from, CWD, to, RenameFlags::NOREPLACE) {
            Ok(()) => return Ok(true),
            Err(rustix::io::Errno::EXIST) => return Ok(false),
            Err(e) if unsupported(e) => {}
            Err(e) => return Err(e.into()),
        }
    }
    if std::fs::symlink_metadata(to).is_ok() {
        return Ok(false);
    }
    std::fs::rename(from, to).map(|()| true)
}

/// Whether `e` says the kernel or the file system does not do `renameat2`'s flags.
#[cfg(target_os = "linux")]
fn unsupported(e: rustix::io::Errno) -> bool {
    use rustix::io::Errno;
    e == Errno::INVAL || e == Errno::NOSYS || e == Errno::OPNOTSUPP || e == Errno::PERM
}

/// Puts the new file at `tmp` in place of `path`, then checks with `was_expected` that what
/// came out (now at `tmp`; `None`: there was nothing) is what the caller checked; if not,
/// exchanges the two back. Either way what is left at `tmp` is the caller's to delete.
/// `is_ours` tells whether the file at a path holds the new content, to tell after
/// exchanging back whether a second save landed on it meanwhile: that newer save is then
/// put in place.
pub(crate) fn swap_in(
    tmp: &Path,
    path: &Path,
    was_expected: &mut dyn FnMut(Option<&Path>) -> Result<bool>,
    is_ours: &dyn Fn(&Path) -> bool,
) -> Result<Swap> {
    let io = |e| Error::io(path.display().to_string(), e);
    match exchange(tmp, path) {
        Ok(true) => {}
        Ok(false) => return Ok(Swap::Unsupported),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            // Nothing at `path` (removed since the compare): create it if that is allowed.
            let created = was_expected(None)? && rename_no_replace(tmp, path).map_err(io)?;
            return Ok(if created { Swap::Done } else { Swap::LeftAlone });
        }
        Err(e) => return Err(io(e)),
    }
    if was_expected(Some(tmp))? {
        return Ok(Swap::Done);
    }
    // A save came in between the compare and the exchange: give it back its place.
    if !exchange(tmp, path).map_err(io)? {
        return Err(io(std::io::Error::other(
            "the file system refused to exchange a file back",
        )));
    }
    if !is_ours(tmp) {
        // Yet another save landed on our content before it went back: that one is newer.
        exchange(tmp, path).map_err(io)?;
    }
    Ok(Swap::LeftAlone)
}

/// Removes the file at `path` if what it holds is what the caller checked: it is renamed
/// aside to `aside` (an existing temporary file of the same folder, replaced), checked
/// there with `was_expected`, and put back when it is not (unless a newer save already
/// took its place). `Ok(true)` when it was removed (or was gone already); what is left at
/// `aside` is the caller's to delete.
pub(crate) fn remove_aside(
    path: &Path,
    aside: &Path,
    was_expected: &mut dyn FnMut(&Path) -> Result<bool>,
) -> Result<bool> {
    let io = |e| Error::io(path.display().to_string(), e);
    match std::fs::rename(path, aside) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(true),
        Err(e) => return Err(io(e)),
    }
    if was_expected(aside)? {
        return Ok(true);
    }
    // Saved since the compare: put it back, unless an even newer save stands there now.
    rename_no_replace(aside, path).map_err(io)?;
    Ok(false)
}
