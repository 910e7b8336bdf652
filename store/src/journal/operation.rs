//! Which git operation a merge step belongs to, read from git's own state: the
//! `rebase-merge`/`rebase-apply` directories, the `sequencer`, `ORIG_HEAD`, `FETCH_HEAD`
//! and the `GITHEAD_<oid>` variables git sets for the merge driver of a `git merge`.
//!
//! Only plain files are read (no repository discovery, no config parsing): the merge driver
//! asks this once per file and must stay fast.

use std::path::Path;

use serde::{Deserialize, Serialize};

/// The kind of operation that runs a merge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OperationKind {
    /// `git merge`.
    Merge,
    /// `git pull` (merging).
    Pull,
    /// `git rebase`, also `git pull --rebase` (git's sides are swapped).
    Rebase,
    /// `git cherry-pick` (one commit or a sequence).
    CherryPick,
    /// `git revert`.
    Revert,
    /// `assetvc merge` or `assetvc pull`.
    Porcelain,
    /// Another caller of the merge driver (`git stash apply`, `git checkout -m`, by hand…).
    Other,
}

impl OperationKind {
    /// The operation's name for people: `merge`, `rebase`, `cherry-pick`…
    pub fn name(self) -> &'static str {
        match self {
            OperationKind::Merge => "merge",
            OperationKind::Pull => "pull",
            OperationKind::Rebase => "rebase",
            OperationKind::CherryPick => "cherry-pick",
            OperationKind::Revert => "revert",
            OperationKind::Porcelain => "assetvc merge",
            OperationKind::Other => "merge",
        }
    }
}

/// A git operation that merges, as far as the journal needs to know it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Operation {
    /// What runs.
    pub kind: OperationKind,
    /// Identifies one run of the operation: steps with the same key are grouped.
    pub key: String,
    /// For people: `merge of feature`, `rebase of feature onto 1b7122a`.
    pub label: String,
    /// The branch or commit merged in (a merge) or rebased (a rebase), when known.
    pub branch: Option<String>,
    /// Whether git's "ours" (%A) is the upstream and "theirs" (%B) the local commit, as
    /// in a rebase.
    pub swapped: bool,
}

/// Where one step stands inside its operation.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepPlace {
    /// `2/5`: the commit being replayed in a rebase or a cherry-pick sequence.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step: Option<String>,
    /// The commit being replayed or picked, when git says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
}

fn read_trimmed(path: &Path) -> Option<String> {
    std::fs::read_to_string(path)
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

fn short(oid: &str) -> &str {
    oid.get(..7).unwrap_or(oid)
}

/// Detects the operation running in the repository whose git directory is `git_dir`;
/// `env` gives the environment variables git passed to the driver.
pub fn detect(git_dir: &Path, env: &[(String, String)]) -> (Operation, StepPlace) {
    let var = |name: &str| env.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str());
    let via_pull = var("GIT_REFLOG_ACTION").is_some_and(|a| a.starts_with("pull"));
    if let Some(rebase) = rebase(git_dir, via_pull) {
        return rebase;
    }
    let orig_head = read_trimmed(&git_dir.join("ORIG_HEAD")).unwrap_or_default();
    if let Some(merge) = merge(git_dir, env, &orig_head, via_pull) {
        return merge;
    }
    sequence(git_dir, orig_head)
}

/// A rebase in progress (`rebase-merge` or `rebase-apply`): its branch, where it goes,
/// and the step and commit being replayed.
fn rebase(git_dir: &Path, via_pull: bool) -> Option<(Operation, StepPlace)> {
    let dir = ["rebase-merge", "rebase-apply"]
        .into_iter()
        .find(|dir| git_dir.join(dir).is_dir())?;
    let state = git_dir.join(dir);
    let file = |name: &str| read_trimmed(&state.join(name));
    let branch = file("head-name").map(|h| {
        h.strip_prefix("refs/heads/")
            .map(str::to_string)
            .unwrap_or(h)
    });
    let onto = file("onto").unwrap_or_default();
    let orig = file("orig-head").unwrap_or_default();
    let (num, end) = if dir == "rebase-merge" {
        (file("msgnum"), file("end"))
    } else {
        (file("next"), file("last"))
    };
    let commit = file("done")
        .and_then(|d| {
            d.lines()
                .rev()
                .find_map(|l| l.split_whitespace().nth(1).map(str::to_string))
        })
        .or_else(|| file("original-commit"));
    let what = if via_pull { "pull --rebase" } else { "rebase" };
    let label = format!(
        "{what} of {} onto {}",
        branch.as_deref().unwrap_or("HEAD"),
        short(&onto)
    );
    Some((
        Operation {
            kind: OperationKind::Rebase,
            key: format!("rebase {orig} {onto}"),
            label,
            branch,
            swapped: true,
        },
        StepPlace {
            step: num.map(|n| match end {
                Some(e) => format!("{n}/{e}"),
                None => n,
            }),
            commit,
        },
    ))
}

