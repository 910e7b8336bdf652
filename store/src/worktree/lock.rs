//! git's index lock discipline: `index.lock` is taken first, the index and HEAD are read
//! under it, the new index is written into the lock file, the ref moves with its expected
//! old value, and only then does the lock file replace the index. On any failure before the
//! last step the lock file is removed and nothing has moved.

use std::io::Write;
use std::path::PathBuf;

use crate::error::{Error, Result};
use crate::treemerge::current_index;

/// The repository's `index.lock`, held for the length of an operation that changes the
/// index (and usually a ref), with the index as it was read under the lock.
pub struct IndexLock {
    lock: gix::lock::File,
    index: gix::index::File,
    staged: bool,
}

impl IndexLock {
    /// Takes `index.lock` of `repo` (failing at once when another process holds it) and reads
    /// the index under it.
    pub fn acquire(repo: &gix::Repository) -> Result<Self> {
        let path = repo.index_path();
        let lock = gix::lock::File::acquire_to_update_resource(
            &path,
            gix::lock::acquire::Fail::Immediately,
            None,
            0,
        )
        .map_err(|_| Error::Locked {
            lock: lock_path(&path),
        })?;
        let index = current_index(repo)?;
        Ok(IndexLock {
            lock,
            index,
            staged: false,
        })
    }

    /// The index as read under the lock.
    pub fn index(&self) -> &gix::index::File {
        &self.index
    }

    /// Writes `index` into the lock file, replacing what an earlier call wrote; the index
    /// itself changes only at [`IndexLock::commit`]. The tree cache is dropped (gix writes it
    /// as read, which would be stale).
    pub fn stage(&mut self, index: &mut gix::index::File) -> Result<()> {
        index.remove_tree();
        index.remove_resolve_undo();
        let lock_file = self.lock.lock_path().to_path_buf();
        let io = |e: std::io::Error| Error::io(lock_file.display().to_string(), e);
        use std::io::Seek;
        self.lock.with_mut(|f| f.set_len(0)).map_err(io)?;
        self.lock.seek(std::io::SeekFrom::Start(0)).map_err(io)?;
        let mut out = std::io::BufWriter::with_capacity(64 * 1024, &mut self.lock);
        index
            .write_to(&mut out, Default::default())
            .map_err(Error::git)?;
        out.flush().map_err(io)?;
        drop(out);
        self.staged = true;
        Ok(())
    }

    /// Replaces the index by what [`IndexLock::stage`] wrote (or only releases the lock when
    /// nothing was staged).
    pub fn commit(self) -> Result<()> {
        if !self.staged {
            return Ok(());
        }
        self.lock
            .commit()
            .map_err(|e| Error::io("cannot replace the index by index.lock", e.error))?;
        Ok(())
    }
}

fn lock_path(index: &std::path::Path) -> PathBuf {
    let mut name = index.file_name().unwrap_or_default().to_os_string();
    name.push(".lock");
    index.with_file_name(name)
}
