//! Chunks of an infinite Tiled map (`layers[].chunks[]`, each at x, y with its width ×
//! height cells): two sides that each paint where no chunk was add a chunk each at the
//! same coordinates; the result holds one chunk there, merged cell by cell.

use std::collections::BTreeMap;

use super::tests::run;
use crate::Policy;
use proptest::prelude::*;
use serde_json::{json, Value as Json};

/// An infinite map of one tile layer with `chunks` (x, y and 2 × 2 cells).
fn infinite(chunks: &[((i64, i64), [u32; 4])]) -> Json {
    let chunks: Vec<Json> = chunks
        .iter()
        .map(|((x, y), data)| json!({"x": x, "y": y, "width": 2, "height": 2, "data": data}))
        .collect();
    json!({"tiledversion": "1.10.2", "infinite": true, "nextlayerid": 2, "nextobjectid": 1,
           "layers": [{"id": 1, "name": "Ground", "type": "tilelayer", "width": 4, "height": 2,
                       "startx": -2, "starty": -2, "chunks": chunks}]})
}

/// The result's chunks by coordinates; fails on two chunks at one place.
fn chunks(m: &Json) -> BTreeMap<(i64, i64), Vec<u64>> {
    let mut out = BTreeMap::new();
    for c in m["layers"][0]["chunks"].as_array().unwrap() {
        let at = (c["x"].as_i64().unwrap(), c["y"].as_i64().unwrap());
        let cells = c["data"].as_array().unwrap();
        let cells = cells.iter().map(|v| v.as_u64().unwrap()).collect();
        assert!(out.insert(at, cells).is_none(), "two chunks at {at:?}: {m}");
    }
    out
}

#[test]
fn a_chunk_both_sides_added_at_one_place_is_one_chunk_merged_cell_by_cell() {
    let base = infinite(&[((-2, -2), [1; 4])]);
    let ours = infinite(&[((-2, -2), [1; 4]), ((0, -2), [3, 0, 0, 0])]);
    let theirs = infinite(&[((-2, -2), [1; 4]), ((0, -2), [0, 0, 0, 4])]);
    let (merged, out) = run(&base, &ours, &theirs, Policy::Theirs);
    let got = chunks(&merged);
    assert_eq!(got.len(), 2, "{merged}");
    assert_eq!(got[&(0, -2)], [3, 0, 0, 4]);
    assert!(out.conflicts.is_empty(), "{:?}", out.conflicts);
    // Both painting one cell of the new chunk differently: one cell conflict, by policy.
    let theirs = infinite(&[((-2, -2), [1; 4]), ((0, -2), [5, 0, 0, 4])]);
    let (merged, out) = run(&base, &ours, &theirs, Policy::Ours);
    assert_eq!(chunks(&merged)[&(0, -2)], [3, 0, 0, 4]);
    let reports: Vec<String> = out.conflicts.iter().map(|c| c.to_string()).collect();
    assert_eq!(reports.len(), 1, "{reports:?}");
    assert!(
        reports[0].contains("1 cell in x 0..0, y -2..-2"),
        "{reports:?}"
    );
}

/// A side's new chunks: coordinates from a small set (so that sides meet) and cells.
fn new_chunks() -> impl Strategy<Value = Vec<((i64, i64), [u32; 4])>> {
    let at = (0..3i64, 0..2i64).prop_map(|(x, y)| (x * 2, y * 2));
    let cells = proptest::array::uniform4(0..3u32);
    proptest::collection::vec((at, cells), 0..4)
}

/// `chunks` with at most one chunk per place (the first).
fn placed(chunks: Vec<((i64, i64), [u32; 4])>) -> Vec<((i64, i64), [u32; 4])> {
    let mut seen = std::collections::HashSet::new();
    chunks
        .into_iter()
        .filter(|(at, _)| seen.insert(*at))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn chunks_both_sides_added_are_one_per_place_with_every_cell_one_side_painted(
        ours in new_chunks(), theirs in new_chunks(),
        policy in prop_oneof![Just(Policy::Ours), Just(Policy::Theirs)],
    ) {
        let start = ((-2, -2), [1; 4]);
        let (ours, theirs) = (placed(ours), placed(theirs));
        let side = |added: &[((i64, i64), [u32; 4])]| {
            let mut all = vec![start];
            all.extend(added.iter().filter(|(at, _)| *at != start.0));
            infinite(&all)
        };
        let (merged, _) = run(&infinite(&[start]), &side(&ours), &side(&theirs), policy);
        let got = chunks(&merged);
        let mine = |list: &[((i64, i64), [u32; 4])], at| list.iter().find(|(a, _)| *a == at).map(|c| c.1);
        for at in ours.iter().chain(&theirs).map(|c| c.0) {
            let cells = got.get(&at);
            prop_assert!(cells.is_some(), "no chunk at {:?}: {}", at, merged);
            let cells = cells.unwrap();
            let (o, t) = (mine(&ours, at), mine(&theirs, at));
            for (i, &cell) in cells.iter().enumerate() {
                let (oc, tc) = (o.map_or(0, |c| c[i]), t.map_or(0, |c| c[i]));
                // A cell one side left empty takes the other's; both painting it: either.
                let want = match (oc, tc) {
                    (0, x) | (x, 0) => cell == u64::from(x),
                    (a, b) => cell == u64::from(a) || cell == u64::from(b),
                };
                prop_assert!(want, "{:?} cell {} = {} (ours {}, theirs {})", at, i, cell, oc, tc);
            }
        }
    }
}
