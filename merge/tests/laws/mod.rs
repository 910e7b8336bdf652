//! Property tests of the merge laws (docs/design.md "Merge semantics", "Laws"): random
//! documents, random edit scripts for each side, printed in random SJSON/JSON styles.
//!
//! - merge(b, x, b) = x byte for byte; merge(b, b, x) = x; merge(b, x, x) = x;
//! - with the two sides editing disjoint parts (every part of the base has an owner),
//!   the merge is clean and holds every edit of both sides, no id appears twice in a
//!   keyed array, and the order of keyed elements is the reordering side's;
//! - when theirs changes one scalar, the result is ours' text with that one lexeme
//!   replaced;
//! - the result always parses (checked by `merge`) and merging never panics.

use crate::common;
pub(crate) mod model;
pub(crate) mod world;

use common::{equal_unordered, parse};
use levelgen::Rng;
use merge::{merge, Inputs, MergeOptions, Merged};
use model::*;
use proptest::prelude::*;
use sjson::{Dialect, Document, Kind, Value};
use world::*;

// ---------------------------------------------------------------------------------------
// Checks.

fn opts() -> MergeOptions {
    MergeOptions::default()
}

fn run(dialect: Dialect, b: &str, o: &str, t: &str) -> Merged {
    merge(Inputs::texts(b, o, t, dialect), &opts()).unwrap_or_else(|e| {
        panic!("merge failed: {e}\n--- base:\n{b}\n--- ours:\n{o}\n--- theirs:\n{t}")
    })
}

/// Value equality with keyed arrays (all objects with the id key) and named arrays
/// compared as sets, object key order ignored.
fn canon(v: Value<'_>, id_key: &str) -> String {
    match v.kind() {
        Kind::Object => {
            let mut ms: Vec<String> = v
                .members()
                .map(|(k, c)| format!("{k:?}:{}", canon(c, id_key)))
                .collect();
            ms.sort();
            format!("{{{}}}", ms.join(","))
        }
        Kind::Array => {
            let mut es: Vec<String> = v.children().map(|c| canon(c, id_key)).collect();
            let keyed = !v.is_empty()
                && v.children()
                    .all(|c| c.get(id_key).is_some() || c.get("name").is_some());
            if keyed {
                es.sort();
            }
            format!("[{}]", es.join(","))
        }
        Kind::Number => format!("{:?}", v.as_number().unwrap().as_f64()),
        Kind::String => format!("{:?}", v.as_str().unwrap()),
        _ => v.text().to_string(),
    }
}

fn ids_of(v: Value<'_>, key: &str) -> Vec<String> {
    v.children()
        .filter_map(|c| c.get(key))
        .map(|id| canon(id, key))
        .collect()
}

/// No keyed array anywhere in `v` holds an id (or a pass name) twice.
fn assert_no_duplicate_ids(v: Value<'_>, id_key: &str, text: &str) {
    if v.kind() == Kind::Array {
        for key in [id_key, "name"] {
            let ids = ids_of(v, key);
            let mut sorted = ids.clone();
            sorted.sort();
            sorted.dedup();
            assert_eq!(
                sorted.len(),
                ids.len(),
                "duplicate {key} in {ids:?}\n{text}"
            );
        }
    }
    for c in v.children() {
        assert_no_duplicate_ids(c, id_key, text);
    }
}

struct Case {
    w: World,
    style: Style,
    base: String,
    ours: String,
    theirs: String,
    expected: J,
    reorderer: Owner,
}

fn case(seed: u64, json: bool) -> Case {
    let mut rng = Rng::new(seed);
    let w = world(&mut rng);
    let style = Style::random(&mut rng, json);
    let reorderer = owner(&mut rng);
    let mut n = 1000;
    let mut ours = w.doc.clone();
    let ours_ops = script(
        &mut rng,
        &w,
        Owner::Ours,
        reorderer == Owner::Ours,
        &mut ours,
        &mut n,
    );
    let mut theirs = w.doc.clone();
    let theirs_ops = script(
        &mut rng,
        &w,
        Owner::Theirs,
        reorderer == Owner::Theirs,
        &mut theirs,
        &mut n,
    );
    let mut expected = w.doc.clone();
    for op in ours_ops.iter().chain(&theirs_ops) {
        apply(&mut expected, op, w.id_key);
    }
    // Theirs is sometimes written by another tool, in another style.
    let theirs_style = if rng.one_in(4) {
        Style::random(&mut rng, json)
    } else {
        style.clone()
    };
    Case {
        base: print_doc(&w.doc, &style),
        ours: print_doc(&ours, &style),
        theirs: print_doc(&theirs, &theirs_style),
        w,
        style,
        expected,
        reorderer,
    }
}

