use super::*;
use proptest::prelude::*;

/// A step as the untyped journal wrote it (a rebase's step with a pending conflict, a
/// repair, and a number that f64 would round).
const OLD_STEP: &str = r#"{"path":"levels/a.level","policy":"local","conflicts":[{"path":"/entities/[id=e1]/position","kind":"both-modified","base":[0,0,0],"ours":[1,0,0],"theirs":12345678901234567890.5,"taken":"theirs","kept":"local","name":"entities[crate #e1].position","pending":true,"by":"Carol"},{"path":"/entities/[id=e2]","kind":"dangling-reference","base":null,"ours":null,"theirs":null,"taken":"ours","object":"gate (e2)","referrer":"/flow/[id=n1]/unit","kept":"upstream","by":null}],"sides":{"ours":"upstream","theirs":"local"},"operation":"rebase","step":"2/3","commit":"1b7122a51a18ac68f7c19e6f6bb5f1f4b5723f84","versions":"4242-1700000000"}"#;

#[test]
fn a_step_of_the_untyped_journal_reads_as_fields() {
    let step: FileStep = serde_json::from_str(OLD_STEP).unwrap();
    assert_eq!(step.path, "levels/a.level");
    assert_eq!(step.policy, Some(Policy::Local));
    assert_eq!(step.sides, Some(SideMeanings::SWAPPED));
    assert_eq!(step.operation.as_deref(), Some("rebase"));
    assert_eq!(step.step.as_deref(), Some("2/3"));
    assert_eq!(step.versions.as_deref(), Some("4242-1700000000"));
    let c = &step.conflicts[0];
    assert_eq!(c.kind, ConflictKind::BothModified);
    assert_eq!(c.base.as_deref(), Some("[0,0,0]"));
    // Numbers are kept as written, never through f64.
    assert_eq!(c.theirs.as_deref(), Some("12345678901234567890.5"));
    assert_eq!(c.taken, Side::Theirs);
    assert_eq!(c.kept, Some(Meaning::Local));
    assert!(c.pending);
    assert_eq!(c.by.as_deref(), Some("Carol"));
    assert_eq!(c.shown_place(), "entities[crate #e1].position");
    let r = &step.conflicts[1];
    assert_eq!(r.kind, ConflictKind::DanglingReference);
    assert_eq!((r.base.as_ref(), r.ours.as_ref()), (None, None));
    assert_eq!(
        r.referrer.as_ref().map(Path::to_string).as_deref(),
        Some("/flow/[id=n1]/unit")
    );
    assert!(!r.pending);
    assert_eq!(r.by, None);
}

