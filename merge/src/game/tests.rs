use super::*;
use crate::{merge, ConflictKind, Inputs, Merged, Policy};
use proptest::prelude::*;
use serde_json::{json, Value as Json};
use sjson::Dialect;

/// A Tiled map of one tile layer (`w` × `h` cells) and one object layer.
pub(super) fn map(w: usize, h: usize, data: &[u32], objects: Json, next: u64) -> Json {
    json!({
        "tiledversion": "1.10.2", "type": "map", "width": w, "height": h,
        "nextlayerid": 3, "nextobjectid": next,
        "layers": [
            {"id": 1, "name": "Ground", "type": "tilelayer", "width": w, "height": h,
             "x": 0, "y": 0, "data": data},
            {"id": 2, "name": "Objects", "type": "objectgroup", "objects": objects}
        ]
    })
}

fn object(id: u64, name: &str, x: i64) -> Json {
    json!({"id": id, "name": name, "x": x, "y": 0})
}

pub(super) fn run(base: &Json, ours: &Json, theirs: &Json, policy: Policy) -> (Json, Merged) {
    let options = MergeOptions {
        policy,
        ..MergeOptions::default()
    };
    let text = |v: &Json| serde_json::to_string_pretty(v).unwrap();
    let out = merge(
        Inputs::texts(text(base), text(ours), text(theirs), Dialect::Json),
        &options,
    )
    .expect("the merge succeeds");
    let merged: Json = serde_json::from_str(out.text()).expect("the result is JSON");
    let doc = Document::parse(out.text(), Dialect::Json).unwrap();
    assert!(crate::ids_coherent(&doc), "{}", out.text());
    (merged, out)
}

