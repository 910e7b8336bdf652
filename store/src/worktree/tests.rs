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

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Conflict stages set for many paths at once: each conflicted path holds exactly its
    /// given stages and no stage-0 entry, every other entry is kept, the index stays sorted.
    #[test]
    fn all_conflict_stages_are_set_at_once(
        files in proptest::collection::btree_set("[a-c]{1,2}(/[a-c]{1,2})?", 1..12),
        picks in proptest::collection::vec((any::<proptest::sample::Index>(), 0u8..8), 0..6),
    ) {
        use gix::bstr::{BStr, ByteSlice};
        use gix::index::entry::{Flags, Stage, Stat};
        let kind = gix::hash::Kind::Sha1;
        let id = |n: u8| gix::ObjectId::from_bytes_or_panic(&[n; 20]);
        let mut index = gix::index::State::new(kind);
        let files: Vec<String> = files.into_iter().collect();
        for f in &files {
            index.dangerously_push_entry(Stat::default(), id(0), Flags::empty(), Mode::FILE, f.as_bytes().as_bstr());
        }
        index.sort_entries();
        let mut conflicts: std::collections::BTreeMap<&str, super::Stages> = Default::default();
        for (pick, sides) in &picks {
            let path = files[pick.index(files.len())].as_str();
            let stage = |bit: u8, n: u8| (sides & bit != 0).then(|| (id(n), Mode::FILE));
            conflicts.insert(path, [stage(1, 1), stage(2, 2), stage(4, 3)]);
        }
        super::set_all_conflict_stages(
            &mut index,
            conflicts.iter().map(|(p, s)| (BStr::new(p.as_bytes()), *s)),
        );
        let sorted = index.entries().windows(2).all(|w| {
            let (a, b) = (&w[0], &w[1]);
            (a.path(&index), a.stage() as u32) < (b.path(&index), b.stage() as u32)
        });
        prop_assert!(sorted);
        for f in &files {
            let at: Vec<(u32, gix::ObjectId)> = index
                .entries()
                .iter()
                .filter(|e| e.path(&index) == f.as_bytes())
                .map(|e| (e.stage() as u32, e.id))
                .collect();
            let want: Vec<(u32, gix::ObjectId)> = match conflicts.get(f.as_str()) {
                Some(stages) => stages
                    .iter()
                    .enumerate()
                    .filter_map(|(i, s)| s.map(|(id, _)| (i as u32 + 1, id)))
                    .collect(),
                None => vec![(Stage::Unconflicted as u32, id(0))],
            };
            prop_assert_eq!(at, want);
        }
    }
}
