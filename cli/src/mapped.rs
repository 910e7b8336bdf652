//! Large merge inputs read through a memory mapping of their file.
//!
//! Reading a version copies the file into fresh memory, and on the machines measured the
//! first touch of fresh memory is most of the cost: on the 100,000-entity merge (three
//! files of 19.5 MB) reading took 25-75 ms of a 300-400 ms merge, a mapping of the same
//! files (pages already in the page cache) 8 ms. So a version of [`MAP_FROM`] bytes or
//! more that is a regular file is parsed from its mapping ([`sjson::Document::parse_backed`]).
//!
//! A mapping reads the file as it is on disk while the merge runs. That is sound while
//! nothing changes the file, the condition under which git maps worktree files for
//! `git diff` and ripgrep maps the files it searches:
//! - the merge driver's versions are git's own temporary copies (`%O`, `%A`, `%B`), which
//!   nothing else writes;
//! - assetvc writes every result, `%A` included, to a new file renamed into place, so
//!   its own writes never change a mapped file (the mapping keeps the old one);
//! - `merge-file`'s versions are files someone named to merge. Another program truncating
//!   one of them during the merge ends the process with SIGBUS before anything is
//!   written.
//!
//! Text that is not UTF-8 is not mapped: the caller reads it and reports where it breaks.

use std::fs::File;

/// Files from this size on are mapped (the size from which the three versions are read
/// in parallel: below it a mapping's system calls cost about what a copy does).
pub const MAP_FROM: u64 = 1 << 20;

/// A version's text, mapped and checked to be UTF-8 once.
pub struct MappedText(memmap2::Mmap);

impl MappedText {
    /// `file` mapped, when it is a regular file of [`MAP_FROM`] bytes or more whose text is
    /// UTF-8; `None` otherwise (read it instead).
    pub fn of(file: &File) -> Option<MappedText> {
        let meta = file.metadata().ok()?;
        if !meta.is_file() || meta.len() < MAP_FROM {
            return None;
        }
        // Populated when mapped: the merge reads every byte, and one call maps the pages
        // the file's reading left in the page cache where a fault each took longer.
        // SAFETY: the mapping is read-only and private. Its bytes stay those of the file
        // while nothing changes the file, the condition the module's documentation
        // describes (git's temporary copies; results written through a rename).
        let map = unsafe { memmap2::MmapOptions::new().populate().map(file) }.ok()?;
        std::str::from_utf8(&map).ok()?;
        Some(MappedText(map))
    }
}

impl sjson::Backing for MappedText {
    fn text(&self) -> &str {
        // SAFETY: `of` checked that the bytes are UTF-8, and they do not change (see
        // the SAFETY note there).
        unsafe { std::str::from_utf8_unchecked(&self.0) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write as _;

    #[test]
    fn a_large_utf8_file_is_mapped_a_small_or_broken_one_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, bytes: &[u8]| {
            let path = dir.path().join(name);
            File::create(&path).unwrap().write_all(bytes).unwrap();
            File::open(path).unwrap()
        };
        let large = "a = \"é\"\n".repeat((MAP_FROM as usize) / 8 + 1);
        let mapped = MappedText::of(&write("large", large.as_bytes())).expect("mapped");
        assert_eq!(sjson::Backing::text(&mapped), large);
        assert!(MappedText::of(&write("small", b"a = 1\n")).is_none());
        let mut broken = large.clone().into_bytes();
        broken[100] = 0xff;
        assert!(MappedText::of(&write("broken", &broken)).is_none());
    }
}
