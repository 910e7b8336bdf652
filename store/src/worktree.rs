//! The worktree and the index: comparing files on disk with what git has, adding them, and
//! moving the worktree from one tree to another without losing local changes.
//!
//! gix 0.90 can check out into an empty directory only, so moving an existing worktree
//! after a merge or a fast-forward is done here: every path that changes is first checked
//! (an unmodified tracked file, or nothing, or the very content about to be written), and
//! only when all are safe are files written, through the same filters as git (`core.autocrlf`,
//! `eol`, `text`, filter drivers), and the index rewritten with fresh stat data.

use std::cmp::Ordering;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use gix::bstr::{BStr, BString, ByteSlice};
use gix::index::entry::{Mode, Stage, Stat};
use gix::ObjectId;

use crate::error::{Error, Result};
use crate::repo::worktree_path;

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

/// The worktree of a repository, with the filters and file system settings git would use.
pub struct Worktree<'r> {
    repo: &'r gix::Repository,
    root: PathBuf,
    pipeline: gix::filter::Pipeline<'r>,
    stat_options: gix::index::entry::stat::Options,
    exec_bit: bool,
    symlinks: bool,
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
        })
    }

    /// The worktree's root directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Whether the executable bit is honoured (`core.fileMode`).
    pub fn honours_exec_bit(&self) -> bool {
        self.exec_bit
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
        let path = self.path(rela);
        if let Ok(meta) = gix::index::fs::Metadata::from_path_no_follow(&path) {
            if let Ok(stat) = Stat::from_fs(&meta) {
                let mode_ok = entry.mode == Mode::SYMLINK && meta.is_symlink()
                    || entry.mode != Mode::SYMLINK
                        && meta.is_file()
                        && (!self.exec_bit
                            || meta.is_executable() == (entry.mode == Mode::FILE_EXECUTABLE));
                if mode_ok
                    && entry.stat.matches(&stat, self.stat_options)
                    && !entry.stat.is_racy(index.timestamp(), self.stat_options)
                    && entry.stat != Stat::default()
                {
                    return Ok(true);
                }
            }
        }
        let on_disk = self.probe(rela, index)?;
        Ok(on_disk.is(&entry.id, entry.mode, self.exec_bit))
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

    /// Writes blob `id` to `rela` with `mode` through the to-worktree filters, replacing what
    /// is there, and returns the new stat data.
    pub fn write(&mut self, rela: &BStr, id: &ObjectId, mode: Mode) -> Result<Stat> {
        let path = self.path(rela);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| Error::io(parent.display().to_string(), e))?;
        }
        if mode == Mode::COMMIT {
            // A submodule: like git, leave an empty directory for it.
            std::fs::create_dir_all(&path).map_err(|e| Error::io(path.display().to_string(), e))?;
            return Ok(Stat::default());
        }
        let blob = self.repo.find_blob(*id)?;
        if mode == Mode::SYMLINK && self.symlinks {
            let target = crate::repo::to_path(blob.data.as_bstr());
            remove_existing(&path)?;
            make_symlink(&target, &path).map_err(|e| Error::io(path.display().to_string(), e))?;
            return self.stat_of(rela);
        }
        let mut data = Vec::new();
        {
            use gix::filter::plumbing::driver::apply::{Delay, MaybeDelayed};
            use gix::filter::plumbing::pipeline::convert::{to_worktree, ToWorktreeOutcome};
            let options = to_worktree::Options {
                can_delay: Delay::Forbid,
                ..Default::default()
            };
            match self
                .pipeline
                .convert_to_worktree(&blob.data, rela, options)?
            {
                ToWorktreeOutcome::Unchanged(b) => data.extend_from_slice(b),
                ToWorktreeOutcome::Buffer(b) => data.extend_from_slice(b),
                ToWorktreeOutcome::Process(MaybeDelayed::Immediate(mut r)) => {
                    r.read_to_end(&mut data)
                        .map_err(|e| Error::io(path.display().to_string(), e))?;
                }
                ToWorktreeOutcome::Process(MaybeDelayed::Delayed(_)) => {
                    return Err(Error::GitOther(format!(
                        "{}: a filter driver delayed its output, which assetvc does not support",
                        rela
                    )))
                }
            }
        }
        let dir = path.parent().unwrap_or(&self.root);
        let mut tmp = tempfile::Builder::new()
            .prefix(".assetvc-")
            .suffix(".tmp")
            .tempfile_in(dir)
            .map_err(|e| Error::io(dir.display().to_string(), e))?;
        tmp.write_all(&data)
            .map_err(|e| Error::io(path.display().to_string(), e))?;
        set_executable(tmp.as_file(), mode == Mode::FILE_EXECUTABLE)
            .map_err(|e| Error::io(path.display().to_string(), e))?;
        if std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir() || m.file_type().is_symlink())
        {
            remove_existing(&path)?;
        }
        tmp.persist(&path)
            .map_err(|e| Error::io(path.display().to_string(), e.error))?;
        self.stat_of(rela)
    }

    /// Removes the file at `rela` (if any) and the directories it leaves empty.
    pub fn remove(&mut self, rela: &BStr) -> Result<()> {
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

fn remove_existing(path: &Path) -> Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => {
            std::fs::remove_dir(path).map_err(|e| Error::io(path.display().to_string(), e))
        }
        Ok(_) => std::fs::remove_file(path).map_err(|e| Error::io(path.display().to_string(), e)),
        Err(_) => Ok(()),
    }
}

