//! Crash safety: `assetvc fmt` and `assetvc merge-file` killed with SIGKILL at points of
//! their run (at the start, as the temporary file appears, as it grows) while writing a
//! large file leave the target with either the old or the new complete content, never a
//! mix. Kills wait on those events, never on the clock, and are asserted to have landed.

use crate::common;

use std::time::{Duration, Instant};

use common::{assetvc, run};

/// A large SJSON level (~8 MB) written in a non-canonical style, so `fmt` rewrites it.
fn large_level() -> String {
    let mut s = String::with_capacity(8 << 20);
    let mut i = 0u64;
    while s.len() < 8 << 20 {
        s.push_str(&format!(
            "e{i} = {{ id = \"{i:08x}\", pos = [{}.5, 2.25, 3.0], name = \"entity {i}\" }}\n",
            i % 1000
        ));
        i += 1;
    }
    s
}

/// Where a kill lands: at an event of the run, never after a delay (a delay lands
/// elsewhere on a loaded machine).
#[derive(Debug, Clone, Copy)]
enum KillPoint {
    /// As soon as the process is started.
    Start,
    /// Once a file that is not in `known` (the temporary file) appears.
    TempAppears,
    /// Once that file holds at least this many bytes.
    TempHolds(u64),
}

/// The size of the file of `dir` that is not in `known`, if there is one.
fn temp_size(dir: &std::path::Path, known: &[&str]) -> Option<u64> {
    std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .find(|e| {
            !known
                .iter()
                .any(|k| e.file_name() == std::ffi::OsStr::new(k))
        })
        .map(|e| e.metadata().map_or(0, |m| m.len()))
}

/// Runs `make()` and kills it with SIGKILL at `point` (waiting up to a minute for it);
/// returns whether the kill landed: the process died of the signal rather than exiting
/// on its own first. What a killed run left in `dir` is removed.
fn kill_at(
    make: &impl Fn() -> std::process::Command,
    dir: &std::path::Path,
    known: &[&str],
    point: KillPoint,
) -> bool {
    use std::os::unix::process::ExitStatusExt;
    let mut child = make().spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if child.try_wait().unwrap().is_some() || Instant::now() > deadline {
            break;
        }
        let reached = match point {
            KillPoint::Start => true,
            KillPoint::TempAppears => temp_size(dir, known).is_some(),
            KillPoint::TempHolds(n) => temp_size(dir, known).is_some_and(|s| s >= n),
        };
        if reached {
            break;
        }
        std::thread::yield_now();
    }
    // A process that already exited (a zombie until waited for) takes the signal
    // without dying of it: its status says so.
    let _ = child.kill();
    let status = child.wait().unwrap();
    remove_leftovers(dir, known);
    status.signal() == Some(9)
}

/// Kills `make()` at each point of its run, twice: at its start, as its temporary file
/// appears, and once that file holds 1 MB and 4 MB. Returns how many kills landed, after
/// asserting that the kills at the start did (the run takes far longer than a spawn).
fn kill_at_each_point(
    make: impl Fn() -> std::process::Command,
    dir: &std::path::Path,
    known: &[&str],
    check: impl Fn(),
) -> usize {
    let points = [
        KillPoint::Start,
        KillPoint::TempAppears,
        KillPoint::TempHolds(1 << 20),
        KillPoint::TempHolds(4 << 20),
    ];
    let mut landed = 0;
    for point in points.into_iter().chain(points) {
        let killed = kill_at(&make, dir, known, point);
        if matches!(point, KillPoint::Start) {
            assert!(killed, "a kill at the start did not land");
        }
        landed += usize::from(killed);
        check();
    }
    landed
}

/// Starts `make()`, watches `dir` until a file appears that is not in `known` (the
/// temporary file being written), and kills the process at that moment. Returns whether
/// the kill landed (the process died of it) while that file existed, i.e. mid-write.
fn kill_while_writing(
    make: impl Fn() -> std::process::Command,
    dir: &std::path::Path,
    known: &[&str],
) -> bool {
    let mut child = make().spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        if child.try_wait().unwrap().is_some() {
            return false;
        }
        let writing = std::fs::read_dir(dir).unwrap().any(|e| {
            let name = e.unwrap().file_name();
            !known.iter().any(|k| name == std::ffi::OsStr::new(k))
        });
        if writing {
            use std::os::unix::process::ExitStatusExt;
            // Landed only if the process died of it (it may have exited just before).
            let _ = child.kill();
            return child.wait().unwrap().signal() == Some(9);
        }
        std::thread::yield_now();
    }
    child.kill().unwrap();
    child.wait().unwrap();
    false
}

