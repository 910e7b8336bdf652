//! The bad-input suite: for every kind of broken input, `merge-file`, `merge-driver`,
//! `fmt` and `check` exit with a clear message and the documented status (2 for input
//! they cannot process; `check` reports broken assets as problems, status 1), never a
//! panic (101) or a signal, and no input or output file is modified.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{assetvc, run};

/// A named broken input: file contents (or a directory / missing file).
enum Input {
    Bytes(Vec<u8>),
    Directory,
    Missing,
}

fn cases() -> Vec<(&'static str, Input, &'static str)> {
    let deep = format!("a = {}", "[".repeat(200_000)).into_bytes();
    let mut big = Vec::with_capacity(100 << 20);
    while big.len() < 100 << 20 {
        big.extend_from_slice(b"entity_property = [1.5 2.5 3.5]\n");
    }
    // Valid lines, then a syntax error at the very end.
    big.extend_from_slice(b"broken = {\n");
    // Over a mebibyte (a size merges read through a mapping), then a byte that is not UTF-8.
    let mut large_not_utf8 = b"entity_property = [1.5 2.5 3.5]\n".repeat(40_000);
    large_not_utf8.extend_from_slice(b"a = \"\xff\"\n");
    vec![
        (
            "unparsable",
            Input::Bytes(b"a = {\n".to_vec()),
            "expected key, found end of file",
        ),
        (
            "conflict markers",
            Input::Bytes(b"a = 1\n<<<<<<< HEAD\nb = 2\n=======\nb = 3\n>>>>>>> other\n".to_vec()),
            "expected",
        ),
        (
            "200,000-deep nesting",
            Input::Bytes(deep),
            "nesting deeper than 512 levels",
        ),
        (
            "invalid UTF-8",
            Input::Bytes(b"a = \"\xff\xfe\"\n".to_vec()),
            "invalid UTF-8",
        ),
        (
            "binary",
            Input::Bytes(vec![0, 159, 146, 150, 0, 1, 2, 255]),
            "invalid UTF-8",
        ),
        (
            "100 MB",
            Input::Bytes(big),
            "expected key, found end of file",
        ),
        (
            "invalid UTF-8 after a mebibyte",
            Input::Bytes(large_not_utf8),
            "invalid UTF-8",
        ),
        ("directory", Input::Directory, "is a directory"),
        ("missing", Input::Missing, "No such file"),
    ]
}

const GOOD: &[u8] = b"a = 1\nb = [1 2 3]\n";

fn place(dir: &Path, name: &str, input: &Input) -> PathBuf {
    let p = dir.join(name);
    match input {
        Input::Bytes(b) => std::fs::write(&p, b).unwrap(),
        Input::Directory => std::fs::create_dir(&p).unwrap(),
        Input::Missing => {}
    }
    p
}

/// A snapshot of every file in `dir` (name → bytes).
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect();
    out.sort();
    out
}

fn assert_clean_failure(what: &str, out: &Output, status: i32, message: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(status),
        "{what}: expected status {status}\nstderr: {}\nstdout: {}",
        &stderr[..stderr.len().min(2000)],
        &stdout[..stdout.len().min(2000)]
    );
    assert!(
        stderr.to_lowercase().contains(&message.to_lowercase())
            || stdout.to_lowercase().contains(&message.to_lowercase()),
        "{what}: message should contain {message:?}; stderr: {}",
        &stderr[..stderr.len().min(2000)]
    );
    assert!(!stderr.contains("panicked"), "{what}: panicked");
}

