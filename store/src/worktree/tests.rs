//! Compare-and-swap of single worktree writes.

use gix::index::entry::Mode;
use proptest::prelude::*;

use super::{OnDisk, Worktree};

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// A file is replaced (or removed) exactly when what is on disk is what the caller
    /// checked; a file saved meanwhile keeps its bytes.
    #[test]
    fn a_write_or_removal_happens_only_over_what_was_checked(
        read in "[a-z\n]{0,12}",
        saved in proptest::option::of("[a-z\n]{0,12}"),
        new in "[a-z\n]{0,12}",
        remove in any::<bool>(),
    ) {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        crate::test_git::git(dir, &["init", "-q"]);
        let now = saved.unwrap_or_else(|| read.clone());
        let path = dir.join("a.txt");
        std::fs::write(&path, &now).unwrap();
        let repo = gix::open(dir).unwrap();
        let kind = repo.object_hash();
        let read_id = gix::objs::compute_hash(kind, gix::objs::Kind::Blob, read.as_bytes()).unwrap();
        let new_id = repo.write_blob(new.as_bytes()).unwrap().detach();
        let index = gix::index::State::new(kind);
        let mut wt = Worktree::new(&repo).unwrap();
        let expected = |d: &OnDisk| d.is(&read_id, Mode::FILE, false);
        let done = if remove {
            wt.remove_if("a.txt".into(), &index, &expected).unwrap()
        } else {
            wt.write_if("a.txt".into(), &new_id, Mode::FILE, &index, &expected)
                .unwrap()
                .is_some()
        };
        prop_assert_eq!(done, now == read);
        let after = std::fs::read_to_string(&path).ok();
        let wanted = match (done, remove) {
            (false, _) => Some(now),
            (true, true) => None,
            (true, false) => Some(new),
        };
        prop_assert_eq!(after, wanted);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    /// The swap without a window: whatever stands at the path when the swap happens (the
    /// content read, or a save that came after the compare, or nothing), a save is never
    /// replaced and what was read always is.
    #[test]
    fn the_swap_replaces_only_what_was_read(
        read in "[a-z]{0,8}",
        at_swap in proptest::option::of("[a-z]{0,8}"),
        new in "[a-z]{1,8}",
    ) {
        let tmp = tempfile::tempdir().unwrap();
        let (path, temp) = (tmp.path().join("a.txt"), tmp.path().join(".a.txt.new"));
        if let Some(now) = &at_swap {
            std::fs::write(&path, now).unwrap();
        }
        std::fs::write(&temp, &new).unwrap();
        let mut was_expected = |at: Option<&std::path::Path>| -> crate::error::Result<bool> {
            Ok(at.is_some_and(|at| std::fs::read_to_string(at).unwrap() == read))
        };
        let is_ours = |at: &std::path::Path| std::fs::read_to_string(at).is_ok_and(|d| d == new);
        let swapped = super::swap::swap_in(&temp, &path, &mut was_expected, &is_ours).unwrap();
        if swapped == super::swap::Swap::Unsupported {
            return Ok(()); // a file system without the exchange: compare then rename
        }
        let after = std::fs::read_to_string(&path).ok();
        if at_swap.as_deref() == Some(read.as_str()) {
            prop_assert_eq!(swapped, super::swap::Swap::Done);
            prop_assert_eq!(after, Some(new));
        } else {
            prop_assert_eq!(swapped, super::swap::Swap::LeftAlone);
            prop_assert_eq!(after, at_swap);
        }
    }
}