#[cfg(unix)]
fn make_symlink(target: &Path, path: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(target, path)
}

#[cfg(windows)]
fn make_symlink(target: &Path, path: &Path) -> std::io::Result<()> {
    std::os::windows::fs::symlink_file(target, path)
}

#[cfg(not(any(unix, windows)))]
fn make_symlink(target: &Path, path: &Path) -> std::io::Result<()> {
    std::fs::write(path, target.to_string_lossy().as_bytes())
}

#[cfg(unix)]
fn is_executable(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
fn is_executable(_meta: &std::fs::Metadata) -> bool {
    false
}

#[cfg(unix)]
fn set_executable(file: &std::fs::File, executable: bool) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let umask_default = 0o644;
    let mode = if executable { 0o755 } else { umask_default };
    file.set_permissions(std::fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
fn set_executable(_file: &std::fs::File, _executable: bool) -> std::io::Result<()> {
    Ok(())
}

/// One path whose entry differs between two flat trees.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathChange {
    /// Repository-relative path.
    pub path: BString,
    /// The entry before, if any.
    pub old: Option<(ObjectId, Mode)>,
    /// The entry after, if any.
    pub new: Option<(ObjectId, Mode)>,
}

/// The stage-0 entries whose id or mode differ between two indexes (both sorted, as gix
/// keeps them), in path order.
pub fn diff_indexes(old: &gix::index::State, new: &gix::index::State) -> Vec<PathChange> {
    let stage0 = |s: &'_ gix::index::State| -> Vec<(usize, bool)> {
        s.entries()
            .iter()
            .enumerate()
            .filter(|(_, e)| e.stage() == Stage::Unconflicted)
            .map(|(i, _)| (i, true))
            .collect()
    };
    let (a, b) = (stage0(old), stage0(new));
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::new();
    while i < a.len() || j < b.len() {
        let ea = a.get(i).map(|&(k, _)| &old.entries()[k]);
        let eb = b.get(j).map(|&(k, _)| &new.entries()[k]);
        let ord = match (ea, eb) {
            (Some(x), Some(y)) => gix::index::Entry::cmp_filepaths(x.path(old), y.path(new)),
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => break,
        };
        match ord {
            Ordering::Less => {
                let x = ea.expect("present");
                out.push(PathChange {
                    path: x.path(old).to_owned(),
                    old: Some((x.id, x.mode)),
                    new: None,
                });
                i += 1;
            }
            Ordering::Greater => {
                let y = eb.expect("present");
                out.push(PathChange {
                    path: y.path(new).to_owned(),
                    old: None,
                    new: Some((y.id, y.mode)),
                });
                j += 1;
            }
            Ordering::Equal => {
                let (x, y) = (ea.expect("present"), eb.expect("present"));
                if x.id != y.id || x.mode != y.mode {
                    out.push(PathChange {
                        path: x.path(old).to_owned(),
                        old: Some((x.id, x.mode)),
                        new: Some((y.id, y.mode)),
                    });
                }
                i += 1;
                j += 1;
            }
        }
    }
    out
}

