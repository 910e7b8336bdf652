//! The process's allocator: the system allocator, asking Linux for transparent huge pages
//! on large blocks.
//!
//! A 100,000-entity merge touches about 200 MB of fresh memory (three documents, their
//! node tables, the merged text and its parse). With 4 KiB pages that is about 67,000 page
//! faults, and faulting fresh pages was a third of the merge's CPU time (BENCHMARKS.md,
//! "Session 5"). Where transparent huge pages are enabled only on request
//! (`/sys/kernel/mm/transparent_hugepage/enabled` = `madvise`, as on the development
//! machine and Ubuntu's default), a block of [`LARGE`] bytes or more, up to [`HUGEST`],
//! is advised `MADV_HUGEPAGE`: its aligned 2 MiB stretches then fault in whole. Small
//! blocks (a driver call on a small file) go to the system allocator untouched. The advice
//! is a hint: when the kernel refuses it or has no huge page free, the block is an
//! ordinary one.
//!
//! glibc's threshold above which a block is mapped on its own (and unmapped when freed)
//! is fixed at its initial 128 KiB ([`fix_mmap_threshold`]). Left to itself, glibc raises
//! it to the size of each mapped block freed, up to 32 MiB: once a merge frees base (19.5
//! MB at 100k entities), the blocks of the next steps (the result's node table, the
//! printer's and the checks' tables) came from the heap and stayed in the process when
//! freed; the end of a 100,000-entity merge held 30 MB more than its live memory.
//!
//! Blocks above [`HUGEST`] are not advised: on the 1M-entity merge (196 MB a version,
//! blocks of 100-200 MB) the advice doubled the kernel's time (3.4-3.6 s against
//! 1.7-1.8 s) for 0.7 s less user time, 10% more CPU in all (BENCHMARKS.md, "100k to
//! 1M"), where on the 100k merge (blocks up to 21 MB) it made no difference beyond noise.

use std::alloc::{GlobalAlloc, Layout, System};

/// The size of a huge page on x86-64 and aarch64 with 4 KiB base pages.
const HUGE_PAGE: usize = 2 << 20;

/// Blocks from this size on are advised: the advice's system call is noise beside
/// faulting in a block this large. (On the 100k merge, advising from 8 MiB on left a
/// fifth more page faults than advising from 2 MiB on.)
pub const LARGE: usize = HUGE_PAGE;

/// Blocks above this size are not advised (see the module's documentation).
pub const HUGEST: usize = 64 << 20;

/// [`System`], with large blocks advised to use transparent huge pages.
pub struct HugePages;

// SAFETY: every call is forwarded to `System` unchanged; the advice only changes how the
// kernel backs pages inside the block that `System` returned, never its contents.
unsafe impl GlobalAlloc for HugePages {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc` is `System.alloc`'s.
        let block = unsafe { System.alloc(layout) };
        advise(block, layout.size());
        block
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        let block = unsafe { System.alloc_zeroed(layout) };
        advise(block, layout.size());
        block
    }

    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        // SAFETY: `block` came from `System` with `layout` (every allocation goes there).
        unsafe { System.dealloc(block, layout) }
    }

    unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as for `dealloc`; the caller's contract is `System.realloc`'s.
        let grown = unsafe { System.realloc(block, layout, new_size) };
        advise(grown, new_size);
        grown
    }
}

/// Advises the whole huge pages inside `len` bytes at `block`, when the block is large.
#[cfg(target_os = "linux")]
fn advise(block: *mut u8, len: usize) {
    if block.is_null() {
        return;
    }
    if let Some((start, pages)) = huge_pages_inside(block as usize, len) {
        // SAFETY: `start..start + pages` lies inside the block `System` just returned,
        // which this process owns; MADV_HUGEPAGE changes no byte of it, and a refusal is
        // harmless.
        unsafe { libc::madvise(start as *mut libc::c_void, pages, libc::MADV_HUGEPAGE) };
    }
}

#[cfg(not(target_os = "linux"))]
fn advise(_: *mut u8, _: usize) {}

/// The mmap threshold glibc starts with, kept (see the module's documentation).
pub const MMAP_THRESHOLD: usize = 128 << 10;

/// Fixes glibc's mmap threshold at [`MMAP_THRESHOLD`]: setting it stops glibc from raising
/// it as blocks are freed. Called once, first thing, by each binary's entry point (not on
/// every allocation).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub fn fix_mmap_threshold() {
    // SAFETY: `mallopt` only sets a parameter of glibc's allocator (it allocates nothing of
    // Rust's); a refusal (0) leaves glibc as it was.
    unsafe { libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD as libc::c_int) };
}

/// glibc's threshold: nothing to fix elsewhere.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn fix_mmap_threshold() {}

/// The aligned huge pages inside a block of `len` bytes at address `start`, as (first
/// byte, length), when the block is [`LARGE`], not above [`HUGEST`], and holds at least one.
fn huge_pages_inside(start: usize, len: usize) -> Option<(usize, usize)> {
    if !(LARGE..=HUGEST).contains(&len) {
        return None;
    }
    let first = start.checked_next_multiple_of(HUGE_PAGE)?;
    let end = start.checked_add(len)? / HUGE_PAGE * HUGE_PAGE;
    (end > first).then(|| (first, end - first))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_blocks_are_left_alone() {
        assert_eq!(huge_pages_inside(0, LARGE - 1), None);
        assert_eq!(huge_pages_inside(HUGE_PAGE, 4096), None);
    }

    #[test]
    fn only_whole_aligned_huge_pages_inside_the_block_are_advised() {
        // An aligned block: all of it.
        assert_eq!(
            huge_pages_inside(HUGE_PAGE, LARGE),
            Some((HUGE_PAGE, LARGE))
        );
        // glibc puts a 16-byte header before an mmapped block: the first and last
        // partial huge pages are left out.
        let start = 7 * HUGE_PAGE + 16;
        let (first, len) = huge_pages_inside(start, 5 * HUGE_PAGE).unwrap();
        assert_eq!(first, 8 * HUGE_PAGE);
        assert_eq!(len, 4 * HUGE_PAGE);
        assert!(first >= start && first + len <= start + 5 * HUGE_PAGE);
    }

    #[test]
    fn a_block_at_the_end_of_the_address_space_does_not_overflow() {
        assert_eq!(huge_pages_inside(usize::MAX - LARGE, LARGE + 1), None);
    }

    #[test]
    fn blocks_above_the_hugest_are_left_alone() {
        assert_eq!(
            huge_pages_inside(HUGE_PAGE, HUGEST),
            Some((HUGE_PAGE, HUGEST))
        );
        assert_eq!(huge_pages_inside(HUGE_PAGE, HUGEST + 1), None);
        assert_eq!(huge_pages_inside(HUGE_PAGE, 100 * HUGEST), None);
    }

    #[test]
    fn large_blocks_hold_what_is_written_to_them() {
        // Through the global allocator (this allocator in the test binary too): grown
        // by realloc across the threshold, then read back.
        let mut v: Vec<u64> = Vec::new();
        for i in 0..(3 * LARGE / 8) as u64 {
            v.push(i ^ 0x5555);
        }
        assert!(v.iter().enumerate().all(|(i, x)| *x == i as u64 ^ 0x5555));
        let zeroed = vec![0u8; 2 * LARGE];
        assert!(zeroed.iter().all(|b| *b == 0));
    }
}
