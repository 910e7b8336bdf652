//! Failpoints: named places where a test can stop the process as `SIGKILL` would (no
//! cleanup, no destructor), to check that every interrupted operation leaves a repository
//! git reads as before or after it, and that a rerun finishes it.
//!
//! `ASSETVC_FAILPOINT=NAME` aborts at the first pass through point `NAME`,
//! `ASSETVC_FAILPOINT=NAME:N` at the `N`th (1-based). Only builds with the `failpoints`
//! cargo feature read the variable (the end-to-end tests turn it on through the workspace's
//! dev-dependency on `assetvc-store`); without it [`hit`] and [`pause`] are empty and no
//! code reading the variables is compiled in, so that a shipped binary can never be stopped
//! or held by its environment.
//!
//! `ASSETVC_PAUSE=NAME:DIR` instead holds the process at the first pass through point
//! `NAME` ([`pause`]): it creates `DIR/NAME.reached` and waits until `DIR/NAME.go` exists,
//! so that a test can act at exactly that place (save a file between a compare and its
//! swap) without depending on timing.

/// Stops the process here when `ASSETVC_FAILPOINT` names `point` (and this is the pass it
/// counts to). Does nothing without the `failpoints` feature.
#[inline]
pub(crate) fn hit(point: &str) {
    #[cfg(feature = "failpoints")]
    armed::hit(point);
    #[cfg(not(feature = "failpoints"))]
    let _ = point;
}

/// Holds the process here when `ASSETVC_PAUSE` names `point`, until the test lets it go
/// (at most a minute). Does nothing without the `failpoints` feature.
#[inline]
pub(crate) fn pause(point: &str) {
    #[cfg(feature = "failpoints")]
    armed::pause(point);
    #[cfg(not(feature = "failpoints"))]
    let _ = point;
}

#[cfg(feature = "failpoints")]
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

    /// Whether this process has paused already (only the first pass pauses).
    static PAUSED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

    pub(super) fn pause(point: &str) {
        let Ok(value) = std::env::var("ASSETVC_PAUSE") else {
            return;
        };
        let Some((name, dir)) = value.split_once(':') else {
            return;
        };
        if name != point || PAUSED.swap(true, Ordering::SeqCst) {
            return;
        }
        let dir = std::path::Path::new(dir);
        let _ = std::fs::write(dir.join(format!("{name}.reached")), b"");
        let go = dir.join(format!("{name}.go"));
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while !go.exists() && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }
}
