//! The one way assetvc writes a named file: atomically for regular files, like a shell
//! redirect for fifos and devices, never through or over a symbolic link or a directory.

use std::collections::HashSet;
use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use crate::error::{Error, Result};
use crate::worktree::swap::{self, Swap};

/// What every temporary file of [`write_atomic`] is named: `.NAME` + this + random letters,
/// next to its target, so that an interrupted run's leftovers are recognisably ours.
pub(crate) const TEMP_MARK: &str = ".assetvc-tmp-";

/// Leftover temporary files older than this are an interrupted run's, and removed.
const STALE_AFTER: Duration = Duration::from_secs(60);

/// Writes `data` to `path`.
///
/// - A regular file (or none yet) is replaced atomically: a temporary file
///   `.NAME.assetvc-tmp-XXXXXX` next to it is written, **fsynced** (so that a crash right
///   after the rename never leaves an empty or partial file where the old one was) and
///   renamed over `path`, keeping its permissions; readers see the old or the new content,
///   never a mix. On failure the temporary file is removed; leftovers of killed runs older
///   than a minute are removed the next time a file in that directory is written.
/// - A fifo, character or block device is opened and written like a shell redirect
///   (`-o /dev/null` discards), never replaced.
/// - A symbolic link or a directory is refused ([`Error::Symlink`], [`Error::Directory`]).
pub fn write_atomic(path: &Path, data: &[u8]) -> Result<()> {
    write_atomic_checked(path, data, None, Durability::Synced)
}

/// [`write_atomic`] without the fsync, for a file another program reads back at once and
/// keeps durably itself (the merge driver's `%A`, which git stores in its object
/// database): the same temporary file naming, so the same cleanup finds a killed run's.
pub fn write_atomic_unsynced(path: &Path, data: &[u8]) -> Result<()> {
    write_atomic_checked(path, data, None, Durability::Unsynced)
}

/// Whether a write waits for the data (and the rename) to reach the disk.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Durability {
    /// fsync the temporary file before the rename, and the directory after it.
    Synced,
    /// Neither.
    Unsynced,
}

/// Compare-and-swap for a worktree file: [`write_atomic`], but the file is replaced only if
/// it still holds exactly `read` (the bytes the caller read and computed `data` from),
/// compared right before the rename; otherwise nothing is written and the answer is
/// [`Error::Refused`] naming the file (someone saved it meanwhile: run again).
pub fn write_atomic_if_unchanged(path: &Path, read: &[u8], data: &[u8]) -> Result<()> {
    write_atomic_checked(path, data, Some(Some(read)), Durability::Synced)
}

/// Compare-and-swap for a file the caller found missing: [`write_atomic`], but only if
/// there is still nothing at `path` (on Linux atomically, `RENAME_NOREPLACE`); otherwise
/// nothing is written and the answer is [`Error::Refused`] naming the file.
pub fn write_atomic_if_absent(path: &Path, data: &[u8]) -> Result<()> {
    write_atomic_checked(path, data, Some(None), Durability::Synced)
}

/// [`write_atomic`], with the compare of [`write_atomic_if_unchanged`] when `read` is set
/// (`Some(None)`: the file must still be missing).
fn write_atomic_checked(
    path: &Path,
    data: &[u8],
    read: Option<Option<&[u8]>>,
    durability: Durability,
) -> Result<()> {
    let io = |source| Error::io(path.display().to_string(), source);
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => Some(m),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(io(e)),
    };
    if let Some(meta) = &meta {
        let kind = meta.file_type();
        if kind.is_symlink() {
            return Err(Error::Symlink(path.to_path_buf()));
        }
        if kind.is_dir() {
            return Err(Error::Directory(path.to_path_buf()));
        }
        if !kind.is_file() {
            // A fifo or a device: write into it as `>` would.
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .open(path)
                .map_err(io)?;
            return f.write_all(data).and_then(|_| f.flush()).map_err(io);
        }
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| io(std::io::Error::other("not a file name")))?;
    remove_stale_temporaries(dir);
    let mut prefix = OsString::from(".");
    prefix.push(name);
    prefix.push(TEMP_MARK);
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix);
    #[cfg(unix)]
    if meta.is_none() {
        // A new file gets the usual mode (0666 less the umask), not a temporary file's 0600.
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut tmp = builder.tempfile_in(dir).map_err(io)?;
    tmp.write_all(data).map_err(io)?;
    if durability == Durability::Synced {
        tmp.as_file().sync_all().map_err(io)?;
    }
    if let Some(meta) = &meta {
        tmp.as_file()
            .set_permissions(meta.permissions())
            .map_err(io)?;
    }
    crate::failpoint::pause("atomic-compare");
    if let Some(read) = read {
        let refused = || Error::Refused {
            message: "changed on disk since assetvc read it (saved meanwhile?); \
                      nothing written, run again"
                .into(),
            paths: vec![path.display().to_string()],
        };
        // The compare of compare-and-swap, then a swap that leaves no window after it.
        if std::fs::read(path).ok().as_deref() != read {
            return Err(refused());
        }
        match swap_checked(&tmp, path, data, read).map_err(io)? {
            Swap::Done => {}
            Swap::LeftAlone => return Err(refused()),
            Swap::Unsupported => {
                tmp.persist(path).map_err(|e| io(e.error))?;
            }
        }
    } else {
        tmp.persist(path).map_err(|e| io(e.error))?;
    }
    // The rename itself is durable once the directory is synced (best effort: not every
    // file system can sync a directory).
    if durability == Durability::Synced {
        if let Ok(d) = std::fs::File::open(dir) {
            let _ = d.sync_all();
        }
    }
    Ok(())
}

