//! End to end: the porcelain is as safe as git itself. Concurrent commits never revert each
//! other, a held `index.lock` stops a commit before anything moves, and a crafted tree (a
//! symlink and a folder of one name, a `.git` component) is refused by `assetvc pull` and
//! by the server hook instead of planting a git hook.

use crate::common;

use std::path::Path;
use std::process::Stdio;

use common::{assetvc_output, git_home, git_home_output, install_server, stderr, TestRepo};

fn level(n: usize, x: usize) -> String {
    format!("entities = [\n\t{{\n\t\tid = \"e{n:05}\"\n\t\tposition = [{x} 0 0]\n\t}}\n]\n")
}

/// Two `assetvc commit`s started close together: each either commits or is refused with the
/// index-lock message; a commit never reverts what the other committed, and after both the
/// index matches HEAD for every path either of them committed.
#[test]
fn close_commits_never_revert_each_other() {
    const FILES: usize = 300;
    let repo = TestRepo::new_in("work");
    for i in 0..FILES {
        repo.write(&format!("levels/l{i}.level"), &level(i, 0));
    }
    repo.write("notes.txt", "notes\n");
    repo.commit("start");
    let mut both_committed = 0;
    for round in 1..=8usize {
        for i in 0..FILES {
            repo.write(&format!("levels/l{i}.level"), &level(i, round));
        }
        repo.write("notes.txt", &format!("notes {round}\n"));
        let spawn = |args: &[&str]| {
            common::assetvc()
                .args(args)
                .current_dir(&repo.dir)
                .env("HOME", &repo.home)
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .env("GIT_AUTHOR_NAME", "Test")
                .env("GIT_AUTHOR_EMAIL", "test@example.com")
                .env("GIT_COMMITTER_NAME", "Test")
                .env("GIT_COMMITTER_EMAIL", "test@example.com")
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        };
        let all = spawn(&["commit", "-a", "-m", &format!("all {round}")]);
        std::thread::sleep(std::time::Duration::from_millis(
            [0, 10, 30, 60, 120, 250, 500, 1000][round - 1],
        ));
        let notes = spawn(&["commit", "-m", &format!("notes {round}"), "notes.txt"]);
        let all = all.wait_with_output().unwrap();
        let notes = notes.wait_with_output().unwrap();
        for out in [&all, &notes] {
            assert!(
                out.status.success()
                    || out.status.code() == Some(2) && stderr(out).contains("index.lock")
                    || stderr(out).contains("nothing to commit"),
                "a commit failed for another reason than the lock: {}",
                stderr(out)
            );
        }
        if all.status.success() && notes.status.success() {
            both_committed += 1;
        }
        // Whatever committed is in HEAD; nothing that committed was reverted.
        let head_tree = repo.git(&["ls-tree", "-r", "HEAD"]);
        if all.status.success() {
            for i in [0, FILES / 2, FILES - 1] {
                let shown = repo.git(&["show", &format!("HEAD:levels/l{i}.level")]);
                assert_eq!(shown, level(i, round), "round {round}: l{i} reverted");
            }
        }
        if notes.status.success() || all.status.success() {
            let shown = repo.git(&["show", "HEAD:notes.txt"]);
            assert_eq!(shown, format!("notes {round}\n"), "round {round}");
        }
        assert!(!head_tree.is_empty());
        // The index holds what HEAD holds for committed paths: `git diff --cached` is empty.
        let cached = repo.git(&["diff", "--cached", "--name-only"]);
        assert_eq!(cached, "", "round {round}: index and HEAD disagree");
        // Commit whatever was refused so the next round starts clean.
        repo.git(&["add", "-A"]);
        let _ = git_home_output(&repo.dir, &repo.home, &["commit", "-q", "-m", "rest"]);
        assert!(!repo.dir.join(".git/index.lock").exists());
    }
    eprintln!("both commits went through in {both_committed} of 8 rounds");
}

