//! The merge journal under `.git/assetvc/journal/`: every merge step (a driver call in a
//! `git merge`, `rebase` or `cherry-pick`, a porcelain `assetvc merge`/`pull`) appends its
//! report, grouped into operations, and keeps the three input versions of every file it
//! resolved by policy, so that `assetvc conflicts` can show a whole rebase and `assetvc
//! resolve` can redo a choice.
//!
//! Layout: one directory per operation, numbered (`000042/`), holding `operation.json`
//! (written once, renamed into place with its directory) and `steps.jsonl`, one step per
//! line, each line written by a single `O_APPEND` write that starts with a line break (a
//! step cut short by a crash is one unreadable line that readers skip; it never joins the
//! next). The versions of a step are written before the step that names them: as blobs of
//! the repository, the journal keeping their ids (`stored.rs`), or as copies in `versions/`
//! when the journal is not in a repository.
//! Only the last [`KEEP`] operations are kept, and no more than `stored::MAX_BYTES` (64 MiB)
//! of the journal's own files (the oldest operations go first). Nothing here is fsynced: git itself reads
//! the driver's results at once, and a lost step after a power cut costs a report, never
//! a file.

mod commits;
mod landed;
mod operation;
mod reachable;
mod stored;

use std::io::Write;
use std::path::{Path, PathBuf};

use merge::Version;
use serde::{Deserialize, Serialize};

pub use merge::record::{ConflictRecord, FileStep, Meaning, SideMeanings};
pub use operation::{detect, Operation, OperationKind, StepPlace};
pub use reachable::REF as JOURNAL_REF;

/// How many operations the journal keeps.
pub const KEEP: usize = 50;

use crate::error::{Error, Result};

/// A journal record that cannot be written as JSON.
fn json(source: serde_json::Error) -> Error {
    Error::Json {
        context: "journal record".into(),
        source,
    }
}

fn io<T>(path: &Path, r: std::io::Result<T>) -> Result<T> {
    r.map_err(|source| Error::io(path.display().to_string(), source))
}

/// The git directory for the repository whose worktree is (or contains) `cwd`, found
/// without repository discovery: `$GIT_DIR`, else `cwd/.git` (a directory, or a `gitdir:`
/// file of a linked worktree). `None` when neither is there.
pub fn git_dir_near(cwd: &Path) -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("GIT_DIR") {
        return Some(cwd.join(dir));
    }
    let dot_git = cwd.join(".git");
    if dot_git.is_dir() {
        return Some(dot_git);
    }
    let text = std::fs::read_to_string(&dot_git).ok()?;
    let target = text.strip_prefix("gitdir:")?.trim();
    Some(cwd.join(target))
}

/// The journal of one repository.
#[derive(Debug, Clone)]
pub struct Journal {
    dir: PathBuf,
}

/// An operation as recorded, with its steps.
#[derive(Debug, Clone)]
pub struct Recorded {
    /// The operation's number in the journal (increasing).
    pub number: u64,
    /// The operation.
    pub operation: Operation,
    /// When it started (seconds since the Unix epoch).
    pub started: u64,
    /// Every readable step, in the order they were appended (a later step at the same
    /// place, a merge retried or a conflict resolved since, replaces the earlier one).
    pub steps: Vec<FileStep>,
    dir: PathBuf,
}

#[derive(Serialize, Deserialize)]
struct OperationFile {
    #[serde(flatten)]
    operation: Operation,
    started: u64,
}

/// Where steps of one operation are appended.
#[derive(Debug, Clone)]
pub struct OperationLog {
    dir: PathBuf,
}

/// The three input versions of a merged file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Versions {
    /// The common ancestor.
    pub base: Vec<u8>,
    /// git's "ours" (%A).
    pub ours: Vec<u8>,
    /// git's "theirs" (%B).
    pub theirs: Vec<u8>,
}

