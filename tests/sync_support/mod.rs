//! What the `sync_*` end-to-end tests share: a bare repository with the pre-receive hook,
//! clones for several users, a `git daemon` serving it on 127.0.0.1, bounded waits.
#![allow(dead_code)]

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::common::{
    assetvc, git_home, git_home_output, init_bare, install_server, run, TEST_LEVEL,
};

/// A bare repository (pre-receive hook installed) and the clones of its users.
pub struct Team {
    _tmp: tempfile::TempDir,
    /// The temporary directory (also `HOME`).
    pub root: PathBuf,
    /// The bare repository.
    pub bare: PathBuf,
}

impl Team {
    /// A bare repository holding `level.sjson` (the shared test level) on `main`, with
    /// `assetvc install --server` run on it.
    pub fn new() -> Team {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        let bare = init_bare(&root, "srv.git");
        install_server(&bare, &root);
        let seed = root.join("seed");
        git_home(&root, &root, &["init", "-q", "-b", "main", "seed"]);
        std::fs::write(seed.join("level.sjson"), TEST_LEVEL).unwrap();
        git_home(&seed, &root, &["add", "."]);
        git_home(&seed, &root, &["commit", "-qm", "start"]);
        let url = format!("file://{}", bare.display());
        git_home(&seed, &root, &["push", "-q", &url, "main"]);
        Team {
            _tmp: tmp,
            root,
            bare,
        }
    }

    /// The file:// URL of the bare repository.
    pub fn file_url(&self) -> String {
        format!("file://{}", self.bare.display())
    }

    /// Clones `url` for `user` (`git config assetvc.user`, identity) into `root/user`.
    pub fn clone_for(&self, user: &str, url: &str) -> User {
        git_home(&self.root, &self.root, &["clone", "-q", url, user]);
        let dir = self.root.join(user);
        let u = User {
            dir,
            home: self.root.clone(),
            name: user.to_string(),
        };
        u.git(&["config", "assetvc.user", user]);
        u.git(&["config", "user.name", user]);
        u.git(&["config", "user.email", &format!("{user}@example.com")]);
        u
    }

    /// The content of `path` in the bare repository's `rev`, if any.
    pub fn show(&self, rev: &str, path: &str) -> Option<String> {
        let out = git_home_output(&self.bare, &self.root, &["show", &format!("{rev}:{path}")]);
        out.status.success().then(|| text(&out.stdout))
    }

    /// The commit a ref of the bare repository points to.
    pub fn ref_id(&self, name: &str) -> Option<String> {
        let out = git_home_output(
            &self.bare,
            &self.root,
            &["rev-parse", "--verify", "-q", name],
        );
        out.status
            .success()
            .then(|| text(&out.stdout).trim().to_string())
    }
}

/// One user's clone.
pub struct User {
    /// The worktree.
    pub dir: PathBuf,
    /// `HOME`.
    pub home: PathBuf,
    /// The user name (`assetvc.user`).
    pub name: String,
}

impl User {
    /// Runs git in the clone; panics unless it succeeds.
    pub fn git(&self, args: &[&str]) -> String {
        git_home(&self.dir, &self.home, args)
    }

    /// `assetvc ARGS` in the clone, with this user's identity.
    pub fn assetvc(&self, args: &[&str]) -> Output {
        run(&mut self.command(args))
    }

    /// `assetvc ARGS` that must exit with `code`; returns (stdout, stderr).
    pub fn expect(&self, args: &[&str], code: i32) -> (String, String) {
        let out = self.assetvc(args);
        let (o, e) = (text(&out.stdout), text(&out.stderr));
        assert_eq!(
            out.status.code(),
            Some(code),
            "{} assetvc {args:?}:\n{o}\n{e}",
            self.name
        );
        (o, e)
    }

