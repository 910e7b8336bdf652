//! Failpoints: named places where a test can stop the process as `SIGKILL` would (no
//! cleanup, no destructor), to check that every interrupted operation leaves a repository
//! git reads as before or after it, and that a rerun finishes it.
//!
//! `ASSETVC_FAILPOINT=NAME` aborts at the first pass through point `NAME`,
//! `ASSETVC_FAILPOINT=NAME:N` at the `N`th (1-based). Only debug builds (the ones tests
//! run) read the variable: in release builds [`hit`] is empty and the variable is ignored,
//! so that a shipped binary can never be stopped by its environment.

/// Stops the process here when `ASSETVC_FAILPOINT` names `point` (and this is the pass it
/// counts to). Does nothing in release builds.
#[inline]
pub(crate) fn hit(point: &str) {
    #[cfg(debug_assertions)]
    armed::hit(point);
    #[cfg(not(debug_assertions))]
    let _ = point;
}

#[cfg(debug_assertions)]
mod armed {
    use std::sync::atomic::{AtomicU64, Ordering};

    /// Passes through the armed point so far in this process.
    static PASSES: AtomicU64 = AtomicU64::new(0);

    /// The armed point and the pass to stop at, from `ASSETVC_FAILPOINT`.
    fn armed() -> Option<(String, u64)> {
        let value = std::env::var("ASSETVC_FAILPOINT").ok()?;
        Some(match value.rsplit_once(':') {
            Some((name, n)) => (name.to_string(), n.parse().ok()?),
            None => (value, 1),
        })
    }

    pub(super) fn hit(point: &str) {
        let Some((name, at)) = armed() else { return };
        if name != point {
            return;
        }
        if PASSES.fetch_add(1, Ordering::SeqCst) + 1 == at {
            std::process::abort();
        }
    }
}