impl Journal {
    /// The journal of the repository whose git directory is `git_dir`.
    pub fn at(git_dir: &Path) -> Journal {
        Journal {
            dir: git_dir.join("assetvc").join("journal"),
        }
    }

    fn numbers(&self) -> Result<Vec<u64>> {
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return io(&self.dir, Err(e)),
        };
        let mut numbers: Vec<u64> = entries
            .filter_map(|e| e.ok())
            .filter_map(|e| e.file_name().to_str().and_then(|n| n.parse().ok()))
            .collect();
        numbers.sort_unstable();
        Ok(numbers)
    }

    fn op_dir(&self, number: u64) -> PathBuf {
        self.dir.join(format!("{number:06}"))
    }

    fn read_operation(&self, number: u64) -> Option<OperationFile> {
        let bytes = std::fs::read(self.op_dir(number).join("operation.json")).ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    /// The log of `operation`: the last recorded operation when it has the same key,
    /// else a new one (older operations beyond `KEEP` (50) are then removed).
    pub fn begin(&self, operation: &Operation) -> Result<OperationLog> {
        for _attempt in 0..8 {
            let numbers = self.numbers()?;
            let last = numbers.last().copied();
            if let Some(n) = last {
                if self
                    .read_operation(n)
                    .is_some_and(|f| f.operation.key == operation.key)
                {
                    return Ok(OperationLog {
                        dir: self.op_dir(n),
                    });
                }
            }
            let number = last.map_or(1, |n| n + 1);
            io(&self.dir, std::fs::create_dir_all(&self.dir))?;
            let tmp = io(
                &self.dir,
                tempfile::Builder::new()
                    .prefix(".new-")
                    .tempdir_in(&self.dir),
            )?;
            let started = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs());
            let record = OperationFile {
                operation: operation.clone(),
                started,
            };
            let file = tmp.path().join("operation.json");
            io(
                &file,
                std::fs::write(&file, serde_json::to_vec(&record).map_err(json)?),
            )?;
            let target = self.op_dir(number);
            // A rename onto an existing operation fails: another process began one first.
            if std::fs::rename(tmp.path(), &target).is_ok() {
                let _ = tmp.keep();
                self.prune(&numbers);
                self.prune_to_size(stored::MAX_BYTES);
                return Ok(OperationLog { dir: target });
            }
        }
        io(
            &self.dir,
            Err(std::io::Error::other("could not begin an operation")),
        )
    }

    fn prune(&self, numbers: &[u64]) {
        // `numbers` are the operations before the new one.
        let excess = (numbers.len() + 1).saturating_sub(KEEP);
        for n in &numbers[..excess] {
            let _ = std::fs::remove_dir_all(self.op_dir(*n));
        }
        if excess > 0 {
            self.keep_reachable();
        }
    }

    /// Every recorded operation, oldest first.
    pub fn operations(&self) -> Result<Vec<Recorded>> {
        let mut out = Vec::new();
        for n in self.numbers()? {
            if let Some(r) = self.recorded(n)? {
                out.push(r);
            }
        }
        Ok(out)
    }

    /// The last recorded operation.
    pub fn last(&self) -> Result<Option<Recorded>> {
        for n in self.numbers()?.into_iter().rev() {
            if let Some(r) = self.recorded(n)? {
                return Ok(Some(r));
            }
        }
        Ok(None)
    }

    fn recorded(&self, number: u64) -> Result<Option<Recorded>> {
        let Some(file) = self.read_operation(number) else {
            return Ok(None);
        };
        let dir = self.op_dir(number);
        let steps_path = dir.join("steps.jsonl");
        let text = match std::fs::read(&steps_path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return io(&steps_path, Err(e)),
        };
        let mut steps: Vec<FileStep> = Vec::new();
        for step in text
            .split(|b| *b == b'\n')
            .filter(|l| !l.is_empty())
            .filter_map(|l| serde_json::from_slice::<FileStep>(l).ok())
        {
            steps.retain(|s| !s.same_place(&step));
            steps.push(step);
        }
        Ok(Some(Recorded {
            number,
            operation: file.operation,
            started: file.started,
            steps,
            dir,
        }))
    }
}