/// Removes the files of `dir` that are not in `known` (what a killed run left).
fn remove_leftovers(dir: &std::path::Path, known: &[&str]) {
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        if !known
            .iter()
            .any(|k| e.file_name() == std::ffi::OsStr::new(k))
        {
            std::fs::remove_file(e.path()).unwrap();
        }
    }
}

#[test]
fn kills_during_the_write_leave_old_content() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("level.sjson");
    let old = large_level();
    std::fs::write(&path, &old).unwrap();
    let known = ["level.sjson"];
    let mut mid_write = 0;
    for _ in 0..3 {
        let landed = kill_while_writing(
            || {
                let mut c = assetvc();
                c.arg("fmt").arg(&path);
                c
            },
            tmp.path(),
            &known,
        );
        let leftover = std::fs::read_dir(tmp.path()).unwrap().count() > known.len();
        if landed && leftover {
            mid_write += 1;
            // Killed with the temporary file still there, before the rename: the target
            // is untouched.
            assert_eq!(std::fs::read_to_string(&path).unwrap(), old);
        }
        remove_leftovers(tmp.path(), &known);
        std::fs::write(&path, &old).unwrap();
    }
    assert!(
        mid_write > 0,
        "no kill landed while the temporary file existed"
    );
}

#[test]
fn fmt_killed_mid_write_leaves_old_or_new_content() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("level.sjson");
    let old = large_level();
    std::fs::write(&path, &old).unwrap();
    // The new content: what fmt writes when it is not killed.
    let reference = tmp.path().join("reference.sjson");
    std::fs::write(&reference, &old).unwrap();
    let out = run(assetvc().arg("fmt").arg(&reference));
    assert_eq!(out.status.code(), Some(0));
    let new = std::fs::read_to_string(&reference).unwrap();
    assert_ne!(new, old);
    let known = ["level.sjson", "reference.sjson"];
    let kills = kill_at_each_point(
        || {
            let mut c = assetvc();
            c.arg("fmt").arg(&path);
            c
        },
        tmp.path(),
        &known,
        || {
            let now = std::fs::read_to_string(&path).unwrap();
            assert!(now == old || now == new, "mixed content after a kill");
        },
    );
    assert!(kills >= 2, "only {kills} kills landed");
}

#[test]
fn merge_file_killed_mid_write_leaves_old_or_new_content() {
    let tmp = tempfile::tempdir().unwrap();
    let p = |s: &str| tmp.path().join(format!("{s}.sjson"));
    let base = large_level();
    let ours = base.replacen("pos = [0.5,", "pos = [9.5,", 1);
    let theirs = base.replacen("name = \"entity 1\"", "name = \"renamed\"", 1);
    std::fs::write(p("base"), &base).unwrap();
    std::fs::write(p("theirs"), &theirs).unwrap();
    std::fs::write(p("reference"), &ours).unwrap();
    let out = run(assetvc()
        .arg("merge-file")
        .args([p("reference"), p("base"), p("theirs")]));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let new = std::fs::read_to_string(p("reference")).unwrap();
    assert!(new.contains("renamed") && new.contains("pos = [9.5,"));
    std::fs::write(p("ours"), &ours).unwrap();
    let known = [
        "base.sjson",
        "theirs.sjson",
        "reference.sjson",
        "ours.sjson",
    ];
    let kills = kill_at_each_point(
        || {
            let mut c = assetvc();
            c.arg("merge-file")
                .args([p("ours"), p("base"), p("theirs")]);
            c
        },
        tmp.path(),
        &known,
        || {
            let now = std::fs::read_to_string(p("ours")).unwrap();
            assert!(now == ours || now == new, "mixed content after a kill");
        },
    );
    assert!(kills >= 2, "only {kills} kills landed");
}
