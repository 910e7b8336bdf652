//! The host both `workflows_*` tests play (github.com, gitlab.example.com): a bare base
//! repository `host.git` whose `main` holds `level.sjson`, a bare fork `fork.git`, and one
//! pull (merge) request from the fork's branch (or the base's own), exposed in the base
//! under the host's ref name (`refs/pull/1/head`, `refs/merge-requests/1/head`); the
//! base's `main` gains e4 after the branch left it, so git's own merge of the two
//! conflicts. What differs between the hosts (URLs, API answers) is left to each test.

use std::path::{Path, PathBuf};

use crate::pr_merge_queue::{git, with_entities, BASE};

use super::{JobRun, Sandbox};

/// One host with one pull request.
pub struct Forge {
    /// The job's world, the repositories in its `root`.
    pub sb: Sandbox,
    /// The base repository (bare).
    pub host: PathBuf,
    /// Where the branch lives: the fork (or the base itself, for a branch of the base).
    pub fork: PathBuf,
    /// The pull request's branch.
    pub branch: String,
    /// The pull request's head commit.
    pub head: String,
    /// Where the host exposes the branch in the base (`refs/pull/1/head`).
    pub pr_ref: &'static str,
}

impl Forge {
    /// The host with a pull request from `branch` (of the fork when `from_fork`, else of
    /// the base) whose commit writes `level` and `extra` files (name, text), exposed as
    /// `pr_ref`; `None` when the sandbox cannot be made (see [`Sandbox::new`]).
    pub fn make(
        pr_ref: &'static str,
        branch: &str,
        level: &str,
        from_fork: bool,
        extra: &[(&str, &str)],
    ) -> Option<Forge> {
        let sb = Sandbox::new()?;
        let root = sb.root.clone();
        let g = |dir: &Path, args: &[&str]| git(dir, &root, args);
        g(&root, &["init", "-q", "--bare", "-b", "main", "host.git"]);
        g(&root, &["clone", "-q", "host.git", "seed"]);
        let seed = root.join("seed");
        std::fs::write(seed.join("level.sjson"), BASE).unwrap();
        g(&seed, &["add", "."]);
        g(&seed, &["commit", "-q", "-m", "base"]);
        g(&seed, &["push", "-q", "origin", "main"]);
        g(&root, &["clone", "-q", "--bare", "host.git", "fork.git"]);
        let origin = if from_fork { "fork.git" } else { "host.git" };
        g(&root, &["clone", "-q", origin, "dev"]);
        let dev = root.join("dev");
        g(&dev, &["checkout", "-q", "-b", branch]);
        std::fs::write(dev.join("level.sjson"), level).unwrap();
        for (name, text) in extra {
            std::fs::write(dev.join(name), text).unwrap();
        }
        g(&dev, &["add", "."]);
        g(&dev, &["commit", "-q", "-m", "pull request"]);
        g(&dev, &["push", "-q", "origin", branch]);
        let forge = Forge {
            head: g(&dev, &["rev-parse", "HEAD"]).trim().to_string(),
            host: root.join("host.git"),
            fork: root.join(origin),
            branch: branch.to_string(),
            pr_ref,
            sb,
        };
        forge.expose();
        std::fs::write(seed.join("level.sjson"), with_entities(&["e4"])).unwrap();
        g(&seed, &["commit", "-q", "-a", "-m", "e4"]);
        g(&seed, &["push", "-q", "origin", "main"]);
        Some(forge)
    }

    /// What the host does on every push to the pull request's branch.
    pub fn expose(&self) {
        let refspec = format!("+refs/heads/{}:{}", self.branch, self.pr_ref);
        let fork = self.fork.to_str().unwrap();
        git(&self.host, &self.sb.root, &["fetch", "-q", fork, &refspec]);
    }

    /// The commit of `rev` in the bare repository `repo`.
    pub fn rev(&self, repo: &Path, rev: &str) -> String {
        git(repo, &self.sb.root, &["rev-parse", rev])
            .trim()
            .to_string()
    }

    /// Every ref of `repo`, to see that nothing moved.
    pub fn refs(&self, repo: &Path) -> String {
        git(repo, &self.sb.root, &["for-each-ref"])
    }
}

/// The one job that started: its name must be `name`; it is returned.
pub fn only(mut ran: Vec<(String, JobRun)>, name: &str) -> JobRun {
    let names: Vec<&str> = ran.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, [name]);
    ran.pop().unwrap().1
}
