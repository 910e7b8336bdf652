//! The full tree indexes an [`ObjectIndex`](super::ObjectIndex) keeps in memory: the few
//! most recently used, so that a walk back through history (each step derives a parent's
//! index from its child's) and the build forward (each step applies a delta to its
//! parent's) never re-read an index they just had, even across the two sides of a merge.

use gix::ObjectId;

use super::TreeIndex;

/// How many full indexes are kept (a 10,000-entity level's is a few MB).
const KEEP: usize = 8;

/// Recently used full indexes with their chain depth, most recent last.
#[derive(Default)]
pub(super) struct Memo {
    entries: Vec<(ObjectId, TreeIndex, u32)>,
}

impl Memo {
    /// The index of `tree` and its depth, if kept (and marked as just used).
    pub(super) fn get(&mut self, tree: &ObjectId) -> Option<(&TreeIndex, u32)> {
        let at = self.entries.iter().position(|(t, _, _)| t == tree)?;
        let entry = self.entries.remove(at);
        self.entries.push(entry);
        self.entries.last().map(|(_, index, depth)| (index, *depth))
    }

    /// Whether the index of `tree` is kept.
    pub(super) fn contains(&self, tree: &ObjectId) -> bool {
        self.entries.iter().any(|(t, _, _)| t == tree)
    }

    /// Removes and returns the index of `tree`, if kept.
    pub(super) fn take(&mut self, tree: &ObjectId) -> Option<(TreeIndex, u32)> {
        let at = self.entries.iter().position(|(t, _, _)| t == tree)?;
        let (_, index, depth) = self.entries.remove(at);
        Some((index, depth))
    }

    /// Keeps the index of `tree`, forgetting the least recently used beyond [`KEEP`].
    pub(super) fn put(&mut self, tree: ObjectId, index: TreeIndex, depth: u32) {
        self.entries.retain(|(t, _, _)| *t != tree);
        if self.entries.len() >= KEEP {
            self.entries.remove(0);
        }
        self.entries.push((tree, index, depth));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(n: u8) -> ObjectId {
        ObjectId::from_bytes_or_panic(&[n; 20])
    }

    #[test]
    fn keeps_the_most_recently_used() {
        let mut memo = Memo::default();
        for n in 0..KEEP as u8 {
            memo.put(tree(n), TreeIndex::default(), n as u32);
        }
        // Using tree 0 makes tree 1 the least recently used.
        assert_eq!(memo.get(&tree(0)).map(|(_, d)| d), Some(0));
        memo.put(tree(100), TreeIndex::default(), 100);
        assert!(memo.contains(&tree(0)));
        assert!(!memo.contains(&tree(1)));
        assert_eq!(memo.take(&tree(100)).map(|(_, d)| d), Some(100));
        assert!(!memo.contains(&tree(100)));
    }
}
