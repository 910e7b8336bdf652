use sjson::{Dialect, Document};

use super::*;
use crate::context::Context;
use crate::MergeOptions;

fn docs(b: &str, o: &str, t: &str) -> [Document; 3] {
    [b, o, t].map(|x| Document::parse(x, Dialect::Sjson).unwrap())
}

#[test]
fn detects_reparented_ids_and_wrapped_subtrees() {
    let [b, o, t] = docs(
        "a = [{ id = 1 } { id = 2 x = 0 }] h = { p = 1 q = 2 } s = [{ v = 1 }]",
        "a = [{ id = 1 }] b = [{ id = 2 x = 0 }] w = { h = { p = 1 q = 2 r = 3 } } s = [{ v = 1 }]",
        "a = [{ id = 1 } { id = 2 x = 5 }] h = { p = 1 q = 2 } s = []",
    );
    let opts = MergeOptions::default();
    let m = Context::new(&b, &o, &t, &opts);
    let moves = m.moves();
    let base_2 = b.root().get("a").unwrap().children().nth(1).unwrap();
    let base_h = b.root().get("h").unwrap();
    assert!(moves.moved_away(Side::Ours, base_2));
    assert!(moves.moved_away(Side::Ours, base_h));
    assert!(!moves.moved_away(Side::Theirs, base_2));
    // Unkeyed array elements are not tracked.
    let base_s0 = b.root().get("s").unwrap().children().next().unwrap();
    assert!(!moves.moved_away(Side::Theirs, base_s0));
    assert!(moves.holds_move(Side::Ours, o.root().get("b").unwrap()));
    assert!(moves.holds_move(Side::Ours, o.root().get("w").unwrap()));
    assert!(!moves.holds_move(Side::Ours, o.root().get("a").unwrap()));
    assert!(!moves.holds_move(Side::Theirs, t.root()));
}

#[test]
fn large_documents_find_both_sides_moves_on_two_threads_alike() {
    let pad = "x".repeat(crate::PARALLEL_FROM);
    let [b, o, t] = docs(
            &format!("pad = \"{pad}\" a = [{{ id = 1 }} {{ id = 2 x = 0 }}] b = [] h = {{ p = 1 q = 2 }}"),
            &format!("pad = \"{pad}\" a = [{{ id = 1 }}] b = [{{ id = 2 x = 0 }}] h = {{ p = 1 q = 2 }}"),
            &format!("pad = \"{pad}\" a = [{{ id = 1 }} {{ id = 2 x = 5 }}] b = [] w = {{ h = {{ p = 1 q = 2 }} }}"),
        );
    assert!(b.text().len() >= crate::PARALLEL_FROM);
    let opts = MergeOptions::default();
    let m = Context::new(&b, &o, &t, &opts);
    let base_2 = b.root().get("a").unwrap().children().nth(1).unwrap();
    assert!(m.moves().moved_away(Side::Ours, base_2));
    assert!(m
        .moves()
        .moved_away(Side::Theirs, b.root().get("h").unwrap()));
    assert!(!m.moves().moved_away(Side::Theirs, base_2));
    // The arrays indexed on both threads are the merge's: `a` of each version.
    let len = |k: Option<Arc<KeyedIndex<'_>>>| k.map(|k| k.ids.len());
    assert_eq!(len(m.keyed(b.root().get("a").unwrap())), Some(2));
    assert_eq!(len(m.keyed(o.root().get("a").unwrap())), Some(1));
    assert_eq!(len(m.keyed(t.root().get("a").unwrap())), Some(2));
    // `a` of all three versions, `b` of base and ours (theirs' is the base's text:
    // not walked).
    assert_eq!(m.arrays_indexed(), 5);
}

#[test]
fn resolves_base_paths_by_key_and_id() {
    let [b, o, t] = docs(
        "a = [{ id = 1 } { id = 2 x = 0 }] h = { p = { q = 1 } }",
        "a = [{ id = 2 x = 5 } { id = 1 }] h = { p = { q = 1 } } l = [{ id = 3 } { id = 3 v = 1 }]",
        "",
    );
    let opts = MergeOptions::default();
    let m = Context::new(&b, &o, &t, &opts);
    let text = |path: Vec<Step>| m.moves().resolve(m.versions(), &o, &path).map(|v| v.text());
    let id = |i: u32| Step::Id(format!("\u{0}{i}"));
    let key = |k: &str| Step::Key(k.into());
    assert_eq!(text(vec![key("a"), id(2)]), Some("{ id = 2 x = 5 }"));
    assert_eq!(text(vec![key("a"), id(1)]), Some("{ id = 1 }"));
    // Again, from the cache.
    assert_eq!(text(vec![key("a"), id(2)]), Some("{ id = 2 x = 5 }"));
    assert_eq!(text(vec![key("h"), key("p"), key("q")]), Some("1"));
    assert_eq!(text(vec![key("a"), id(9)]), None);
    assert_eq!(text(vec![key("h"), id(1)]), None);
    assert_eq!(text(vec![key("z")]), None);
    // The first of equal ids.
    assert_eq!(text(vec![key("l"), id(3)]), Some("{ id = 3 }"));
    assert_eq!(text(vec![]), Some(o.text()));
}

#[test]
fn dissimilar_subtrees_under_the_same_key_are_not_moves() {
    let [b, o, t] = docs(
        "h = { p = 1 q = 2 r = 3 }",
        "w = { h = { p = 9 x = 2 r = 8 } }",
        "h = { p = 1 q = 2 r = 3 }",
    );
    let opts = MergeOptions::default();
    let m = Context::new(&b, &o, &t, &opts);
    assert!(!m.moves().moved_away(Side::Ours, b.root().get("h").unwrap()));
}

#[test]
fn one_base_value_moves_to_one_place() {
    // Two copies of the wrapped subtree: only one is the moved value.
    let [b, o, t] = docs(
        "h = { p = 1 q = 2 }",
        "w = { h = { p = 1 q = 2 } } v = { h = { p = 1 q = 2 } }",
        "h = { p = 1 q = 2 }",
    );
    let opts = MergeOptions::default();
    let m = Context::new(&b, &o, &t, &opts);
    assert_eq!(m.moves().sides[0].into.len(), 1);
    assert_eq!(m.moves().sides[0].targets.len(), 1);
}
