//! Platform file helpers: removing what stands at a path, symlinks, the executable bit.

use std::path::Path;

use crate::error::{Error, Result};

pub(super) fn remove_existing(path: &Path) -> Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => {
            std::fs::remove_dir(path).map_err(|e| Error::io(path.display().to_string(), e))
        }
        Ok(_) => std::fs::remove_file(path).map_err(|e| Error::io(path.display().to_string(), e)),
        Err(_) => Ok(()),
    }
}

#[cfg(unix)]
pub(super) fn make_symlink(target: &Path, path: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(target, path)
}

#[cfg(windows)]
pub(super) fn make_symlink(target: &Path, path: &Path) -> std::io::Result<()> {
    std::os::windows::fs::symlink_file(target, path)
}

#[cfg(not(any(unix, windows)))]
pub(super) fn make_symlink(target: &Path, path: &Path) -> std::io::Result<()> {
    std::fs::write(path, target.to_string_lossy().as_bytes())
}

#[cfg(unix)]
pub(super) fn is_executable(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
pub(super) fn is_executable(_meta: &std::fs::Metadata) -> bool {
    false
}

/// The permissions git creates a checked-out file with (0777 for an executable, else
/// 0666); the process's umask takes its bits off, as for git.
#[cfg(unix)]
pub(super) fn new_file_permissions(executable: bool) -> std::fs::Permissions {
    use std::os::unix::fs::PermissionsExt;
    std::fs::Permissions::from_mode(if executable { 0o777 } else { 0o666 })
}

/// Device, inode, size, mtime (s, ns), ctime (s, ns).
pub(super) type Fence = (u64, u64, u64, i64, i64, i64, i64);

/// What identifies one version of the file at `path` without reading it: device, inode,
/// size, modification and change times (`None`: nothing there). A save by rename changes
/// the inode, one in place the size or the times.
pub(super) fn fence(path: &std::path::Path) -> Option<Fence> {
    std::fs::symlink_metadata(path).ok().map(|m| fence_of(&m))
}

/// [`fence`] of what `m` describes.
pub(super) fn fence_of(m: &std::fs::Metadata) -> Fence {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        (
            m.dev(),
            m.ino(),
            m.size(),
            m.mtime(),
            m.mtime_nsec(),
            m.ctime(),
            m.ctime_nsec(),
        )
    }
    #[cfg(not(unix))]
    {
        let nanos = m
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos() as i64);
        (0, 0, m.len(), nanos, 0, 0, 0)
    }
}
