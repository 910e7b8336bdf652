use super::*;

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
        .append(&serde_json::json!({"path": "x", "step": "1/2"}))
        .unwrap();
    j.begin(&op("a"))
        .unwrap()
        .append(&serde_json::json!({"path": "x", "step": "2/2"}))
        .unwrap();
    let last = j.last().unwrap().unwrap();
    assert_eq!(last.steps.len(), 2);
    assert_eq!(last.steps[1]["step"], "2/2");
    j.begin(&op("b"))
        .unwrap()
        .append(&serde_json::json!({"path": "y"}))
        .unwrap();
    let all = j.operations().unwrap();
    assert_eq!(all.len(), 2);
    assert_eq!(all[0].operation.key, "a");
    assert_eq!(all[1].operation.key, "b");
    assert_eq!(all[1].steps, vec![serde_json::json!({"path": "y"})]);
}

#[test]
fn a_retried_merge_replaces_its_earlier_step() {
    let tmp = tempfile::tempdir().unwrap();
    let j = Journal::at(tmp.path());
    let log = j.begin(&op("a")).unwrap();
    log.append(&serde_json::json!({"path": "x", "n": 1}))
        .unwrap();
    log.append(&serde_json::json!({"path": "y", "n": 2}))
        .unwrap();
    log.append(&serde_json::json!({"path": "x", "n": 3}))
        .unwrap();
    let ns: Vec<i64> = j
        .last()
        .unwrap()
        .unwrap()
        .steps
        .iter()
        .map(|s| s["n"].as_i64().unwrap())
        .collect();
    assert_eq!(ns, vec![2, 3]);
}

#[test]
fn a_step_cut_short_by_a_crash_is_skipped_and_never_joins_the_next() {
    let tmp = tempfile::tempdir().unwrap();
    let j = Journal::at(tmp.path());
    let log = j.begin(&op("a")).unwrap();
    log.append(&serde_json::json!({"path": "p1", "n": 1}))
        .unwrap();
    // A crash in the middle of a write.
    let steps = log.dir.join("steps.jsonl");
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&steps)
        .unwrap();
    f.write_all(b"\n{\"n\": 2, \"pa").unwrap();
    log.append(&serde_json::json!({"path": "p3", "n": 3}))
        .unwrap();
    let last = j.last().unwrap().unwrap();
    assert_eq!(
        last.steps,
        vec![
            serde_json::json!({"path": "p1", "n": 1}),
            serde_json::json!({"path": "p3", "n": 3})
        ]
    );
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
    let files: Vec<PathBuf> = SIDES
        .iter()
        .map(|s| {
            let p = tmp.path().join(s);
            std::fs::write(&p, s.as_bytes()).unwrap();
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
        log.append(&serde_json::json!({"path": "p1", "n": 1})).unwrap();
        let steps = log.dir.join("steps.jsonl");
        let mut f = std::fs::OpenOptions::new().append(true).open(&steps).unwrap();
        // A torn record: its leading line break, then part of its text (no line break).
        let mut record = vec![b'\n'];
        record.extend(torn.into_iter().filter(|b| *b != b'\n'));
        f.write_all(&record).unwrap();
        log.append(&serde_json::json!({"path": "p2", "n": 2})).unwrap();
        let got: Vec<serde_json::Value> = j.last().unwrap().unwrap().steps;
        let ns: Vec<i64> = got.iter().filter_map(|s| s.get("n").and_then(|n| n.as_i64())).collect();
        proptest::prop_assert_eq!(ns, vec![1, 2]);
    }
}