impl OperationLog {
    /// Keeps the three versions of a file, copied from the files git gave the driver;
    /// returns the name a step uses to refer to them.
    pub fn save_version_files(&self, [base, ours, theirs]: [&Path; 3]) -> Result<String> {
        let read = |p: &Path| io(p, std::fs::read(p));
        let (b, o, t) = (read(base)?, read(ours)?, read(theirs)?);
        if let Some(name) = self.save_as_blobs([&b, &o, &t])? {
            return Ok(name);
        }
        let (name, dir) = self.version_name()?;
        for (side, from) in Version::ALL.into_iter().zip([base, ours, theirs]) {
            let to = dir.join(format!("{name}.{side}"));
            io(from, std::fs::copy(from, &to))?;
        }
        Ok(name)
    }

    /// Keeps the three versions of a file given as bytes; returns their name.
    pub fn save_versions(&self, versions: &Versions) -> Result<String> {
        let sides = [&versions.base, &versions.ours, &versions.theirs];
        if let Some(name) = self.save_as_blobs(sides.map(Vec::as_slice))? {
            return Ok(name);
        }
        let (name, dir) = self.version_name()?;
        for (side, bytes) in Version::ALL.into_iter().zip(sides) {
            let to = dir.join(format!("{name}.{side}"));
            io(&to, std::fs::write(&to, bytes))?;
        }
        Ok(name)
    }

    fn version_name(&self) -> Result<(String, PathBuf)> {
        let dir = self.dir.join("versions");
        io(&dir, std::fs::create_dir_all(&dir))?;
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        Ok((format!("{}-{nanos}", std::process::id()), dir))
    }

    /// Appends one step: a JSON object on one line, in one write.
    pub fn append(&self, step: &FileStep) -> Result<()> {
        self.append_all(std::slice::from_ref(step))
    }

    /// Appends `steps`, each a JSON object on one line, all in one write (a merge of a
    /// thousand files opens the log once, not a thousand times).
    pub fn append_all(&self, steps: &[FileStep]) -> Result<()> {
        if steps.is_empty() {
            return Ok(());
        }
        let mut line = Vec::with_capacity(256 * steps.len());
        for step in steps {
            line.push(b'\n');
            serde_json::to_writer(&mut line, step).map_err(json)?;
        }
        let path = self.dir.join("steps.jsonl");
        let mut file = io(
            &path,
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&path),
        )?;
        io(&path, file.write_all(&line))?;
        if steps.iter().any(|step| step.versions.is_some()) {
            self.keep_reachable();
        }
        Ok(())
    }
}

impl Recorded {
    /// The log of this operation, to append to it (a step that replaces an earlier one at
    /// the same place, such as the step of a conflict resolved since).
    pub fn log(&self) -> OperationLog {
        OperationLog {
            dir: self.dir.clone(),
        }
    }

    /// The steps that recorded conflicts resolved by policy.
    pub fn conflicts(&self) -> impl Iterator<Item = (&FileStep, &ConflictRecord)> {
        self.steps
            .iter()
            .flat_map(|s| s.conflicts.iter().map(move |c| (s, c)))
    }

    /// The three versions a step recorded under `name`.
    pub fn versions(&self, name: &str) -> Result<Versions> {
        if name.contains(['/', '\\']) || name.starts_with('.') {
            return Err(Error::MissingVersions(name.to_string()));
        }
        if let Some(stored) = self.versions_from_blobs(name) {
            return stored;
        }
        let read = |side: Version| {
            std::fs::read(self.dir.join("versions").join(format!("{name}.{side}")))
                .map_err(|_| Error::MissingVersions(name.to_string()))
        };
        Ok(Versions {
            base: read(Version::Base)?,
            ours: read(Version::Ours)?,
            theirs: read(Version::Theirs)?,
        })
    }
}

#[cfg(test)]
mod tests;
