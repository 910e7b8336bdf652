//! The worktree and the index: comparing files on disk with what git has, adding them, and
//! moving the worktree from one tree to another without losing local changes.
//!
//! gix 0.90 can check out into an empty directory only, so moving an existing worktree
//! after a merge or a fast-forward is done here: every path that changes is first checked
//! (an unmodified tracked file, or nothing, or the very content about to be written), and
//! only when all are safe are files written, each one compared again right before it is
//! swapped in and left alone if it changed meanwhile, through the same filters as git
//! (`core.autocrlf`, `eol`, `text`, filter drivers), and the index rewritten with fresh
//! stat data. On Linux the swap leaves no window at all (`swap`: the new file is exchanged
//! into place and what came out is compared afterwards, by hash, or by its stat data when
//! they prove it the version the check read: `settled`). `pending` removes the file being
//! written if a signal ends the process before its swap.
//!
//! This module reads and writes single files ([`Worktree`]); `checkout` moves the whole
//! worktree ([`checkout`]), `index` compares and edits indexes, `fs` holds the platform
//! file helpers.

mod checkout;
mod fs;
mod index;
mod lock;
#[cfg(target_os = "linux")]
pub(crate) mod pending;
mod safety;
mod settled;
pub(crate) mod swap;
#[cfg(test)]
mod tests;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use gix::bstr::{BStr, ByteSlice};
use gix::index::entry::{Mode, Stat};
use gix::ObjectId;

use crate::error::{Error, Result};
use crate::repo::worktree_path;

pub use checkout::{checkout, checkout_against};
use fs::{is_executable, make_symlink, remove_existing};
pub use index::{diff_indexes, set_all_conflict_stages, unmerged_paths, PathChange, Stages};
pub use lock::IndexLock;
pub use safety::{path_problem, validate_index, worktree_file};

/// What is on disk at a path, hashed as git would store it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnDisk {
    /// Nothing there.
    Missing,
    /// A regular file (or, without symlink support, anything stored as a blob).
    File {
        /// Its blob id after the to-git filters.
        id: ObjectId,
        /// Whether the executable bit is set (and honoured).
        executable: bool,
    },
    /// A symbolic link.
    Symlink {
        /// The blob id of its target.
        id: ObjectId,
    },
    /// A directory.
    Dir,
    /// Something git cannot track (a socket, a fifo…).
    Other,
}

impl OnDisk {
    /// What is on disk when a file holds the entry `id` with `mode` (`exec_bit`: whether
    /// the executable bit is honoured).
    pub fn of(id: ObjectId, mode: Mode, exec_bit: bool) -> OnDisk {
        match mode {
            Mode::SYMLINK => OnDisk::Symlink { id },
            Mode::COMMIT => OnDisk::Dir,
            _ => OnDisk::File {
                id,
                executable: exec_bit && mode == Mode::FILE_EXECUTABLE,
            },
        }
    }

    /// Whether this is what an index entry or tree entry with `id` and `mode` describes.
    pub fn is(&self, id: &ObjectId, mode: Mode, honour_exec: bool) -> bool {
        match *self {
            OnDisk::File { id: i, executable } => {
                (mode == Mode::FILE || mode == Mode::FILE_EXECUTABLE)
                    && i == *id
                    && (!honour_exec || executable == (mode == Mode::FILE_EXECUTABLE))
            }
            OnDisk::Symlink { id: i } => mode == Mode::SYMLINK && i == *id,
            OnDisk::Dir => mode == Mode::COMMIT,
            OnDisk::Missing | OnDisk::Other => false,
        }
    }
}

/// A compare-and-swap check: the index giving the attributes for hashing, and what the
/// file on disk must be for the write to go ahead.
type Check<'a> = (&'a gix::index::State, &'a dyn Fn(&OnDisk) -> bool);

