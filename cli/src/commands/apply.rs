//! `assetvc apply [-p | -o OUT] [--policy P] [--json] PATCH [FILE]`: applies a change set
//! (JSON Lines, as `assetvc diff --format changes` writes) as a three-way merge, or an RFC
//! 6902 JSON Patch (a JSON array) exactly, to FILE; a change set that names its files
//! applies to the worktree without FILE.
//!
//! Exit status: 0 applied (conflicts resolved by policy theirs/ours), 1 policy fail met a
//! conflict (the result is still written; a change whose place is not in the file, such as
//! an id that matches nothing, is one, and is always reported as not applied; so is a file
//! saved since apply read it, which is left alone: compare-and-swap, like `merge`, `pull`,
//! `restore` and `resolve`), 2 bad input (`patch:line:col: reason`, a failed patch
//! operation, an unreadable file): nothing written.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use crate::exit::{bail, Context};
use clap::Args;
use merge::changeset::{self, Applied, ChangeOp};
use merge::Policy;
use sjson::{Dialect, Document, ParseOptions};

use super::merge_file::parse_policy;
use super::merging::{self, LoadError};
use crate::exit::{Error, Outcome};
use crate::{files, repo_config, report};

/// Arguments of `assetvc apply`.
#[derive(Debug, Args)]
pub struct ApplyArgs {
    /// Print the result on stdout instead of writing FILE.
    #[arg(short = 'p', long = "stdout", conflicts_with = "output")]
    pub stdout: bool,
    /// Write the result to OUT instead of FILE.
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// How a property FILE changed since the change set is resolved: theirs (the change
    /// set's value, default), ours (FILE's), or fail (theirs, exit 1).
    #[arg(long, value_parser = parse_policy)]
    pub policy: Option<Policy>,
    /// Print the conflict report as JSON (on stdout, or stderr with -p).
    #[arg(long)]
    pub json: bool,
    /// A JSON Patch may have at most N operations (default 1000000); more: exit 2,
    /// nothing written.
    #[arg(long, value_name = "N")]
    pub max_operations: Option<usize>,
    /// A JSON Patch may make the document at most BYTES large (as compact JSON, at any
    /// step), and its `copy` operations may copy at most BYTES in all (default: 16 times
    /// the file and the patch together, at least 16 MiB); past it: exit 2, nothing written.
    #[arg(long, value_name = "BYTES")]
    pub max_size: Option<usize>,
    /// The change set (JSON Lines) or JSON Patch (a JSON array); `-` reads stdin.
    pub patch: PathBuf,
    /// The file to change (in place unless -p or -o). Without it, a change set applies to
    /// the files it names, in the worktree.
    pub file: Option<PathBuf>,
}

/// One file to change: where it is, how it is named in messages, its result.
struct Target {
    path: PathBuf,
    shown: String,
    applied: Applied,
    /// How many changes of a change set were for this file (0 for a JSON Patch).
    changes: usize,
    /// The bytes the result was computed from (`None`: there was no file), which must
    /// still be there when the result is written in place.
    read: Option<Vec<u8>>,
}

/// Runs `assetvc apply`.
pub fn run(args: &ApplyArgs) -> crate::exit::Result<Outcome> {
    let name = args.patch.display().to_string();
    let text = read_patch(&args.patch).with_context(|| name.clone())?;
    if args.output.is_some() && args.file.is_none() {
        bail!("-o needs FILE");
    }
    let targets = if text.trim_start().starts_with('[') {
        match &args.file {
            Some(file) => apply_patch(args, file, &name, &text).map(|t| vec![t]),
            None => Err(Failure::PatchNeedsFile),
        }
    } else {
        apply_change_set(args, &name, &text)
    };
    let (targets, policy) = match targets {
        Ok(t) => t.into_iter().unzip::<_, _, Vec<Target>, Vec<Policy>>(),
        Err(failure) => return Err(Error::BadInput(failure.message())),
    };
    let policy = policy.first().copied().unwrap_or_default();
    finish(args, &targets, policy)
}