/// A merge (or pull): git names the merged heads in `GITHEAD_<oid>` variables.
fn merge(
    git_dir: &Path,
    env: &[(String, String)],
    orig_head: &str,
    via_pull: bool,
) -> Option<(Operation, StepPlace)> {
    let mut heads: Vec<(&str, &str)> = env
        .iter()
        .filter_map(|(k, v)| k.strip_prefix("GITHEAD_").map(|oid| (oid, v.as_str())))
        .collect();
    if heads.is_empty() {
        return None;
    }
    heads.sort();
    let names: Vec<String> = heads
        .iter()
        .map(|(oid, name)| merged_name(git_dir, oid, name))
        .collect();
    let oids: Vec<&str> = heads.iter().map(|(oid, _)| *oid).collect();
    let kind = if via_pull {
        OperationKind::Pull
    } else {
        OperationKind::Merge
    };
    let branch = names.join(", ");
    Some((
        Operation {
            kind,
            key: format!("{} {orig_head} {}", kind.name(), oids.join(" ")),
            label: format!("{} of {branch}", kind.name()),
            branch: Some(branch),
            swapped: false,
        },
        StepPlace::default(),
    ))
}

/// A cherry-pick or revert (a sequence, or a single one named by the git command that
/// runs the driver), or another operation.
fn sequence(git_dir: &Path, orig_head: String) -> (Operation, StepPlace) {
    let sequencer = git_dir.join("sequencer");
    let kind = sequencer_kind(&sequencer).unwrap_or_else(parent_git_command);
    let first_todo = read_trimmed(&sequencer.join("todo")).and_then(|t| {
        t.lines()
            .find(|l| !l.starts_with('#'))
            .and_then(|l| l.split_whitespace().nth(1).map(str::to_string))
    });
    let start = read_trimmed(&sequencer.join("head")).unwrap_or(orig_head);
    (
        Operation {
            kind,
            key: format!("{} {start}", kind.name()),
            label: kind.name().to_string(),
            branch: None,
            swapped: false,
        },
        StepPlace {
            step: None,
            commit: first_todo,
        },
    )
}

/// The name git gave the merged head: a branch name as typed; for a pull (where it is the
/// fetched commit's id) the `branch 'main' of URL` line of `FETCH_HEAD`.
fn merged_name(git_dir: &Path, oid: &str, name: &str) -> String {
    if name != oid {
        return name.to_string();
    }
    let fetched = std::fs::read_to_string(git_dir.join("FETCH_HEAD")).unwrap_or_default();
    fetched
        .lines()
        .find(|l| l.starts_with(oid))
        .and_then(|l| l.splitn(3, '\t').nth(2))
        .map(str::to_string)
        .unwrap_or_else(|| short(oid).to_string())
}

/// A cherry-pick or revert sequence, from its `sequencer/todo`.
fn sequencer_kind(sequencer: &Path) -> Option<OperationKind> {
    let todo = read_trimmed(&sequencer.join("todo"))?;
    let first = todo.lines().find(|l| !l.starts_with('#'))?;
    Some(match first.split_whitespace().next()? {
        "revert" | "r" => OperationKind::Revert,
        _ => OperationKind::CherryPick,
    })
}

