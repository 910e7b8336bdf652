//! Property: random levels with hierarchies (nested `children`, `parent` references) and
//! references (`members`), random concurrent edits on two sides (create, destroy, set,
//! reparent, move between arrays) — every merge result holds the coherence invariants:
//! no reference to a missing object, no parent cycle, no object lost that no side
//! deleted, no id twice.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};

use levelgen::Rng;
use merge::{merge, Inputs, MergeOptions, Policy};
use proptest::prelude::*;
use sjson::{Dialect, Document, Kind, Value};

#[derive(Clone, Debug)]
struct Obj {
    id: String,
    v: u32,
    parent: Option<String>,
    members: Vec<String>,
    children: Vec<Obj>,
}

type Level = Vec<Obj>;

fn all_ids(level: &[Obj], out: &mut Vec<String>) {
    for o in level {
        out.push(o.id.clone());
        all_ids(&o.children, out);
    }
}

fn ids_of(level: &[Obj]) -> Vec<String> {
    let mut v = Vec::new();
    all_ids(level, &mut v);
    v
}

fn find_mut<'a>(level: &'a mut [Obj], id: &str) -> Option<&'a mut Obj> {
    for o in level {
        if o.id == id {
            return Some(o);
        }
        if let Some(f) = find_mut(&mut o.children, id) {
            return Some(f);
        }
    }
    None
}

fn take(level: &mut Vec<Obj>, id: &str) -> Option<Obj> {
    if let Some(p) = level.iter().position(|o| o.id == id) {
        return Some(level.remove(p));
    }
    level.iter_mut().find_map(|o| take(&mut o.children, id))
}

/// Edges child → parent (nesting and `parent`), by id.
fn edges(level: &[Obj], owner: Option<&str>, out: &mut BTreeMap<String, Vec<String>>) {
    for o in level {
        let e = out.entry(o.id.clone()).or_default();
        e.extend(owner.map(String::from));
        e.extend(o.parent.clone());
        edges(&o.children, Some(&o.id), out);
    }
}

/// Whether `to` is reachable from `from` going up.
fn reaches(g: &BTreeMap<String, Vec<String>>, from: &str, to: &str) -> bool {
    let mut seen = BTreeSet::new();
    let mut stack = vec![from.to_string()];
    while let Some(n) = stack.pop() {
        if n == to {
            return true;
        }
        if seen.insert(n.clone()) {
            stack.extend(g.get(&n).into_iter().flatten().cloned());
        }
    }
    false
}

fn scrub(level: &mut [Obj], gone: &BTreeSet<String>) {
    for o in level {
        if o.parent.as_ref().is_some_and(|p| gone.contains(p)) {
            o.parent = None;
        }
        o.members.retain(|m| !gone.contains(m));
        scrub(&mut o.children, gone);
    }
}

fn new_id(rng: &mut Rng, tag: &str) -> String {
    // Short ids (references only under parent/members) and long ones.
    if rng.index(2) == 0 {
        format!("{tag}{}", rng.index(1000))
    } else {
        format!("{tag}-{:08x}", rng.next_u64() as u32)
    }
}

/// One random edit that keeps the side coherent (a level editor's operation).
fn edit(level: &mut Level, rng: &mut Rng, tag: &str) {
    let ids = ids_of(level);
    let pick = |rng: &mut Rng| ids.get(rng.index(ids.len())).cloned();
    match rng.index(5) {
        0 => {
            let id = new_id(rng, tag);
            if ids.contains(&id) {
                return;
            }
            let o = Obj {
                id,
                v: rng.index(9) as u32,
                parent: if rng.index(2) == 0 { pick(rng) } else { None },
                members: (0..rng.index(3)).filter_map(|_| pick(rng)).collect(),
                children: Vec::new(),
            };
            match pick(rng).filter(|_| rng.index(2) == 0) {
                Some(at) => find_mut(level, &at).unwrap().children.push(o),
                None => {
                    let p = rng.index(level.len() + 1);
                    level.insert(p, o)
                }
            }
        }
        1 => {
            if let Some(id) = pick(rng) {
                let gone = take(level, &id).unwrap();
                let gone: BTreeSet<String> = ids_of(&[gone]).into_iter().collect();
                scrub(level, &gone);
            }
        }
        2 => {
            if let Some(id) = pick(rng) {
                find_mut(level, &id).unwrap().v = rng.index(9) as u32;
            }
        }
        3 => {
            let (Some(c), Some(p)) = (pick(rng), pick(rng)) else {
                return;
            };
            let mut g = BTreeMap::new();
            edges(level, None, &mut g);
            if !reaches(&g, &p, &c) {
                find_mut(level, &c).unwrap().parent = Some(p);
            }
        }
        _ => {
            let Some(x) = pick(rng) else { return };
            let to = pick(rng).filter(|_| rng.index(3) != 0);
            let mut g = BTreeMap::new();
            edges(level, None, &mut g);
            if to.as_ref().is_some_and(|y| reaches(&g, y, &x)) {
                return;
            }
            let o = take(level, &x).unwrap();
            match to {
                Some(y) => find_mut(level, &y).unwrap().children.push(o),
                None => {
                    let p = rng.index(level.len() + 1);
                    level.insert(p, o)
                }
            }
        }
    }
}

