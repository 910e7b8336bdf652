//! The collision shapes of a Tiled tileset's tiles (`tilesets[].tiles[].objectgroup`):
//! Tiled numbers a tile's shapes one above the tile's highest, so two designers who each
//! draw a shape on one tile give it the same id.

use super::tests::{map, run};
use crate::{ConflictKind, Policy};
use proptest::prelude::*;
use serde_json::{json, Value as Json};

/// The test map with a tileset whose tiles 5 and 7 hold `shapes` (ids and x).
fn with_shapes(shapes: &[(i64, &[(u64, i64)])]) -> Json {
    let mut m = map(1, 1, &[0], json!([]), 1);
    let tiles: Vec<Json> = shapes
        .iter()
        .map(|(tile, objects)| {
            let objects: Vec<Json> = objects
                .iter()
                .map(|(id, x)| json!({"id": id, "name": "", "x": x, "y": 0, "width": 4, "height": 4}))
                .collect();
            json!({"id": tile, "objectgroup": {"draworder": "index", "name": "", "type": "objectgroup",
                   "objects": objects}})
        })
        .collect();
    m["tilesets"] = json!([{"firstgid": 1, "name": "terrain", "tilecount": 16, "tiles": tiles}]);
    m
}

fn shapes(m: &Json, tile: i64) -> Vec<(u64, i64)> {
    let tiles = m["tilesets"][0]["tiles"].as_array().unwrap();
    let tile = tiles.iter().find(|t| t["id"] == tile).unwrap();
    let mut out: Vec<(u64, i64)> = tile["objectgroup"]["objects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| (o["id"].as_u64().unwrap(), o["x"].as_i64().unwrap()))
        .collect();
    out.sort_unstable();
    out
}

#[test]
fn shapes_both_sides_drew_on_one_tile_with_one_id_are_both_kept() {
    let base = with_shapes(&[(5, &[(1, 0)]), (7, &[(1, 0)])]);
    let ours = with_shapes(&[(5, &[(1, 0), (2, 10)]), (7, &[(1, 0)])]);
    let theirs = with_shapes(&[(5, &[(1, 0), (2, 20)]), (7, &[(1, 0), (2, 30)])]);
    let (merged, out) = run(&base, &ours, &theirs, Policy::Theirs);
    assert_eq!(shapes(&merged, 5), [(1, 0), (2, 10), (3, 20)]);
    // Tile 7's new shape is theirs alone: its id stands.
    assert_eq!(shapes(&merged, 7), [(1, 0), (2, 30)]);
    let renumbered: Vec<String> = out
        .conflicts
        .iter()
        .filter(|c| c.kind == ConflictKind::Renumbered)
        .map(|c| c.path.to_string())
        .collect();
    assert_eq!(
        renumbered,
        ["/tilesets/0/tiles/[id=5]/objectgroup/objects/[id=3]"]
    );
    // The map's own counter counts map objects, not shapes.
    assert_eq!(merged["nextobjectid"], 1);
}

#[test]
fn a_shape_both_sides_drew_alike_is_one_shape() {
    let base = with_shapes(&[(5, &[(1, 0)])]);
    let both = with_shapes(&[(5, &[(1, 0), (2, 10)])]);
    let (merged, out) = run(&base, &both, &both, Policy::Theirs);
    assert_eq!(shapes(&merged, 5), [(1, 0), (2, 10)]);
    assert!(out.conflicts.is_empty(), "{:?}", out.conflicts);
}

/// A side's edits of tile 5's shapes: draw one (at a distinct x) or erase one.
fn side_edits() -> impl Strategy<Value = Vec<Option<usize>>> {
    proptest::collection::vec(proptest::option::of(0..4usize), 0..5)
}

/// `shapes` with `edits` applied as Tiled would: a new shape one above the tile's
/// highest id (never a base shape's: a reused id is an edit of that shape), `x` from
/// `next_x` (so that every drawn shape is told apart).
fn drawn(shapes: &[(u64, i64)], edits: &[Option<usize>], next_x: &mut i64) -> Vec<(u64, i64)> {
    let mut out = shapes.to_vec();
    for e in edits {
        match e {
            None => {
                let id = out.iter().chain(shapes).map(|s| s.0).max().unwrap_or(0) + 1;
                *next_x += 1;
                out.push((id, *next_x));
            }
            Some(i) if *i < out.len() => {
                out.remove(*i);
            }
            Some(_) => {}
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn shapes_drawn_on_both_sides_keep_unique_ids_and_every_new_shape(
        count in 0..3u64,
        ours in side_edits(),
        theirs in side_edits(),
        policy in prop_oneof![Just(Policy::Ours), Just(Policy::Theirs)],
    ) {
        let start: Vec<(u64, i64)> = (1..=count).map(|i| (i, -(i as i64))).collect();
        let mut x = 0;
        let (o, t) = (drawn(&start, &ours, &mut x), drawn(&start, &theirs, &mut x));
        let (base, ours_map, theirs_map) =
            (with_shapes(&[(5, &start)]), with_shapes(&[(5, &o)]), with_shapes(&[(5, &t)]));
        let (merged, _) = run(&base, &ours_map, &theirs_map, policy);
        let result = shapes(&merged, 5);
        let mut ids: Vec<u64> = result.iter().map(|s| s.0).collect();
        ids.dedup();
        prop_assert_eq!(ids.len(), result.len(), "{:?}", result);
        // Every shape a side drew (x > 0) is in the result.
        let new_xs = o.iter().chain(&t).map(|s| s.1).filter(|&x| x > 0);
        for nx in new_xs {
            prop_assert!(result.iter().any(|s| s.1 == nx), "{} lost: {:?}", nx, result);
        }
    }
}
