use super::*;

/// A step marked `n` (in its `unresolved` field), at `path`.
fn st(path: &str, n: i64) -> FileStep {
    FileStep {
        path: path.to_string(),
        unresolved: Some(n.to_string()),
        ..FileStep::default()
    }
}

fn n_of(s: &FileStep) -> Option<i64> {
    s.unresolved.as_deref().and_then(|n| n.parse().ok())
}

fn op(key: &str) -> Operation {
    Operation {
        kind: OperationKind::Rebase,
        key: key.to_string(),
        label: format!("rebase {key}"),
        branch: Some("feature".into()),
        swapped: true,
    }
}

#[test]
fn steps_of_one_operation_are_grouped_and_a_new_key_starts_a_new_one() {
    let tmp = tempfile::tempdir().unwrap();
    let j = Journal::at(tmp.path());
    assert!(j.last().unwrap().is_none());
    j.begin(&op("a"))
        .unwrap()
        .append(&FileStep {
            path: "x".into(),
            step: Some("1/2".into()),
            ..FileStep::default()
        })
        .unwrap();
    j.begin(&op("a"))
        .unwrap()
        .append(&FileStep {
            path: "x".into(),
            step: Some("2/2".into()),
            ..FileStep::default()
        })
        .unwrap();
    let last = j.last().unwrap().unwrap();
    assert_eq!(last.steps.len(), 2);
    assert_eq!(last.steps[1].step.as_deref(), Some("2/2"));
    j.begin(&op("b")).unwrap().append(&st("y", 0)).unwrap();
    let all = j.operations().unwrap();
    assert_eq!(all.len(), 2);
    assert_eq!(all[0].operation.key, "a");
    assert_eq!(all[1].operation.key, "b");
    assert_eq!(all[1].steps, vec![st("y", 0)]);
}

#[test]
fn a_retried_merge_replaces_its_earlier_step() {
    let tmp = tempfile::tempdir().unwrap();
    let j = Journal::at(tmp.path());
    let log = j.begin(&op("a")).unwrap();
    log.append(&st("x", 1)).unwrap();
    log.append(&st("y", 2)).unwrap();
    log.append(&st("x", 3)).unwrap();
    let ns: Vec<i64> = j
        .last()
        .unwrap()
        .unwrap()
        .steps
        .iter()
        .map(|s| n_of(s).unwrap())
        .collect();
    assert_eq!(ns, vec![2, 3]);
}

#[test]
fn a_step_cut_short_by_a_crash_is_skipped_and_never_joins_the_next() {
    let tmp = tempfile::tempdir().unwrap();
    let j = Journal::at(tmp.path());
    let log = j.begin(&op("a")).unwrap();
    log.append(&st("p1", 1)).unwrap();
    // A crash in the middle of a write.
    let steps = log.dir.join("steps.jsonl");
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&steps)
        .unwrap();
    f.write_all(b"\n{\"n\": 2, \"pa").unwrap();
    log.append(&st("p3", 3)).unwrap();
    let last = j.last().unwrap().unwrap();
    assert_eq!(last.steps, vec![st("p1", 1), st("p3", 3)]);
}

#[test]
fn only_the_last_operations_are_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let j = Journal::at(tmp.path());
    for i in 0..KEEP + 3 {
        j.begin(&op(&i.to_string())).unwrap();
    }
    let all = j.operations().unwrap();
    assert_eq!(all.len(), KEEP);
    assert_eq!(all[0].operation.key, "3");
    assert_eq!(all.last().unwrap().operation.key, (KEEP + 2).to_string());
}

#[test]
fn versions_come_back_as_saved() {
    let tmp = tempfile::tempdir().unwrap();
    let j = Journal::at(tmp.path());
    let log = j.begin(&op("a")).unwrap();
    let v = Versions {
        base: b"a = 1\n".to_vec(),
        ours: b"a = 2\n".to_vec(),
        theirs: b"a = 3\n".to_vec(),
    };
    let name = log.save_versions(&v).unwrap();
    let files: Vec<PathBuf> = merge::Version::ALL
        .iter()
        .map(|s| {
            let p = tmp.path().join(s.name());
            std::fs::write(&p, s.name().as_bytes()).unwrap();
            p
        })
        .collect();
    let copied = log
        .save_version_files([&files[0], &files[1], &files[2]])
        .unwrap();
    let last = j.last().unwrap().unwrap();
    assert_eq!(last.versions(&name).unwrap(), v);
    assert_eq!(last.versions(&copied).unwrap().theirs, b"theirs");
    assert!(last.versions("../x").is_err());
    assert!(last.versions("nope").is_err());
}

proptest::proptest! {
    /// Whatever a crash leaves at the end of the log, every step appended before it and
    /// every step appended after it are read back, in order.
    #[test]
    fn torn_writes_lose_no_other_step(torn in proptest::collection::vec(proptest::num::u8::ANY, 0..40)) {
        let tmp = tempfile::tempdir().unwrap();
        let j = Journal::at(tmp.path());
        let log = j.begin(&op("a")).unwrap();
        log.append(&st("p1", 1)).unwrap();
        let steps = log.dir.join("steps.jsonl");
        let mut f = std::fs::OpenOptions::new().append(true).open(&steps).unwrap();
        // A torn record: its leading line break, then part of its text (no line break).
        let mut record = vec![b'\n'];
        record.extend(torn.into_iter().filter(|b| *b != b'\n'));
        f.write_all(&record).unwrap();
        log.append(&st("p2", 2)).unwrap();
        let got: Vec<FileStep> = j.last().unwrap().unwrap().steps;
        let ns: Vec<i64> = got.iter().filter_map(n_of).collect();
        proptest::prop_assert_eq!(ns, vec![1, 2]);
    }
}

