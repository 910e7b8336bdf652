//! Reading a version's file again, unchanged, when a large merge that freed it needs it
//! again (`merge::coherence::BaseAgain`): the file is read again and accepted only if it
//! is what was read before (same length and hash).

use std::hash::Hasher;
use std::path::{Path, PathBuf};

use rustc_hash::FxHasher;

/// A file as it was read: its path, length and hash.
#[derive(Debug)]
pub struct FileAgain {
    path: PathBuf,
    len: usize,
    hash: u64,
}

impl FileAgain {
    /// For `text`, read from `path`; `None` when `text` is small enough to keep, or when
    /// `path` is not a regular file (a pipe cannot be read again).
    pub fn of(path: &Path, text: &str) -> Option<FileAgain> {
        let regular = || std::fs::metadata(path).is_ok_and(|m| m.is_file());
        (text.len() >= merge::FREE_BASE_FROM && regular()).then(|| FileAgain {
            path: path.to_path_buf(),
            len: text.len(),
            hash: hash(text.as_bytes()),
        })
    }

    /// The file's text again, if it is unchanged.
    pub fn read(&self) -> Option<String> {
        let bytes = std::fs::read(&self.path).ok()?;
        if bytes.len() != self.len || hash(&bytes) != self.hash {
            return None;
        }
        String::from_utf8(bytes).ok()
    }
}

fn hash(bytes: &[u8]) -> u64 {
    let mut h = FxHasher::default();
    h.write(bytes);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_read_again_only_while_it_is_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("base.sjson");
        let text = "x = 1\n".repeat(merge::FREE_BASE_FROM / 6 + 1);
        std::fs::write(&path, &text).unwrap();
        assert!(FileAgain::of(&path, "x = 1\n").is_none(), "small: kept");
        assert!(
            FileAgain::of(dir.path(), &text).is_none(),
            "not a file: kept"
        );
        let again = FileAgain::of(&path, &text).unwrap();
        assert_eq!(again.read().as_deref(), Some(&*text));
        // Same length, one byte changed.
        std::fs::write(&path, text.replacen('1', "2", 1)).unwrap();
        assert_eq!(again.read(), None);
        std::fs::remove_file(&path).unwrap();
        assert_eq!(again.read(), None);
    }
}