/// `index.lock` held by someone else: exit 2 with git's advice, HEAD and the index as they
/// were, and the other process's lock left alone.
#[test]
fn held_index_lock_moves_nothing() {
    let repo = TestRepo::new_in("work");
    repo.write("levels/a.level", &level(1, 0));
    repo.commit("start");
    let head = repo.head();
    let index_before = std::fs::read(repo.dir.join(".git/index")).unwrap();
    repo.write("levels/a.level", &level(1, 5));
    std::fs::write(repo.dir.join(".git/index.lock"), "").unwrap();
    let out = repo.assetvc(&["commit", "-a", "-m", "all"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("another git process") && stderr(&out).contains("index.lock"),
        "{}",
        stderr(&out)
    );
    assert_eq!(repo.head(), head);
    assert_eq!(
        std::fs::read(repo.dir.join(".git/index")).unwrap(),
        index_before
    );
    assert!(repo.dir.join(".git/index.lock").exists());
    // The same for a merge.
    let out = repo.assetvc(&["merge", "main"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    std::fs::remove_file(repo.dir.join(".git/index.lock")).unwrap();
    let out = repo.assetvc(&["commit", "-a", "-m", "all"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(repo.git(&["diff", "--cached", "--name-only"]), "");
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
}

/// Builds, in `dir`, a commit on top of HEAD whose tree is `top` (`git mktree` input
/// lines `mode type id\tname`).
fn crafted_commit(dir: &Path, home: &Path, top: &str) -> String {
    let tree = {
        let mut child = std::process::Command::new("git")
            .args(["mktree"])
            .current_dir(dir)
            .env("HOME", home)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(top.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    };
    git_home(
        dir,
        home,
        &["commit-tree", &tree, "-p", "HEAD", "-m", "evil"],
    )
    .trim()
    .to_string()
}

fn hash_blob(dir: &Path, home: &Path, content: &str) -> String {
    let tmp = dir.join(".blob-input");
    std::fs::write(&tmp, content).unwrap();
    let id = git_home(dir, home, &["hash-object", "-w", ".blob-input"]);
    std::fs::remove_file(&tmp).unwrap();
    id.trim().to_string()
}

/// The tree of the issue's attack: a symlink `zz → .git/hooks` and a folder `zz/` holding an
/// executable `post-commit`. Returns the commit id.
fn hook_planting_commit(dir: &Path, home: &Path, link_target: &str, marker: &Path) -> String {
    let hook = hash_blob(
        dir,
        home,
        &format!("#!/bin/sh\necho planted > '{}'\n", marker.display()),
    );
    let link = hash_blob(dir, home, link_target);
    let readme = git_home(dir, home, &["rev-parse", "HEAD:readme.txt"]);
    let sub = {
        let mut c = std::process::Command::new("git")
            .arg("mktree")
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        c.stdin
            .take()
            .unwrap()
            .write_all(format!("100755 blob {hook}\tpost-commit\n").as_bytes())
            .unwrap();
        String::from_utf8(c.wait_with_output().unwrap().stdout)
            .unwrap()
            .trim()
            .to_string()
    };
    crafted_commit(
        dir,
        home,
        &format!(
            "100644 blob {}\treadme.txt\n120000 blob {link}\tzz\n040000 tree {sub}\tzz\n",
            readme.trim()
        ),
    )
}

#[test]
fn pulled_tree_cannot_plant_a_hook_or_write_outside() {
    let repo = TestRepo::new_in("src");
    repo.write("readme.txt", "hi\n");
    repo.commit("start");
    let (root, src) = (&repo.home, &repo.dir);
    git_home(root, root, &["clone", "-q", "src", "victim"]);
    let victim = root.join("victim");
    let outside = root.join("outside");
    std::fs::create_dir(&outside).unwrap();
    let marker = root.join("planted");
    for (branch, target) in [
        ("to-hooks", ".git/hooks".to_string()),
        ("to-outside", outside.display().to_string()),
    ] {
        git_home(src, root, &["checkout", "-q", "main"]);
        let evil = hook_planting_commit(src, root, &target, &marker);
        git_home(src, root, &["branch", "-f", branch, &evil]);
        let head = git_home(&victim, root, &["rev-parse", "HEAD"]);
        let out = assetvc_output(&victim, root, &["pull", "origin", branch]);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(
            stderr(&out).contains("refusing to check out"),
            "{}",
            stderr(&out)
        );
        assert!(!victim.join(".git/hooks/post-commit").exists());
        assert!(!outside.join("post-commit").exists());
        assert_eq!(git_home(&victim, root, &["rev-parse", "HEAD"]), head);
        assert!(!victim.join(".git/index.lock").exists());
    }
    // A `.git` component spelled for a case-folding file system.
    git_home(src, root, &["checkout", "-q", "main"]);
    let hook = hash_blob(src, root, "#!/bin/sh\ntrue\n");
    let hooks = crafted_commit(src, root, &format!("100755 blob {hook}\tpost-commit\n"));
    let hooks_tree = git_home(src, root, &["rev-parse", &format!("{hooks}^{{tree}}")]);
    let git_dir = crafted_commit(
        src,
        root,
        &format!("040000 tree {}\thooks\n", hooks_tree.trim()),
    );
    let git_dir_tree = git_home(src, root, &["rev-parse", &format!("{git_dir}^{{tree}}")]);
    let readme = git_home(src, root, &["rev-parse", "HEAD:readme.txt"]);
    let evil = crafted_commit(
        src,
        root,
        &format!(
            "100644 blob {}\treadme.txt\n040000 tree {}\t.GIT\n",
            readme.trim(),
            git_dir_tree.trim()
        ),
    );
    git_home(src, root, &["branch", "-f", "dotgit", &evil]);
    let out = assetvc_output(&victim, root, &["pull", "origin", "dotgit"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(!victim.join(".git/hooks/post-commit").exists());
    // The victim's next commit runs nothing.
    std::fs::write(victim.join("readme.txt"), "changed\n").unwrap();
    git_home(&victim, root, &["commit", "-q", "-am", "next"]);
    assert!(!marker.exists(), "a planted hook ran");
}

#[test]
fn server_hook_rejects_crafted_trees() {
    let repo = TestRepo::new_in("work");
    let (root, work) = (&repo.home, &repo.dir);
    let bare = repo.bare("srv.git");
    install_server(&bare, root);
    repo.write("readme.txt", "hi\n");
    repo.commit("start");
    let url = format!("file://{}", bare.display());
    git_home(work, root, &["remote", "add", "origin", &url]);
    git_home(work, root, &["push", "-q", "origin", "main"]);
    let evil = hook_planting_commit(work, root, ".git/hooks", &root.join("planted"));
    let out = git_home_output(
        work,
        root,
        &["push", "origin", &format!("{evil}:refs/heads/main")],
    );
    assert!(!out.status.success(), "the crafted tree was accepted");
    let err = stderr(&out);
    assert!(err.contains("push rejected"), "{err}");
    assert!(err.contains("zz") && err.contains("twice"), "{err}");
    let server_main = git_home(&bare, root, &["rev-parse", "main"]);
    assert_ne!(server_main.trim(), evil);
}