#[test]
fn every_command_fails_cleanly_on_every_bad_input() {
    for (name, input, message) in cases() {
        // The broken file as each side of merge-file and merge-driver in turn.
        for side in ["ours", "base", "theirs"] {
            let tmp = tempfile::tempdir().unwrap();
            let paths: Vec<PathBuf> = ["ours", "base", "theirs"]
                .iter()
                .map(|s| {
                    if *s == side {
                        place(tmp.path(), &format!("{s}.sjson"), &input)
                    } else {
                        place(
                            tmp.path(),
                            &format!("{s}.sjson"),
                            &Input::Bytes(GOOD.to_vec()),
                        )
                    }
                })
                .collect();
            let before = snapshot(tmp.path());
            let out = run(assetvc().arg("merge-file").args(&paths));
            assert_clean_failure(&format!("merge-file, {name} {side}"), &out, 2, message);
            assert_eq!(
                snapshot(tmp.path()),
                before,
                "merge-file, {name} {side}: files changed"
            );
            // Both registrations of the driver: the subcommand and the lean binary.
            let mut lean = Command::new(env!("CARGO_BIN_EXE_assetvc-merge-driver"));
            lean.arg("--");
            let mut full = assetvc();
            full.args(["merge-driver"]);
            for (driver, mut command) in [("merge-driver", full), ("assetvc-merge-driver", lean)] {
                let out = run(command
                    .current_dir(tmp.path())
                    .arg(&paths[1])
                    .arg(&paths[0])
                    .arg(&paths[2])
                    .arg("level.sjson"));
                assert_clean_failure(&format!("{driver}, {name} {side}"), &out, 2, message);
                assert_eq!(
                    snapshot(tmp.path()),
                    before,
                    "{driver}, {name} {side}: files changed"
                );
            }
        }
        // fmt in place and fmt --check.
        let tmp = tempfile::tempdir().unwrap();
        let p = place(tmp.path(), "level.sjson", &input);
        let before = snapshot(tmp.path());
        for args in [&["fmt"][..], &["fmt", "--check"][..]] {
            let out = run(assetvc().args(args).arg(&p));
            if matches!(input, Input::Directory) {
                // A directory is walked for assets; this one has none.
                assert_eq!(out.status.code(), Some(0), "{args:?} of an empty directory");
            } else {
                assert_clean_failure(&format!("{args:?}, {name}"), &out, 2, message);
            }
            assert_eq!(
                snapshot(tmp.path()),
                before,
                "{args:?}, {name}: files changed"
            );
        }
        // check: a broken asset is a problem found (1); a missing path is bad usage (2).
        let out = run(assetvc().arg("check").arg(&p));
        let status = if matches!(input, Input::Missing) {
            2
        } else {
            1
        };
        let message = match input {
            Input::Missing => "no such file",
            Input::Directory => "0 assets checked",
            _ => message,
        };
        if !matches!(input, Input::Directory) {
            assert_clean_failure(&format!("check, {name}"), &out, status, message);
        } else {
            assert!(
                out.status.code() == Some(0),
                "check of an empty directory passes"
            );
        }
        assert_eq!(snapshot(tmp.path()), before, "check, {name}: files changed");
    }
}

#[test]
fn fmt_reads_stdin_and_rejects_bad_input_with_status_2() {
    use std::io::Write;
    use std::process::Stdio;
    for (name, input, message) in cases() {
        let Input::Bytes(bytes) = input else { continue };
        let mut child = assetvc()
            .arg("fmt")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let writer = std::thread::spawn(move || {
            let _ = stdin.write_all(&bytes);
        });
        let out = child.wait_with_output().unwrap();
        writer.join().unwrap();
        assert_clean_failure(&format!("fmt < {name}"), &out, 2, message);
        assert!(out.stdout.is_empty(), "fmt < {name}: nothing on stdout");
    }
}

#[test]
fn empty_inputs_are_empty_objects_in_sjson_and_errors_in_json() {
    let tmp = tempfile::tempdir().unwrap();
    for s in ["ours", "base", "theirs"] {
        std::fs::write(tmp.path().join(format!("{s}.sjson")), "").unwrap();
        std::fs::write(tmp.path().join(format!("{s}.json")), "").unwrap();
    }
    let paths =
        |ext: &str| ["ours", "base", "theirs"].map(|s| tmp.path().join(format!("{s}.{ext}")));
    let out = run(assetvc().args(["merge-file", "-p"]).args(paths("sjson")));
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty());
    let out = run(assetvc().args(["merge-file", "-p"]).args(paths("json")));
    assert_clean_failure(
        "merge-file of empty JSON",
        &out,
        2,
        "expected value, found end of file",
    );
}

#[test]
fn duplicate_ids_merge_as_a_sequence_and_check_reports_them() {
    let tmp = tempfile::tempdir().unwrap();
    let p = |s: &str| tmp.path().join(format!("{s}.sjson"));
    std::fs::write(p("base"), "e = [ {id = 1 v = 1} {id = 1 v = 2} ]\n").unwrap();
    std::fs::write(p("ours"), "e = [ {id = 1 v = 1} {id = 1 v = 3} ]\n").unwrap();
    std::fs::write(p("theirs"), "e = [ {id = 1 v = 0} {id = 1 v = 2} ]\n").unwrap();
    let out = run(assetvc()
        .args(["merge-file", "-p"])
        .args([p("ours"), p("base"), p("theirs")]));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "e = [ {id = 1 v = 0} {id = 1 v = 3} ]\n"
    );
    // Reported, not "merged cleanly" (issue 20 item 8).
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("duplicate id 1 in this array"), "{stderr}");
    assert!(!stderr.contains("merged cleanly"), "{stderr}");
}