#[test]
fn a_step_writes_back_what_it_read() {
    let step: FileStep = serde_json::from_str(OLD_STEP).unwrap();
    let text = serde_json::to_string(&step).unwrap();
    let again: FileStep = serde_json::from_str(&text).unwrap();
    assert_eq!(again, step);
    assert!(
        text.contains(r#""theirs":12345678901234567890.5"#),
        "{text}"
    );
}

#[test]
fn a_step_writes_its_places_as_the_untyped_journal_did() {
    // The previous version reads the places as strings: they stay the same text.
    let step: FileStep = serde_json::from_str(OLD_STEP).unwrap();
    let old: serde_json::Value = serde_json::from_str(OLD_STEP).unwrap();
    let new = serde_json::to_value(&step).unwrap();
    for i in 0..2 {
        for field in ["path", "referrer"] {
            assert_eq!(new["conflicts"][i][field], old["conflicts"][i][field]);
        }
    }
    assert_eq!(new["conflicts"][1]["referrer"], "/flow/[id=n1]/unit");
}

#[test]
fn a_merged_step_records_meanings_and_names() {
    let c = Conflict {
        path: pointer("/a"),
        kind: ConflictKind::Cells,
        base: Some("1".into()),
        ours: Some("2".into()),
        theirs: None,
        taken: Side::Ours,
        object: Some("3 cells".into()),
        referrer: None,
    };
    let step = FileStep::merged(
        "m.tmj",
        Policy::Upstream,
        SideMeanings::SWAPPED,
        "rebase",
        std::slice::from_ref(&c),
        &["layers[ground]".into()],
    );
    assert_eq!(step.conflicts[0].kept, Some(Meaning::Upstream));
    assert_eq!(step.conflicts[0].conflict(), c);
    assert_eq!(step.conflicts[0].shown_place(), "layers[ground]");
    let u = FileStep::unresolved("x.level", Policy::Theirs, "x.level:1:2: bad\nmore");
    assert_eq!(u.unresolved.as_deref(), Some("x.level:1:2: bad"));
}

#[test]
fn a_repair_keeps_its_referrer_named_as_the_merge_named_it() {
    let c = Conflict {
        path: pointer("/units/[id=9f0c0000-1111-2222-3333-444455554f5f]"),
        kind: ConflictKind::DanglingReference,
        base: None,
        ours: Some("{}".into()),
        theirs: None,
        taken: Side::Ours,
        object: Some("crate #9f0c0000".into()),
        referrer: Some(pointer("/flow/[id=node-spawn-0000-1111]/unit")),
    };
    let place = "units[crate #9f0c…4f5f]".to_string();
    let referrer = Some("flow[spawn #node-spawn-0000-1111].unit".to_string());
    let step = FileStep::merged(
        "a.level",
        Policy::Theirs,
        SideMeanings::MERGE,
        "merge",
        std::slice::from_ref(&c),
        std::slice::from_ref(&place),
    );
    // Not named: the referrer by its short ids.
    assert!(step.conflicts[0]
        .line()
        .contains("(referenced by flow[#node"));
    let step = step.with_referrers(std::slice::from_ref(&referrer));
    assert_eq!(
        step.conflicts[0].line(),
        "units[crate #9f0c…4f5f]: referenced object restored (referenced by \
         flow[spawn #node-spawn-0000-1111].unit), from ours"
    );
    let text = serde_json::to_string(&step).unwrap();
    let again: FileStep = serde_json::from_str(&text).unwrap();
    assert_eq!(again.conflicts[0].line(), step.conflicts[0].line());
}

/// A well-formed report pointer as a path.
fn pointer(text: &str) -> Path {
    Path::parse(text).unwrap()
}

fn json_value() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("null".to_string()),
        any::<i64>().prop_map(|n| n.to_string()),
        "[1-9][0-9]{0,29}\\.[0-9]{1,10}",
        "[a-z ]{0,8}".prop_map(|s| format!("{s:?}")),
        "[a-z]{0,5}".prop_map(|s| format!("[{s:?},1,{{\"k\":true}}]")),
    ]
}

fn record() -> impl Strategy<Value = ConflictRecord> {
    (
        "(/[a-z0-9=\\[\\]]{1,6}){0,3}",
        0..ConflictKind::ALL.len(),
        proptest::option::of(json_value()),
        proptest::option::of(json_value()),
        any::<bool>(),
        proptest::option::of("[a-z #]{0,10}"),
        any::<bool>(),
    )
        .prop_map(
            |(path, k, base, theirs, ours, name, pending)| ConflictRecord {
                path: crate::changeset::parse_report_pointer(&path, |_| false),
                kind: ConflictKind::ALL[k],
                // JSON `null` reads as absent, as the untyped journal wrote "deleted".
                base: base.filter(|b| b != "null"),
                ours: None,
                theirs: theirs.filter(|t| t != "null"),
                taken: if ours { Side::Ours } else { Side::Theirs },
                object: None,
                referrer: name.as_ref().map(|_| pointer("/flow/[id=n1]/unit")),
                referrer_name: name.as_ref().map(|n| format!("flow[{n}].unit")),
                kept: Some(Meaning::Local),
                name,
                pending,
                by: pending.then(|| "Carol".to_string()),
            },
        )
}

proptest! {
    #[test]
    fn steps_read_back_as_written(
        conflicts in proptest::collection::vec(record(), 0..4),
        unresolved in proptest::option::of("[a-z :]{0,12}"),
        swapped in any::<bool>(),
    ) {
        let step = FileStep {
            path: "a/b.level".into(),
            policy: Some(Policy::Fail),
            conflicts,
            sides: Some(SideMeanings::of(swapped)),
            operation: Some("merge".into()),
            unresolved,
            ..FileStep::default()
        };
        let text = serde_json::to_string(&step).unwrap();
        let back: FileStep = serde_json::from_str(&text).unwrap();
        prop_assert_eq!(back, step);
    }

    #[test]
    fn any_line_reads_as_a_step_or_is_refused(line in ".{0,200}") {
        let _ = serde_json::from_str::<FileStep>(&line);
    }
}
