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
///
/// While it is held, `.git/assetvc/index.lock.owner` names this process: a lock that a
/// killed assetvc left behind (its owner is gone) is taken over by the next run instead of
/// wedging every command until someone deletes it by hand; a lock of a live process, or
/// one git took (no owner note), is refused as git would.
pub struct IndexLock {
    lock: gix::lock::File,
    index: gix::index::File,
    /// The checksum of what [`IndexLock::stage`] wrote, once it did.
    staged: Option<gix::ObjectId>,
    /// The owner note, removed when the lock is released (dropped after the lock file).
    owner: OwnerNote,
}

/// `.git/assetvc/index.lock.owner`, naming the process that holds `index.lock`; removed
/// when dropped.
struct OwnerNote(PathBuf);

impl Drop for OwnerNote {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

impl IndexLock {
    /// Takes `index.lock` of `repo` (failing at once when another process holds it) and reads
    /// the index under it.
    pub fn acquire(repo: &gix::Repository) -> Result<Self> {
        let path = repo.index_path();
        let owner = repo.git_dir().join("assetvc").join("index.lock.owner");
        let take = || {
            gix::lock::File::acquire_to_update_resource(
                &path,
                gix::lock::acquire::Fail::Immediately,
                None,
                0,
            )
        };
        let lock = match take() {
            Ok(lock) => lock,
            Err(_) if owner_is_gone(&owner) => {
                // Left by a killed assetvc: its work is journaled (or was never recorded).
                let _ = std::fs::remove_file(lock_path(&path));
                take().map_err(|_| Error::Locked {
                    lock: lock_path(&path),
                })?
            }
            Err(_) => {
                return Err(Error::Locked {
                    lock: lock_path(&path),
                })
            }
        };
        if let Some(dir) = owner.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        let _ = std::fs::write(&owner, format!("{}\n", std::process::id()));
        let index = current_index(repo)?;
        Ok(IndexLock {
            lock,
            index,
            staged: None,
            owner: OwnerNote(owner),
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
        let (_, checksum) = index
            .write_to(&mut out, Default::default())
            .map_err(Error::git)?;
        out.flush().map_err(io)?;
        drop(out);
        self.staged = Some(checksum);
        Ok(())
    }

    /// The checksum git keeps at the end of the index file, of what [`IndexLock::stage`]
    /// wrote: how a rerun tells whether the lock replaced the index before a kill.
    pub fn staged_checksum(&self) -> Option<gix::ObjectId> {
        self.staged
    }

    /// Replaces the index by what [`IndexLock::stage`] wrote (or only releases the lock when
    /// nothing was staged).
    pub fn commit(self) -> Result<()> {
        if self.staged.is_none() {
            return Ok(());
        }
        let IndexLock { lock, owner, .. } = self;
        lock.commit()
            .map_err(|e| Error::io("cannot replace the index by index.lock", e.error))?;
        drop(owner);
        Ok(())
    }
}

/// Whether the owner note names an assetvc process that no longer runs.
fn owner_is_gone(owner: &std::path::Path) -> bool {
    std::fs::read_to_string(owner)
        .ok()
        .and_then(|text| text.trim().parse::<u32>().ok())
        .is_some_and(|pid| pid != std::process::id() && !crate::migrate_journal::process_alive(pid))
}

fn lock_path(index: &std::path::Path) -> PathBuf {
    let mut name = index.file_name().unwrap_or_default().to_os_string();
    name.push(".lock");
    index.with_file_name(name)
}
