//! Issue 12 item 6: `fmt`, `check`, `migrate` and `install` never follow a symbolic link
//! out of the repository; every command taking paths accepts `--`.

use crate::common;

use std::os::unix::fs::symlink;
use std::path::Path;

use common::{assetvc_expect, git_home};

const UNFORMATTED: &str = "a=1\nb={c=2}\n";

fn is_symlink(p: &Path) -> bool {
    std::fs::symlink_metadata(p)
        .map(|m| m.file_type().is_symlink())
        .unwrap_or(false)
}

/// A repository holding a committed symlink `linkdir` to a directory outside it and a
/// committed `LINK.level` to `inside.level`; and that outside directory.
fn repo_with_links() -> (tempfile::TempDir, tempfile::TempDir) {
    let (tmp, outside) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let dir = tmp.path();
    git_home(dir, dir, &["init", "-q", "-b", "main"]);
    std::fs::write(outside.path().join("victim.level"), UNFORMATTED).unwrap();
    std::fs::write(outside.path().join(".gitattributes"), "*.level -text\n").unwrap();
    symlink(outside.path(), dir.join("linkdir")).unwrap();
    std::fs::write(dir.join("inside.level"), UNFORMATTED).unwrap();
    symlink("inside.level", dir.join("LINK.level")).unwrap();
    git_home(dir, dir, &["add", "-A"]);
    git_home(dir, dir, &["commit", "-q", "-m", "links"]);
    (tmp, outside)
}

#[test]
fn fmt_does_not_write_through_or_replace_symlinks() {
    let (tmp, outside) = repo_with_links();
    let dir = tmp.path();
    let victim = outside.path().join("victim.level");
    for args in [
        &["fmt", "linkdir"][..],
        &["fmt", "linkdir/victim.level"],
        &["fmt", "LINK.level"],
        &["fmt", "--check", "linkdir"],
    ] {
        let (_, stderr) = assetvc_expect(dir, dir, args, 2);
        assert!(stderr.contains("symbolic link"), "{args:?}: {stderr}");
    }
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), UNFORMATTED);
    assert!(is_symlink(&dir.join("LINK.level")));
    // Walking the repository skips the links: only the real file is formatted.
    assetvc_expect(dir, dir, &["fmt", "."], 0);
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), UNFORMATTED);
    assert!(is_symlink(&dir.join("LINK.level")));
    assert!(is_symlink(&dir.join("linkdir")));
    assert_ne!(
        std::fs::read_to_string(dir.join("inside.level")).unwrap(),
        UNFORMATTED
    );
}

#[test]
fn check_does_not_follow_a_symlinked_directory() {
    let (tmp, _outside) = repo_with_links();
    let dir = tmp.path();
    let (_, stderr) = assetvc_expect(dir, dir, &["check", "linkdir"], 2);
    assert!(stderr.contains("symbolic link"), "{stderr}");
}

#[test]
fn install_refuses_a_symlinked_gitattributes() {
    let (tmp, outside) = repo_with_links();
    let dir = tmp.path();
    symlink(
        outside.path().join(".gitattributes"),
        dir.join(".gitattributes"),
    )
    .unwrap();
    let (_, stderr) = assetvc_expect(dir, dir, &["install"], 2);
    assert!(stderr.contains("symbolic link"), "{stderr}");
    assert!(is_symlink(&dir.join(".gitattributes")));
    assert_eq!(
        std::fs::read_to_string(outside.path().join(".gitattributes")).unwrap(),
        "*.level -text\n"
    );
}

#[test]
fn migrate_leaves_symlinks_and_their_targets_alone() {
    let (tmp, outside) = repo_with_links();
    let dir = tmp.path();
    let victim = outside.path().join("victim.level");
    std::fs::write(&victim, "units = [\n\t{ name = a }\n]\n").unwrap();
    git_home(dir, dir, &["config", "user.name", "t"]);
    git_home(dir, dir, &["config", "user.email", "t@example.com"]);
    let out = common::assetvc_output(dir, dir, &["migrate"]);
    assert!(out.status.code().is_some(), "{out:?}");
    assert_eq!(
        std::fs::read_to_string(&victim).unwrap(),
        "units = [\n\t{ name = a }\n]\n"
    );
    assert!(is_symlink(&dir.join("LINK.level")));
    assert!(is_symlink(&dir.join("linkdir")));
}

#[test]
fn paths_after_double_dash_may_start_with_a_dash() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    git_home(dir, dir, &["init", "-q", "-b", "main"]);
    std::fs::write(dir.join("-x.level"), UNFORMATTED).unwrap();
    assetvc_expect(dir, dir, &["fmt", "--check", "--", "-x.level"], 1);
    assetvc_expect(dir, dir, &["fmt", "--", "-x.level"], 0);
    assert_eq!(
        std::fs::read_to_string(dir.join("-x.level")).unwrap(),
        "a = 1\nb = {\n\tc = 2\n}\n"
    );
    assetvc_expect(dir, dir, &["check", "--", "-x.level"], 0);
    std::fs::write(dir.join("-b.level"), "a = 1\n").unwrap();
    std::fs::write(dir.join("-o.level"), "a = 1\nb = 2\n").unwrap();
    std::fs::write(dir.join("-c.level"), "a = 3\n").unwrap();
    let (merged, _) = assetvc_expect(
        dir,
        dir,
        &["merge-file", "-p", "--", "-c.level", "-b.level", "-o.level"],
        0,
    );
    assert_eq!(merged, "a = 3\nb = 2\n");
}