fn check_laws(c: &Case) {
    let d = c.style.dialect();
    for x in [&c.ours, &c.theirs] {
        let out = run(d, &c.base, x, &c.base);
        assert_eq!(out.text(), x, "merge(b, x, b) != x\n--- base:\n{}", c.base);
        assert!(out.conflicts.is_empty());
        let out = run(d, &c.base, &c.base, x);
        let (got, want) = (parse(d, out.text()), parse(d, x));
        assert!(
            got.root().same_value(&want.root()),
            "merge(b, b, x) != x\n--- base:\n{}\n--- x:\n{x}\n--- got:\n{}",
            c.base,
            out.text()
        );
        assert!(out.conflicts.is_empty());
        let out = run(d, &c.base, x, x);
        assert_eq!(out.text(), x, "merge(b, x, x) != x");
        assert!(out.conflicts.is_empty());
    }
}

fn check_disjoint(c: &Case) {
    let d = c.style.dialect();
    let out = run(d, &c.base, &c.ours, &c.theirs);
    let ctx = || {
        format!(
            "\n--- base:\n{}\n--- ours:\n{}\n--- theirs:\n{}\n--- merged:\n{}\n--- conflicts: {:#?}",
            c.base, c.ours, c.theirs, out.text(), out.conflicts
        )
    };
    assert!(
        out.conflicts.is_empty(),
        "disjoint edits conflicted{}",
        ctx()
    );
    let got = parse(d, out.text());
    let want_text = print_doc(&c.expected, &c.style);
    let want = parse(d, &want_text);
    assert_eq!(
        canon(got.root(), c.w.id_key),
        canon(want.root(), c.w.id_key),
        "a one-side edit is missing{}\n--- expected:\n{want_text}",
        ctx()
    );
    assert_no_duplicate_ids(got.root(), c.w.id_key, out.text());
    // Keyed order: the base's elements in the reordering side's order.
    let order = |doc: &Document| -> Vec<String> {
        doc.root()
            .get("entities")
            .map(|e| ids_of(e, c.w.id_key))
            .unwrap_or_default()
    };
    let (b, o, t) = (parse(d, &c.base), parse(d, &c.ours), parse(d, &c.theirs));
    let common: Vec<String> = order(&b)
        .into_iter()
        .filter(|id| order(&o).contains(id) && order(&t).contains(id))
        .collect();
    let filtered = |doc: &Document| -> Vec<String> {
        order(doc)
            .into_iter()
            .filter(|id| common.contains(id))
            .collect()
    };
    let reference = match c.reorderer {
        Owner::Ours => filtered(&o),
        Owner::Theirs => filtered(&t),
        Owner::Nobody => filtered(&b),
    };
    assert_eq!(filtered(&got), reference, "keyed order{}", ctx());
    // Merging is symmetric in value for disjoint edits.
    let swapped = run(d, &c.base, &c.theirs, &c.ours);
    assert!(
        swapped.conflicts.is_empty(),
        "swapped sides conflicted{}",
        ctx()
    );
    assert_eq!(
        canon(parse(d, swapped.text()).root(), c.w.id_key),
        canon(want.root(), c.w.id_key),
        "swapped sides{}",
        ctx()
    );
}

