use sjson::{Dialect, Document};

use crate::{merge, ConflictKind, Inputs, MergeOptions, Merged, Policy, Side};

fn run(dialect: Dialect, base: &str, ours: &str, theirs: &str, policy: Policy) -> Merged {
    let opts = MergeOptions {
        policy,
        ..MergeOptions::default()
    };
    merge(Inputs::texts(base, ours, theirs, dialect), &opts)
        .unwrap_or_else(|e| panic!("{e}\nbase:\n{base}\nours:\n{ours}\ntheirs:\n{theirs}"))
}

fn sj(base: &str, ours: &str, theirs: &str) -> Merged {
    run(Dialect::Sjson, base, ours, theirs, Policy::Theirs)
}

/// Ids of the objects of array `key` (SJSON or JSON), in order.
fn ids(dialect: Dialect, text: &str, key: &str) -> Vec<String> {
    let d = Document::parse(text, dialect).unwrap();
    let a = d.root().get(key).unwrap();
    a.children()
        .map(|c| c.get("id").unwrap().as_str().unwrap().to_string())
        .collect()
}

fn repairs(out: &Merged) -> Vec<(ConflictKind, String)> {
    out.conflicts
        .iter()
        .filter(|c| c.kind.is_repair())
        .map(|c| (c.kind, c.path.to_string()))
        .collect()
}

/// The referrer of conflict `i` of `out`, as a pointer.
fn referrer(out: &Merged, i: usize) -> Option<String> {
    out.conflicts[i].referrer.as_ref().map(|r| r.to_string())
}

pub(super) const UNIT: &str = "a1b2c3d4-0000-4000-8000-000000000001";

/// Base and ours hold a unit; ours adds a flow node using it; theirs deletes the unit.
pub(super) fn unit_deleted_under_a_new_flow_node() -> (String, String, String) {
    let base = format!("units = [\n\t{{ id = \"{UNIT}\" name = \"crate\" }}\n]\nflow = [\n]\n");
    let ours = format!(
        "units = [\n\t{{ id = \"{UNIT}\" name = \"crate\" }}\n]\nflow = [\n\t{{ id = \"n1\" unit = \"{UNIT}\" }}\n]\n"
    );
    let theirs = "units = [\n]\nflow = [\n]\n".to_string();
    (base, ours, theirs)
}

#[test]
fn a_unit_theirs_deleted_that_ours_new_flow_node_uses_is_restored_sjson() {
    let (base, ours, theirs) = unit_deleted_under_a_new_flow_node();
    let out = sj(&base, &ours, &theirs);
    assert_eq!(ids(Dialect::Sjson, out.text(), "units"), [UNIT]);
    assert_eq!(ids(Dialect::Sjson, out.text(), "flow"), ["n1"]);
    let r = &out.conflicts[0];
    assert_eq!(r.kind, ConflictKind::DanglingReference);
    assert_eq!(r.path.to_string(), format!("/units/[id={UNIT}]"));
    assert_eq!(r.object.as_deref(), Some("crate #a1b2c3d4"));
    assert_eq!(
        r.referrer.as_ref().map(|r| r.to_string()).as_deref(),
        Some("/flow/[id=n1]/unit")
    );
    assert_eq!(r.taken, Side::Ours);
    assert!(out.failed(Policy::Fail));
    assert!(r
        .to_string()
        .contains("dangling-reference: crate #a1b2c3d4"));
}

