//! Ctrl-C, a closed terminal or a `kill` during a merge that holds git's `index.lock`: the
//! lock file is removed before the process ends, as git removes its own. Without this a
//! merge strategy interrupted mid-way (git passes Ctrl-C to its whole process group) left
//! `.git/index.lock` behind, and `git merge --abort`, `git reset` and `git commit` then
//! refused to run until someone deleted it by hand.
//!
//! gix registers every lock and temporary file it creates; the handler deletes those
//! (`cleanup_tempfiles_signal_safe`, made for signal handlers) and then ends the process
//! as the signal's default action would, so the parent sees the same signal. Only commands
//! that end on these signals anyway install it (`sync` stops cleanly between steps on its
//! own).

use signal_hook::consts::{SIGHUP, SIGINT, SIGQUIT, SIGTERM};

/// Installs the handler for SIGINT, SIGTERM, SIGHUP and SIGQUIT; a signal that cannot be
/// watched is left to its default action (nothing worse than before).
pub fn remove_locks_on_termination() {
    for signal in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] {
        // SAFETY: the action only calls functions that are safe in a signal handler:
        // gix-tempfile's cleanup (written for this: no allocation, no lock taken) and
        // signal-hook's `emulate_default_handler` (resets the action and raises the
        // signal again).
        let _ = unsafe {
            signal_hook::low_level::register(signal, move || {
                store::remove_lock_files_signal_safe();
                let _ = signal_hook::low_level::emulate_default_handler(signal);
            })
        };
    }
}