/// A journal in a real repository's git directory.
fn journal_in_repo() -> (tempfile::TempDir, Journal) {
    let tmp = tempfile::tempdir().unwrap();
    crate::test_git::git(tmp.path(), &["init", "-q", "-b", "main"]);
    let j = Journal::at(&tmp.path().join(".git"));
    (tmp, j)
}

#[test]
fn versions_in_a_repository_are_blobs_and_the_journal_keeps_ids() {
    let (tmp, j) = journal_in_repo();
    let log = j.begin(&op("a")).unwrap();
    let big =
        "entities = [\n".to_string() + &"\t{ id = x name = \"crate\" }\n".repeat(20_000) + "]\n";
    let v = Versions {
        base: big.clone().into_bytes(),
        ours: big.replace("crate", "barrel").into_bytes(),
        theirs: big.replace("crate", "door").into_bytes(),
    };
    let name = log.save_versions(&v).unwrap();
    let last = j.last().unwrap().unwrap();
    assert_eq!(last.versions(&name).unwrap(), v);
    // The journal holds three ids, not three copies of 600 KB.
    let journal_bytes = stored_size(&tmp.path().join(".git/assetvc/journal"));
    assert!(journal_bytes < 1_000, "{journal_bytes} bytes");
    let ids =
        std::fs::read_to_string(last.dir.join("versions").join(format!("{name}.ids"))).unwrap();
    let blob = crate::test_git::git(tmp.path(), &["cat-file", "-p", ids.lines().nth(1).unwrap()]);
    assert_eq!(blob.as_bytes(), v.ours.as_slice());
    // A blob gone (pruned by git gc): the versions are missing, not wrong.
    let loose = ids.lines().next().unwrap();
    std::fs::remove_file(
        tmp.path()
            .join(".git/objects")
            .join(&loose[..2])
            .join(&loose[2..]),
    )
    .unwrap();
    assert!(matches!(
        last.versions(&name),
        Err(Error::MissingVersions(_))
    ));
}

fn stored_size(dir: &Path) -> u64 {
    let mut total = 0;
    for e in walk(dir) {
        total += std::fs::metadata(e).map_or(0, |m| m.len());
    }
    total
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        if e.path().is_dir() {
            out.extend(walk(&e.path()));
        } else {
            out.push(e.path());
        }
    }
    out
}

#[test]
fn the_journal_keeps_to_its_size_bound_oldest_first() {
    // Not a repository: versions are copies, and they count.
    let tmp = tempfile::tempdir().unwrap();
    let j = Journal::at(tmp.path());
    let v = Versions {
        base: vec![b'a'; 40_000],
        ours: vec![b'b'; 40_000],
        theirs: vec![b'c'; 40_000],
    };
    for key in ["1", "2", "3", "4"] {
        j.begin(&op(key)).unwrap().save_versions(&v).unwrap();
    }
    assert_eq!(j.operations().unwrap().len(), 4);
    j.prune_to_size(250_000);
    let keys: Vec<String> = j
        .operations()
        .unwrap()
        .into_iter()
        .map(|r| r.operation.key)
        .collect();
    assert_eq!(keys, ["3", "4"]);
    // The newest stays whatever its size.
    j.prune_to_size(0);
    assert_eq!(j.operations().unwrap().len(), 1);
    assert_eq!(j.last().unwrap().unwrap().operation.key, "4");
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(16))]

    /// Whatever the bytes, versions saved as blobs come back as they were saved.
    #[test]
    fn versions_saved_as_blobs_come_back(
        base in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..300),
        ours in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..300),
        theirs in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..300),
    ) {
        let (_tmp, j) = journal_in_repo();
        let v = Versions { base, ours, theirs };
        let name = j.begin(&op("p")).unwrap().save_versions(&v).unwrap();
        proptest::prop_assert_eq!(j.last().unwrap().unwrap().versions(&name).unwrap(), v);
    }
}

#[test]
fn a_live_steps_versions_survive_git_gc_prune_now() {
    let (tmp, j) = journal_in_repo();
    let log = j.begin(&op("a")).unwrap();
    let v = Versions {
        base: b"a = 1\n".to_vec(),
        ours: b"a = 2 # only here\n".to_vec(),
        theirs: b"a = 3 # only here\n".to_vec(),
    };
    let name = log.save_versions(&v).unwrap();
    log.append(&FileStep {
        path: "a.level".into(),
        versions: Some(name.clone()),
        ..FileStep::default()
    })
    .unwrap();
    let listed = crate::test_git::git(tmp.path(), &["ls-tree", "--name-only", super::JOURNAL_REF]);
    assert_eq!(listed.lines().count(), 3, "{listed}");
    crate::test_git::git(tmp.path(), &["gc", "-q", "--prune=now"]);
    let last = j.last().unwrap().unwrap();
    assert_eq!(last.versions(&name).unwrap(), v);
    // Once its operation leaves the journal, the ref no longer names its blobs.
    for key in 0..KEEP {
        j.begin(&op(&format!("later {key}"))).unwrap();
    }
    assert!(j
        .operations()
        .unwrap()
        .iter()
        .all(|r| r.operation.key != "a"));
    let refs = crate::test_git::git(tmp.path(), &["for-each-ref", super::JOURNAL_REF]);
    assert!(refs.trim().is_empty(), "{refs}");
}