    /// The command for `assetvc ARGS` in this clone.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut cmd = assetvc();
        cmd.args(args)
            .current_dir(&self.dir)
            .env("GIT_AUTHOR_NAME", &self.name)
            .env("GIT_AUTHOR_EMAIL", format!("{}@example.com", self.name))
            .env("GIT_COMMITTER_NAME", &self.name)
            .env("GIT_COMMITTER_EMAIL", format!("{}@example.com", self.name))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", &self.home)
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE");
        cmd
    }

    /// The level in the worktree.
    pub fn level(&self) -> String {
        std::fs::read_to_string(self.dir.join("level.sjson")).unwrap()
    }

    /// Types into the level: replaces `from` by `to` (it must be there), writing the file
    /// the way an editor saves it (a temporary file renamed over it).
    pub fn edit(&self, from: &str, to: &str) {
        let text = self.level();
        assert!(text.contains(from), "{}: no {from:?} in\n{text}", self.name);
        let tmp = self.dir.join(".level.sjson.swp");
        std::fs::write(&tmp, text.replacen(from, to, 1)).unwrap();
        std::fs::rename(&tmp, self.dir.join("level.sjson")).unwrap();
    }

    /// Commits everything and pushes it with plain git.
    pub fn commit_and_push(&self, message: &str) {
        self.git(&["commit", "-qam", message]);
        self.git(&["push", "-q", "origin", "main"]);
    }

    /// `git rev-parse REV`.
    pub fn rev(&self, rev: &str) -> String {
        self.git(&["rev-parse", rev]).trim().to_string()
    }

    /// Staged changes (`git diff --cached --name-only`): empty when the index is HEAD's.
    pub fn staged(&self) -> String {
        self.git(&["diff", "--cached", "--name-only"])
    }
}

/// Lossy UTF-8.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Waits until `done` holds, polling; panics with `what` after `limit`.
pub fn wait_for(what: &str, limit: Duration, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < limit, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A free TCP port on 127.0.0.1.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `git daemon` serving the directory of a bare repository on 127.0.0.1, receive-pack
/// enabled; killed when dropped.
pub struct Daemon {
    child: Option<Child>,
    base: PathBuf,
    home: PathBuf,
    /// The port.
    pub port: u16,
}

impl Daemon {
    /// Starts a daemon for `team` on a free port and waits (bounded) until it listens.
    pub fn start(team: &Team) -> Daemon {
        let mut d = Daemon {
            child: None,
            base: team.root.clone(),
            home: team.root.clone(),
            port: free_port(),
        };
        d.restart();
        d
    }

    /// The URL of the bare repository through the daemon.
    pub fn url(&self) -> String {
        format!("git://127.0.0.1:{}/srv.git", self.port)
    }

    /// Starts the daemon (again) on the same port.
    pub fn restart(&mut self) {
        let base = self.base.display().to_string();
        let start = Instant::now();
        loop {
            // `git daemon` would run git-daemon as its child, which killing git leaves
            // running: start git-daemon itself.
            let child = Command::new(git_daemon())
                .args([
                    "--reuseaddr",
                    "--export-all",
                    "--enable=receive-pack",
                    "--listen=127.0.0.1",
                    &format!("--port={}", self.port),
                    &format!("--base-path={base}"),
                    &base,
                ])
                .env("HOME", &self.home)
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("git daemon starts");
            self.child = Some(child);
            let listening = Instant::now();
            while listening.elapsed() < Duration::from_secs(5) {
                if TcpStream::connect(("127.0.0.1", self.port)).is_ok() {
                    return;
                }
                if let Some(Ok(Some(_))) = self.child.as_mut().map(Child::try_wait) {
                    break; // exited: the port is not free yet
                }
                std::thread::sleep(Duration::from_millis(25));
            }
            self.stop();
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "git daemon does not start"
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// Stops the daemon (the remote goes down).
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The `git-daemon` program of the installed git.
fn git_daemon() -> PathBuf {
    let out = Command::new("git").arg("--exec-path").output().unwrap();
    Path::new(text(&out.stdout).trim()).join("git-daemon")
}

/// Sends SIGTERM to a child process.
pub fn terminate(child: &Child) {
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

/// Waits (bounded) for a child to exit.
pub fn wait_exit(child: &mut Child, limit: Duration) -> std::process::ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("the child did not exit within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(25));
    }
}

/// Whether `path` of the bare repository's `rev` contains `needle`.
pub fn remote_has(team: &Team, rev: &str, needle: &str) -> bool {
    team.show(rev, "level.sjson")
        .is_some_and(|t| t.contains(needle))
}

/// `path` relative-free helper: whether a file exists.
pub fn exists(p: &Path) -> bool {
    p.exists()
}