/// The worktree of a repository, with the filters and file system settings git would use.
pub struct Worktree<'r> {
    repo: &'r gix::Repository,
    root: PathBuf,
    pipeline: gix::filter::Pipeline<'r>,
    stat_options: gix::index::entry::stat::Options,
    exec_bit: bool,
    symlinks: bool,
    /// What a checkout's check found at the paths whose stat data can prove it still there
    /// at the swap (`settled.rs`).
    settled: settled::Settled,
}

impl<'r> Worktree<'r> {
    /// The worktree of `repo`; fails for a bare repository.
    pub fn new(repo: &'r gix::Repository) -> Result<Self> {
        let root = repo
            .workdir()
            .map(Path::to_path_buf)
            .ok_or_else(|| Error::Bare(repo.git_dir().to_path_buf()))?;
        let (pipeline, _) = repo.filter_pipeline(None)?;
        let caps = repo.filesystem_options()?;
        Ok(Worktree {
            repo,
            root,
            pipeline,
            stat_options: repo.stat_options()?,
            exec_bit: caps.executable_bit,
            symlinks: caps.symlink,
            settled: settled::Settled::default(),
        })
    }

    /// The worktree's root directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The absolute path of a repository-relative path.
    pub fn path(&self, rela: &BStr) -> PathBuf {
        worktree_path(&self.root, rela)
    }

    /// The file at `rela` as git would store it, or `None` if there is none (or it cannot be
    /// tracked). The blob is written when `write` is set (that is `git add`).
    fn read_as_blob(
        &mut self,
        rela: &BStr,
        index: &gix::index::State,
        write: bool,
    ) -> Result<(OnDisk, Option<std::fs::Metadata>)> {
        let path = self.path(rela);
        self.read_as_blob_at(rela, &path, index, write)
    }

