//! The git the merge strategy and `assetvc pr` need. Their whole-tree merge is git's own
//! merge-ort, run as `git --attr-source=TREE merge-tree --write-tree --merge-base=BASE
//! OURS THEIRS`, and each piece of that command line arrived in a different release (from
//! git's release notes):
//!
//! * `git merge-tree --write-tree`: git 2.38 ("merge-tree learned a new mode where it
//!   takes two commits and computes a tree");
//! * `--merge-base`: git 2.40 ("merge-tree learns a new `--merge-base` option");
//! * `git --attr-source=<tree>`: git 2.41 ("a new way to have any command to read
//!   attributes not from the working tree but from the given tree object");
//! * trees, not only commits, with `--merge-base`: git 2.45 (the strategy gives the empty
//!   tree as the base of unrelated histories).
//!
//! On an older git the strategy exits 2 ("not handled") with the reason, `install` does
//! not make it git's default and `doctor` says why; `assetvc merge` and `pull` merge the
//! tree with gix's tree merge instead, after a note.

use std::fmt;
use std::process::Command;

/// A git release: `2.41.0`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct GitVersion {
    /// The major number.
    pub major: u32,
    /// The minor number.
    pub minor: u32,
    /// The patch number (0 when git does not print one).
    pub patch: u32,
}

impl fmt::Display for GitVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

const fn release(major: u32, minor: u32) -> GitVersion {
    GitVersion {
        major,
        minor,
        patch: 0,
    }
}

/// What the strategy's merge needs of git, each with the first release that has it.
const NEEDED: [(GitVersion, &str); 3] = [
    (release(2, 38), "`git merge-tree --write-tree`"),
    (release(2, 40), "`git merge-tree --merge-base`"),
    (release(2, 41), "`git --attr-source`"),
];

/// The first release whose `merge-tree --merge-base` takes trees (unrelated histories).
pub const TREES_AS_BASE: GitVersion = release(2, 45);

impl GitVersion {
    /// Reads `git --version`'s output: `git version 2.47.3`, `git version
    /// 2.39.2.windows.1`, `git version 2.39.5 (Apple Git-154)`; `None` for anything else.
    pub fn parse(text: &str) -> Option<GitVersion> {
        let rest = text.trim().strip_prefix("git version ")?;
        let number = rest.split_whitespace().next()?;
        let mut parts = number.split('.').map(|p| {
            let digits: String = p.chars().take_while(char::is_ascii_digit).collect();
            digits.parse::<u32>().ok()
        });
        let major = parts.next()??;
        let minor = parts.next()??;
        let patch = parts.next().flatten().unwrap_or(0);
        Some(GitVersion {
            major,
            minor,
            patch,
        })
    }

    /// The version of the `git` on `PATH` (the one the strategy runs).
    pub fn installed() -> Result<GitVersion, GitError> {
        let out = Command::new("git")
            .arg("--version")
            .output()
            .map_err(GitError::Run)?;
        let text = String::from_utf8_lossy(&out.stdout);
        GitVersion::parse(&text).ok_or_else(|| GitError::NotAVersion {
            printed: text.trim().to_string(),
        })
    }

    /// What this git lacks for the strategy's merge (empty: it can run it).
    pub fn missing(&self) -> Vec<String> {
        NEEDED
            .iter()
            .filter(|(since, _)| self < since)
            .map(|(since, what)| format!("{what} (git {}.{})", since.major, since.minor))
            .collect()
    }

    /// The oldest git the strategy runs on.
    pub fn minimum() -> GitVersion {
        NEEDED
            .iter()
            .map(|(v, _)| *v)
            .max()
            .unwrap_or(release(2, 41))
    }
}

/// Whether the installed git can run the strategy's merge: its version, or why not (in
/// words for people: which git was found and what it lacks).
pub fn strategy_git() -> Result<GitVersion, GitError> {
    merge_tree_git("the merge strategy")
}

/// Whether the installed git can run the whole-tree merge for `what` (`the merge
/// strategy`, `assetvc pr`): its version, or why not.
pub fn merge_tree_git(what: &str) -> Result<GitVersion, GitError> {
    let version = GitVersion::installed()?;
    let missing = version.missing();
    if missing.is_empty() {
        return Ok(version);
    }
    Err(GitError::TooOld {
        version,
        what: what.to_string(),
        missing,
    })
}

/// Why the installed git cannot run a whole-tree merge, in words for people.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    /// `git` could not be started.
    #[error("cannot run git: {0}")]
    Run(#[source] std::io::Error),
    /// `git --version` printed something else than a version (shown escaped).
    #[error(
        "`git --version` printed {:?}, not a version",
        crate::report::safe_line(.printed)
    )]
    NotAVersion {
        /// What it printed, trimmed.
        printed: String,
    },
    /// The installed git lacks what the merge needs.
    #[error(
        "git {version} cannot run {what}: it needs git {} or later for {}",
        GitVersion::minimum(),
        .missing.join(", ")
    )]
    TooOld {
        /// The installed git.
        version: GitVersion,
        /// What was to run (`the merge strategy`, `` `assetvc pr` ``).
        what: String,
        /// What it lacks ([`GitVersion::missing`]).
        missing: Vec<String>,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn reads_what_git_prints() {
        let v = |t| GitVersion::parse(t);
        assert_eq!(
            v("git version 2.47.3\n"),
            Some(GitVersion {
                major: 2,
                minor: 47,
                patch: 3
            })
        );
        assert_eq!(
            v("git version 2.39.2.windows.1"),
            Some(GitVersion {
                major: 2,
                minor: 39,
                patch: 2
            })
        );
        assert_eq!(
            v("git version 2.39.5 (Apple Git-154)"),
            Some(GitVersion {
                major: 2,
                minor: 39,
                patch: 5
            })
        );
        assert_eq!(v("git version 2.41"), Some(release(2, 41)));
        assert_eq!(v("git version 2.45.0-rc1"), Some(release(2, 45)));
        assert_eq!(v("hub version 2.14"), None);
        assert_eq!(v("git version x.y"), None);
        assert_eq!(v(""), None);
    }

    #[test]
    fn the_strategy_needs_git_2_41() {
        assert_eq!(GitVersion::minimum(), release(2, 41));
        assert!(release(2, 41).missing().is_empty());
        assert!(GitVersion::parse("git version 2.47.3")
            .unwrap()
            .missing()
            .is_empty());
        let old = GitVersion::parse("git version 2.40.1").unwrap();
        assert_eq!(old.missing(), ["`git --attr-source` (git 2.41)"]);
        assert_eq!(
            GitVersion::parse("git version 2.37.0")
                .unwrap()
                .missing()
                .len(),
            3
        );
    }

    proptest! {
        /// Any text parses or is refused without a panic; a version prints back as
        /// what it read, and what it lacks shrinks as it grows.
        #[test]
        fn parse_never_panics(text in ".{0,40}", a in 0u32..100, b in 0u32..100, c in 0u32..100) {
            let _ = GitVersion::parse(&text);
            let v = GitVersion::parse(&format!("git version {a}.{b}.{c}")).unwrap();
            prop_assert_eq!(v.to_string(), format!("{a}.{b}.{c}"));
            let newer = GitVersion { minor: b + 1, ..v };
            prop_assert!(newer.missing().len() <= v.missing().len());
        }
    }
}