fn render(level: &[Obj], indent: &str, out: &mut String) {
    for o in level {
        out.push_str(&format!("{indent}{{ id = \"{}\" v = {}", o.id, o.v));
        if let Some(p) = &o.parent {
            out.push_str(&format!(" parent = \"{p}\""));
        }
        if !o.members.is_empty() {
            let m: Vec<String> = o.members.iter().map(|m| format!("\"{m}\"")).collect();
            out.push_str(&format!(" members = [{}]", m.join(" ")));
        }
        out.push_str(" children = [\n");
        render(&o.children, &format!("{indent}\t"), out);
        out.push_str(&format!("{indent}] }}\n"));
    }
}

fn text(level: &[Obj]) -> String {
    let mut out = String::from("l = [\n");
    render(level, "\t", &mut out);
    out.push_str("]\n");
    out
}

fn base_level(rng: &mut Rng) -> Level {
    let mut level = Level::new();
    for _ in 0..rng.index(8) + 2 {
        edit(&mut level, rng, "b");
    }
    level
}

/// The result's objects: id → (count, parent edges), and every referenced id.
fn inspect(
    v: Value<'_>,
    owner: Option<String>,
    objs: &mut BTreeMap<String, (usize, Vec<String>)>,
    refs: &mut Vec<String>,
) {
    match v.kind() {
        Kind::Array => {
            for c in v.children() {
                inspect(c, owner.clone(), objs, refs);
            }
        }
        Kind::Object => {
            let id = v.get("id").and_then(|i| i.as_str()).map(|s| s.to_string());
            if let Some(id) = &id {
                let e = objs.entry(id.clone()).or_default();
                e.0 += 1;
                e.1.extend(owner.clone());
                if let Some(p) = v.get("parent").and_then(|p| p.as_str()) {
                    e.1.push(p.to_string());
                    refs.push(p.to_string());
                }
                for m in v.get("members").into_iter().flat_map(|m| m.children()) {
                    refs.push(m.as_str().unwrap().to_string());
                }
            }
            for (_, c) in v.members() {
                inspect(c, id.clone().or(owner.clone()), objs, refs);
            }
        }
        _ => {}
    }
}

