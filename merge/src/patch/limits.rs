//! How large a JSON Patch may make its document (issue #30 item 9): forty `copy`
//! operations that each copy the document into itself reach gigabytes. A patch is refused,
//! with nothing written, when it has more operations than allowed, when the document
//! would grow past the size limit at any step, or when its `copy` operations together
//! copy more bytes than that limit.

use super::PatchError;

/// The limits a patch is applied within. Sizes are about the bytes of the document as
/// compact JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PatchLimits {
    /// The most operations a patch may have.
    pub max_operations: usize,
    /// The largest the document may grow to while the patch is applied, in bytes; also
    /// the most bytes all `copy` operations together may copy.
    pub max_size: usize,
}

impl PatchLimits {
    /// The default limit on operations.
    pub const DEFAULT_MAX_OPERATIONS: usize = 1_000_000;
    /// The smallest default size limit (16 MiB; a document of small values takes some 20
    /// to 40 times its JSON size in memory while it is patched).
    pub const MIN_DEFAULT_SIZE: usize = 16 << 20;
    /// The default size limit, as a multiple of the input (target and patch).
    pub const SIZE_FACTOR: usize = 8;

    /// The default limits for a target and a patch of `input` bytes together: at most
    /// [`Self::DEFAULT_MAX_OPERATIONS`] operations, and a document of at most
    /// [`Self::SIZE_FACTOR`] times the input or [`Self::MIN_DEFAULT_SIZE`], whichever is
    /// larger.
    pub fn for_input(input: usize) -> PatchLimits {
        PatchLimits {
            max_operations: Self::DEFAULT_MAX_OPERATIONS,
            max_size: input
                .saturating_mul(Self::SIZE_FACTOR)
                .max(Self::MIN_DEFAULT_SIZE),
        }
    }

    /// Refuses a patch of `count` operations when that is more than allowed.
    pub(super) fn check_operations(&self, count: usize) -> Result<(), PatchError> {
        if count <= self.max_operations {
            return Ok(());
        }
        Err(PatchError {
            index: None,
            op: None,
            offset: 0,
            reason: format!(
                "the patch has {count} operations, more than the limit of {} \
                 (--max-operations)",
                self.max_operations
            ),
        })
    }
}

/// The size of the document and the bytes copied so far, against the limits.
pub(super) struct Budget {
    max: usize,
    size: usize,
    copied: usize,
}

impl Budget {
    /// For a document of `size` bytes.
    pub(super) fn new(limits: &PatchLimits, size: usize) -> Budget {
        Budget {
            max: limits.max_size,
            size,
            copied: 0,
        }
    }

    /// No limit (for [`super::apply_op`]).
    pub(super) fn unlimited() -> Budget {
        Budget {
            max: usize::MAX,
            size: 0,
            copied: 0,
        }
    }

    /// The document's size as counted.
    #[cfg(test)]
    pub(super) fn size(&self) -> usize {
        self.size
    }

    /// Counts a copy of `bytes`, refusing it past the limit.
    pub(super) fn copy(&mut self, bytes: usize) -> Result<(), String> {
        self.copied = self.copied.saturating_add(bytes);
        if self.copied > self.max {
            return Err(format!(
                "the copies of this patch would copy more than the size limit of {} bytes \
                 (--max-size)",
                self.max
            ));
        }
        Ok(())
    }

    /// Counts the document growing by `delta` bytes (shrinking when negative), refusing a
    /// size past the limit.
    pub(super) fn grow(&mut self, delta: isize) -> Result<(), String> {
        self.size = self.size.saturating_add_signed(delta);
        if self.size > self.max {
            return Err(format!(
                "the document would grow to about {} bytes, past the size limit of {} bytes \
                 (--max-size)",
                self.size, self.max
            ));
        }
        Ok(())
    }
}
