//! [`TestRepo`]: a git repository in a temporary directory with its own `HOME`, and the
//! steps the end-to-end tests repeat on it (write, commit, run git or assetvc).

use std::path::{Path, PathBuf};
use std::process::Output;

use super::{assetvc_expect, assetvc_output, git_home, git_home_output, write};

/// A repository on `main` in a temporary directory, deleted when dropped. Every command
/// runs [`isolated`](super::isolated), with `HOME` at [`home`](TestRepo::home).
pub struct TestRepo {
    _tmp: tempfile::TempDir,
    /// `HOME` of every command (the canonical temporary directory).
    pub home: PathBuf,
    /// The worktree: `home` itself ([`TestRepo::new`]) or a folder of it
    /// ([`TestRepo::new_in`]).
    pub dir: PathBuf,
}

impl TestRepo {
    /// A new repository (`git init -b main`) that is its own `HOME`.
    pub fn new() -> TestRepo {
        TestRepo::init(None)
    }

    /// A new repository (`git init -b main`) in the folder `name` of `HOME`, which leaves
    /// room beside it for a bare remote or other clones.
    pub fn new_in(name: &str) -> TestRepo {
        TestRepo::init(Some(name))
    }

    fn init(name: Option<&str>) -> TestRepo {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().canonicalize().unwrap();
        let dir = name.map_or_else(|| home.clone(), |n| home.join(n));
        let mut args = vec!["init", "-q", "-b", "main"];
        args.extend(name);
        git_home(&home, &home, &args);
        TestRepo {
            _tmp: tmp,
            home,
            dir,
        }
    }

    /// `path` inside the worktree.
    pub fn path(&self, path: &str) -> PathBuf {
        self.dir.join(path)
    }

    /// Writes `text` to `path` in the worktree, creating its folders.
    pub fn write(&self, path: &str, text: &str) {
        write(&self.dir, path, text);
    }

    /// The text of `path` in the worktree.
    pub fn read(&self, path: &str) -> String {
        std::fs::read_to_string(self.path(path))
            .unwrap_or_else(|e| panic!("cannot read {path}: {e}"))
    }

    /// Runs `git args` in the worktree; panics unless it succeeds; returns stdout.
    pub fn git(&self, args: &[&str]) -> String {
        git_home(&self.dir, &self.home, args)
    }

    /// Runs `git args` in the worktree and returns its output whatever the status.
    pub fn git_output(&self, args: &[&str]) -> Output {
        git_home_output(&self.dir, &self.home, args)
    }

    /// Stages everything (`git add -A`) and commits it with `message`; panics unless
    /// both succeed.
    pub fn commit(&self, message: &str) {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "-m", message]);
    }

    /// The commit id of `HEAD`, without the newline.
    pub fn head(&self) -> String {
        self.git(&["rev-parse", "HEAD"]).trim().to_string()
    }

    /// Runs `assetvc args` in the worktree and returns its output whatever the status.
    pub fn assetvc(&self, args: &[&str]) -> Output {
        assetvc_output(&self.dir, &self.home, args)
    }

    /// Runs `assetvc args` in the worktree and panics unless it exits with `code`;
    /// returns stdout and stderr.
    pub fn assetvc_expect(&self, args: &[&str], code: i32) -> (String, String) {
        assetvc_expect(&self.dir, &self.home, args, code)
    }

    /// Installs the pre-commit hook by hand (see [`install_pre_commit_hook`](super::install_pre_commit_hook)).
    pub fn install_pre_commit_hook(&self) {
        super::install_pre_commit_hook(&self.dir);
    }

    /// Runs `assetvc install` (driver, attributes and hook); panics unless it succeeds.
    pub fn install(&self) {
        self.assetvc_expect(&["install"], 0);
    }

    /// Creates a bare repository `name` on `main` beside the worktree (in `HOME`) and
    /// returns its path.
    pub fn bare(&self, name: &str) -> PathBuf {
        init_bare(&self.home, name)
    }
}

/// Creates the bare repository `home/name` on `main` (`HOME` is `home`) and returns its path.
pub fn init_bare(home: &Path, name: &str) -> PathBuf {
    git_home(home, home, &["init", "-q", "--bare", "-b", "main", name]);
    home.join(name)
}
