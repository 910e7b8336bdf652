//! End to end: `assetvc hook pre-commit` installed by hand as a clone's pre-commit hook,
//! and real `git commit`s that it lets through or blocks.

use crate::common;

use std::process::Output;

use common::{make_executable, stderr, TestRepo};

/// A clone with `assetvc hook pre-commit` as its pre-commit hook, an expression policy and
/// one committed level.
fn clone() -> TestRepo {
    let c = TestRepo::new_in("work");
    c.install_pre_commit_hook();
    c.write(
        "assetvc.toml",
        "[[expressions]]\nkeys = [\"*_expr\"]\nvariables = [\"t\"]\n",
    );
    c.write("levels/start.level", "entities = [\n\t{ id = \"e1\" }\n]\n");
    c.git(&["add", "-A"]);
    let out = commit(&c, &["-m", "start"]);
    assert!(out.status.success(), "{}", stderr(&out));
    c
}

/// `git commit -q ARGS` in `c`, whatever the status.
fn commit(c: &TestRepo, args: &[&str]) -> Output {
    let mut all = vec!["commit", "-q"];
    all.extend_from_slice(args);
    c.git_output(&all)
}

/// Stages `path` with `text`, expects the commit to be blocked with `message`,
/// then unstages and removes the file.
fn blocked(c: &TestRepo, path: &str, text: &str, message: &str) {
    let before = c.head();
    c.write(path, text);
    c.git(&["add", path]);
    let out = commit(c, &["-m", "should be blocked"]);
    let err = stderr(&out);
    assert!(!out.status.success(), "{path}: commit went through:\n{err}");
    assert!(
        err.contains(message),
        "{path}: expected {message:?} in:\n{err}"
    );
    assert!(err.contains("assetvc: commit blocked"), "{err}");
    assert!(err.contains("--no-verify"), "{err}");
    assert_eq!(c.head(), before);
    c.git(&["rm", "-q", "--cached", path]);
    std::fs::remove_file(c.path(path)).unwrap();
}

#[test]
fn pre_commit_blocks_the_same_problems_as_the_server() {
    let c = clone();
    blocked(
        &c,
        "levels/bad.level",
        "a = 1\nb = [1 2\n",
        "levels/bad.level:3:1: ",
    );
    blocked(
        &c,
        "notes/readme.txt",
        "intro\n<<<<<<< HEAD\nmine\n=======\ntheirs\n>>>>>>> other\n",
        "notes/readme.txt:2:1: unresolved merge conflict",
    );
    blocked(
        &c,
        "scripts/bad.lua",
        "local x = {\nreturn x\n",
        "scripts/bad.lua:1:11: Lua: expected a field",
    );
    blocked(
        &c,
        "fx/a.particles",
        "e = {\n\tsize_expr = \"2 * (t\"\n}\n",
        "fx/a.particles:2:",
    );
    blocked(
        &c,
        "levels/dup.level",
        "entities = [\n\t{ id = \"a\" }\n\t{ ID = \"a\" }\n]\n",
        "levels/dup.level:3:4: duplicate id \"a\"",
    );
    blocked(
        &c,
        "sub/assetvc.toml",
        "[check]\ncommand = \"touch x\"\n",
        "sub/assetvc.toml:2:1: unknown field `command`",
    );
    // Good files go through.
    c.write("levels/good.level", "a = [1 2]\n");
    c.write("scripts/good.lua", "return { speed = 2 }\n");
    c.git(&["add", "-A"]);
    let out = commit(&c, &["-m", "good"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn no_verify_still_commits() {
    let c = clone();
    let before = c.head();
    c.write("levels/bad.level", "a = [\n");
    c.git(&["add", "-A"]);
    assert!(!commit(&c, &["-m", "blocked"]).status.success());
    let out = commit(&c, &["--no-verify", "-m", "on purpose"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_ne!(c.head(), before);
    // Unchanged broken files are not checked again by later commits.
    c.write("levels/other.level", "a = 1\n");
    c.git(&["add", "-A"]);
    let out = commit(&c, &["-m", "next"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn what_is_committed_is_checked_not_the_worktree() {
    let c = clone();
    // `commit -a` stages into a temporary index (GIT_INDEX_FILE): its content is checked.
    c.write("levels/start.level", "entities = [\n");
    let out = commit(&c, &["-a", "-m", "all"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("levels/start.level:2:1:"),
        "{}",
        stderr(&out)
    );
    // `commit PATH` likewise.
    let out = commit(&c, &["-m", "path", "levels/start.level"]);
    assert!(!out.status.success());
    // A good staged version with a broken worktree file commits the staged version.
    c.write("levels/start.level", "entities = []\n");
    c.git(&["add", "levels/start.level"]);
    c.write("levels/start.level", "entities = [\n");
    let out = commit(&c, &["-m", "staged is fine"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn external_checkers_come_from_local_git_config() {
    let c = clone();
    let script = c.home.join("fake-fxc");
    std::fs::write(
        &script,
        "#!/bin/sh\nif grep -q bad \"$1\"; then echo \"$1(3,5): error X3000: syntax error\"; exit 1; fi\n",
    )
    .unwrap();
    make_executable(&script);
    c.git(&["config", "assetvc.check.fxc.pattern", "*.hlsl"]);
    c.git(&[
        "config",
        "assetvc.check.fxc.command",
        &format!("{} {{}}", script.display()),
    ]);
    blocked(
        &c,
        "shaders/a.hlsl",
        "float4 main() {\n\treturn 0;\n\tbad\n}\n",
        "shaders/a.hlsl:3:5: checker `fxc` failed (exit status 1):",
    );
    c.write("shaders/b.hlsl", "float4 main() { return 0; }\n");
    c.git(&["add", "-A"]);
    let out = commit(&c, &["-m", "good shader"]);
    assert!(out.status.success(), "{}", stderr(&out));
}
