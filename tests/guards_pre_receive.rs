//! End to end: a bare repository with `assetvc install --server` (what
//! `assetvc install --server` runs), and real `git push`es over file:// that the
//! pre-receive hook accepts or rejects.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::{
    assetvc, git_home, git_home_output, install_server, make_executable, run, stderr, TestRepo,
};

const GOOD_LEVEL: &str =
    "// a level\nentities = [\n\t{\n\t\tid = \"e1\"\n\t\tposition = [0 0 0]\n\t}\n]\n";

/// A server (bare repository with the hook) and a clone that pushes to it.
struct Server {
    /// The clone (`work`), beside the bare repository in its `HOME`.
    clone: TestRepo,
    bare: PathBuf,
}

/// The clone's own steps (`git`, `write`, `head` …) are the [`TestRepo`]'s.
impl std::ops::Deref for Server {
    type Target = TestRepo;

    fn deref(&self) -> &TestRepo {
        &self.clone
    }
}

impl Server {
    fn new() -> Server {
        Self::with_bare(|_| {})
    }

    /// `prepare` runs on the bare repository before the hook is installed.
    fn with_bare(prepare: impl FnOnce(&Path)) -> Server {
        let clone = TestRepo::new_in("work");
        let bare = clone.bare("srv.git");
        prepare(&bare);
        install_server(&bare, &clone.home);
        let server = Server { clone, bare };
        let url = format!("file://{}", server.bare.display());
        server.git(&["remote", "add", "origin", &url]);
        server.write("levels/start.level", GOOD_LEVEL);
        server.commit("start");
        let out = server.push(&["main"]);
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(
            stderr(&out).contains("assetvc: checked 1 blob in"),
            "{}",
            stderr(&out)
        );
        server
    }

    /// Commits everything with `message`; returns the new commit's id.
    fn commit(&self, message: &str) -> String {
        self.clone.commit(message);
        self.head()
    }

    fn push(&self, args: &[&str]) -> Output {
        let mut all = vec!["push", "origin"];
        all.extend_from_slice(args);
        self.git_output(&all)
    }

    /// Pushes and expects a rejection by the hook; returns git's stderr.
    fn rejected(&self, args: &[&str]) -> String {
        let out = self.push(args);
        let err = stderr(&out);
        assert!(!out.status.success(), "push {args:?} was accepted:\n{err}");
        assert!(err.contains("pre-receive hook declined"), "{err}");
        assert!(err.contains("assetvc: push rejected"), "{err}");
        err
    }

    /// Pushes and expects it to be accepted; returns git's stderr.
    fn accepted(&self, args: &[&str]) -> String {
        let out = self.push(args);
        let err = stderr(&out);
        assert!(out.status.success(), "push {args:?} was rejected:\n{err}");
        err
    }

    fn remote_ref(&self, name: &str) -> Option<String> {
        let out = git_home_output(
            &self.bare,
            &self.home,
            &["rev-parse", "--verify", "-q", name],
        );
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
    }

    fn remote_has_object(&self, id: &str) -> bool {
        git_home_output(&self.bare, &self.home, &["cat-file", "-e", id])
            .status
            .success()
    }

    fn server_config(&self, key: &str, value: &str) {
        git_home(&self.bare, &self.home, &["config", key, value]);
    }
}