/// Theirs changes one scalar that ours did not touch: the result is ours' text with
/// that lexeme replaced, byte for byte.
fn check_one_scalar(seed: u64, json: bool) {
    let mut rng = Rng::new(seed ^ 0x5555);
    let c = case(seed, json);
    let d = c.style.dialect();
    let ours = parse(d, &c.ours);
    let base = parse(d, &c.base);
    // Scalars theirs may change: in entities ours left alone (not owned by ours), or
    // top-level scalars ours does not own.
    let mut targets: Vec<(Vec<String>, Option<String>)> = Vec::new();
    if let Some(els) = base.root().get("entities") {
        for e in els.children() {
            let id = canon(e.get(c.w.id_key).unwrap(), c.w.id_key);
            let owner = c.w.entities.iter().find(|(x, _)| {
                canon(
                    parse(
                        d,
                        &print_doc(&J::Obj(vec![("x".into(), x.clone())]), &c.style),
                    )
                    .root()
                    .get("x")
                    .unwrap(),
                    c.w.id_key,
                ) == id
            });
            if owner.is_some_and(|(_, o)| *o == Owner::Ours) {
                continue;
            }
            for p in THEIRS_PROPS {
                if e.get(p).is_some_and(|v| !v.is_container()) {
                    targets.push((vec!["entities".into(), p.into()], Some(id.clone())));
                }
            }
        }
    }
    for (k, o) in &c.w.top {
        if *o != Owner::Ours && base.root().get(k).is_some_and(|v| !v.is_container()) {
            targets.push((vec![k.clone()], None));
        }
    }
    if targets.is_empty() {
        return;
    }
    let (path, id) = rng.pick(&targets).clone();
    // Theirs: the base with that one scalar changed (printed by the same printer).
    let mut n = 5000;
    let new = fresh_scalar(&mut rng, &mut n);
    let mut theirs = c.w.doc.clone();
    match &id {
        Some(id) => {
            let els = theirs.get_mut("entities").unwrap().elements();
            let e = els
                .iter_mut()
                .find(|e| {
                    let one = print_doc(
                        &J::Obj(vec![("x".into(), id_of(e, c.w.id_key).clone())]),
                        &c.style,
                    );
                    canon(parse(d, &one).root().get("x").unwrap(), c.w.id_key) == *id
                })
                .unwrap();
            e.set(&path[1], new.clone(), None);
        }
        None => theirs.set(&path[0], new.clone(), None),
    }
    let theirs_text = print_doc(&theirs, &c.style);
    // Where the scalar is in ours (if ours still has it).
    let find = |doc: &Document| -> Option<std::ops::Range<usize>> {
        let root = doc.root();
        match &id {
            Some(id) => {
                let e = root.get("entities")?.children().find(|e| {
                    e.get(c.w.id_key)
                        .is_some_and(|x| canon(x, c.w.id_key) == *id)
                })?;
                Some(e.get(&path[1])?.span())
            }
            None => Some(root.get(&path[0])?.span()),
        }
    };
    let Some(span) = find(&ours) else { return };
    let mut lexeme = String::new();
    print_value(&new, &c.style, 0, &mut lexeme);
    let expected = format!("{}{}{}", &c.ours[..span.start], lexeme, &c.ours[span.end..]);
    let out = run(d, &c.base, &c.ours, &theirs_text);
    assert_eq!(
        out.text(),
        expected,
        "not ours' bytes with one lexeme replaced\n--- base:\n{}\n--- ours:\n{}\n--- theirs:\n{}",
        c.base,
        c.ours,
        theirs_text
    );
    assert!(out.conflicts.is_empty());
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: common::proptest_cases(192),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn identity_laws(seed in any::<u64>(), json in proptest::bool::weighted(0.3)) {
        check_laws(&case(seed, json));
    }

    #[test]
    fn disjoint_edits_all_arrive(seed in any::<u64>(), json in proptest::bool::weighted(0.3)) {
        check_disjoint(&case(seed, json));
    }

    #[test]
    fn one_scalar_edit_keeps_ours_bytes(seed in any::<u64>(), json in proptest::bool::weighted(0.3)) {
        check_one_scalar(seed, json);
    }

    /// Both sides edit anything (no owners): the merge never fails, the result parses,
    /// ids stay unique, and with policy `ours`/`theirs` it is ours/theirs where the
    /// other side did nothing.
    #[test]
    fn overlapping_edits_never_break(seed in any::<u64>(), json in proptest::bool::weighted(0.3)) {
        let mut rng = Rng::new(seed);
        let w = world(&mut rng);
        let style = Style::random(&mut rng, json);
        let mut n = 1000;
        let free = World {
            top: w.top.iter().map(|(k, _)| (k.clone(), Owner::Ours)).collect(),
            entities: w.entities.iter().map(|(k, _)| (k.clone(), Owner::Ours)).collect(),
            passes: w.passes.iter().map(|(k, _)| (k.clone(), Owner::Ours)).collect(),
            ..w.clone()
        };
        let mut ours = w.doc.clone();
        script(&mut rng, &free, Owner::Ours, true, &mut ours, &mut n);
        let mut theirs = w.doc.clone();
        script(&mut rng, &free, Owner::Ours, true, &mut theirs, &mut n);
        let (b, o, t) = (print_doc(&w.doc, &style), print_doc(&ours, &style), print_doc(&theirs, &style));
        let d = style.dialect();
        for policy in [merge::Policy::Theirs, merge::Policy::Ours, merge::Policy::Fail] {
            let opts = MergeOptions { policy, ..MergeOptions::default() };
            let out = merge(Inputs::texts(&b, &o, &t, d), &opts).unwrap_or_else(|e| {
                panic!("{e}\n--- base:\n{b}\n--- ours:\n{o}\n--- theirs:\n{t}")
            });
            let got = parse(d, out.text());
            assert_no_duplicate_ids(got.root(), w.id_key, out.text());
            prop_assert_eq!(out.failed(policy), policy == merge::Policy::Fail && !out.conflicts.is_empty());
            for c in &out.conflicts {
                prop_assert_eq!(c.taken, if policy == merge::Policy::Ours { merge::Side::Ours } else { merge::Side::Theirs });
                let text = c.path.to_string();
                prop_assert!(text.is_empty() || text.starts_with('/'));
                prop_assert_eq!(merge::changeset::parse_report_pointer(&text, |_| false).to_string(), text);
            }
        }
        // Merging the result with itself changes nothing.
        let out = run(d, &b, &o, &t);
        let again = run(d, &b, out.text(), out.text());
        prop_assert_eq!(again.text(), out.text());
        let _ = equal_unordered(parse(d, out.text()).root(), parse(d, out.text()).root());
    }
}

/// Ours renames an empty member of `shared` (deletes `m0 = {}`, adds `o_m4_1000 = {}`)
/// while theirs wraps `shared` into `wrapper`: the rename follows theirs' move, and no
/// conflict is reported (a soak run's failure).
#[test]
fn a_rename_inside_a_subtree_the_other_side_wrapped_arrives() {
    check_disjoint(&case(1466134002639990278, true));
}
