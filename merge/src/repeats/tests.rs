use super::*;
use crate::members::KeyIndex;
use sjson::{Dialect, Document};

fn doc(text: &str) -> Document {
    Document::parse(text, Dialect::Json).unwrap()
}

/// The side's members with their identities, as `key#n=value`.
fn ids(base: &Document, side: &Document, s: Side) -> (Vec<String>, Vec<(String, usize)>) {
    let bi = KeyIndex::new(Some(base.root()));
    let (si, collapsed) = KeyIndex::against(Some(side.root()), &bi, s);
    let shown = si
        .entries()
        .map(|((k, n), v)| format!("{k}#{n}={}", v.text()))
        .collect();
    let c = collapsed
        .into_iter()
        .map(|c| (c.key.into_owned(), c.times))
        .collect();
    (shown, c)
}

#[test]
fn a_key_base_holds_once_is_read_as_its_last_occurrence() {
    let base = doc(r#"{"a": 1, "n": 2}"#);
    let ours = doc(r#"{"n": 9, "a": 1, "n": 2, "n": 3}"#);
    let (shown, collapsed) = ids(&base, &ours, Side::Ours);
    assert_eq!(shown, ["a#0=1", "n#0=3"]);
    assert_eq!(collapsed, [("n".to_string(), 3)]);
    let fresh = doc(r#"{"x": 1, "x": 2}"#);
    let (shown, collapsed) = ids(&base, &fresh, Side::Theirs);
    assert_eq!(shown, ["x#0=2"]);
    assert_eq!(collapsed, [("x".to_string(), 2)]);
}

#[test]
fn a_key_base_repeats_is_kept_and_aligned_by_value_then_order() {
    let base = doc(r#"{"_c": "a", "k": 1, "_c": "b"}"#);
    // A repeat inserted before the existing ones is new; base's pair by value.
    let ours = doc(r#"{"_c": "new", "_c": "a", "k": 1, "_c": "b"}"#);
    let (shown, collapsed) = ids(&base, &ours, Side::Ours);
    assert_eq!(shown, ["_c#2=\"new\"", "_c#0=\"a\"", "k#0=1", "_c#1=\"b\""]);
    assert!(collapsed.is_empty());
    // An edited one pairs by order between equal ones; theirs' new ones stay apart.
    let theirs = doc(r#"{"_c": "a", "k": 1, "_c": "B", "_c": "c"}"#);
    let (shown, _) = ids(&base, &theirs, Side::Theirs);
    assert_eq!(
        shown,
        [
            "_c#0=\"a\"",
            "k#0=1",
            "_c#1=\"B\"",
            format!("_c#{THEIRS_NEW}=\"c\"").as_str()
        ]
    );
    // Deleting the first keeps the second's identity.
    let deleted = doc(r#"{"k": 1, "_c": "b"}"#);
    assert_eq!(ids(&base, &deleted, Side::Ours).0, ["k#0=1", "_c#1=\"b\""]);
}

#[test]
fn without_a_base_object_repeats_are_kept() {
    let none = KeyIndex::new(None);
    let side = doc(r#"{"x": 1, "x": 2}"#);
    let (si, collapsed) = KeyIndex::against(Some(side.root()), &none, Side::Ours);
    assert!(collapsed.is_empty());
    assert_eq!(si.entries().count(), 2);
}

proptest::proptest! {
    /// Read against base, a side's identities are unique, every key base holds at most
    /// once appears once, and every base occurrence is paired with at most one member.
    #[test]
    fn identities_are_unique_and_collapses_leave_one(
        base in proptest::collection::vec((0..3usize, 0..3u8), 0..8),
        side in proptest::collection::vec((0..3usize, 0..3u8), 0..8),
        theirs in proptest::bool::ANY,
    ) {
        let text = |m: &[(usize, u8)]| {
            let items: Vec<String> = m.iter().map(|(k, v)| format!("\"k{k}\": {v}")).collect();
            format!("{{{}}}", items.join(", "))
        };
        let (b, s) = (doc(&text(&base)), doc(&text(&side)));
        let bi = KeyIndex::new(Some(b.root()));
        let which = if theirs { Side::Theirs } else { Side::Ours };
        let (si, _) = KeyIndex::against(Some(s.root()), &bi, which);
        let entries: Vec<_> = si.entries().collect();
        let unique: SeededSet<_> = entries.iter().map(|e| e.0.clone()).collect();
        proptest::prop_assert_eq!(unique.len(), entries.len());
        for k in 0..3usize {
            let key = format!("k{k}");
            let in_base = base.iter().filter(|m| m.0 == k).count();
            let in_side = side.iter().filter(|m| m.0 == k).count();
            let kept = entries.iter().filter(|e| e.0 .0 == key).count();
            let want = if in_base <= 1 { in_side.min(1) } else { in_side };
            proptest::prop_assert_eq!(kept, want);
            // The last occurrence is the one kept.
            if in_base <= 1 && in_side > 0 {
                let last = side.iter().rev().find(|m| m.0 == k).unwrap().1;
                let got = entries.iter().find(|e| e.0 .0 == key).unwrap().1;
                proptest::prop_assert_eq!(got.text(), last.to_string());
            }
        }
    }
}