/// The paths of `index` that hold unmerged entries (stages 1–3).
pub fn unmerged_paths(index: &gix::index::State) -> Vec<String> {
    let mut out: Vec<String> = index
        .entries()
        .iter()
        .filter(|e| e.stage() != Stage::Unconflicted)
        .map(|e| e.path(index).to_str_lossy().into_owned())
        .collect();
    out.dedup();
    out
}

/// Moves the worktree and the index from `head` (the index of HEAD's tree) to `target` (the
/// index of the tree to check out, possibly with conflict stages), refusing — before anything
/// is written — when that would lose a local change:
///
/// * the current index must match `head` (no staged changes, no unmerged paths);
/// * every path that changes must hold HEAD's content on disk (or be gone when the target
///   deletes it), or hold nothing, or hold exactly the content about to be written;
/// * no untracked file may stand where a directory is needed.
///
/// `worktree_content` names, for conflicted paths, what to write to disk when it is not the
/// stage-0 entry of `target` (which has none for them). The new index is `target` with stat
/// data: fresh for written files, kept from the current index for untouched ones.
pub fn checkout(
    repo: &gix::Repository,
    current: &gix::index::File,
    head: &gix::index::State,
    worktree_target: &gix::index::State,
    mut target: gix::index::File,
) -> Result<()> {
    let mut wt = Worktree::new(repo)?;
    // 1. The index must be HEAD's.
    let unmerged = unmerged_paths(current);
    if !unmerged.is_empty() {
        return Err(Error::Refused {
            message: "you have unmerged paths; resolve them and commit first".into(),
            paths: unmerged,
        });
    }
    let staged: Vec<String> = diff_indexes(head, current)
        .into_iter()
        .map(|c| c.path.to_str_lossy().into_owned())
        .collect();
    if !staged.is_empty() {
        return Err(Error::Refused {
            message: "your staged changes would be lost; commit them first".into(),
            paths: staged,
        });
    }
    // 2. Every changed path must be safe to overwrite.
    let changes = diff_indexes(head, worktree_target);
    let deleted: std::collections::HashSet<&BStr> = changes
        .iter()
        .filter(|c| c.old.is_some())
        .map(|c| c.path.as_bstr())
        .collect();
    let mut in_the_way = Vec::new();
    let mut skip_write = std::collections::HashSet::new();
    for change in &changes {
        let rela = change.path.as_bstr();
        let safe = match change.old {
            Some((id, mode)) => {
                let entry = current.entry_by_path(rela);
                let unchanged = match entry {
                    Some(e) => wt.is_unchanged(rela, e, current)?,
                    None => wt.probe(rela, current)?.is(&id, mode, wt.exec_bit),
                };
                unchanged || {
                    let on_disk = wt.probe(rela, current)?;
                    on_disk == OnDisk::Missing && change.new.is_none()
                        || change
                            .new
                            .is_some_and(|(nid, nmode)| on_disk.is(&nid, nmode, wt.exec_bit))
                }
            }
            None => {
                let on_disk = wt.probe(rela, current)?;
                match (on_disk, change.new) {
                    (OnDisk::Missing, _) => true,
                    (OnDisk::Dir, Some((_, mode))) if mode != Mode::COMMIT => {
                        is_empty_dir(&wt.path(rela))
                    }
                    (d, Some((nid, nmode))) => {
                        let same = d.is(&nid, nmode, wt.exec_bit);
                        if same {
                            skip_write.insert(change.path.clone());
                        }
                        same
                    }
                    (_, None) => true,
                }
            }
        };
        // An untracked file where the new path needs a directory.
        let blocked = change.new.is_some()
            && ancestors(rela).any(|dir| {
                !deleted.contains(dir)
                    && std::fs::symlink_metadata(wt.path(dir)).is_ok_and(|m| !m.is_dir())
            });
        if !safe || blocked {
            in_the_way.push(change.path.to_str_lossy().into_owned());
        }
    }
    if !in_the_way.is_empty() {
        return Err(Error::Refused {
            message:
                "your local changes to these files would be overwritten; commit or stash them first"
                    .into(),
            paths: in_the_way,
        });
    }
    // 3. Write: deletions first (a file may give way to a directory), then the rest.
    for change in changes.iter().filter(|c| c.new.is_none()) {
        wt.remove(change.path.as_bstr())?;
    }
    let mut written = std::collections::HashMap::new();
    for change in &changes {
        if let Some((id, mode)) = change.new {
            if skip_write.contains(&change.path) {
                written.insert(change.path.clone(), wt.stat_of(change.path.as_bstr())?);
                continue;
            }
            if let Some((_, old_mode)) = change.old {
                if (old_mode == Mode::SYMLINK) != (mode == Mode::SYMLINK) {
                    wt.remove(change.path.as_bstr())?;
                }
            }
            let stat = wt.write(change.path.as_bstr(), &id, mode)?;
            written.insert(change.path.clone(), stat);
        }
    }
    // 4. The index: stat data for what was written, kept for what was not.
    {
        let (entries, backing) = target.entries_mut_and_pathbacking();
        for e in entries.iter_mut() {
            let path = e.path_in(backing);
            if let Some(stat) = written.get(path) {
                if e.stage() == Stage::Unconflicted {
                    e.stat = *stat;
                }
            } else if e.stage() == Stage::Unconflicted {
                if let Some(old) = current.entry_by_path(path) {
                    if old.id == e.id && old.mode == e.mode {
                        e.stat = old.stat;
                    }
                }
            }
        }
    }
    write_index(&mut target)?;
    Ok(())
}