    /// [`Worktree::read_as_blob`] of the file at `path`, hashed as if it were at `rela`
    /// (whose attributes choose the filters).
    fn read_as_blob_at(
        &mut self,
        rela: &BStr,
        path: &Path,
        index: &gix::index::State,
        write: bool,
    ) -> Result<(OnDisk, Option<std::fs::Metadata>)> {
        let path = path.to_path_buf();
        let meta = match std::fs::symlink_metadata(&path) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok((OnDisk::Missing, None))
            }
            Err(e) if e.raw_os_error() == Some(20) => return Ok((OnDisk::Missing, None)), // ENOTDIR
            Err(e) => return Err(Error::io(path.display().to_string(), e)),
        };
        let hash_kind = self.repo.object_hash();
        let store = |data: &[u8]| -> Result<ObjectId> {
            if write {
                Ok(self.repo.write_blob(data)?.detach())
            } else {
                gix::objs::compute_hash(hash_kind, gix::objs::Kind::Blob, data).map_err(Error::git)
            }
        };
        if meta.file_type().is_symlink() && self.symlinks {
            let target =
                std::fs::read_link(&path).map_err(|e| Error::io(path.display().to_string(), e))?;
            let target = target.to_string_lossy().into_owned();
            let id = store(target.as_bytes())?;
            return Ok((OnDisk::Symlink { id }, Some(meta)));
        }
        if meta.is_dir() {
            return Ok((OnDisk::Dir, Some(meta)));
        }
        if !meta.is_file() && !meta.file_type().is_symlink() {
            return Ok((OnDisk::Other, Some(meta)));
        }
        let file =
            std::fs::File::open(&path).map_err(|e| Error::io(path.display().to_string(), e))?;
        let rela_path = crate::repo::to_path(rela);
        let mut data = Vec::new();
        {
            use gix::filter::plumbing::pipeline::convert::ToGitOutcome;
            let outcome = self.pipeline.convert_to_git(file, &rela_path, index)?;
            match outcome {
                ToGitOutcome::Unchanged(mut r) => {
                    r.read_to_end(&mut data)
                        .map_err(|e| Error::io(path.display().to_string(), e))?;
                }
                ToGitOutcome::Process(mut r) => {
                    r.read_to_end(&mut data)
                        .map_err(|e| Error::io(path.display().to_string(), e))?;
                }
                ToGitOutcome::Buffer(b) => data.extend_from_slice(b),
            }
        }
        let id = store(&data)?;
        let executable = self.exec_bit && is_executable(&meta);
        Ok((OnDisk::File { id, executable }, Some(meta)))
    }

    /// What is on disk at `rela`, hashed as git would store it; no object is written.
    pub fn probe(&mut self, rela: &BStr, index: &gix::index::State) -> Result<OnDisk> {
        Ok(self.read_as_blob(rela, index, false)?.0)
    }

    /// Whether the file at `rela` still holds `entry` of `index`: stat data first, content
    /// when the stat data differ or cannot be trusted (the racy-git case).
    pub fn is_unchanged(
        &mut self,
        rela: &BStr,
        entry: &gix::index::Entry,
        index: &gix::index::State,
    ) -> Result<bool> {
        if self.stat_says_unchanged(rela, entry, index) {
            return Ok(true);
        }
        let on_disk = self.probe(rela, index)?;
        Ok(on_disk.is(&entry.id, entry.mode, self.exec_bit))
    }

    /// Whether the stat data of the file at `rela` say it still holds `entry` of `index`
    /// (git's check: same stat data as recorded, not racy, the mode right); `false` when
    /// they cannot tell, never a false `true`.
    fn stat_says_unchanged(
        &self,
        rela: &BStr,
        entry: &gix::index::Entry,
        index: &gix::index::State,
    ) -> bool {
        let Ok(meta) = gix::index::fs::Metadata::from_path_no_follow(&self.path(rela)) else {
            return false;
        };
        let Ok(stat) = Stat::from_fs(&meta) else {
            return false;
        };
        let mode_ok = entry.mode == Mode::SYMLINK && meta.is_symlink()
            || entry.mode != Mode::SYMLINK
                && meta.is_file()
                && (!self.exec_bit
                    || meta.is_executable() == (entry.mode == Mode::FILE_EXECUTABLE));
        mode_ok
            && entry.stat.matches(&stat, self.stat_options)
            && !entry.stat.is_racy(index.timestamp(), self.stat_options)
            && entry.stat != Stat::default()
    }

    /// What is on disk at `rela` when the stat data show it holds its stage-0 entry of
    /// `index` (a regular file: no read, no hash); `None` when they cannot tell.
    fn known_by_stat(&self, rela: &BStr, index: &gix::index::State) -> Option<OnDisk> {
        let entry = index.entry_by_path_and_stage(rela, gix::index::entry::Stage::Unconflicted)?;
        let file = entry.mode == Mode::FILE || entry.mode == Mode::FILE_EXECUTABLE;
        (file && self.stat_says_unchanged(rela, entry, index)).then_some(OnDisk::File {
            id: entry.id,
            executable: self.exec_bit && entry.mode == Mode::FILE_EXECUTABLE,
        })
    }

    /// Adds the file at `rela` to the object database, as `git add` does: its blob id, index
    /// mode and stat data, or `None` if there is no file.
    pub fn add(
        &mut self,
        rela: &BStr,
        index: &gix::index::State,
    ) -> Result<Option<(ObjectId, Mode, Stat)>> {
        let (on_disk, meta) = self.read_as_blob(rela, index, true)?;
        let mode = match on_disk {
            OnDisk::File { executable, .. } => {
                let keep_exec = !self.exec_bit
                    && index
                        .entry_by_path(rela)
                        .is_some_and(|e| e.mode == Mode::FILE_EXECUTABLE);
                if executable || keep_exec {
                    Mode::FILE_EXECUTABLE
                } else {
                    Mode::FILE
                }
            }
            OnDisk::Symlink { .. } => Mode::SYMLINK,
            OnDisk::Missing | OnDisk::Dir | OnDisk::Other => return Ok(None),
        };
        let id = match on_disk {
            OnDisk::File { id, .. } | OnDisk::Symlink { id } => id,
            _ => unreachable!("handled above"),
        };
        let stat = meta
            .map(|_| self.stat_of(rela))
            .transpose()?
            .unwrap_or_default();
        Ok(Some((id, mode, stat)))
    }

    /// The index stat data of the file at `rela`.
    pub fn stat_of(&self, rela: &BStr) -> Result<Stat> {
        let path = self.path(rela);
        let meta = gix::index::fs::Metadata::from_path_no_follow(&path)
            .map_err(|e| Error::io(path.display().to_string(), e))?;
        Ok(Stat::from_fs(&meta).unwrap_or_default())
    }

    /// Compare-and-swap: writes blob `id` to `rela` with `mode` through the to-worktree
    /// filters, replacing what is there (the answer: its new stat data), but only if what is
    /// on disk still satisfies `expected`; otherwise nothing is written and the answer is
    /// `None` (someone saved the file since it was read). `index` gives the attributes for
    /// hashing. On Linux what is replaced is checked after an atomic exchange and put back
    /// when it is not what was expected, so no save can slip in between compare and swap;
    /// elsewhere it is hashed immediately before the rename.
    pub fn write_if(
        &mut self,
        rela: &BStr,
        id: &ObjectId,
        mode: Mode,
        index: &gix::index::State,
        expected: &dyn Fn(&OnDisk) -> bool,
    ) -> Result<Option<Stat>> {
        self.write_checked(rela, id, mode, Some((index, expected)))
    }

    /// Whether what is on disk at `rela` satisfies `check` (always, without one).
    /// The content is compared by hash; a stat fence taken before reading it and again
    /// after the compare narrows the window in which a save could slip in between the
    /// compare and the caller's rename to those two system calls.
    fn still(&mut self, rela: &BStr, check: Option<Check<'_>>) -> Result<bool> {
        let Some((index, expected)) = check else {
            return Ok(true);
        };
        // Stat data that show the file unchanged since the index recorded it are git's
        // own proof of content (and a save since would have changed them).
        if let Some(on_disk) = self.known_by_stat(rela, index) {
            return Ok(expected(&on_disk));
        }
        let path = self.path(rela);
        let before = fs::fence(&path);
        if !expected(&self.probe(rela, index)?) {
            return Ok(false);
        }
        Ok(fs::fence(&path) == before)
    }

    /// [`Worktree::write_if`], the check optional.
    fn write_checked(
        &mut self,
        rela: &BStr,
        id: &ObjectId,
        mode: Mode,
        check: Option<Check<'_>>,
    ) -> Result<Option<Stat>> {
        if let Some(reason) = path_problem(rela, mode) {
            return Err(Error::UnsafePath {
                path: rela.to_str_lossy().into_owned(),
                reason,
            });
        }
        safety::prepare_leading_dirs(&self.root, rela, true)?;
        let path = self.path(rela);
        if mode == Mode::COMMIT {
            // A submodule: like git, leave an empty directory for it.
            std::fs::create_dir_all(&path).map_err(|e| Error::io(path.display().to_string(), e))?;
            return Ok(Some(Stat::default()));
        }
        let blob = self.repo.find_blob(*id)?;
        if mode == Mode::SYMLINK && self.symlinks {
            let target = crate::repo::to_path(blob.data.as_bstr());
            if !self.still(rela, check)? {
                return Ok(None);
            }
            remove_existing(&path)?;
            make_symlink(&target, &path).map_err(|e| Error::io(path.display().to_string(), e))?;
            return self.stat_of(rela).map(Some);
        }
        let data = self.worktree_bytes(rela, &blob.data, &path)?;
        let dir = path.parent().unwrap_or(&self.root);
        // Named like `write_atomic`'s, so that the leftovers of a killed run are recognised
        // and removed by the next write in this folder (#30 item 3).
        crate::atomic::remove_stale_temporaries(dir);
        let mut prefix = std::ffi::OsString::from(".");
        prefix.push(path.file_name().unwrap_or_default());
        prefix.push(crate::atomic::TEMP_MARK);
        // Created with git's modes (0666, 0777 for an executable) less the umask, as git
        // checks files out: no `chmod` after.
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix);
        #[cfg(unix)]
        builder.permissions(fs::new_file_permissions(mode == Mode::FILE_EXECUTABLE));
        let mut tmp = builder
            .tempfile_in(dir)
            .map_err(|e| Error::io(dir.display().to_string(), e))?;
        #[cfg(target_os = "linux")]
        let registered = pending::Pending::register(tmp.path());
        tmp.write_all(&data)
            .map_err(|e| Error::io(path.display().to_string(), e))?;
        crate::failpoint::pause("worktree-swap");
        // From the swap on, the temporary path may hold what was swapped out: never
        // removed by a signal.
        #[cfg(target_os = "linux")]
        registered.end();
        // Where the file can be exchanged into place, the compare comes after the swap
        // (what came out is checked, and put back when it is not what was expected): no
        // compare before it is needed. Elsewhere the compare is as late as it can be:
        // right before the rename.
        let tmp = match check {
            Some(check) => match self.swap_checked(rela, &path, tmp, &data, check)? {
                Ok(swap::Swap::Done) => return self.stat_of(rela).map(Some),
                Ok(_) => return Ok(None),
                Err(tmp) => tmp,
            },
            None => tmp,
        };
        if !self.still(rela, check)? {
            return Ok(None);
        }
        if std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir() || m.file_type().is_symlink())
        {
            remove_existing(&path)?;
        }
        tmp.persist(&path)
            .map_err(|e| Error::io(path.display().to_string(), e.error))?;
        self.stat_of(rela).map(Some)
    }

    /// The swap without a window ([`swap`]) of the new file `tmp` (holding `data`) into
    /// `path` (at `rela`), what came out checked against `check`. `Err(tmp)` gives the
    /// temporary file back when the swap cannot be done that way (no exchange on this
    /// system or file system, or a directory or link at `path`): compare then rename.
    fn swap_checked(
        &mut self,
        rela: &BStr,
        path: &Path,
        tmp: tempfile::NamedTempFile,
        data: &[u8],
        (index, expected): Check<'_>,
    ) -> Result<std::result::Result<swap::Swap, tempfile::NamedTempFile>> {
        let (regular, exists) = match std::fs::symlink_metadata(path) {
            Ok(m) => (m.is_file(), true),
            Err(_) => (true, false),
        };
        if !regular || !swap::CAN_EXCHANGE {
            return Ok(Err(tmp));
        }
        let tmp_path = tmp.path().to_path_buf();
        let mut was_expected = |at: Option<&Path>| -> Result<bool> {
            Ok(match at {
                None => expected(&OnDisk::Missing),
                // The version the check read, by its stat data: not read again.
                Some(at) => match self.settled.known(rela, at) {
                    Some(on_disk) => expected(&on_disk),
                    None => expected(&self.read_as_blob_at(rela, at, index, false)?.0),
                },
            })
        };
        let is_ours = |at: &Path| std::fs::read(at).is_ok_and(|d| d == data);
        let swapped = if !exists {
            // Nothing there: create the file only if that was expected and nothing is
            // there yet.
            let io = |e| Error::io(path.display().to_string(), e);
            if !was_expected(None)? {
                swap::Swap::LeftAlone
            } else if swap::rename_no_replace(&tmp_path, path).map_err(io)? {
                swap::Swap::Done
            } else {
                swap::Swap::LeftAlone
            }
        } else {
            swap::swap_in(&tmp_path, path, &mut was_expected, &is_ours)?
        };
        if swapped == swap::Swap::Unsupported {
            return Ok(Err(tmp));
        }
        // What is left at the temporary path (what was replaced, or our content given
        // back) is removed when `tmp` drops; after a rename there is nothing left.
        drop(tmp);
        Ok(Ok(swapped))
    }

    /// `blob` as the to-worktree filters make it for `rela` (at `path`).
    fn worktree_bytes(&mut self, rela: &BStr, blob: &[u8], path: &Path) -> Result<Vec<u8>> {
        use gix::filter::plumbing::driver::apply::{Delay, MaybeDelayed};
        use gix::filter::plumbing::pipeline::convert::{to_worktree, ToWorktreeOutcome};
        let mut data = Vec::new();
        let options = to_worktree::Options {
            can_delay: Delay::Forbid,
            ..Default::default()
        };
        match self.pipeline.convert_to_worktree(blob, rela, options)? {
            ToWorktreeOutcome::Unchanged(b) => data.extend_from_slice(b),
            ToWorktreeOutcome::Buffer(b) => data.extend_from_slice(b),
            ToWorktreeOutcome::Process(MaybeDelayed::Immediate(mut r)) => {
                r.read_to_end(&mut data)
                    .map_err(|e| Error::io(path.display().to_string(), e))?;
            }
            ToWorktreeOutcome::Process(MaybeDelayed::Delayed(_)) => {
                return Err(Error::git_in(
                    rela.to_string(),
                    "a filter driver delayed its output, which assetvc does not support",
                ))
            }
        }
        Ok(data)
    }

    /// Compare-and-swap for a removal: removes the file at `rela` only if what is on disk
    /// still satisfies `expected`; `false` when it was left alone. A regular file is
    /// renamed aside first and checked there, then deleted or put back.
    pub fn remove_if(
        &mut self,
        rela: &BStr,
        index: &gix::index::State,
        expected: &dyn Fn(&OnDisk) -> bool,
    ) -> Result<bool> {
        if !self.still(rela, Some((index, expected)))? {
            return Ok(false);
        }
        crate::failpoint::pause("worktree-swap");
        let path = self.path(rela);
        if !std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file()) {
            self.remove(rela)?;
            return Ok(true);
        }
        safety::prepare_leading_dirs(&self.root, rela, false)?;
        let dir = path.parent().unwrap_or(&self.root).to_path_buf();
        let mut prefix = std::ffi::OsString::from(".");
        prefix.push(path.file_name().unwrap_or_default());
        prefix.push(crate::atomic::TEMP_MARK);
        let aside = tempfile::Builder::new()
            .prefix(&prefix)
            .tempfile_in(&dir)
            .map_err(|e| Error::io(dir.display().to_string(), e))?
            .into_temp_path();
        let mut was_expected = |at: &Path| -> Result<bool> {
            Ok(expected(&self.read_as_blob_at(rela, at, index, false)?.0))
        };
        let removed = swap::remove_aside(&path, &aside, &mut was_expected)?;
        drop(aside);
        if removed {
            // The folders it leaves empty go too.
            self.remove(rela)?;
        }
        Ok(removed)
    }

    /// Removes the file at `rela` (if any) and the directories it leaves empty.
    pub fn remove(&mut self, rela: &BStr) -> Result<()> {
        safety::prepare_leading_dirs(&self.root, rela, false)?;
        let path = self.path(rela);
        match std::fs::symlink_metadata(&path) {
            Ok(m) if m.is_dir() => {
                // A submodule's directory: only removed when empty.
                let _ = std::fs::remove_dir(&path);
            }
            Ok(_) => {
                std::fs::remove_file(&path).map_err(|e| Error::io(path.display().to_string(), e))?
            }
            Err(_) => {}
        }
        let mut dir = path.parent();
        while let Some(d) = dir {
            if d == self.root || std::fs::remove_dir(d).is_err() {
                break;
            }
            dir = d.parent();
        }
        Ok(())
    }
}