fn check(seed: u64, edits: usize, policy: Policy) -> Result<(), TestCaseError> {
    let mut rng = Rng::new(seed);
    let base = base_level(&mut rng);
    let mut ours = base.clone();
    let mut theirs = base.clone();
    for _ in 0..edits {
        edit(&mut ours, &mut rng, "o");
        edit(&mut theirs, &mut rng, "t");
    }
    let (b, o, t) = (text(&base), text(&ours), text(&theirs));
    let opts = MergeOptions {
        policy,
        ..MergeOptions::default()
    };
    let out = merge(Inputs::texts(&b, &o, &t, Dialect::Sjson), &opts)
        .map_err(|e| TestCaseError::fail(format!("{e}")))?;
    // The same merge of versions given up to it (node tables freed before the result is
    // parsed, versions parsed again for a repair): the same result and reports.
    // With base freed before the result is printed, and read again for a repair: the
    // same too.
    let parse = |s: &str| Document::parse(s, Dialect::Sjson).unwrap();
    let base_again = || Some(b.clone());
    for again in [None, Some(&base_again as merge::coherence::BaseAgain<'_>)] {
        let owned = merge::merge(
            merge::Inputs::Owned {
                base: parse(&b),
                ours: parse(&o),
                theirs: parse(&t),
                base_again: again,
            },
            &opts,
        )
        .map_err(|e| TestCaseError::fail(format!("{e}")))?;
        prop_assert_eq!(owned.document.text(), out.text());
        prop_assert_eq!(
            format!("{:?}", owned.conflicts),
            format!("{:?}", out.conflicts)
        );
    }
    let doc = Document::parse(out.text(), Dialect::Sjson).unwrap();
    let mut objs = BTreeMap::new();
    let mut refs = Vec::new();
    inspect(doc.root(), None, &mut objs, &mut refs);
    let ctx = || {
        format!(
            "\n--- base:\n{b}--- ours:\n{o}--- theirs:\n{t}--- result:\n{}\n{:#?}",
            out.text(),
            out.conflicts
        )
    };
    // (4) No id twice.
    for (id, (n, _)) in &objs {
        prop_assert_eq!(*n, 1, "{} twice{}", id, ctx());
    }
    // (1) No reference to a missing object.
    for r in &refs {
        prop_assert!(objs.contains_key(r), "dangling {}{}", r, ctx());
    }
    // (2) No parent cycle.
    let g: BTreeMap<String, Vec<String>> = objs
        .iter()
        .map(|(k, (_, e))| (k.clone(), e.clone()))
        .collect();
    for (id, ups) in &g {
        for up in ups {
            prop_assert!(!reaches(&g, up, id), "cycle through {}{}", id, ctx());
        }
    }
    // (3) No object lost that no side deleted.
    let (bi, oi, ti) = (ids_of(&base), ids_of(&ours), ids_of(&theirs));
    for id in oi.iter().chain(&ti) {
        let deleted = bi.contains(id) && (!oi.contains(id) || !ti.contains(id));
        prop_assert!(deleted || objs.contains_key(id), "lost {}{}", id, ctx());
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::proptest_cases(400)))]

    #[test]
    fn every_merge_result_is_a_coherent_level(seed in any::<u64>(), edits in 1usize..6, ours_wins in any::<bool>()) {
        check(seed, edits, if ours_wins { Policy::Ours } else { Policy::Theirs })?;
    }

    /// A version that does not parse again (a bug) makes the pass fail, never panic, and
    /// a version the pass does not need changes nothing.
    #[test]
    fn a_version_that_does_not_parse_again_fails_the_pass_cleanly(seed in any::<u64>(), broken in 0usize..3) {
        pass_with_a_broken_version(seed, broken)?;
    }
}

/// Both sides delete an object's parent; ours reparents the object, theirs nests that new
/// parent under it. Breaking the cycle must not put back base's parent (deleted by both).
#[test]
fn a_broken_cycle_does_not_name_an_object_both_sides_deleted() {
    check(15732529272552496730, 5, Policy::Ours).unwrap();
}

/// Ours nests `b555` under `b975` and `b-10d64946` under `b555`; theirs deletes
/// `b-10d64946`. Merging the moved `b555` with theirs took it whole, which merged it as a
/// moved value again, down to the depth limit (a stack overflow in a debug build).
#[test]
fn a_moved_value_holding_another_moved_value_is_merged_once() {
    check(15969871226715335321, 5, Policy::Theirs).unwrap();
    let mut rng = Rng::new(15969871226715335321);
    let base = base_level(&mut rng);
    let (mut ours, mut theirs) = (base.clone(), base.clone());
    for _ in 0..5 {
        edit(&mut ours, &mut rng, "o");
        edit(&mut theirs, &mut rng, "t");
    }
    let out = merge(
        Inputs::texts(text(&base), text(&ours), text(&theirs), Dialect::Sjson),
        &MergeOptions::default(),
    )
    .unwrap();
    // Ours' moves are kept, theirs' deletion of the object ours moved wins, reported once.
    assert!(
        out.text().contains(
            "{ id = \"b975\" v = 0 members = [\"b-db631e39\"] children = [\n\t\t\t{ id = \"b555\""
        ),
        "{}",
        out.text()
    );
    assert!(!out.text().contains("b-10d64946"), "{}", out.text());
    assert_eq!(out.conflicts.len(), 1, "{:#?}", out.conflicts);
    assert_eq!(
        out.conflicts[0].path.to_string(),
        "/l/[id=b-db631e39]/children/[id=b975]/children/[id=b555]/children/[id=b-10d64946]"
    );
}

