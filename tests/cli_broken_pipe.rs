//! A closed stdout (`assetvc … | head -1`) ends a command quietly with status 0: no
//! panic message (`println!` panics on a broken pipe), no error, whichever way the
//! command writes (line by line, or its whole output at once).

use crate::common;

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};

use common::assetvc;

/// Runs `cmd` with `stdin` as its input, reads the first line of its output and closes
/// the pipe; the exit code and stderr. The output must be larger than a pipe's buffer
/// (64 KiB), so that the command is still writing when the pipe closes.
fn into_closed_pipe(cmd: &mut Command, stdin: Vec<u8>) -> (Option<i32>, String) {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("assetvc runs");
    let mut input = child.stdin.take().expect("stdin");
    let feeder = std::thread::spawn(move || {
        let _ = input.write_all(&stdin);
    });
    let mut stderr = child.stderr.take().expect("stderr");
    let errors = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let mut first = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut first)
        .expect("reads the first line");
    assert!(!first.is_empty(), "the command printed something");
    // The reader is dropped here: the pipe is closed.
    let status = child.wait().expect("assetvc ends");
    feeder.join().expect("stdin written");
    (status.code(), errors.join().expect("stderr read"))
}

fn assert_quiet((code, stderr): (Option<i32>, String)) {
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(!stderr.contains("error"), "{stderr}");
    assert_eq!(code, Some(0), "{stderr}");
}

#[test]
fn line_by_line_output_stops_quietly() {
    // `fmt --check` prints each file that would change, one `println!`-style line each.
    let dir = tempfile::tempdir().unwrap();
    for i in 0..3000 {
        let name = format!("a_level_with_a_rather_long_name_to_fill_the_pipe_{i:05}.level");
        std::fs::write(dir.path().join(name), "a=1").unwrap();
    }
    let mut cmd = assetvc();
    cmd.current_dir(dir.path()).args(["fmt", "--check", "."]);
    assert_quiet(into_closed_pipe(&mut cmd, Vec::new()));
}

#[test]
fn whole_output_at_once_stops_quietly() {
    // `fmt -` writes the formatted document in one write.
    let mut doc = String::from("{\n");
    for i in 0..100_000 {
        doc.push_str(&format!("\"key_{i}\": [1, 2, 3],\n"));
    }
    doc.push_str("\"last\": 0\n}\n");
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = assetvc();
    cmd.current_dir(dir.path()).args(["fmt", "-"]);
    assert_quiet(into_closed_pipe(&mut cmd, doc.into_bytes()));
}

#[test]
fn diff_output_stops_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let side = |v: u32| {
        let mut text = String::new();
        for i in 0..20_000 {
            text.push_str(&format!("property_{i} = {v}\n"));
        }
        text
    };
    std::fs::write(dir.path().join("a.level"), side(1)).unwrap();
    std::fs::write(dir.path().join("b.level"), side(2)).unwrap();
    let mut cmd = assetvc();
    cmd.current_dir(dir.path())
        .args(["diff", "a.level", "b.level"]);
    assert_quiet(into_closed_pipe(&mut cmd, Vec::new()));
}

#[test]
fn the_lean_drivers_help_and_version_stop_quietly_on_a_closed_stdout() {
    // Its output is short: stdout is a pipe whose reading end is closed before it starts.
    for flag in ["--help", "--version"] {
        let (reader, writer) = std::io::pipe().expect("a pipe");
        drop(reader);
        let out = Command::new(env!("CARGO_BIN_EXE_assetvc-merge-driver"))
            .arg(flag)
            .stdout(writer)
            .output()
            .expect("the lean driver runs");
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_quiet((out.status.code(), stderr));
    }
}
