use sjson::Dialect;

use super::*;
use crate::id::{id_display, id_text};

fn doc(text: &str) -> Document {
    Document::parse(text, Dialect::Sjson).unwrap()
}

#[test]
fn compact_json_has_no_spaces() {
    // Regression: number arrays came out as `[1, 2]`.
    let d = doc("a = { x = [1 2.50] y = \"\"\"r\"\"\" z = bare, e = [] o = {} } // c");
    assert_eq!(
        compact_json(d.root()),
        r#"{"a":{"x":[1,2.50],"y":"r","z":"bare","e":[],"o":{}}}"#
    );
    let d = Document::parse("[ 1 , [ 2 ] , { \"k\" : null } ]", Dialect::Json).unwrap();
    assert_eq!(compact_json(d.root()), r#"[1,[2],{"k":null}]"#);
}

#[test]
fn ids_of_numbers_and_strings_differ() {
    let d = doc("l = [1 \"1\" 1.5 x true 1.0 -0.0 1E2]");
    let ids: Vec<_> = d.root().get("l").unwrap().children().map(id_text).collect();
    assert_eq!(ids[0].as_deref(), Some("\u{0}1"));
    assert_eq!(ids[1].as_deref(), Some("1"));
    assert_eq!(ids[2].as_deref(), Some("\u{0}1.5"));
    assert_eq!(ids[3].as_deref(), Some("x"));
    assert_eq!(ids[4], None);
    // Numbers by value: `1.0` is `1`.
    assert_eq!(ids[5], ids[0]);
    assert_eq!(ids[6].as_deref(), Some("\u{0}0"));
    assert_eq!(ids[7].as_deref(), Some("\u{0}100"));
    assert_eq!(id_display("\u{0}12"), "12");
    assert_eq!(id_display("ab"), "ab");
}

#[test]
fn id_of_takes_the_first_configured_key_case_insensitively() {
    let base = doc("");
    let opts = MergeOptions::default();
    let m = Merger::new(&base, &base, &base, &opts);
    let d = doc("l = [{ GUID = g Id = 7 } { name = n } { Uuid = u } { id = [1] } 3]");
    let got: Vec<_> = d
        .root()
        .get("l")
        .unwrap()
        .children()
        .map(|v| {
            m.cx.id_of(v)
                .map(|(k, id)| (k.into_owned(), id_display(&id)))
        })
        .collect();
    assert_eq!(
        got,
        [
            Some(("Id".to_string(), "7".to_string())),
            None,
            Some(("Uuid".to_string(), "u".to_string())),
            None,
            None,
        ]
    );
}

#[test]
fn key_index_finds_keys_in_small_and_large_objects() {
    let big: String = (0..40).map(|i| format!("k{i} = {i}\n")).collect();
    for text in ["a = 1 b = 2", big.as_str()] {
        let d = doc(text);
        let ki = KeyIndex::new(Some(d.root()));
        for (k, v) in d.root().members() {
            assert_eq!(ki.get(&k).map(|x| x.id()), Some(v.id()));
            assert!(ki.contains(&k));
        }
        assert!(ki.get("nope").is_none());
    }
    assert!(KeyIndex::new(None).get("a").is_none());
}

#[test]
fn shared_keys_in_the_same_order() {
    let d = doc("a = { x = 1 y = 2 z = 3 } b = { x = 1 n = 0 z = 3 } c = { z = 3 x = 1 } e = {}");
    let v = |k: &str| d.root().get(k).unwrap();
    assert!(same_key_order(v("a"), v("b")));
    assert!(!same_key_order(v("a"), v("c")));
    assert!(same_key_order(v("a"), v("e")));
    assert!(same_key_order(v("e"), v("c")));
}