/// A random value whose arrays of objects draw ids from three names, so that an id is
/// often held twice (within one array or across arrays).
fn repeating(rng: &mut Rng, depth: usize, out: &mut String) {
    if depth == 0 || rng.one_in(3) {
        out.push_str(&rng.index(3).to_string());
        return;
    }
    out.push('[');
    for _ in 0..rng.index(4) {
        out.push_str(" { ");
        if !rng.one_in(5) {
            out.push_str(&format!("id = {} ", rng.pick(&["x", "y", "z"])));
        }
        out.push_str("v = ");
        repeating(rng, depth - 1, out);
        out.push_str(" }");
    }
    out.push_str(" ]");
}

/// Whether an array whose elements all carry an id repeats one, anywhere under `v` (what
/// `assetvc check` calls a duplicate id).
fn repeats_an_id(v: Value<'_>) -> bool {
    let keys = ["id".to_string()];
    let ids: Option<Vec<String>> = (v.kind() == Kind::Array && !v.is_empty()).then(|| {
        v.children()
            .filter_map(|c| merge::id_member(&keys, c).map(|(_, id, _)| id.into_owned()))
            .collect()
    });
    let repeated = ids.is_some_and(|ids| {
        ids.len() == v.len() && ids.iter().collect::<BTreeSet<_>>().len() < ids.len()
    });
    repeated || v.children().any(repeats_an_id)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::proptest_cases(400)))]

    /// The coherence pass's word that no id is held twice spares `merge-file` the
    /// duplicate-id check: it must never be given when an array repeats an id.
    #[test]
    fn unique_ids_is_never_claimed_for_a_result_that_repeats_an_id(seed in any::<u64>()) {
        let mut rng = Rng::new(seed);
        let mut version = || {
            let mut text = String::from("a = ");
            repeating(&mut rng, 3, &mut text);
            text.push_str("\nb = ");
            repeating(&mut rng, 2, &mut text);
            Document::parse(text, Dialect::Sjson).unwrap()
        };
        let (b, o, t) = (version(), version(), version());
        let Ok(merged) = merge::merge(merge::Inputs::documents(&b, &o, &t), &MergeOptions::default()) else {
            // An ambiguous reference stops the merge: nothing is claimed.
            return Ok(());
        };
        if merged.unique_ids {
            prop_assert!(
                !repeats_an_id(merged.document.root()),
                "claimed unique:\n{}",
                merged.document.text()
            );
        }
    }
}

/// The pass run on versions kept as texts, one of them (`broken`) with a dialect it does not
/// parse as: what a bug handing it the wrong text would do.
fn pass_with_a_broken_version(seed: u64, broken: usize) -> Result<(), TestCaseError> {
    use merge::coherence::{repaired, walk_sides, CoherenceError, Versions};
    let mut rng = Rng::new(seed);
    let base = base_level(&mut rng);
    let (mut ours, mut theirs) = (base.clone(), base.clone());
    for _ in 0..3 {
        edit(&mut ours, &mut rng, "o");
        edit(&mut theirs, &mut rng, "t");
    }
    // `{` opens each version: as JSON, `l = [` after it does not parse.
    let texts = [text(&base), text(&ours), text(&theirs)].map(|t| format!("{{ {t} }}"));
    let parse = |t: &str| Document::parse(t, Dialect::Sjson).unwrap();
    let [b, o, t] = [&texts[0], &texts[1], &texts[2]].map(|t| parse(t));
    let opts = MergeOptions::default();
    let merged = parse(&merge::structural(&b, &o, &t, &opts).text);
    let answer = |pass: merge::coherence::Repaired| {
        let text = pass.document.map(|d| d.text().to_string());
        format!("{text:?} {:?}", pass.reports)
    };
    let Ok(right) = repaired(&Versions::parsed(&b, &o, &t), &merged, &opts, None) else {
        return Ok(());
    };
    let dialect = |i: usize| {
        if i == broken {
            Dialect::Json
        } else {
            Dialect::Sjson
        }
    };
    let versions = Versions::texts(
        (&texts[0], dialect(0)),
        (&texts[1], dialect(1)),
        (&texts[2], dialect(2)),
    );
    match repaired(&versions, &merged, &opts, Some(walk_sides(&o, &t, &opts))) {
        // The pass did not need the broken version: the same answer.
        Ok(pass) => prop_assert_eq!(answer(pass), answer(right)),
        Err(e) => prop_assert!(matches!(e, CoherenceError::Internal), "{}", e),
    }
    Ok(())
}