fn ids(m: &Json) -> Vec<u64> {
    m["layers"][1]["objects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["id"].as_u64().unwrap())
        .collect()
}

#[test]
fn maps_are_told_by_their_content_and_other_files_are_not_touched() {
    let doc = |t: &str| Document::parse(t, Dialect::Json).unwrap();
    assert_eq!(
        Game::of(&doc(r#"{"tiledversion": "1.9"}"#)),
        Some(Game::Tiled)
    );
    let ldtk = r#"{"jsonVersion": "1.5.3", "iid": "a", "nextUid": 4}"#;
    assert_eq!(Game::of(&doc(ldtk)), Some(Game::Ldtk));
    let level = r#"{"__header__": {"app": "LDtk"}, "iid": "x"}"#;
    assert_eq!(Game::of(&doc(level)), Some(Game::Ldtk));
    for other in [
        r#"{"jsonVersion": "1"}"#,
        r#"{"id": 1}"#,
        "[1, 2]",
        r#"{"__header__": 3}"#,
    ] {
        assert_eq!(Game::of(&doc(other)), None, "{other}");
    }
}

#[test]
fn an_id_both_sides_drew_for_different_objects_is_renumbered_in_theirs() {
    let base = map(2, 1, &[0, 0], json!([object(1, "door", 0)]), 2);
    let ours = map(
        2,
        1,
        &[0, 0],
        json!([object(1, "door", 0), object(2, "chest", 5)]),
        3,
    );
    let theirs = map(
        2,
        1,
        &[0, 0],
        json!([object(1, "door", 0), object(2, "lamp", 9)]),
        3,
    );
    let (merged, out) = run(&base, &ours, &theirs, Policy::Theirs);
    assert_eq!(ids(&merged), [1, 2, 3]);
    let lamp = &merged["layers"][1]["objects"][2];
    assert_eq!(
        (lamp["name"].as_str(), lamp["x"].as_i64()),
        (Some("lamp"), Some(9))
    );
    assert_eq!(merged["nextobjectid"], 4);
    let report = out
        .conflicts
        .iter()
        .find(|c| c.kind == ConflictKind::Renumbered)
        .expect("the renumbering is reported");
    assert_eq!(report.path.to_string(), "/layers/[id=2]/objects/[id=3]");
    assert_eq!(
        report.to_string(),
        "/layers/[id=2]/objects/[id=3]: id 2 taken by both sides, theirs renumbered to 3"
    );
}

#[test]
fn an_object_both_sides_added_alike_is_one_object() {
    let base = map(1, 1, &[0], json!([]), 1);
    let side = map(1, 1, &[0], json!([object(1, "chest", 5)]), 2);
    let (merged, out) = run(&base, &side, &side.clone(), Policy::Theirs);
    assert_eq!(ids(&merged), [1]);
    assert!(out.conflicts.is_empty(), "{:?}", out.conflicts);
}

#[test]
fn references_in_theirs_follow_its_renumbered_object() {
    let base = map(1, 1, &[0], json!([]), 1);
    let ours = map(1, 1, &[0], json!([object(1, "chest", 5)]), 2);
    let mut lever = object(2, "lever", 3);
    lever["properties"] = json!([{"name": "opens", "type": "object", "value": 1}]);
    let theirs = map(1, 1, &[0], json!([object(1, "gate", 9), lever]), 3);
    let (merged, _) = run(&base, &ours, &theirs, Policy::Theirs);
    let objects = merged["layers"][1]["objects"].as_array().unwrap();
    let by_name = |n: &str| objects.iter().find(|o| o["name"] == n).unwrap();
    assert_eq!(by_name("chest")["id"], 1);
    let gate = by_name("gate")["id"].clone();
    assert_ne!(gate, 1);
    assert_eq!(by_name("lever")["properties"][0]["value"], gate);
}

#[test]
fn both_sides_painting_merge_cell_by_cell() {
    let base = map(3, 2, &[0, 0, 0, 0, 0, 0], json!([]), 1);
    let ours = map(3, 2, &[1, 0, 0, 0, 7, 0], json!([]), 1);
    let theirs = map(3, 2, &[0, 0, 2, 0, 8, 3], json!([]), 1);
    let (merged, out) = run(&base, &ours, &theirs, Policy::Ours);
    assert_eq!(merged["layers"][0]["data"], json!([1, 0, 2, 0, 7, 3]));
    let cells: Vec<_> = out
        .conflicts
        .iter()
        .filter(|c| c.kind == ConflictKind::Cells)
        .collect();
    assert_eq!(cells.len(), 1, "{:?}", out.conflicts);
    assert_eq!(
        cells[0].to_string(),
        "/layers/[id=1]/data: 1 cell in x 1..1, y 1..1 painted differently by both sides, took ours"
    );
    assert_eq!(out.conflicts.len(), 1, "{:?}", out.conflicts);
}

#[test]
fn a_resize_on_one_side_keeps_the_other_sides_painting_at_its_coordinates() {
    let base = map(2, 2, &[1, 2, 3, 4], json!([]), 1);
    // Ours adds a column on the right; theirs paints the bottom-left cell.
    let ours = map(3, 2, &[1, 2, 0, 3, 4, 0], json!([]), 1);
    let theirs = map(2, 2, &[1, 2, 9, 4], json!([]), 1);
    let (merged, _) = run(&base, &ours, &theirs, Policy::Theirs);
    assert_eq!(merged["layers"][0]["width"], 3);
    assert_eq!(merged["layers"][0]["data"], json!([1, 2, 0, 9, 4, 0]));
}

/// An LDtk project of `levels` (identifier, iid, uid) with one IntGrid layer each.
fn ldtk(levels: &[(&str, &str, u64, &[u8])], next: u64) -> Json {
    let levels: Vec<Json> = levels
        .iter()
        .map(|(name, iid, uid, grid)| {
            json!({"identifier": name, "iid": iid, "uid": uid, "layerInstances": [
                {"__identifier": "IntGrid", "__cWid": 2, "__cHei": 2, "iid": format!("{iid}-l"),
                 "levelId": uid, "layerDefUid": 1, "intGridCsv": grid}
            ]})
        })
        .collect();
    json!({"jsonVersion": "1.5.3", "iid": "p", "nextUid": next,
           "defs": {"layers": [{"identifier": "IntGrid", "uid": 1}]}, "levels": levels})
}

#[test]
fn ldtk_levels_pair_by_iid_and_clashing_uids_are_renumbered() {
    let a: (&str, &str, u64, &[u8]) = ("A", "aaaa", 2, &[0, 0, 0, 0]);
    let base = ldtk(&[a], 3);
    let ours = ldtk(&[a, ("B", "bbbb", 3, &[1, 1, 0, 0])], 4);
    // Theirs inserts its new level first and paints A.
    let theirs = ldtk(
        &[
            ("C", "cccc", 3, &[2, 0, 0, 2]),
            ("A", "aaaa", 2, &[0, 5, 0, 0]),
        ],
        4,
    );
    let (merged, out) = run(&base, &ours, &theirs, Policy::Theirs);
    let levels = merged["levels"].as_array().unwrap();
    let by = |n: &str| levels.iter().find(|l| l["identifier"] == n).unwrap();
    assert_eq!(levels.len(), 3, "{merged:#}");
    assert_eq!(by("B")["uid"], 3);
    assert_eq!(by("C")["uid"], 4);
    assert_eq!(by("C")["layerInstances"][0]["levelId"], 4);
    assert_eq!(
        by("A")["layerInstances"][0]["intGridCsv"],
        json!([0, 5, 0, 0])
    );
    assert_eq!(merged["nextUid"], 5);
    assert!(out
        .conflicts
        .iter()
        .any(|c| c.kind == ConflictKind::Renumbered));
}

/// One side's edit of a map.
#[derive(Debug, Clone)]
enum Edit {
    Paint(usize, usize, u32),
    Add(i64),
    Delete(usize),
    Widen,
    Narrow,
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (0..6usize, 0..6usize, 0..5u32).prop_map(|(x, y, v)| Edit::Paint(x, y, v)),
        (0..20i64).prop_map(Edit::Add),
        (0..6usize).prop_map(Edit::Delete),
        Just(Edit::Widen),
        Just(Edit::Narrow),
    ]
}

/// `m` with `edits` applied as Tiled would: new objects from the counter, resizes keeping
/// cells at their coordinates.
fn edited(m: &Json, edits: &[Edit]) -> Json {
    let mut m = m.clone();
    for e in edits {
        let (w, h) = (
            m["width"].as_u64().unwrap() as usize,
            m["height"].as_u64().unwrap() as usize,
        );
        let layer = &mut m["layers"][0];
        match e {
            Edit::Paint(x, y, v) if *x < w && *y < h => layer["data"][y * w + x] = json!(v),
            Edit::Paint(..) => {}
            Edit::Add(x) => {
                let id = m["nextobjectid"].as_u64().unwrap();
                m["nextobjectid"] = json!(id + 1);
                let list = m["layers"][1]["objects"].as_array_mut().unwrap();
                list.push(object(id, "thing", *x));
            }
            Edit::Delete(i) => {
                let list = m["layers"][1]["objects"].as_array_mut().unwrap();
                if *i < list.len() {
                    list.remove(*i);
                }
            }
            Edit::Widen | Edit::Narrow => {
                let nw = if matches!(e, Edit::Widen) {
                    w + 1
                } else {
                    w.max(2) - 1
                };
                let old = layer["data"].as_array().unwrap().clone();
                let cell = |x: usize, y: usize| {
                    if x < w {
                        old[y * w + x].clone()
                    } else {
                        json!(0)
                    }
                };
                let data: Vec<Json> = (0..h)
                    .flat_map(|y| (0..nw).map(move |x| (x, y)))
                    .map(|(x, y)| cell(x, y))
                    .collect();
                layer["data"] = json!(data);
                layer["width"] = json!(nw);
                m["width"] = json!(nw);
            }
        }
    }
    m
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_edits_on_both_sides_keep_ids_unique_and_grids_whole(
        (w, h) in (1..5usize, 1..5usize),
        cells in proptest::collection::vec(0..5u32, 25),
        count in 0..4u64,
        ours in proptest::collection::vec(edit(), 0..6),
        theirs in proptest::collection::vec(edit(), 0..6),
        policy in prop_oneof![Just(Policy::Ours), Just(Policy::Theirs)],
    ) {
        let objects: Vec<Json> = (1..=count).map(|i| object(i, "base", i as i64)).collect();
        let base = map(w, h, &cells[..w * h], json!(objects), count + 1);
        let (merged, _) = run(&base, &edited(&base, &ours), &edited(&base, &theirs), policy);
        let layer = &merged["layers"][0];
        let (lw, lh) = (layer["width"].as_u64().unwrap(), layer["height"].as_u64().unwrap());
        prop_assert_eq!(layer["data"].as_array().unwrap().len() as u64, lw * lh);
        let ids = ids(&merged);
        let next = merged["nextobjectid"].as_u64().unwrap();
        prop_assert!(ids.iter().all(|&id| id < next));
        let mut unique = ids.clone();
        unique.sort_unstable();
        unique.dedup();
        prop_assert_eq!(unique.len(), ids.len());
    }
}

#[test]
fn layers_both_sides_added_with_one_id_stay_two_layers_with_their_own_grids() {
    let base = map(2, 1, &[0, 0], json!([]), 1);
    let layer = |name: &str, cell: u32| {
        json!({"id": 3, "name": name, "type": "tilelayer", "width": 2, "height": 1,
               "x": 0, "y": 0, "data": [cell, cell]})
    };
    let mut ours = base.clone();
    ours["layers"]
        .as_array_mut()
        .unwrap()
        .push(layer("Trees", 4));
    ours["nextlayerid"] = json!(4);
    let mut theirs = base.clone();
    theirs["layers"]
        .as_array_mut()
        .unwrap()
        .push(layer("Water", 6));
    theirs["nextlayerid"] = json!(4);
    let (merged, out) = run(&base, &ours, &theirs, Policy::Theirs);
    let layers = merged["layers"].as_array().unwrap();
    let by = |n: &str| layers.iter().find(|l| l["name"] == n).unwrap();
    assert_eq!(
        (by("Trees")["id"].clone(), by("Trees")["data"].clone()),
        (json!(3), json!([4, 4]))
    );
    assert_eq!(
        (by("Water")["id"].clone(), by("Water")["data"].clone()),
        (json!(4), json!([6, 6]))
    );
    assert_eq!(merged["nextlayerid"], 5);
    assert_eq!(out.conflicts.len(), 1, "{:?}", out.conflicts);
}

#[test]
fn chunks_of_an_infinite_map_merge_cell_by_cell_at_their_coordinates() {
    let chunk =
        |x: i64, data: [u32; 4]| json!({"x": x, "y": -2, "width": 2, "height": 2, "data": data});
    let infinite = |chunks: Json| {
        json!({"tiledversion": "1.10.2", "infinite": true, "nextlayerid": 2, "nextobjectid": 1,
               "layers": [{"id": 1, "name": "Ground", "type": "tilelayer", "width": 4, "height": 2,
                           "chunks": chunks}]})
    };
    let base = infinite(json!([chunk(-2, [0; 4]), chunk(0, [0; 4])]));
    let ours = infinite(json!([chunk(-2, [1, 0, 0, 0]), chunk(0, [0, 0, 0, 5])]));
    let theirs = infinite(json!([chunk(-2, [0, 2, 0, 0]), chunk(0, [0, 0, 0, 6])]));
    let (merged, out) = run(&base, &ours, &theirs, Policy::Theirs);
    let chunks = &merged["layers"][0]["chunks"];
    assert_eq!(chunks[0]["data"], json!([1, 2, 0, 0]));
    assert_eq!(chunks[1]["data"], json!([0, 0, 0, 6]));
    let cells: Vec<String> = out.conflicts.iter().map(|c| c.to_string()).collect();
    assert_eq!(
        cells,
        ["/layers/[id=1]/chunks/1/data: 1 cell in x 1..1, y -1..-1 painted differently by both sides, took theirs"]
    );
}

/// A Tiled-like or LDtk-like map with any numbers where sizes and ids go.
fn wild_map() -> impl Strategy<Value = Json> {
    let number = prop_oneof![-3..40i64, any::<i64>()];
    let cells = proptest::collection::vec(0..4i64, 0..12);
    (
        any::<bool>(),
        (number.clone(), number.clone(), number.clone(), number),
        cells,
    )
        .prop_map(|(ldtk, (w, h, id, next), cells)| {
            if ldtk {
                json!({"jsonVersion": "1", "nextUid": next, "levels": [{"iid": "l", "uid": id,
                    "layerInstances": [{"iid": "g", "__cWid": w, "__cHei": h, "levelId": id,
                                        "intGridCsv": cells}]}]})
            } else {
                json!({"tiledversion": "1", "nextobjectid": next, "nextlayerid": next,
                    "layers": [{"id": id, "width": w, "height": h, "data": cells,
                                "objects": [{"id": id, "name": "o"}]}]})
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn maps_with_any_sizes_and_ids_merge_without_panicking(
        base in wild_map(), ours in wild_map(), theirs in wild_map(),
    ) {
        let text = |v: &Json| serde_json::to_string(v).unwrap();
        let out = merge(Inputs::texts(text(&base), text(&ours), text(&theirs), Dialect::Json), &MergeOptions::default());
        prop_assert!(out.is_ok(), "{out:?}");
    }
}
