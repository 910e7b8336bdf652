//! Crash safety: `assetvc fmt` and `assetvc merge-file` killed with SIGKILL at random
//! moments while writing a large file leave the target with either the old or the new
//! complete content, never a mix.

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

/// Kills `cmd` after a delay that sweeps across its run time; returns the delays used.
fn kill_at_random_points(make: impl Fn() -> std::process::Command, full: Duration) -> usize {
    let mut kills = 0;
    for k in 0..12u32 {
        let delay = full.mul_f64(f64::from(k) / 12.0);
        let mut child = make().spawn().unwrap();
        std::thread::sleep(delay);
        if child.try_wait().unwrap().is_none() {
            child.kill().unwrap();
            kills += 1;
        }
        child.wait().unwrap();
    }
    kills
}

/// Starts `make()`, watches `dir` until a file appears that is not in `known` (the
/// temporary file being written), and kills the process at that moment. Returns whether
/// the kill landed while that file existed, i.e. mid-write.
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
            child.kill().unwrap();
            child.wait().unwrap();
            return true;
        }
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
    let start = Instant::now();
    let out = run(assetvc().arg("fmt").arg(&reference));
    let full = start.elapsed();
    assert_eq!(out.status.code(), Some(0));
    let new = std::fs::read_to_string(&reference).unwrap();
    assert_ne!(new, old);
    let kills = kill_at_random_points(
        || {
            let mut c = assetvc();
            c.arg("fmt").arg(&path);
            c
        },
        full,
    );
    let now = std::fs::read_to_string(&path).unwrap();
    assert!(
        now == old || now == new,
        "mixed content after {kills} kills"
    );
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
    let start = Instant::now();
    let out = run(assetvc()
        .arg("merge-file")
        .args([p("reference"), p("base"), p("theirs")]));
    let full = start.elapsed();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let new = std::fs::read_to_string(p("reference")).unwrap();
    assert!(new.contains("renamed") && new.contains("pos = [9.5,"));
    std::fs::write(p("ours"), &ours).unwrap();
    let kills = kill_at_random_points(
        || {
            let mut c = assetvc();
            c.arg("merge-file")
                .args([p("ours"), p("base"), p("theirs")]);
            c
        },
        full,
    );
    let now = std::fs::read_to_string(p("ours")).unwrap();
    assert!(
        now == ours || now == new,
        "mixed content after {kills} kills"
    );
}
