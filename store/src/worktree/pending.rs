//! The worktree file being written, removed if the process is ended by a signal before it
//! is swapped into place.
//!
//! A file is written next to its target (`.NAME.assetvc-tmp-XXXXXX`) and then exchanged
//! into place. Ctrl-C in between used to leave it in the folder, an untracked file until
//! the next write there removed it a minute later. While it holds only our new content,
//! its path is registered here, and [`remove_signal_safe`] (called from the signal handler
//! that also removes git's lock files, `crate::remove_lock_files_signal_safe`) deletes it.
//! The registration ends *before* the exchange: from then on the temporary path holds what
//! was swapped out, the user's file, which a signal must never delete (it is left there,
//! as before).
//!
//! One file is written at a time. Its path is copied into a fixed static buffer of atomic
//! bytes (no allocation, no lock, no unsafe code); the handler copies it to its stack and
//! unlinks it. A path longer than the buffer is not registered (left as before).

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};

/// The longest path registered, in bytes.
const MAX: usize = 4095;

/// The registered path's bytes.
static BYTES: [AtomicU8; MAX] = [const { AtomicU8::new(0) }; MAX];
/// How many of [`BYTES`] are the path.
static LEN: AtomicUsize = AtomicUsize::new(0);
/// Whether a path is registered (false while one is being written in).
static ARMED: AtomicBool = AtomicBool::new(false);

/// The registration of one temporary file; ends when dropped (or by [`Pending::end`]).
pub(crate) struct Pending(());

impl Pending {
    /// Registers `path` (a file holding only content this process wrote).
    pub(crate) fn register(path: &Path) -> Pending {
        use std::os::unix::ffi::OsStrExt;
        ARMED.store(false, Ordering::SeqCst);
        let bytes = path.as_os_str().as_bytes();
        if bytes.len() <= MAX && !bytes.contains(&0) {
            for (slot, &b) in BYTES.iter().zip(bytes) {
                slot.store(b, Ordering::Relaxed);
            }
            LEN.store(bytes.len(), Ordering::Relaxed);
            ARMED.store(true, Ordering::SeqCst);
        }
        Pending(())
    }

    /// Ends the registration (the file is about to hold someone else's content, or is gone).
    pub(crate) fn end(self) {}
}

impl Drop for Pending {
    fn drop(&mut self) {
        ARMED.store(false, Ordering::SeqCst);
    }
}

/// Deletes the registered file, if any: safe in a signal handler (atomic loads, a copy on
/// the stack and one `unlink` system call).
pub(crate) fn remove_signal_safe() {
    if !ARMED.swap(false, Ordering::SeqCst) {
        return;
    }
    let len = LEN.load(Ordering::Relaxed).min(MAX);
    let mut path = [0u8; MAX + 1];
    for (b, slot) in path.iter_mut().zip(&BYTES[..len]) {
        *b = slot.load(Ordering::Relaxed);
    }
    if let Ok(c) = std::ffi::CStr::from_bytes_with_nul(&path[..=len]) {
        let _ = rustix::fs::unlink(c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_registered_file_is_removed_and_a_released_one_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        let b = dir.path().join("b");
        std::fs::write(&a, "new").unwrap();
        std::fs::write(&b, "theirs").unwrap();
        let first = Pending::register(&a);
        remove_signal_safe();
        assert!(!a.exists());
        drop(first);
        let second = Pending::register(&b);
        second.end();
        remove_signal_safe();
        assert!(
            b.exists(),
            "a file whose registration ended is never removed"
        );
    }
}