#[test]
fn good_assets_go_in_and_an_unparsable_level_is_rejected_with_file_and_line() {
    let s = Server::new();
    s.write("levels/second.level", &GOOD_LEVEL.replace("e1", "e2"));
    s.write("loc/strings.json", "{\"hello\": \"bonjour\"}\n");
    s.commit("more good assets");
    let err = s.accepted(&["main"]);
    assert!(err.contains("assetvc: checked 2 blobs"), "{err}");
    let before = s.remote_ref("refs/heads/main").unwrap();

    s.write("levels/bad.level", "a = 1\nb = {\n\tc = [1 2 3\n}\n");
    let bad = s.commit("a broken level");
    let err = s.rejected(&["main"]);
    assert!(err.contains("refs/heads/main at commit"), "{err}");
    assert!(err.contains("(a broken level)"), "{err}");
    assert!(
        err.contains("levels/bad.level:4:1: "),
        "names file and line:\n{err}"
    );
    assert!(
        err.contains("remote:       }"),
        "shows the source line:\n{err}"
    );
    assert_eq!(s.remote_ref("refs/heads/main").unwrap(), before);
    // The hook read the pushed objects from git's quarantine, which git then dropped.
    assert!(!s.remote_has_object(&bad));
    let leftovers: Vec<_> = std::fs::read_dir(s.bare.join("objects"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("incoming") || n.starts_with("tmp_objdir"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");

    // Fixed in a later commit: the default checks the tip, so the push goes in.
    s.write("levels/bad.level", "a = 1\nb = {\n\tc = [1 2 3]\n}\n");
    s.commit("fix the level");
    s.accepted(&["main"]);
}

#[test]
fn conflict_markers_in_any_text_file_are_rejected() {
    let s = Server::new();
    s.write(
        "shaders/light.hlsl",
        "float4 main() : SV_Target {\n<<<<<<< HEAD\n\treturn 1;\n=======\n\treturn 0;\n>>>>>>> theirs\n}\n",
    );
    s.write("textures/a.png", "\u{89}PNG\0\0<<<<<<< not text\n");
    s.commit("merged badly");
    let err = s.rejected(&["main"]);
    assert!(
        err.contains("shaders/light.hlsl:2:1: unresolved merge conflict"),
        "{err}"
    );
    assert!(!err.contains("a.png"), "binary files are skipped:\n{err}");
}

#[test]
fn lua_syntax_errors_are_rejected_with_line_and_column() {
    let s = Server::new();
    s.write(
        "scripts/good.lua",
        "local M = {}\nfunction M.update(dt)\n\treturn dt * 2\nend\nreturn M\n",
    );
    s.commit("a script");
    s.accepted(&["main"]);
    s.write(
        "scripts/bad.lua",
        "local M = {}\nfunction M.update(dt)\n\tif dt > 1 then\n\t\treturn dt *\n\tend\nend\nreturn M\n",
    );
    s.commit("a broken script");
    let err = s.rejected(&["main"]);
    assert!(
        err.contains("scripts/bad.lua:4:13: Lua: expected expression after binary operator"),
        "{err}"
    );
}

#[test]
fn expressions_are_checked_by_the_servers_policy_not_the_pushed_one() {
    let s = Server::with_bare(|bare| {
        std::fs::write(
            bare.join("assetvc.toml"),
            "[[expressions]]\nkeys = [\"*_expr\"]\nvariables = [\"t\"]\n",
        )
        .unwrap();
    });
    s.write(
        "fx/spark.particles",
        "emitter = {\n\tspeed_expr = \"sin(t) * 2\"\n}\n",
    );
    s.commit("an effect");
    s.accepted(&["main"]);
    // The pushed assetvc.toml declares no expressions: it does not count on the server.
    s.write("assetvc.toml", "[check]\nrequire_ids = false\n");
    s.write(
        "fx/spark.particles",
        "emitter = {\n\tspeed_expr = \"sin(t) * 2\"\n\tsize_expr = \"1 + * t\"\n}\n",
    );
    s.commit("a broken expression");
    let err = s.rejected(&["main"]);
    assert!(
        err.contains("fx/spark.particles:3:19: expression in `size_expr` does not compile"),
        "{err}"
    );
}

#[test]
fn nothing_in_a_push_can_make_the_server_run_a_command() {
    let s = Server::new();
    let marker = s.home.join("pwned");
    let touch = format!("touch {}", marker.display());
    // assetvc.toml rejects unknown fields, so naming a command there is an error...
    s.write(
        "assetvc.toml",
        &format!(
            "[check]\nrequire_ids = false\ncommand = \"{touch}\"\n\n[[checkers]]\npattern = \"*\"\ncommand = \"{touch}\"\n"
        ),
    );
    // ... and git config files in the tree are just files.
    let gitconfig = format!("[assetvc \"check.evil\"]\n\tpattern = *\n\tcommand = {touch}\n");
    s.write(".gitconfig", &gitconfig);
    s.write("config", &gitconfig);
    s.write(".git-config/config", &gitconfig);
    s.write("levels/x.level", GOOD_LEVEL);
    s.commit("a hostile configuration");
    let err = s.rejected(&["main"]);
    assert!(
        err.contains("assetvc.toml:3:1: unknown field `command`"),
        "{err}"
    );
    assert!(!marker.exists(), "a command from the push ran");

    // A checker from the server's own git config does run (positive control).
    let ran = s.home.join("checker-ran");
    let script = s.home.join("fake-shaderc");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\ntouch {}\nif grep -q bad \"$1\"; then echo \"$1:2: error: bad token\"; exit 1; fi\n",
            ran.display()
        ),
    )
    .unwrap();
    make_executable(&script);
    s.server_config("assetvc.check.shaderc.pattern", "*.shader");
    s.server_config(
        "assetvc.check.shaderc.command",
        &format!("{} {{}}", script.display()),
    );
    s.git(&["reset", "-q", "--hard", "origin/main"]);
    s.write("shaders/ok.shader", "fine\n");
    s.commit("a good shader");
    s.accepted(&["main"]);
    assert!(ran.exists(), "the server's checker did not run");
    s.write("shaders/broken.shader", "one\nbad\n");
    s.commit("a bad shader");
    let err = s.rejected(&["main"]);
    assert!(err.contains("shaders/broken.shader:2:"), "{err}");
    assert!(
        err.contains("checker `shaderc` failed (exit status 1)"),
        "{err}"
    );
    assert!(!marker.exists());
}

#[test]
fn branches_are_created_and_deleted() {
    let s = Server::new();
    // A new branch is checked from its branch point: only its own new blob.
    s.git(&["checkout", "-q", "-b", "feature"]);
    s.write("levels/feature.level", GOOD_LEVEL);
    s.commit("feature work");
    let err = s.accepted(&["feature"]);
    assert!(err.contains("assetvc: checked 1 blob in"), "{err}");
    assert!(s.remote_ref("refs/heads/feature").is_some());
    // A new branch at an existing commit brings nothing in.
    let err = s.accepted(&["main:refs/heads/same"]);
    assert!(err.contains("assetvc: checked 0 blobs in"), "{err}");
    // A new branch with a broken file is rejected.
    s.git(&["checkout", "-q", "-b", "broken", "main"]);
    s.write("levels/broken.level", "a = [\n");
    s.commit("broken work");
    let err = s.rejected(&["broken"]);
    assert!(err.contains("refs/heads/broken at commit"), "{err}");
    assert!(err.contains("levels/broken.level:2:1:"), "{err}");
    assert!(s.remote_ref("refs/heads/broken").is_none());
    // Deleting a branch is accepted.
    s.accepted(&["--delete", "feature"]);
    assert!(s.remote_ref("refs/heads/feature").is_none());
    // One push of several refs: one bad ref rejects the whole push.
    s.git(&["checkout", "-q", "-b", "other", "main"]);
    s.write("levels/other.level", GOOD_LEVEL);
    s.commit("other work");
    s.rejected(&["other", "broken"]);
    assert!(s.remote_ref("refs/heads/other").is_none());
}

/// Appends `n` commits to `branch` with `git fast-import`; commit `i` (1-based) writes
/// `levels/l{i % 50}.level`, with `content(i)`.
fn fast_import(s: &Server, branch: &str, n: usize, content: impl Fn(usize) -> String) {
    use std::io::Write;
    let parent = s.git(&["rev-parse", branch]).trim().to_string();
    let mut stream = String::new();
    for i in 1..=n {
        let message = format!("commit {i}");
        let text = content(i);
        stream.push_str(&format!("commit refs/heads/{branch}\n"));
        stream.push_str(&format!(
            "committer Test <test@example.com> {} +0000\n",
            1_700_000_000 + i
        ));
        stream.push_str(&format!("data {}\n{message}\n", message.len()));
        if i == 1 {
            stream.push_str(&format!("from {parent}\n"));
        }
        stream.push_str(&format!(
            "M 100644 inline levels/l{}.level\ndata {}\n{text}\n",
            i % 50,
            text.len()
        ));
    }
    let mut child = std::process::Command::new("git")
        .args(["fast-import", "--quiet"])
        .current_dir(&s.dir)
        .env("HOME", &s.home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stream.as_bytes())
        .unwrap();
    assert!(child.wait().unwrap().success());
}

#[test]
fn five_hundred_commits_by_tip_or_every_commit() {
    let s = Server::new();
    fast_import(&s, "main", 500, |i| format!("value = {i}\n"));
    let err = s.accepted(&["main"]);
    // The tips differ in the 50 files the commits touched: each checked once.
    assert!(err.contains("assetvc: checked 50 blobs in"), "{err}");

    // 500 more, one of which breaks a level that the next one fixes.
    fast_import(&s, "main", 500, |i| {
        if i == 250 {
            "value = [\n".to_string()
        } else {
            format!("value = {}\n", 1000 + i)
        }
    });
    s.server_config("assetvc.hook.everyCommit", "true");
    let err = s.rejected(&["main"]);
    assert!(err.contains("(commit 250):"), "{err}");
    assert!(err.contains("levels/l0.level:2:1:"), "{err}");
    assert!(err.contains("push rejected: 1 problem"), "{err}");
    assert!(err.contains("assetvc: checked 500 blobs in"), "{err}");
    // By default only the tip counts, and it is fine.
    git_home(
        &s.bare,
        &s.home,
        &["config", "--unset", "assetvc.hook.everyCommit"],
    );
    let err = s.accepted(&["main"]);
    assert!(err.contains("assetvc: checked 50 blobs in"), "{err}");
}

#[test]
fn tags_are_checked_through_to_their_commit() {
    let s = Server::new();
    s.git(&["tag", "v1"]);
    let err = s.accepted(&["v1"]);
    assert!(err.contains("assetvc: checked 0 blobs"), "{err}");
    // An annotated tag on a new commit that is on no branch.
    s.git(&["checkout", "-q", "--detach"]);
    s.write("levels/tagged.level", "a = {\n");
    s.commit("tagged but broken");
    s.git(&["tag", "-a", "-m", "release 2", "v2"]);
    let err = s.rejected(&["v2"]);
    assert!(err.contains("refs/tags/v2 at commit"), "{err}");
    assert!(err.contains("levels/tagged.level:2:1:"), "{err}");
    assert!(s.remote_ref("refs/tags/v2").is_none());
    s.write("levels/tagged.level", "a = {}\n");
    s.commit("tagged and fine");
    s.git(&["tag", "-a", "-m", "release 3", "v3"]);
    let err = s.accepted(&["v3"]);
    assert!(err.contains("assetvc: checked 1 blob"), "{err}");
    // A tag of a tree has no history to check.
    s.git(&["tag", "tree-tag", "main^{tree}"]);
    let err = s.accepted(&["tree-tag"]);
    assert!(err.contains("names a tree, not a commit"), "{err}");
}

#[test]
fn an_existing_pre_receive_hook_is_chained_and_install_is_idempotent() {
    let tmp = tempfile::tempdir().unwrap();
    let seen = tmp.path().canonicalize().unwrap().join("seen.txt");
    let verdict = tmp.path().canonicalize().unwrap().join("verdict");
    std::fs::write(&verdict, "0").unwrap();
    let old_hook = format!(
        "#!/bin/sh\ncat >> {}\nif [ \"$(cat {})\" != 0 ]; then echo 'local policy says no' >&2; exit 1; fi\n",
        seen.display(),
        verdict.display()
    );
    let s = Server::with_bare(|bare| {
        let hook = bare.join("hooks/pre-receive");
        std::fs::write(&hook, &old_hook).unwrap();
        make_executable(&hook);
    });
    let hooks = s.bare.join("hooks");
    assert_eq!(
        std::fs::read_to_string(hooks.join("pre-receive.local")).unwrap(),
        old_hook
    );
    let ours = std::fs::read_to_string(hooks.join("pre-receive")).unwrap();
    assert!(ours.contains("hook pre-receive"), "{ours}");
    // The old hook saw the same input as ours.
    let lines = std::fs::read_to_string(&seen).unwrap();
    assert!(lines.trim_end().ends_with(" refs/heads/main"), "{lines:?}");
    // Installing again changes nothing.
    let out = run(assetvc()
        .args(["install", "--server"])
        .arg(&s.bare)
        .env("HOME", &s.home)
        .env("GIT_CONFIG_NOSYSTEM", "1"));
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("already installed"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        std::fs::read_to_string(hooks.join("pre-receive")).unwrap(),
        ours
    );
    assert_eq!(
        std::fs::read_to_string(hooks.join("pre-receive.local")).unwrap(),
        old_hook
    );
    // Ours still rejects broken assets; the old hook can still reject on its own.
    s.write("levels/bad.level", "a = [\n");
    s.commit("broken");
    s.rejected(&["main"]);
    s.git(&["reset", "-q", "--hard", "HEAD~1"]);
    s.write("levels/ok.level", GOOD_LEVEL);
    s.commit("fine");
    std::fs::write(&verdict, "1").unwrap();
    let out = s.push(&["main"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("local policy says no"),
        "{}",
        stderr(&out)
    );
    std::fs::write(&verdict, "0").unwrap();
    s.accepted(&["main"]);
}

#[test]
fn it_fails_closed() {
    let s = Server::new();
    s.write("levels/ok.level", GOOD_LEVEL);
    s.commit("fine");
    // An invalid server setting: the push cannot be checked, so it is rejected.
    s.server_config("assetvc.hook.everyCommit", "maybe");
    let err = s.rejected(&["main"]);
    assert!(err.contains("cannot check it: git config"), "{err}");
    git_home(
        &s.bare,
        &s.home,
        &["config", "--unset", "assetvc.hook.everyCommit"],
    );
    // An invalid server policy file.
    std::fs::write(s.bare.join("assetvc.toml"), "[merge]\ndriver = \"x\"\n").unwrap();
    let err = s.rejected(&["main"]);
    assert!(err.contains("cannot check it: server policy"), "{err}");
    std::fs::remove_file(s.bare.join("assetvc.toml")).unwrap();
    // A checker that outlives its timeout.
    s.server_config("assetvc.check.slow.pattern", "*.level");
    s.server_config("assetvc.check.slow.command", "sleep 20 #");
    s.server_config("assetvc.check.slow.timeout", "0.5");
    let start = std::time::Instant::now();
    let err = s.rejected(&["main"]);
    assert!(
        err.contains("checker `slow` timed out after 0.5 s"),
        "{err}"
    );
    assert!(start.elapsed() < std::time::Duration::from_secs(60));
    // The whole hook outliving its own timeout.
    s.server_config("assetvc.check.slow.timeout", "20");
    s.server_config("assetvc.hook.timeout", "1");
    let err = s.rejected(&["main"]);
    assert!(
        err.contains("cannot check it: timed out after 1 s"),
        "{err}"
    );
    git_home(
        &s.bare,
        &s.home,
        &["config", "--remove-section", "assetvc.check.slow"],
    );
    git_home(
        &s.bare,
        &s.home,
        &["config", "--unset", "assetvc.hook.timeout"],
    );
    s.accepted(&["main"]);
}
