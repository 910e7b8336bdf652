//! End to end: `assetvc commit` — staging paths and `-a`, the asset checks that stop a
//! commit (nothing is written then), and a clean `git status` afterwards.

use crate::common;

use std::path::Path;

use common::{assetvc_expect, git_home, git_home_output};

fn setup(dir: &Path) {
    git_home(dir, dir, &["init", "-q", "-b", "main"]);
    std::fs::write(dir.join("level.sjson"), "fog = 0.1\n").unwrap();
    std::fs::write(dir.join("gone.txt"), "bye\n").unwrap();
    std::fs::write(dir.join("tool.sh"), "#!/bin/sh\n").unwrap();
    git_home(dir, dir, &["add", "."]);
    git_home(dir, dir, &["commit", "-q", "-m", "base"]);
}

#[test]
fn commit_all_and_paths_leave_a_clean_status() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    setup(dir);
    std::fs::write(dir.join("level.sjson"), "fog = 0.2\n").unwrap();
    std::fs::remove_file(dir.join("gone.txt")).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir.join("tool.sh"), std::fs::Permissions::from_mode(0o755))
            .unwrap();
    }
    std::fs::write(dir.join("untracked.txt"), "not committed by -a\n").unwrap();
    let (stdout, _) = assetvc_expect(dir, dir, &["commit", "-a", "-m", "edit"], 0);
    assert!(stdout.starts_with("[main "), "{stdout}");
    assert_eq!(
        git_home(dir, dir, &["status", "--porcelain"]),
        "?? untracked.txt\n"
    );
    assert_eq!(
        git_home(dir, dir, &["show", "HEAD:level.sjson"]),
        "fog = 0.2\n"
    );
    let files = git_home(dir, dir, &["ls-tree", "-r", "--name-only", "HEAD"]);
    assert_eq!(files, "level.sjson\ntool.sh\n");
    #[cfg(unix)]
    assert!(git_home(dir, dir, &["ls-tree", "HEAD", "tool.sh"]).starts_with("100755"));

    // Paths: a new file, and a directory with new files (honouring .gitignore).
    std::fs::create_dir_all(dir.join("levels/sub")).unwrap();
    std::fs::write(dir.join("levels/a.level"), "a = 1\n").unwrap();
    std::fs::write(dir.join("levels/sub/b.level"), "b = 2\n").unwrap();
    std::fs::write(dir.join("levels/sub/skip.tmp"), "x\n").unwrap();
    std::fs::write(dir.join(".gitignore"), "*.tmp\n").unwrap();
    assetvc_expect(
        dir,
        dir,
        &[
            "commit",
            "-m",
            "levels",
            "untracked.txt",
            "levels",
            ".gitignore",
        ],
        0,
    );
    assert!(git_home(dir, dir, &["status", "--porcelain"]).is_empty());
    let files = git_home(dir, dir, &["ls-tree", "-r", "--name-only", "HEAD"]);
    assert_eq!(
        files,
        ".gitignore\nlevel.sjson\nlevels/a.level\nlevels/sub/b.level\ntool.sh\nuntracked.txt\n"
    );
    // From a subdirectory, paths are relative to it.
    std::fs::write(dir.join("levels/sub/b.level"), "b = 3\n").unwrap();
    assetvc_expect(
        &dir.join("levels/sub"),
        dir,
        &["commit", "-m", "b", "b.level"],
        0,
    );
    assert_eq!(
        git_home(dir, dir, &["show", "HEAD:levels/sub/b.level"]),
        "b = 3\n"
    );

    // Nothing to commit.
    let (_, stderr) = assetvc_expect(dir, dir, &["commit", "-a", "-m", "nothing"], 1);
    assert!(stderr.contains("nothing to commit"), "{stderr}");
    let fsck = git_home_output(dir, dir, &["fsck", "--strict"]);
    assert!(fsck.status.success());
}

#[test]
fn invalid_assets_stop_the_commit_and_nothing_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    setup(dir);
    let head = git_home(dir, dir, &["rev-parse", "HEAD"]);
    std::fs::write(dir.join("level.sjson"), "fog = {\n").unwrap();
    std::fs::write(dir.join("table.json"), "{ a = 1 }\n").unwrap(); // SJSON syntax in JSON
    std::fs::write(dir.join("ok.txt"), "fine\n").unwrap();
    let (_, stderr) = assetvc_expect(
        dir,
        dir,
        &["commit", "-a", "-m", "bad", "table.json", "ok.txt"],
        1,
    );
    assert!(stderr.contains("level.sjson:2:1:"), "{stderr}");
    assert!(stderr.contains("table.json:1:3:"), "{stderr}");
    assert!(stderr.contains("nothing was committed"), "{stderr}");
    assert_eq!(git_home(dir, dir, &["rev-parse", "HEAD"]), head);
    assert!(
        git_home(dir, dir, &["diff", "--cached", "--name-only"]).is_empty(),
        "the index is untouched"
    );
    // Fixed, it goes through.
    std::fs::write(dir.join("level.sjson"), "fog = 0.3\n").unwrap();
    std::fs::write(dir.join("table.json"), "{ \"a\": 1 }\n").unwrap();
    assetvc_expect(
        dir,
        dir,
        &["commit", "-a", "-m", "good", "table.json", "ok.txt"],
        0,
    );
    assert!(git_home(dir, dir, &["status", "--porcelain"]).is_empty());
}

#[test]
fn usage_errors_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    // Outside a repository.
    let (_, stderr) = assetvc_expect(dir, dir, &["commit", "-m", "x"], 2);
    assert!(stderr.contains("not a git repository"), "{stderr}");
    assetvc_expect(dir, dir, &["merge", "main"], 2);
    setup(dir);
    // No message; a path that does not exist.
    assetvc_expect(dir, dir, &["commit", "-a"], 2);
    let (_, stderr) = assetvc_expect(dir, dir, &["commit", "-m", "x", "missing.txt"], 2);
    assert!(stderr.contains("missing.txt"), "{stderr}");
    let outside = tempfile::tempdir().unwrap();
    let outside_file = outside.path().join("f.txt");
    std::fs::write(&outside_file, "x").unwrap();
    assetvc_expect(
        dir,
        dir,
        &["commit", "-m", "x", outside_file.to_str().unwrap()],
        2,
    );
}