/// Why nothing was applied (bad input: exit 2, nothing written).
#[derive(Debug, thiserror::Error)]
enum Failure {
    /// A JSON Patch names no file of its own.
    #[error("a JSON Patch needs FILE")]
    PatchNeedsFile,
    /// The configuration of FILE's repository is not valid.
    #[error(transparent)]
    Config(#[from] config::ConfigError),
    /// FILE (or the patch) could not be read or does not parse.
    #[error(transparent)]
    Load(#[from] LoadError),
    /// The empty document a missing file starts from did not parse (cannot happen).
    #[error(transparent)]
    Empty(#[from] sjson::ParseError),
    /// An operation of a JSON Patch failed (at its place in the patch when it has one).
    #[error("{}", patch_failed(.name, .line_col, .file, .error))]
    Patch {
        /// The patch as people name it.
        name: String,
        /// Where the operation is in the patch.
        line_col: (usize, usize),
        /// The file patched.
        file: PathBuf,
        /// Why (boxed: the largest variant).
        error: Box<merge::patch::PatchError>,
    },
    /// A change set does not parse.
    #[error("{name}:{error}")]
    ChangeSet {
        /// The change set as people name it.
        name: String,
        /// Where and why.
        error: changeset::ChangeSetError,
    },
    /// A change set for many files was given one FILE.
    #[error("{name} changes {count} files; give no FILE to apply it to the worktree")]
    ManyFiles {
        /// The change set as people name it.
        name: String,
        /// How many files it names.
        count: usize,
    },
    /// A change names no file and no FILE was given.
    #[error("{name}:{line}:1: the change names no file: give FILE")]
    NoFile {
        /// The change set as people name it.
        name: String,
        /// The change's line.
        line: usize,
    },
    /// A change names a file outside the worktree (or in `.git`).
    #[error(
        "{name}:{line}:1: \"{}\" is not a path inside the repository ({})",
        report::safe_line(.file),
        report::safe_line(.reason)
    )]
    Outside {
        /// The change set as people name it.
        name: String,
        /// The change's line.
        line: usize,
        /// The file it names.
        file: String,
        /// Why it is refused.
        reason: String,
    },
    /// A change set could not be applied to `path`.
    #[error("{}: {error}; left as it was", .path.display())]
    Change {
        /// The file.
        path: PathBuf,
        /// Why.
        error: changeset::ApplyError,
    },
    /// The current directory could not be read.
    #[error("{0}")]
    CurrentDir(std::io::Error),
    /// The current directory is in no repository.
    #[error("{0}")]
    NoRepository(store::Error),
    /// The repository of the current directory is bare.
    #[error("the repository has no worktree")]
    NoWorktree,
}

impl Failure {
    /// Whether the message starts with `file:line:col` (a diagnostic, printed as it is).
    fn positioned(&self) -> bool {
        match self {
            Failure::Load(e) => matches!(e, LoadError::Parse { .. }),
            Failure::Config(e) => matches!(e, config::ConfigError::Invalid { .. }),
            Failure::Patch { error, .. } => error.index.is_some(),
            Failure::Empty(_)
            | Failure::ChangeSet { .. }
            | Failure::NoFile { .. }
            | Failure::Outside { .. } => true,
            Failure::PatchNeedsFile
            | Failure::ManyFiles { .. }
            | Failure::Change { .. }
            | Failure::CurrentDir(_)
            | Failure::NoRepository(_)
            | Failure::NoWorktree => false,
        }
    }

    /// The final message: a diagnostic as it is, anything else after the usual
    /// `assetvc: error: ` prefix.
    fn message(&self) -> String {
        if self.positioned() {
            self.to_string()
        } else {
            format!("assetvc: error: {self}")
        }
    }
}

/// A failed JSON Patch operation at its place in the patch, else for the whole patch.
fn patch_failed(
    name: &str,
    (line, col): &(usize, usize),
    file: &Path,
    e: &merge::patch::PatchError,
) -> String {
    if e.index.is_some() {
        format!(
            "{name}:{line}:{col}: {e}; {} left as it was",
            file.display()
        )
    } else {
        format!("{}: {e}; left as it was", file.display())
    }
}

fn read_patch(path: &Path) -> std::io::Result<String> {
    let mut bytes = Vec::new();
    if path.as_os_str() == "-" {
        std::io::stdin().read_to_end(&mut bytes)?;
    } else {
        bytes = std::fs::read(path)?;
    }
    String::from_utf8(bytes)
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, "not UTF-8"))
}

/// Settings, dialect and parsed document of `file` (an empty document if it is missing
/// and `missing_ok`), and the bytes it was parsed from (`None` when it is missing).
fn load(
    file: &Path,
    policy: Option<Policy>,
    missing_ok: bool,
) -> Result<(merge::MergeOptions, Document, Option<Vec<u8>>), Failure> {
    let dir = file
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let (options, config) = merging::options(&repo_config::root_for(dir), policy)?;
    let dialect = merging::dialect_of(&config, file);
    let shown = file.display().to_string();
    if missing_ok && !file.exists() {
        let doc = Document::parse_with("{}".to_string(), ParseOptions::new(dialect))?;
        return Ok((options, doc, None));
    }
    if file.is_dir() {
        return Err(LoadError::Directory { shown }.into());
    }
    let read = std::fs::read(file).map_err(|source| LoadError::Read {
        shown: shown.clone(),
        source,
    })?;
    let doc = merging::load_bytes(file, read.clone(), &shown, dialect)?;
    Ok((options, doc, Some(read)))
}

