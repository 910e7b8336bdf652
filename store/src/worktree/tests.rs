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