fn is_empty_dir(path: &Path) -> bool {
    std::fs::read_dir(path).is_ok_and(|mut d| d.next().is_none())
}

/// The proper ancestors of a `/`-separated path, nearest first.
fn ancestors(path: &BStr) -> impl Iterator<Item = &BStr> {
    let mut end = path.len();
    std::iter::from_fn(move || {
        let slash = path[..end].rfind_byte(b'/')?;
        end = slash;
        Some(path[..slash].as_bstr())
    })
}

/// Writes `index` to its file, dropping the tree cache (gix writes it as read, which would
/// be stale: see gix-index's `File::write`).
pub fn write_index(index: &mut gix::index::File) -> Result<()> {
    index.remove_tree();
    index.remove_resolve_undo();
    index.write(Default::default())?;
    Ok(())
}

/// The base, ours and theirs entries of a conflicted path (`None` where a side has none).
pub type Stages = [Option<(ObjectId, Mode)>; 3];

/// Adds conflict stages for `path` to `index`, replacing its stage-0 entry:
/// `stages` are base, ours and theirs (`None` where a side has no file).
pub fn set_conflict_stages(index: &mut gix::index::State, path: &BStr, stages: Stages) {
    index.remove_entries(|_, p, _| p == path);
    for (i, stage) in stages.iter().enumerate() {
        if let Some((id, mode)) = stage {
            let stage = match i {
                0 => Stage::Base,
                1 => Stage::Ours,
                _ => Stage::Theirs,
            };
            index.dangerously_push_entry(
                Stat::default(),
                *id,
                gix::index::entry::Flags::from_stage(stage),
                *mode,
                path,
            );
        }
    }
    index.sort_entries();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ancestors_nearest_first() {
        let a: Vec<_> = ancestors(b"a/b/c.txt".as_bstr()).collect();
        assert_eq!(a, vec![b"a/b".as_bstr(), b"a".as_bstr()]);
        assert_eq!(ancestors(b"top".as_bstr()).count(), 0);
    }
}