fn apply_patch(
    args: &ApplyArgs,
    file: &Path,
    name: &str,
    text: &str,
) -> Result<(Target, Policy), Failure> {
    let patch = Document::parse_with(text.to_string(), ParseOptions::new(Dialect::Json)).map_err(
        |error| LoadError::Parse {
            shown: name.to_string(),
            text: text.to_string(),
            error,
        },
    )?;
    let (options, target, read) = load(file, args.policy, false)?;
    let defaults = merge::patch::PatchLimits::for_input(target.text().len() + text.len());
    let limits = merge::patch::PatchLimits {
        max_operations: args.max_operations.unwrap_or(defaults.max_operations),
        max_size: args.max_size.unwrap_or(defaults.max_size),
    };
    let result =
        merge::patch::apply_patch_within(&target, &patch, &options, &limits).map_err(|error| {
            Failure::Patch {
                name: name.to_string(),
                line_col: sjson::line_col(text, error.offset),
                file: file.to_path_buf(),
                error: Box::new(error),
            }
        })?;
    let applied = Applied::exact(result);
    let shown = file.display().to_string();
    Ok((
        Target {
            path: file.to_path_buf(),
            shown,
            applied,
            changes: 0,
            read,
        },
        options.policy,
    ))
}

fn apply_change_set(
    args: &ApplyArgs,
    name: &str,
    text: &str,
) -> Result<Vec<(Target, Policy)>, Failure> {
    let positioned = |error| Failure::ChangeSet {
        name: name.to_string(),
        error,
    };
    let lines = changeset::parse_change_set(text).map_err(positioned)?;
    let ops = changeset::read_ops(&lines).map_err(positioned)?;
    let mut groups: Vec<(PathBuf, Vec<ChangeOp<'_>>)> = Vec::new();
    match &args.file {
        Some(file) => {
            let mut named: Vec<&str> = ops.iter().filter_map(|o| o.file.as_deref()).collect();
            named.sort_unstable();
            named.dedup();
            if named.len() > 1 {
                return Err(Failure::ManyFiles {
                    name: name.to_string(),
                    count: named.len(),
                });
            }
            groups.push((file.clone(), ops));
        }
        None => {
            let root = worktree_root()?;
            for (op, line) in ops.into_iter().zip(&lines) {
                let Some(file) = op.file.as_deref() else {
                    return Err(Failure::NoFile {
                        name: name.to_string(),
                        line: line.number,
                    });
                };
                let path = inside(&root, file).map_err(|reason| Failure::Outside {
                    name: name.to_string(),
                    line: line.number,
                    file: file.to_string(),
                    reason,
                })?;
                match groups.iter_mut().find(|(p, _)| *p == path) {
                    Some((_, list)) => list.push(op),
                    None => groups.push((path, vec![op])),
                }
            }
        }
    }
    let mut targets = Vec::new();
    for (path, ops) in groups {
        let (options, doc, read) = load(&path, args.policy, args.file.is_none())?;
        let changes = ops.len();
        let applied =
            changeset::apply_change_set(&doc, &ops, &options).map_err(|error| Failure::Change {
                path: path.clone(),
                error,
            })?;
        let shown = match &args.file {
            Some(f) => f.display().to_string(),
            None => ops
                .first()
                .and_then(|o| o.file.clone())
                .unwrap_or_else(|| path.display().to_string()),
        };
        targets.push((
            Target {
                path,
                shown,
                applied,
                changes,
                read,
            },
            options.policy,
        ));
    }
    Ok(targets)
}

/// The worktree of the repository holding the current directory.
fn worktree_root() -> Result<PathBuf, Failure> {
    let cwd = std::env::current_dir().map_err(Failure::CurrentDir)?;
    let repo = store::Repo::discover(&cwd).map_err(Failure::NoRepository)?;
    repo.workdir()
        .map(Path::to_path_buf)
        .ok_or(Failure::NoWorktree)
}

/// `file` (relative, `/`-separated) under `root`, refusing anything that could leave it
/// or touch `.git`: change sets are untrusted (see [`store::worktree_file`]).
fn inside(root: &Path, file: &str) -> Result<PathBuf, String> {
    store::worktree_file(root, file).map_err(|e| match e {
        store::Error::UnsafePath { reason, .. } => reason,
        other => other.to_string(),
    })
}

/// Writes every result (all were computed first: a bad change leaves every file as it
/// was), then reports. A file written in place is written by compare-and-swap: one saved
/// since it was read is left alone (reported, exit status 1).
fn finish(args: &ApplyArgs, targets: &[Target], policy: Policy) -> crate::exit::Result<Outcome> {
    let mut left_alone = vec![false; targets.len()];
    for (t, left_alone) in targets.iter().zip(&mut left_alone) {
        let written = if args.stdout {
            let mut out = crate::output::stdout();
            out.write_all(t.applied.text().as_bytes())
                .and_then(|_| out.flush())
                .map_err(crate::exit::Error::from)
        } else if let Some(to) = &args.output {
            files::write_atomic(to, t.applied.text().as_bytes()).map_err(crate::exit::Error::from)
        } else {
            *left_alone = !write_in_place(t)?;
            Ok(())
        };
        written.with_context(|| t.path.display().to_string())?;
    }
    let reports: Vec<_> = targets
        .iter()
        .zip(&left_alone)
        .map(|(t, &left_alone)| {
            let report = merging::file_report(&t.shown, policy, &t.applied.conflicts);
            let mut report = serde_json::to_value(report).unwrap_or_default();
            if left_alone {
                report["left_alone"] = serde_json::Value::Bool(true);
            }
            report
        })
        .collect();
    if args.json {
        let json = if args.file.is_some() && reports.len() == 1 {
            serde_json::to_string_pretty(&reports[0])
        } else {
            serde_json::to_string_pretty(&reports)
        }
        .unwrap_or_default();
        if args.stdout {
            eprintln!("{json}");
        } else {
            outln!("{json}");
        }
    } else {
        for (t, &left_alone) in targets.iter().zip(&left_alone) {
            if left_alone {
                eprintln!(
                    "assetvc: {}: changed on disk since apply read it (saved meanwhile?); \
                     left alone, apply again",
                    report::safe_line(&t.shown)
                );
                continue;
            }
            eprintln!("assetvc: {}", report::safe_line(&summary(t, policy)));
            for c in &t.applied.conflicts {
                if is_unapplied(c) {
                    eprintln!(
                        "  {}: not applied: not in {}",
                        report::safe_line(&c.path.to_string()),
                        report::safe_line(&t.shown)
                    );
                } else {
                    eprintln!("  {}", report::safe_line(&c.to_string()));
                }
            }
        }
    }
    let failed = targets.iter().any(|t| t.applied.failed(policy));
    Ok(if failed {
        Outcome::Conflicts
    } else {
        Outcome::done_unless(left_alone.contains(&true), Outcome::LeftAlone)
    })
}

/// Compare-and-swap of one result into its file: written only if the file still holds
/// what apply read (or is still missing); `false` when it was left alone.
fn write_in_place(t: &Target) -> crate::exit::Result<bool> {
    let data = t.applied.text().as_bytes();
    let written = match &t.read {
        Some(read) => store::write_atomic_if_unchanged(&t.path, read, data),
        None => store::write_atomic_if_absent(&t.path, data),
    };
    match written {
        Ok(()) => Ok(true),
        Err(store::Error::Refused { .. }) => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// Whether a conflict is a change that did not apply: it changes a place the target does
/// not have (an object whose id matches nothing there), and the target's absence was kept.
fn is_unapplied(c: &merge::Conflict) -> bool {
    !c.kind.is_repair() && c.ours.is_none() && c.theirs.is_some() && c.taken == merge::Side::Ours
}

fn summary(target: &Target, policy: Policy) -> String {
    let (path, result) = (target.shown.as_str(), &target.applied);
    let unapplied = result.conflicts.iter().filter(|c| is_unapplied(c)).count();
    let changes = |n: usize| format!("{n} change{}", if n == 1 { "" } else { "s" });
    if result.conflicts.is_empty() {
        format!("{path}: applied cleanly")
    } else if unapplied == target.changes {
        format!(
            "{}: NOT applied: {} of the change set name{} places that are not in it{}",
            report::safe_line(path),
            changes(unapplied),
            if unapplied == 1 { "s" } else { "" },
            if policy == Policy::Fail {
                " (policy fail)"
            } else {
                ""
            }
        )
    } else {
        let applied =
            merging::summary(path, &result.conflicts, policy).replacen("merged", "applied", 1);
        if unapplied == 0 {
            applied
        } else if unapplied == result.conflicts.len() {
            format!(
                "{}: applied; {} NOT applied (not in the file)",
                report::safe_line(path),
                changes(unapplied)
            )
        } else {
            format!(
                "{applied}; {} NOT applied (not in the file)",
                changes(unapplied)
            )
        }
    }
}