/// The swap of [`write_atomic_checked`]'s compare-and-swap: the temporary file `tmp`
/// (holding `data`) exchanged into `path` and what came out compared with `read`, or, for a
/// file that must still be missing, renamed there only if nothing is. What is left at the
/// temporary path is removed when `tmp` drops.
fn swap_checked(
    tmp: &tempfile::NamedTempFile,
    path: &Path,
    data: &[u8],
    read: Option<&[u8]>,
) -> std::io::Result<Swap> {
    let Some(read) = read else {
        return Ok(match swap::rename_no_replace(tmp.path(), path)? {
            true => Swap::Done,
            false => Swap::LeftAlone,
        });
    };
    let mut was_expected = |at: Option<&Path>| -> Result<bool> {
        Ok(at.is_some_and(|at| std::fs::read(at).ok().as_deref() == Some(read)))
    };
    let is_ours = |at: &Path| std::fs::read(at).is_ok_and(|d| d == data);
    swap::swap_in(tmp.path(), path, &mut was_expected, &is_ours)
        .map_err(|e| std::io::Error::other(e.to_string()))
}

/// Whether `name` is one of this tool's temporary files: `.NAME.assetvc-tmp-XXXXXX`, or
/// `.assetvc-XXXXXX.tmp` as the merge driver named them before it used [`write_atomic`]'s.
fn is_temporary(name: &str) -> bool {
    name.starts_with('.') && name.contains(TEMP_MARK)
        || name.starts_with(".assetvc-") && name.ends_with(".tmp")
}

/// Removes this tool's temporary files older than a minute in `dir`, once per directory
/// per process (a directory of thousands of assets is listed once, not per file).
pub(crate) fn remove_stale_temporaries(dir: &Path) {
    static CLEANED: Mutex<Option<HashSet<PathBuf>>> = Mutex::new(None);
    {
        let Ok(mut cleaned) = CLEANED.lock() else {
            return;
        };
        if !cleaned
            .get_or_insert_with(HashSet::new)
            .insert(dir.to_path_buf())
        {
            return;
        }
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let now = SystemTime::now();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let ours = name.to_str().is_some_and(is_temporary);
        if !ours {
            continue;
        }
        let Ok(meta) = entry.metadata() else { continue };
        let old = meta
            .modified()
            .ok()
            .and_then(|m| now.duration_since(m).ok())
            .is_some_and(|age| age > STALE_AFTER);
        if meta.is_file() && old {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Compare-and-swap: the file is replaced exactly when it still holds what was
        /// read; otherwise it keeps what is there (a save made meanwhile) and the write
        /// is refused naming it.
        #[test]
        fn a_file_is_replaced_only_if_it_holds_what_was_read(
            read in proptest::collection::vec(proptest::num::u8::ANY, 0..40),
            saved in proptest::option::of(proptest::collection::vec(proptest::num::u8::ANY, 0..40)),
            data in proptest::collection::vec(proptest::num::u8::ANY, 0..40),
        ) {
            let dir = tempfile::tempdir().unwrap();
            let p = dir.path().join("a.level");
            let now = saved.unwrap_or_else(|| read.clone());
            std::fs::write(&p, &now).unwrap();
            let result = write_atomic_if_unchanged(&p, &read, &data);
            if now == read {
                proptest::prop_assert!(result.is_ok(), "{:?}", result);
                proptest::prop_assert_eq!(std::fs::read(&p).unwrap(), data);
            } else {
                let refused = matches!(result, Err(Error::Refused { .. }));
                proptest::prop_assert!(refused, "{:?}", result);
                proptest::prop_assert_eq!(std::fs::read(&p).unwrap(), now);
            }
            proptest::prop_assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        }
    }

    #[test]
    fn regular_files_are_replaced_and_no_temporary_is_left() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.level");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1);
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_and_directories_are_refused_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("outside");
        std::fs::write(&target, "keep").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        assert!(matches!(write_atomic(&link, b"x"), Err(Error::Symlink(_))));
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read(&target).unwrap(), b"keep");
        assert!(matches!(
            write_atomic(dir.path(), b"x"),
            Err(Error::Directory(_))
        ));
    }

    #[test]
    fn stale_temporaries_of_ours_are_removed_fresh_ones_and_others_kept() {
        let dir = tempfile::tempdir().unwrap();
        let stale = dir.path().join(".a.level.assetvc-tmp-XYZ123");
        let fresh = dir.path().join(".b.level.assetvc-tmp-ABC456");
        let other = dir.path().join(".other.tmp");
        let driver = dir.path().join(".assetvc-Qw3rTy.tmp");
        for p in [&stale, &fresh, &other, &driver] {
            std::fs::write(p, "x").unwrap();
        }
        let old = SystemTime::now() - Duration::from_secs(3600);
        std::fs::File::options()
            .write(true)
            .open(&stale)
            .unwrap()
            .set_modified(old)
            .unwrap();
        for p in [&other, &driver] {
            std::fs::File::options()
                .write(true)
                .open(p)
                .unwrap()
                .set_modified(old)
                .unwrap();
        }
        write_atomic(&dir.path().join("c.level"), b"c").unwrap();
        assert!(!stale.exists() && !driver.exists());
        assert!(fresh.exists() && other.exists());
    }
}
