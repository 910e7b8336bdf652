//! Proof from stat data alone that a file did not change between the checkout's check and
//! its swap, so that what the swap takes out need not be read and hashed again.
//!
//! git's racy-git rule, against a clock of our own: before the check, a file is created in
//! the worktree's root and its modification time read (a sample of the file system's own
//! clock). A file last modified strictly before that sample, whose device, inode, size and
//! modification time are the same after the swap as when the check began, has not been
//! written since: any write after the sample gives it a modification time at or after the
//! sample. (The change time is not compared: the swap's rename changes it.) A file on
//! another file system than the root, or modified at or after the sample, is read again as
//! before. Like git, this trusts a program that writes a file to change its modification
//! time; an editor that restores an old one after writing is not seen, by git either.

use std::collections::HashMap;
use std::path::Path;

use gix::bstr::{BStr, BString};

use super::OnDisk;

/// A sample of the worktree file system's clock: the modification time of a file created
/// in its root, and that file system's device.
#[derive(Debug, Clone, Copy)]
pub(super) struct Clock {
    dev: u64,
    at: (i64, i64),
}

/// One version of a file as its stat data identify it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Version {
    dev: u64,
    ino: u64,
    size: u64,
    mtime: (i64, i64),
}

impl Clock {
    /// Samples the clock of the file system of `root` (a file created there and removed);
    /// `None` when that cannot be done (the proof is then never given).
    #[cfg(unix)]
    pub(super) fn sample(root: &Path) -> Option<Clock> {
        let probe = tempfile::Builder::new()
            .prefix(".assetvc-clock-")
            .tempfile_in(root)
            .ok()?;
        let (dev, _, _, mtime, mtime_ns, _, _) =
            super::fs::fence_of(&probe.as_file().metadata().ok()?);
        Some(Clock {
            dev,
            at: (mtime, mtime_ns),
        })
    }

    /// Never sampled where stat data lack inodes (so no version is ever known there).
    #[cfg(not(unix))]
    pub(super) fn sample(_root: &Path) -> Option<Clock> {
        None
    }

    /// The version of the regular file at `path`, when its stat data can later prove it
    /// unchanged: on the sampled file system and last modified strictly before the sample.
    pub(super) fn version(&self, path: &Path) -> Option<Version> {
        let v = version_of(path)?;
        (v.dev == self.dev && v.mtime < self.at).then_some(v)
    }
}

impl Version {
    /// Whether the file at `path` is still this version.
    pub(super) fn still_at(&self, path: &Path) -> bool {
        version_of(path) == Some(*self)
    }
}

/// The version of the regular file at `path`: its [`super::fs::fence`] without the change
/// time (which the swap's rename changes).
fn version_of(path: &Path) -> Option<Version> {
    let m = std::fs::symlink_metadata(path).ok()?;
    let (dev, ino, size, mtime, mtime_ns, _, _) = super::fs::fence_of(&m);
    m.is_file().then_some(Version {
        dev,
        ino,
        size,
        mtime: (mtime, mtime_ns),
    })
}

/// What the check found at each path it could prove later unchanged: the version and what
/// it holds.
#[derive(Debug, Default)]
pub(super) struct Settled(HashMap<BString, (Version, OnDisk)>);

impl Settled {
    /// Notes that `rela`, as `version`, holds `on_disk`.
    pub(super) fn note(&mut self, rela: &BStr, version: Version, on_disk: OnDisk) {
        self.0.insert(rela.to_owned(), (version, on_disk));
    }

    /// What the file at `at` (what came out of `rela`'s swap) holds, when its stat data
    /// prove it is the version the check read.
    pub(super) fn known(&self, rela: &BStr, at: &Path) -> Option<OnDisk> {
        let (version, on_disk) = self.0.get(rela)?;
        version.still_at(at).then_some(*on_disk)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gix::bstr::ByteSlice;

    #[test]
    fn an_old_file_is_known_until_it_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("level.sjson");
        std::fs::write(&file, "x = 1\n").unwrap();
        // The file is older than the sample: set its time a minute back.
        let old = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
        std::fs::File::options()
            .write(true)
            .open(&file)
            .unwrap()
            .set_modified(old)
            .unwrap();
        let clock = Clock::sample(dir.path()).unwrap();
        let version = clock.version(&file).expect("older than the sample");
        let mut settled = Settled::default();
        let rela = b"level.sjson".as_bstr();
        settled.note(rela, version, OnDisk::Missing);
        assert_eq!(settled.known(rela, &file), Some(OnDisk::Missing));
        // Renamed elsewhere (as the swap does): the same version.
        let moved = dir.path().join(".moved");
        std::fs::rename(&file, &moved).unwrap();
        assert_eq!(settled.known(rela, &moved), Some(OnDisk::Missing));
        // Written (same size): the time moved past the sample, so it is no longer known.
        std::fs::write(&moved, "x = 2\n").unwrap();
        assert_eq!(settled.known(rela, &moved), None);
    }

    /// What may happen to a file between the check and the swap.
    #[derive(Debug, Clone, Copy)]
    enum Op {
        Rename,
        Chmod,
        WriteSameSize,
        WriteLonger,
        Truncate,
        Append,
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

        /// A version is known again exactly when no write came after the sample, whatever
        /// else happened to the file (renames, a mode change).
        #[test]
        fn only_an_unwritten_file_is_known(ops in proptest::collection::vec(0u8..6, 0..5)) {
            let ops: Vec<Op> = ops.iter().map(|o| match o {
                0 => Op::Rename, 1 => Op::Chmod, 2 => Op::WriteSameSize,
                3 => Op::WriteLonger, 4 => Op::Truncate, _ => Op::Append,
            }).collect();
            let dir = tempfile::tempdir().unwrap();
            let mut file = dir.path().join("a");
            std::fs::write(&file, "x = 1\n").unwrap();
            let old = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
            std::fs::File::options().write(true).open(&file).unwrap().set_modified(old).unwrap();
            let clock = Clock::sample(dir.path()).unwrap();
            let version = clock.version(&file).unwrap();
            let mut written = false;
            for (i, op) in ops.iter().enumerate() {
                match op {
                    Op::Rename => {
                        let to = dir.path().join(format!("r{i}"));
                        std::fs::rename(&file, &to).unwrap();
                        file = to;
                    }
                    Op::Chmod => {
                        use std::os::unix::fs::PermissionsExt;
                        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
                    }
                    Op::WriteSameSize => { std::fs::write(&file, "x = 2\n").unwrap(); written = true; }
                    Op::WriteLonger => { std::fs::write(&file, "x = 22\n").unwrap(); written = true; }
                    Op::Truncate => {
                        std::fs::File::options().write(true).open(&file).unwrap().set_len(0).unwrap();
                        written = true;
                    }
                    Op::Append => {
                        use std::io::Write;
                        std::fs::File::options().append(true).open(&file).unwrap().write_all(b"y").unwrap();
                        written = true;
                    }
                }
            }
            proptest::prop_assert_eq!(version.still_at(&file), !written, "{:?}", ops);
        }
    }

    #[test]
    fn a_file_as_new_as_the_sample_is_never_known() {
        let dir = tempfile::tempdir().unwrap();
        let clock = Clock::sample(dir.path()).unwrap();
        let file = dir.path().join("new");
        std::fs::write(&file, "x").unwrap();
        assert_eq!(clock.version(&file), None);
    }
}
