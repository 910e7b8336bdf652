//! Issue #30 items 4 and 7: a change set is untrusted (a studio sends it to a translation
//! shop and gets it back). Applied to the worktree, it never writes through a committed
//! symbolic link to a folder, never into a nested `.git` (any spelling), and the file
//! names it carries reach the terminal escaped.

use crate::common;

use common::TestRepo;

fn set(file: &str) -> String {
    let line = serde_json::json!({"op": "set", "file": file, "path": "/a", "value": 2});
    format!("{line}\n")
}

#[cfg(unix)]
#[test]
fn a_change_set_never_writes_outside_the_worktree_or_into_git() {
    let r = TestRepo::new_in("repo");
    let outside = r.home.join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("target.level"), "a = 1\n").unwrap();
    std::os::unix::fs::symlink(&outside, r.path("linkdir")).unwrap();
    r.write("sub/keep.level", "a = 1\n");
    r.write("ok.level", "a = 1\n");
    r.commit("base with a symlinked folder");
    for bad in [
        "linkdir/target.level",
        "linkdir/created.level",
        "sub/.git/hooks/post-checkout",
        "sub/.GIT/hooks/post-checkout",
        ".git/hooks/post-checkout",
        "sub/git~1/hooks/post-checkout",
    ] {
        // A good change first: nothing at all is written when one change is refused.
        std::fs::write(r.path("cs.changes"), set("ok.level") + &set(bad)).unwrap();
        let (_, stderr) = r.assetvc_expect(&["apply", "cs.changes"], 2);
        assert!(
            stderr.contains("cs.changes:2:1:") && stderr.contains("not a path inside"),
            "{bad}: {stderr}"
        );
        assert_eq!(r.read("ok.level"), "a = 1\n", "{bad}");
    }
    assert_eq!(
        std::fs::read_to_string(outside.join("target.level")).unwrap(),
        "a = 1\n"
    );
    assert!(!outside.join("created.level").exists());
    assert!(!r.path("sub/.git").exists());
    assert!(!r.path(".git/hooks/post-checkout").exists());
    // A path inside is applied.
    std::fs::write(r.path("cs.changes"), set("sub/keep.level")).unwrap();
    r.assetvc_expect(&["apply", "cs.changes"], 0);
    assert!(r.read("sub/keep.level").contains('2'));
}

#[test]
fn change_set_file_names_reach_the_terminal_escaped() {
    let r = TestRepo::new();
    let name = "evil\u{1b}]0;pwned\u{7}.level";
    r.write(name, "a = 1\n");
    r.commit("base");
    std::fs::write(r.path("cs.changes"), set(name)).unwrap();
    let (_, stderr) = r.assetvc_expect(&["apply", "cs.changes"], 0);
    assert!(
        !stderr.contains('\u{1b}') && !stderr.contains('\u{7}'),
        "{stderr:?}"
    );
    assert!(r.read(name).contains('2'));
    std::fs::write(r.path("bad.changes"), set("x\u{1b}[2J/../../y.level")).unwrap();
    let (_, stderr) = r.assetvc_expect(&["apply", "bad.changes"], 2);
    assert!(!stderr.contains('\u{1b}'), "{stderr:?}");
}
