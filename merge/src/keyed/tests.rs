use sjson::{Dialect, Document};

use super::*;
use crate::MergeOptions;

fn ids(text: &str) -> Option<Vec<String>> {
    let d = Document::parse(text, Dialect::Sjson).unwrap();
    let empty = Document::parse("", Dialect::Sjson).unwrap();
    let opts = MergeOptions::default();
    let m = Merger::new(&empty, &empty, &empty, &opts);
    let k = m.cx.keyed(d.root().get("l").unwrap())?;
    Some(k.ids.iter().map(id_display).collect())
}

#[test]
fn keyed_arrays_need_one_id_key_and_unique_ids() {
    assert_eq!(
        ids("l = [{ id = a } { ID = b }]"),
        Some(vec!["a".into(), "b".into()])
    );
    assert_eq!(
        ids("l = [{ guid = 1 } { guid = 2 }]"),
        Some(vec!["1".into(), "2".into()])
    );
    assert_eq!(ids("l = []"), Some(vec![]));
    // Duplicates, mixed keys, elements without ids, non-objects: not keyed.
    assert_eq!(ids("l = [{ id = a } { id = a }]"), None);
    assert_eq!(ids("l = [{ id = a } { guid = b }]"), None);
    assert_eq!(ids("l = [{ id = a } { name = b }]"), None);
    assert_eq!(ids("l = [{ id = a } 1]"), None);
    assert_eq!(ids("l = [1 2]"), None);
    // An integer id and a string id of the same digits are distinct, and so are
    // their paths (`[id=1]`, `[id="1"]`).
    assert_eq!(
        ids("l = [{ id = 1 } { id = \"1\" }]"),
        Some(vec!["1".into(), "\"1\"".into()])
    );
}

#[test]
fn kept_elements_that_follow_one_another_become_runs() {
    let doc = Document::parse("l = [0 1 2 3 4 5 6 7]", Dialect::Sjson).unwrap();
    let values: Vec<Value<'_>> = doc.root().get("l").unwrap().children().collect();
    let os = Elements::Collected(values[..5].to_vec());
    let item = |i: usize| OutItem {
        key: None,
        ours: None,
        origin: Some(values[i]),
        value: Out::Value(values[i]),
    };
    // Ours: slots 0..5 (2 dropped, 3 merged); theirs' own elements: slots 5..8 (6
    // dropped).
    let slots = || {
        let mut s = Slots::new(5);
        s.push_kept();
        s.push_kept();
        s.push_ours(None);
        s.push_ours(Some(OutItem {
            value: Out::Lexeme("x".into()),
            ..OutItem::kept(values[3])
        }));
        s.push_kept();
        s.insert_theirs(5, item(5));
        s.insert_theirs(7, item(7));
        s
    };
    let texts = |items: Vec<OutItem<'_>>| -> Vec<String> {
        items
            .iter()
            .map(|i| match &i.value {
                Out::Value(v) => v.text().to_string(),
                Out::Lexeme(l) => l.to_string(),
                Out::Run { last, count } => {
                    format!("{}..{} ({count})", i.ours.unwrap().text(), last.text())
                }
                Out::Container { .. } => String::new(),
            })
            .collect()
    };
    // Ours in order, theirs' elements in between and at both ends.
    let order = [7, 0, 1, 5, 3, 4];
    assert_eq!(
        texts(slots().into_ordered(&order, &os)),
        ["7", "0..1 (2)", "5", "x", "4"]
    );
    let order = [0, 1, 3, 4];
    assert_eq!(
        texts(slots().into_ordered(&order, &os)),
        ["0..1 (2)", "x", "4"]
    );
    // Ours reordered: only what follows in ours and in the order is a run.
    let order = [4, 1, 0, 5, 3, 7];
    assert_eq!(
        texts(slots().into_ordered(&order, &os)),
        ["4", "1", "0", "5", "x", "7"]
    );
    assert!(slots().holds(0) && !slots().holds(2) && slots().holds(3));
    assert!(slots().holds(5) && !slots().holds(6) && slots().holds(7));
}

#[test]
fn insertions_go_to_their_places_in_the_spines_own_table() {
    // Places: 0 the start, p + 1 after spine element p; one place's in their order.
    assert_eq!(
        with_inserted(vec![10, 11, 12], &[(0, 1), (0, 2), (2, 3), (3, 4), (3, 5)]),
        [1, 2, 10, 11, 3, 12, 4, 5]
    );
    assert_eq!(with_inserted(vec![10, 11], &[]), [10, 11]);
    assert_eq!(with_inserted(vec![], &[(0, 1), (0, 2)]), [1, 2]);
    assert_eq!(with_inserted(vec![10], &[(1, 1)]), [10, 1]);
}