#[test]
fn a_unit_ours_deleted_that_theirs_new_flow_node_uses_is_restored_json() {
    let base = format!(r#"{{"units": [{{"id": "{UNIT}", "v": 1}}], "flow": []}}"#);
    let ours = r#"{"units": [], "flow": []}"#.to_string();
    let theirs = format!(
        r#"{{"units": [{{"id": "{UNIT}", "v": 2}}], "flow": [{{"id": "n1", "unit": "{UNIT}"}}]}}"#
    );
    let out = run(Dialect::Json, &base, &ours, &theirs, Policy::Ours);
    assert_eq!(ids(Dialect::Json, out.text(), "units"), [UNIT]);
    // Theirs' content, theirs' edits included.
    assert!(out.text().contains("\"v\": 2"), "{}", out.text());
    assert!(repairs(&out).contains(&(
        ConflictKind::DanglingReference,
        format!("/units/[id={UNIT}]")
    )));
}

#[test]
fn a_new_child_of_a_deleted_parent_brings_the_parent_back_with_its_ancestors() {
    let base = "l = [\n\t{ id = g parent = \"\" }\n\t{ id = p parent = g }\n]\n";
    let ours =
        "l = [\n\t{ id = g parent = \"\" }\n\t{ id = p parent = g }\n\t{ id = c parent = p }\n]\n";
    let theirs = "l = [\n]\n";
    let out = sj(base, ours, theirs);
    assert_eq!(ids(Dialect::Sjson, out.text(), "l"), ["g", "p", "c"]);
    let kinds: Vec<_> = repairs(&out).into_iter().map(|(k, _)| k).collect();
    assert_eq!(
        kinds,
        [
            ConflictKind::DanglingReference,
            ConflictKind::DanglingReference
        ]
    );
}

#[test]
fn an_object_moved_into_a_container_the_other_side_deleted_survives() {
    for dialect in [Dialect::Sjson, Dialect::Json] {
        let (base, ours, theirs) = match dialect {
            Dialect::Sjson => (
                "l = [\n\t{ id = a children = [] }\n\t{ id = x v = 1 }\n]\n",
                "l = [\n\t{ id = a children = [\n\t\t{ id = x v = 1 }\n\t] }\n]\n",
                "l = [\n\t{ id = x v = 1 }\n]\n",
            ),
            Dialect::Json => (
                r#"{"l": [{"id": "a", "children": []}, {"id": "x", "v": 1}]}"#,
                r#"{"l": [{"id": "a", "children": [{"id": "x", "v": 1}]}]}"#,
                r#"{"l": [{"id": "x", "v": 1}]}"#,
            ),
        };
        let out = run(dialect, base, ours, theirs, Policy::Theirs);
        assert_eq!(ids(dialect, out.text(), "l"), ["x"], "{}", out.text());
        assert_eq!(
            repairs(&out),
            [(ConflictKind::Orphan, "/l/[id=x]".to_string())]
        );
    }
}

#[test]
fn nesting_each_in_the_other_keeps_both_under_the_policy_sides_structure() {
    let base = "l = [\n\t{ id = a c = [] }\n\t{ id = b c = [] }\n]\n";
    let ours = "l = [\n\t{ id = a c = [\n\t\t{ id = b c = [] }\n\t] }\n]\n";
    let theirs = "l = [\n\t{ id = b c = [\n\t\t{ id = a c = [] }\n\t] }\n]\n";
    for (policy, top, inner) in [(Policy::Theirs, "b", "a"), (Policy::Ours, "a", "b")] {
        let out = run(Dialect::Sjson, base, ours, theirs, policy);
        assert_eq!(
            ids(Dialect::Sjson, out.text(), "l"),
            [top],
            "{}",
            out.text()
        );
        let d = Document::parse(out.text(), Dialect::Sjson).unwrap();
        let l = d.root().get("l").unwrap();
        let c = l.children().next().unwrap().get("c").unwrap();
        assert_eq!(
            c.children()
                .next()
                .unwrap()
                .get("id")
                .unwrap()
                .as_str()
                .unwrap(),
            inner
        );
        assert!(repairs(&out).iter().any(|(k, _)| *k == ConflictKind::Cycle));
    }
}

#[test]
fn reparenting_each_under_the_other_reverts_the_losing_sides_reparent() {
    for dialect in [Dialect::Sjson, Dialect::Json] {
        let (base, ours, theirs) = match dialect {
            Dialect::Sjson => (
                "l = [\n\t{ id = a parent = r }\n\t{ id = b parent = r }\n\t{ id = r }\n]\n",
                "l = [\n\t{ id = a parent = b }\n\t{ id = b parent = r }\n\t{ id = r }\n]\n",
                "l = [\n\t{ id = a parent = r }\n\t{ id = b parent = a }\n\t{ id = r }\n]\n",
            ),
            Dialect::Json => (
                r#"{"l": [{"id": "a", "parent": "r"}, {"id": "b", "parent": "r"}, {"id": "r"}]}"#,
                r#"{"l": [{"id": "a", "parent": "b"}, {"id": "b", "parent": "r"}, {"id": "r"}]}"#,
                r#"{"l": [{"id": "a", "parent": "r"}, {"id": "b", "parent": "a"}, {"id": "r"}]}"#,
            ),
        };
        let out = run(dialect, base, ours, theirs, Policy::Theirs);
        let d = Document::parse(out.text(), dialect).unwrap();
        let parent = |i: usize| {
            let l = d.root().get("l").unwrap();
            let o = l.children().nth(i).unwrap();
            o.get("parent").unwrap().as_str().unwrap().to_string()
        };
        assert_eq!(
            (parent(0), parent(1)),
            ("r".into(), "a".into()),
            "{}",
            out.text()
        );
        assert_eq!(
            repairs(&out),
            [(ConflictKind::Cycle, "/l/[id=a]/parent".to_string())]
        );
        assert_eq!(referrer(&out, 0).as_deref(), Some("/l/[id=b]"));
    }
}

#[test]
fn a_cycle_one_side_already_had_is_left_alone() {
    let base = "l = [\n\t{ id = a parent = b }\n\t{ id = b parent = a }\n]\n";
    let ours = "l = [\n\t{ id = a parent = b x = 1 }\n\t{ id = b parent = a }\n]\n";
    let out = sj(base, ours, base);
    assert_eq!(out.text(), ours);
    assert!(out.conflicts.is_empty());
}

#[test]
fn a_reference_a_side_left_dangling_itself_is_not_repaired() {
    let base = format!("units = [{{ id = \"{UNIT}\" }}] n = [{{ id = q unit = \"{UNIT}\" }}]\n");
    let ours = format!("units = [] n = [{{ id = q unit = \"{UNIT}\" }}]\n");
    let out = sj(&base, &ours, &base);
    assert_eq!(out.text(), ours);
}

#[test]
fn short_ids_count_only_under_reference_keys_and_ids_inside_text_never() {
    let base = "u = [{ id = k1 }] n = []\n";
    let ours = "u = [{ id = k1 }] n = [{ id = n1 label = k1 note = \"see k1\" unit = \"k1 \" }]\n";
    let theirs = "u = [] n = []\n";
    let out = sj(base, ours, theirs);
    assert!(repairs(&out).is_empty(), "{:?}", out.conflicts);
    let ours = "u = [{ id = k1 }] n = [{ id = n1 members = [k1 zz] }]\n";
    let out = sj(base, ours, theirs);
    assert_eq!(
        repairs(&out),
        [(ConflictKind::DanglingReference, "/u/[id=k1]".to_string())]
    );
}

#[test]
fn a_reference_naming_an_id_held_twice_merges() {
    // One entity written in two places (Stingray's flow nodes): references to it resolve.
    let base = "u = [{ id = k1 x = 1 } { id = k1 x = 1 }] n = [{ id = n1 unit = k1 }]\n";
    let ours = base.replace(
        "n = [{ id = n1 unit = k1 }]",
        "n = [{ id = n1 unit = k1 y = 2 }]",
    );
    let theirs = base.replace("{ id = k1 x = 1 } {", "{ id = k1 x = 3 } {");
    let out = merge(
        Inputs::texts(base, &ours, &theirs, Dialect::Sjson),
        &MergeOptions::default(),
    )
    .unwrap();
    assert!(out.conflicts.is_empty(), "{:?}", out.conflicts);
    assert_eq!(
        out.text(),
        "u = [{ id = k1 x = 3 } { id = k1 x = 1 }] n = [{ id = n1 unit = k1 y = 2 }]\n"
    );
}

#[test]
fn bad_reference_globs_are_errors() {
    let mut opts = MergeOptions::default();
    opts.references.keys = vec!["a[".into()];
    let err = merge(
        Inputs::texts("u = [{ id = k1 }]", "u = []", "u = []", Dialect::Sjson),
        &opts,
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("[references] keys: pattern \"a[\""),
        "{err}"
    );
}

#[test]
fn an_object_moved_out_of_a_container_the_policy_kept_whole_is_held_once() {
    // Theirs moves x out of c and deletes c; ours edits c (and x inside it). Policy ours
    // keeps ours' c whole, theirs' move put x at the top too: one copy stays (ours').
    let base = "l = [\n\t{ id = c v = 1 children = [\n\t\t{ id = xxxxxxxx v = 2 children = [] }\n\t] }\n]\n";
    let ours = "l = [\n\t{ id = c v = 1 children = [\n\t\t{ id = xxxxxxxx v = 2 children = [\n\t\t\t{ id = n v = 3 children = [] }\n\t\t] }\n\t] }\n]\n";
    let theirs = "l = [\n\t{ id = xxxxxxxx v = 2 children = [] }\n]\n";
    let out = run(Dialect::Sjson, base, ours, theirs, Policy::Ours);
    assert_eq!(
        out.text().matches("id = xxxxxxxx").count(),
        1,
        "{}",
        out.text()
    );
    assert!(out.text().contains("id = n"), "{}", out.text());
}

#[test]
fn a_restored_object_under_unkeyed_elements_is_reported_and_placed_by_its_route() {
    // The unit sits in an array inside an element of an array without ids: its place
    // and its pointer go through that element's index.
    let unit = "crate-0001";
    let base = format!(
        "g = [\n\t{{ name = a }}\n\t{{ items = [\n\t\t{{ id = {unit} }}\n\t] }}\n]\nflow = [\n]\n"
    );
    let ours = "g = [\n\t{ name = a }\n\t{ items = [\n\t] }\n]\nflow = [\n]\n".to_string();
    let theirs = format!("g = [\n\t{{ name = a }}\n\t{{ items = [\n\t\t{{ id = {unit} }}\n\t] }}\n]\nflow = [\n\t{{ id = n1 unit = {unit} }}\n]\n");
    let out = sj(&base, &ours, &theirs);
    assert_eq!(
        repairs(&out),
        [(
            ConflictKind::DanglingReference,
            format!("/g/1/items/[id={unit}]")
        )]
    );
    let d = Document::parse(out.text(), Dialect::Sjson).unwrap();
    let items = d.root().get("g").unwrap().children().nth(1).unwrap();
    let held: Vec<String> = items
        .get("items")
        .unwrap()
        .children()
        .map(|c| c.get("id").unwrap().as_str().unwrap().to_string())
        .collect();
    assert_eq!(held, [unit]);
    assert_eq!(referrer(&out, 0).as_deref(), Some("/flow/[id=n1]/unit"));
}

/// A level of `n` entities (ids `00000007-entity`), each the `parent` of the next, with
/// `edit` adding members to entity `i`; the `flow` array is left open.
fn level(n: usize, edit: &dyn Fn(usize, &mut String)) -> String {
    let mut out = String::from("entities = [\n");
    for i in 0..n {
        out.push_str(&format!(
            "\t{{ id = \"{i:08}-entity\" name = \"e{i}\" pad = \"{:064}\"",
            0
        ));
        if i > 0 {
            out.push_str(&format!(" parent = \"{:08}-entity\"", i - 1));
        }
        edit(i, &mut out);
        out.push_str(" }\n");
    }
    out.push_str("]\nflow = [\n");
    out
}

/// The same repairs, whether the pass runs on one thread (a small level) or splits its
/// walks across two and walks the sides ahead, beside the merge (a level over
/// [`crate::PARALLEL_FROM`]).
#[test]
fn a_large_level_is_repaired_like_a_small_one() {
    let reports = |n: usize| {
        let (a, b, gone) = (n - 5, n - 4, n - 2);
        let base = level(n, &|_, _| ()) + "]\n";
        // Ours: entity `gone` deleted (its child now hangs under the one before it);
        // `a` reparented under `b`.
        let ours = level(n, &|i, out| {
            if i == a {
                out.push_str(&format!(" boss = \"{b:08}-entity\""));
            }
        })
        .replace(
            &format!("\t{{ id = \"{gone:08}-entity\" name = \"e{gone}\" pad = \"{:064}\" parent = \"{:08}-entity\" }}\n", 0, gone - 1),
            "",
        )
        .replace(
            &format!("parent = \"{gone:08}-entity\""),
            &format!("parent = \"{:08}-entity\"", gone - 1),
        ) + "]\n";
        // Theirs: a flow node using `gone`; `b` takes `a` as its boss.
        let theirs = level(n, &|i, out| {
            if i == b {
                out.push_str(&format!(" boss = \"{a:08}-entity\""));
            }
        }) + &format!("\t{{ id = \"node-0001\" unit = \"{gone:08}-entity\" }}\n]\n");
        let opts = MergeOptions {
            references: super::ReferenceOptions {
                parent: vec!["parent".into(), "boss".into()],
                ..Default::default()
            },
            ..MergeOptions::default()
        };
        let out = merge(Inputs::texts(&base, &ours, &theirs, Dialect::Sjson), &opts).unwrap();
        assert!(out.text().contains(&format!("id = \"{gone:08}-entity\"")));
        // Paths with the three entities named alike at both sizes.
        let mut found: Vec<(ConflictKind, String)> = repairs(&out)
            .into_iter()
            .map(|(kind, path)| {
                let path = [(a, "A"), (b, "B"), (gone, "G")]
                    .iter()
                    .fold(path, |p, (i, name)| p.replace(&format!("{i:08}"), name));
                (kind, path)
            })
            .collect();
        found.sort_by(|x, y| x.1.cmp(&y.1));
        (base.len(), found)
    };
    let (small_len, small) = reports(40);
    let (large_len, large) = reports(14_000);
    assert!(small_len < crate::PARALLEL_FROM && large_len > crate::PARALLEL_FROM);
    assert_eq!(small, large);
    assert_eq!(
        large,
        [
            (
                ConflictKind::Cycle,
                "/entities/[id=A-entity]/boss".to_string()
            ),
            (
                ConflictKind::DanglingReference,
                "/entities/[id=G-entity]".to_string()
            ),
        ]
    );
}

/// What `coherent::merge_beside`'s closure saw: the document's text and the conflicts.
fn beside_runs(base: &str, ours: &str, theirs: &str) -> (String, Vec<(String, usize)>) {
    let parse = |t: &str| Document::parse(t, Dialect::Sjson).unwrap();
    let (b, o, t) = (parse(base), parse(ours), parse(theirs));
    let seen = std::sync::Mutex::new(Vec::new());
    let merged =
        crate::coherent::merge_beside(&b, &o, &t, &MergeOptions::default(), |doc, conflicts| {
            let run = (doc.text().to_string(), conflicts.len());
            seen.lock().unwrap().push(run.clone());
            run
        })
        .unwrap();
    let text = merged.document.text().to_string();
    assert_eq!(merged.beside, (text.clone(), merged.conflicts.len()));
    (text, seen.into_inner().unwrap())
}

#[test]
fn beside_sees_the_returned_document_once_when_nothing_is_repaired() {
    let (text, seen) = beside_runs("a = 1\nb = 1\n", "a = 2\nb = 1\n", "a = 3\nb = 2\n");
    assert_eq!(text, "a = 3\nb = 2\n");
    assert_eq!(
        seen,
        [(text, 1)],
        "one run, on the result, with the one conflict"
    );
}

#[test]
fn beside_runs_again_on_the_repaired_document_with_the_repairs() {
    let (base, ours, theirs) = unit_deleted_under_a_new_flow_node();
    let (text, seen) = beside_runs(&base, &ours, &theirs);
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert_ne!(seen[0].0, text, "the first run saw the unrepaired merge");
    assert_eq!(seen[0].1, 0, "no structural conflict");
    assert_eq!(
        seen[1],
        (text.clone(), 1),
        "then the repaired result and its repair"
    );
    assert!(
        text.contains(UNIT),
        "the unit the new flow node uses is restored"
    );
}

#[test]
fn the_pass_tells_whether_the_result_holds_an_id_twice() {
    let unique = |base: &str, ours: &str, theirs: &str| {
        let parse = |t: &str| Document::parse(t, Dialect::Sjson).unwrap();
        let (b, o, t) = (parse(base), parse(ours), parse(theirs));
        crate::coherent::merge_beside(&b, &o, &t, &MergeOptions::default(), |_, _| ())
            .unwrap()
            .unique_ids
    };
    let base = "a = [{ id = x }] b = [{ id = y }]\n";
    assert!(unique(
        base,
        base,
        "a = [{ id = x v = 1 }] b = [{ id = y }]\n"
    ));
    // An input holding an id in two arrays: the result does too.
    let twice = "a = [{ id = x }] b = [{ id = x }]\n";
    assert!(!unique(twice, twice, twice));
    // Repeated within one array (not mergeable by id): reported as not unique.
    let repeated = "a = [{ id = x } { id = x }]\n";
    assert!(!unique(repeated, repeated, repeated));
}

#[test]
fn the_globs_of_one_setting_are_compiled_once() {
    let setting = |parent: &str| super::ReferenceOptions {
        parent: vec![parent.into(), "owner_*".into()],
        ..Default::default()
    };
    let first = super::compiled(&setting("boss")).unwrap();
    let again = super::compiled(&setting("boss")).unwrap();
    assert!(std::sync::Arc::ptr_eq(&first, &again));
    assert!(first.parent.is_match("owner_x") && first.parent.is_match("boss"));
    let other = super::compiled(&setting("chief")).unwrap();
    assert!(!std::sync::Arc::ptr_eq(&first, &other));
    assert!(other.parent.is_match("chief") && !other.parent.is_match("boss"));
    // A pattern that does not compile is an error every time, never kept.
    for _ in 0..2 {
        let bad = super::compiled(&setting("a[")).map(|_| ());
        assert!(
            matches!(bad, Err(super::CoherenceError::Pattern { .. })),
            "{bad:?}"
        );
    }
}
