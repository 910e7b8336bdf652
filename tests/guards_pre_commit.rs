//! End to end: `assetvc hook pre-commit` installed by hand as a clone's pre-commit hook,
//! and real `git commit`s that it lets through or blocks.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::{git_home, git_home_output};

struct Clone {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    work: PathBuf,
}

impl Clone {
    fn new() -> Clone {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        let work = root.join("work");
        git_home(&root, &root, &["init", "-q", "-b", "main", "work"]);
        let hook = work.join(".git/hooks/pre-commit");
        std::fs::create_dir_all(hook.parent().unwrap()).unwrap();
        std::fs::write(
            &hook,
            format!(
                "#!/bin/sh\nexec {} hook pre-commit\n",
                env!("CARGO_BIN_EXE_assetvc")
            ),
        )
        .unwrap();
        make_executable(&hook);
        let c = Clone {
            _tmp: tmp,
            root,
            work,
        };
        c.write(
            "assetvc.toml",
            "[[expressions]]\nkeys = [\"*_expr\"]\nvariables = [\"t\"]\n",
        );
        c.write("levels/start.level", "entities = [\n\t{ id = \"e1\" }\n]\n");
        c.git(&["add", "-A"]);
        let out = c.commit(&["-m", "start"]);
        assert!(out.status.success(), "{}", stderr(&out));
        c
    }

    fn git(&self, args: &[&str]) -> String {
        git_home(&self.work, &self.root, args)
    }

    fn write(&self, path: &str, text: &str) {
        let p = self.work.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    fn commit(&self, args: &[&str]) -> Output {
        let mut all = vec!["commit", "-q"];
        all.extend_from_slice(args);
        git_home_output(&self.work, &self.root, &all)
    }

    fn head(&self) -> String {
        self.git(&["rev-parse", "HEAD"])
    }

    /// Stages `path` with `text`, expects the commit to be blocked with `message`,
    /// then unstages and removes the file.
    fn blocked(&self, path: &str, text: &str, message: &str) {
        let before = self.head();
        self.write(path, text);
        self.git(&["add", path]);
        let out = self.commit(&["-m", "should be blocked"]);
        let err = stderr(&out);
        assert!(!out.status.success(), "{path}: commit went through:\n{err}");
        assert!(
            err.contains(message),
            "{path}: expected {message:?} in:\n{err}"
        );
        assert!(err.contains("assetvc: commit blocked"), "{err}");
        assert!(err.contains("--no-verify"), "{err}");
        assert_eq!(self.head(), before);
        self.git(&["rm", "-q", "--cached", path]);
        std::fs::remove_file(self.work.join(path)).unwrap();
    }
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn pre_commit_blocks_the_same_problems_as_the_server() {
    let c = Clone::new();
    c.blocked(
        "levels/bad.level",
        "a = 1\nb = [1 2\n",
        "levels/bad.level:3:1: ",
    );
    c.blocked(
        "notes/readme.txt",
        "intro\n<<<<<<< HEAD\nmine\n=======\ntheirs\n>>>>>>> other\n",
        "notes/readme.txt:2:1: unresolved merge conflict",
    );
    c.blocked(
        "scripts/bad.lua",
        "local x = {\nreturn x\n",
        "scripts/bad.lua:1:11: Lua: expected a field",
    );
    c.blocked(
        "fx/a.particles",
        "e = {\n\tsize_expr = \"2 * (t\"\n}\n",
        "fx/a.particles:2:",
    );
    c.blocked(
        "levels/dup.level",
        "entities = [\n\t{ id = \"a\" }\n\t{ ID = \"a\" }\n]\n",
        "levels/dup.level:3:4: duplicate id \"a\"",
    );
    c.blocked(
        "sub/assetvc.toml",
        "[check]\ncommand = \"touch x\"\n",
        "sub/assetvc.toml:2:1: unknown field `command`",
    );
    // Good files go through.
    c.write("levels/good.level", "a = [1 2]\n");
    c.write("scripts/good.lua", "return { speed = 2 }\n");
    c.git(&["add", "-A"]);
    let out = c.commit(&["-m", "good"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn no_verify_still_commits() {
    let c = Clone::new();
    let before = c.head();
    c.write("levels/bad.level", "a = [\n");
    c.git(&["add", "-A"]);
    assert!(!c.commit(&["-m", "blocked"]).status.success());
    let out = c.commit(&["--no-verify", "-m", "on purpose"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_ne!(c.head(), before);
    // Unchanged broken files are not checked again by later commits.
    c.write("levels/other.level", "a = 1\n");
    c.git(&["add", "-A"]);
    let out = c.commit(&["-m", "next"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn what_is_committed_is_checked_not_the_worktree() {
    let c = Clone::new();
    // `commit -a` stages into a temporary index (GIT_INDEX_FILE): its content is checked.
    c.write("levels/start.level", "entities = [\n");
    let out = c.commit(&["-a", "-m", "all"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("levels/start.level:2:1:"),
        "{}",
        stderr(&out)
    );
    // `commit PATH` likewise.
    let out = c.commit(&["-m", "path", "levels/start.level"]);
    assert!(!out.status.success());
    // A good staged version with a broken worktree file commits the staged version.
    c.write("levels/start.level", "entities = []\n");
    c.git(&["add", "levels/start.level"]);
    c.write("levels/start.level", "entities = [\n");
    let out = c.commit(&["-m", "staged is fine"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn external_checkers_come_from_local_git_config() {
    let c = Clone::new();
    let script = c.root.join("fake-fxc");
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
    c.blocked(
        "shaders/a.hlsl",
        "float4 main() {\n\treturn 0;\n\tbad\n}\n",
        "shaders/a.hlsl:3:5: checker `fxc` failed (exit status 1):",
    );
    c.write("shaders/b.hlsl", "float4 main() { return 0; }\n");
    c.git(&["add", "-A"]);
    let out = c.commit(&["-m", "good shader"]);
    assert!(out.status.success(), "{}", stderr(&out));
}