/// A single cherry-pick or revert leaves no state while it merges: the command line of the
/// git process that runs the driver (the parent, or the shell's parent; Linux) says which
/// git command runs; elsewhere it is `Other`.
fn parent_git_command() -> OperationKind {
    let mut pid = std::os::unix::process::parent_id();
    for _ in 0..3 {
        let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
            return OperationKind::Other;
        };
        let mut args = cmdline
            .split(|b| *b == 0)
            .map(|a| String::from_utf8_lossy(a).into_owned());
        let program = args.next().unwrap_or_default();
        let name = program.rsplit('/').next().unwrap_or_default();
        if name == "git" {
            return git_subcommand(args);
        }
        // Not git (the shell git ran the driver with): go one process up.
        let Some(parent) = std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|stat| {
                // `pid (comm) state ppid …`; comm may hold spaces and parentheses.
                let after = &stat[stat.rfind(')')? + 1..];
                after.split_whitespace().nth(1)?.parse().ok()
            })
        else {
            return OperationKind::Other;
        };
        pid = parent;
    }
    OperationKind::Other
}

/// The operation a git command line's subcommand names.
fn git_subcommand(mut args: impl Iterator<Item = String>) -> OperationKind {
    while let Some(arg) = args.next() {
        if arg == "-c" || arg == "-C" {
            args.next();
            continue;
        }
        if arg.starts_with('-') {
            continue;
        }
        return match arg.as_str() {
            "cherry-pick" => OperationKind::CherryPick,
            "revert" => OperationKind::Revert,
            "merge" => OperationKind::Merge,
            _ => OperationKind::Other,
        };
    }
    OperationKind::Other
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn a_rebase_is_swapped_and_names_its_branch_and_step() {
        let tmp = tempfile::tempdir().unwrap();
        let state = tmp.path().join("rebase-merge");
        std::fs::create_dir(&state).unwrap();
        for (f, t) in [
            ("head-name", "refs/heads/feature\n"),
            ("onto", "1b7122a51a18ac68f7c19e6f6bb5f1f4b5723f84\n"),
            ("orig-head", "9166dabae4c06726b531b785a4e60997e898d4be\n"),
            ("msgnum", "2\n"),
            ("end", "3\n"),
            ("done", "pick aaaa one\npick bbbb two\n"),
        ] {
            std::fs::write(state.join(f), t).unwrap();
        }
        let (op, place) = detect(tmp.path(), &env(&[]));
        assert_eq!(op.kind, OperationKind::Rebase);
        assert!(op.swapped);
        assert_eq!(op.branch.as_deref(), Some("feature"));
        assert_eq!(op.label, "rebase of feature onto 1b7122a");
        assert_eq!(place.step.as_deref(), Some("2/3"));
        assert_eq!(place.commit.as_deref(), Some("bbbb"));
    }

    #[test]
    fn a_merge_names_the_branch_not_githead() {
        let tmp = tempfile::tempdir().unwrap();
        let (op, _) = detect(
            tmp.path(),
            &env(&[
                ("GITHEAD_f8e240f3", "feature"),
                ("GIT_REFLOG_ACTION", "merge feature"),
            ]),
        );
        assert_eq!(op.kind, OperationKind::Merge);
        assert!(!op.swapped);
        assert_eq!(op.label, "merge of feature");
    }

    #[test]
    fn git_subcommands_are_found_after_options() {
        let args = |a: &[&str]| {
            a.iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
                .into_iter()
        };
        assert_eq!(
            git_subcommand(args(&["-c", "a=b", "--no-pager", "cherry-pick", "x"])),
            OperationKind::CherryPick
        );
        assert_eq!(
            git_subcommand(args(&["revert", "x"])),
            OperationKind::Revert
        );
        assert_eq!(
            git_subcommand(args(&["stash", "pop"])),
            OperationKind::Other
        );
    }

    #[test]
    fn a_pull_names_the_fetched_branch() {
        let tmp = tempfile::tempdir().unwrap();
        let oid = "1b7122a51a18ac68f7c19e6f6bb5f1f4b5723f84";
        std::fs::write(
            tmp.path().join("FETCH_HEAD"),
            format!("{oid}\t\tbranch 'main' of /srv/r\n"),
        )
        .unwrap();
        let (op, _) = detect(
            tmp.path(),
            &env(&[
                (&format!("GITHEAD_{oid}"), oid),
                ("GIT_REFLOG_ACTION", "pull"),
            ]),
        );
        assert_eq!(op.kind, OperationKind::Pull);
        assert_eq!(op.label, "pull of branch 'main' of /srv/r");
    }
}
