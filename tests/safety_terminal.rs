//! Issue 12 item 7: text from repositories (file names, keys, values) never reaches a
//! terminal raw: ESC, BEL and CR are shown as `\u{1b}`-style escapes.

use crate::common;

use common::{assetvc, git_home, run, write};

/// Every byte of `out` that a terminal would act on, if any.
fn raw_controls(out: &[u8]) -> Vec<u8> {
    out.iter()
        .copied()
        .filter(|&b| b < 0x20 && b != b'\n' && b != b'\t' || b == 0x7f)
        .collect()
}

#[test]
fn check_escapes_file_names_keys_and_ids() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    git_home(dir, dir, &["init", "-q", "-b", "main"]);
    write(dir, "assetvc.toml", "[check]\nrequire_ids = true\n");
    write(dir, "levels/evil\u{1b}]0;owned\u{7}.level", "a = {\n");
    write(
        dir,
        "levels/keys.level",
        "\"k\\u001b[2J\" = 1\n\"k\\u001b[2J\" = 2\n",
    );
    write(
        dir,
        "levels/ids.level",
        "units = [\n\t{ id = \"\\u001b[31mred\\r\" }\n\t{ id = \"\\u001b[31mred\\r\" }\n]\n",
    );
    let out = run(assetvc()
        .arg("check")
        .current_dir(dir)
        .env("HOME", dir)
        .env("GIT_CONFIG_NOSYSTEM", "1"));
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    assert_eq!(raw_controls(&out.stdout), b"", "{stdout:?}");
    assert_eq!(raw_controls(&out.stderr), b"", "{stderr:?}");
    assert!(
        stdout.contains("evil\\u{1b}]0;owned\\u{7}.level"),
        "{stdout}"
    );
    // A repeated key is a warning (stderr), not a problem: the file still merges.
    assert!(stderr.contains("k\\u{1b}[2J"), "{stderr}");
    assert!(stdout.contains("\\u{1b}[31mred"), "{stdout}");
}

#[test]
fn merge_reports_escape_keys() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    write(dir, "cur.level", "\"a\\u0007\\u001b[2J\" = 2\n");
    write(dir, "base.level", "\"a\\u0007\\u001b[2J\" = 1\n");
    write(dir, "other.level", "\"a\\u0007\\u001b[2J\" = 3\n");
    let out = run(assetvc()
        .args(["merge-file", "-p", "cur.level", "base.level", "other.level"])
        .current_dir(dir));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(raw_controls(&out.stderr), b"", "{stderr:?}");
    // The key is shown escaped (JSON escapes in a quoted key, or Rust-style ones).
    assert!(
        stderr.contains("a\\u{7}\\u{1b}[2J") || stderr.contains("a\\u0007\\u001b[2J"),
        "{stderr}"
    );
}

#[test]
fn diff_escapes_file_names_keys_and_ids() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let (a, b) = ("a\u{1b}[31m.level", "b.level");
    write(
        dir,
        a,
        "\"k\\u001b[2J\" = 1\nl = [{id = \"\\u001b]0;x\\u0007\" v = 1}]\n",
    );
    write(
        dir,
        b,
        "\"k\\u001b[2J\" = 2\nl = [{id = \"\\u001b]0;x\\u0007\" v = 2}]\n",
    );
    let out = run(assetvc()
        .args(["diff", a, b])
        .current_dir(dir)
        .env("NO_COLOR", "1"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(raw_controls(&out.stdout), b"", "{stdout:?}");
    assert_eq!(raw_controls(&out.stderr), b"");
    // The keyed element is named by its (escaped) short id.
    assert!(stdout.contains("[#\\u{1b}]0;x\\u{7}]"), "{stdout}");
}
