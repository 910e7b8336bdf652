//! Issue 12 item 4: `-o` and `--report` on a non-regular file write into it like a shell
//! redirect (fifo, character device) or refuse (symbolic link, directory) — never replace
//! it; temporary files never stay behind.

use crate::common;

use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use common::*;

const MERGED: &str = "a = 2\nb = 3\n";

/// A temp dir holding cur.level, base.level and other.level whose merge is [`MERGED`].
fn inputs() -> (tempfile::TempDir, [PathBuf; 3]) {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str, t: &str| {
        let p = dir.path().join(n);
        std::fs::write(&p, t).unwrap();
        p
    };
    let files = [
        p("cur.level", "a = 2\nb = 1\n"),
        p("base.level", "a = 1\nb = 1\n"),
        p("other.level", "a = 1\nb = 3\n"),
    ];
    (dir, files)
}

fn merge_file(files: &[PathBuf; 3], extra: &[&str]) -> std::process::Output {
    run(assetvc().arg("merge-file").args(extra).args(files))
}

/// Names in `dir` that look like our temporary files.
fn temporaries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".assetvc-tmp-"))
        .collect()
}

#[test]
fn output_into_a_fifo_is_written_like_a_redirect() {
    let (dir, files) = inputs();
    let fifo = dir.path().join("pipe");
    assert!(run(std::process::Command::new("mkfifo").arg(&fifo))
        .status
        .success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    let out = merge_file(&files, &["-o", fifo.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(reader.join().unwrap(), MERGED);
    let kind = std::fs::symlink_metadata(&fifo).unwrap().file_type();
    assert!(kind.is_fifo(), "the fifo was replaced");
    assert!(temporaries(dir.path()).is_empty());
}

#[test]
fn output_into_a_character_device_is_written_not_replaced() {
    let (dir, files) = inputs();
    let dev = dir.path().join("null");
    let made = run(std::process::Command::new("mknod")
        .arg(&dev)
        .args(["c", "1", "3"]))
    .status
    .success();
    if !made {
        println!("SKIPPED: mknod needs root (or CAP_MKNOD); the /dev/null case is not run");
        return;
    }
    let out = merge_file(&files, &["-o", dev.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let kind = std::fs::symlink_metadata(&dev).unwrap().file_type();
    assert!(kind.is_char_device(), "the device was replaced by a file");
    let report = dir.path().join("null2");
    assert!(run(std::process::Command::new("mknod")
        .arg(&report)
        .args(["c", "1", "3"]))
    .status
    .success());
    let out = merge_file(&files, &["-p", "--report", report.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(std::fs::symlink_metadata(&report)
        .unwrap()
        .file_type()
        .is_char_device());
    assert!(temporaries(dir.path()).is_empty());
}

#[test]
fn a_symlink_or_directory_given_to_o_or_report_is_refused_untouched() {
    let (dir, files) = inputs();
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("victim");
    std::fs::write(&target, "precious\n").unwrap();
    let link = dir.path().join("link.level");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    for flag in ["-o", "--report"] {
        let out = merge_file(&files, &[flag, link.to_str().unwrap()]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{flag}: {stderr}");
        assert!(stderr.contains("symbolic link"), "{flag}: {stderr}");
        let kind = std::fs::symlink_metadata(&link).unwrap().file_type();
        assert!(kind.is_symlink(), "{flag}: the link was replaced");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "precious\n");
    }
    // A symlinked CURRENT (the default output) is refused the same way.
    let cur_link = dir.path().join("cur-link.level");
    std::fs::write(&target, "a = 2\nb = 1\n").unwrap();
    std::os::unix::fs::symlink(&target, &cur_link).unwrap();
    let out = merge_file(&[cur_link.clone(), files[1].clone(), files[2].clone()], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "a = 2\nb = 1\n");
    let sub = dir.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    let out = merge_file(&files, &["-o", sub.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("is a directory"), "{stderr}");
    assert!(sub.is_dir());
    assert!(temporaries(dir.path()).is_empty());
}

#[test]
fn stale_temporaries_of_a_killed_run_are_cleaned_and_none_are_left() {
    let (dir, files) = inputs();
    let stale = dir.path().join(".out.level.assetvc-tmp-KILLED");
    std::fs::write(&stale, "half").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&stale)
        .unwrap()
        .set_modified(SystemTime::now() - Duration::from_secs(600))
        .unwrap();
    let out_path = dir.path().join("out.level");
    let out = merge_file(&files, &["-o", out_path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(std::fs::read_to_string(&out_path).unwrap(), MERGED);
    assert!(
        temporaries(dir.path()).is_empty(),
        "{:?}",
        temporaries(dir.path())
    );
    // A failed write (no such directory) leaves nothing either.
    let missing = dir.path().join("nowhere/out.level");
    let out = merge_file(&files, &["-o", missing.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(temporaries(dir.path()).is_empty());
}
