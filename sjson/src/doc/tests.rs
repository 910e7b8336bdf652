use std::collections::hash_map::DefaultHasher;
use std::hash::Hasher;

use super::*;

fn sjson(text: &str) -> Document {
    Document::parse(text, Dialect::Sjson).unwrap_or_else(|e| panic!("{text:?}: {e}"))
}

fn json(text: &str) -> Document {
    Document::parse(text, Dialect::Json).unwrap_or_else(|e| panic!("{text:?}: {e}"))
}

fn hash(v: Value<'_>) -> u64 {
    let mut h = DefaultHasher::new();
    v.hash_value(&mut h);
    h.finish()
}

/// `same_value` both ways, and equal values hash alike.
fn same(a: &Document, b: &Document) -> bool {
    let ab = a.root().same_value(&b.root());
    assert_eq!(
        ab,
        b.root().same_value(&a.root()),
        "same_value is not symmetric"
    );
    if ab {
        assert_eq!(
            hash(a.root()),
            hash(b.root()),
            "equal values hash differently"
        );
    }
    ab
}

#[test]
fn grandchildren_are_anything_below_the_children() {
    let d = sjson("s = 1 e = [] p = [1 2 3] k = [{} []] o = [{ id = 1 }] n = { a = { b = [] } }");
    let has = |key: &str| d.root().get(key).unwrap().has_grandchildren();
    // Scalars and values whose children are scalars or empty containers hold none.
    for key in ["s", "e", "p", "k"] {
        assert!(!has(key), "{key}");
    }
    for key in ["o", "n"] {
        assert!(has(key), "{key}");
    }
    assert!(d.root().has_grandchildren());
    assert!(!sjson("a = 1").root().has_grandchildren());
}

#[test]
fn identical_braceless_documents_are_the_same_value() {
    // Regression: equal text of two braceless roots returned `false` instead of
    // comparing structurally.
    for text in ["a = 1", "", "// c\nb = [1 2]\n"] {
        assert!(same(&sjson(text), &sjson(text)), "{text:?}");
    }
    assert!(!same(&sjson("a = 1"), &sjson("a = 2")));
}

#[test]
fn values_compare_by_value_not_by_text() {
    let pairs = [
        ("a = 1", "{ \"a\": 1.0 }", true),
        ("a = 1", "// c\n{a=1e0}", true),
        ("a = [1 2]", "a = [1, 2]", true),
        ("a = x", "a = \"x\"", true),
        ("a = x", "a = \"\"\"x\"\"\"", true),
        ("\"\\u0061\" = 1", "a = 1", true),
        ("a = \"\\n\"", "a = \"\n\"", true),
        ("a = -0", "a = 0.0", false),
        ("a = -0", "a = -0.0", true),
        ("a = 1e400", "a = 2e400", false),
        ("a = 1E-05", "a = 0.00001", true),
        ("a = 1 b = 2", "b = 2 a = 1", false),
        ("a = 1", "a = 1 b = 2", false),
        ("a = [1]", "a = [1 1]", false),
        ("a = null", "a = false", false),
        ("a = true", "a = false", false),
        ("a = true", "a = \"true\"", false),
        ("a = 1", "a = \"1\"", false),
        ("a = []", "a = {}", false),
        ("a = 9007199254740993", "a = 9007199254740992", false),
        ("a = 0.1", "a = 0.10000000000000001", true),
    ];
    for (x, y, expected) in pairs {
        assert_eq!(same(&sjson(x), &sjson(y)), expected, "{x:?} vs {y:?}");
    }
    // Across dialects.
    assert!(same(&sjson("a = [1 \"x\"]"), &json(r#"{"a":[1,"x"]}"#)));
    assert!(same(&json("[1]"), &json(" [ 1.0 ] ")));
    assert!(!same(&json("[1]"), &json("{}")));
    // Sub-values compare too.
    let d = sjson("a = [1 2] b = [1.0 2.0]");
    let (a, b) = (d.root().get("a").unwrap(), d.root().get("b").unwrap());
    assert!(a.same_value(&b));
}

#[test]
fn accessors() {
    let doc = sjson("a = 1\nb = [true null \"s\"]\nc = { d = 2 }\n");
    let root = doc.root();
    assert_eq!(root.kind(), Kind::Object);
    assert_eq!(root.len(), 3);
    assert!(root.is_container());
    assert_eq!(root.id(), NodeId::ROOT);
    assert!(root.get("z").is_none());
    let b = root.get("b").unwrap();
    assert_eq!(b.kind(), Kind::Array);
    assert!(b.get("x").is_none(), "arrays have no keys");
    assert_eq!(b.members().count(), 0);
    let kinds: Vec<_> = b.children().map(|c| c.kind()).collect();
    assert_eq!(kinds, [Kind::Bool, Kind::Null, Kind::String]);
    assert_eq!(b.children().len(), 3);
    let one = root.get("a").unwrap();
    assert!(one.is_empty() && !one.is_container());
    assert_eq!(one.children().count(), 0);
    assert_eq!(one.as_bool(), None);
    assert_eq!(one.as_str(), None);
    assert_eq!(one.quoting(), None);
    assert_eq!(b.as_number(), None);
    assert_eq!(
        root.get("c").unwrap().get("d").unwrap().as_number_lexeme(),
        Some("2")
    );
    assert_eq!(root.key(), None);
    assert_eq!(root.key_lexeme(), None);
    // Children skip over whole subtrees.
    let ids: Vec<_> = root.children().map(|c| c.id().index()).collect();
    assert_eq!(ids, [1, 2, 6]);
    assert_eq!(doc.value(NodeId(5)).as_str().unwrap(), "s");
    assert_eq!(format!("{:?}", doc.value(NodeId(1))), "Value(NodeId(1): 1)");
}

#[test]
fn far_keys_and_containers_have_extra_entries() {
    // Unit tests store key distances up to 6 inline (MAX_KEY_DELTA).
    let doc = sjson("a = 1\nb /* far */ = x\n\"k\" = [1]");
    assert_eq!(doc.nodes.len(), 5);
    assert_eq!(
        doc.extras.len(),
        3,
        "root, b and k's array (keys too far to be inline)"
    );
    let b = doc.root().get("b").unwrap();
    assert_eq!(b.key_lexeme(), Some("b"));
    assert_eq!(b.item_start(), 6);
    assert_eq!(b.as_str().unwrap(), "x");
    assert!(b.is_empty());
    assert_eq!(b.descendants().count(), 1);
    let k = doc.root().get("k").unwrap();
    assert_eq!(k.key_lexeme(), Some("\"k\""));
    assert_eq!(k.len(), 1);
    assert_eq!(doc.root().len(), 3);
    assert_eq!(doc.root().get("a").unwrap().key_lexeme(), Some("a"));
}

#[test]
fn flat_containers_are_inline_and_read_like_any_other() {
    // Unit tests store flat containers inline up to 2 children, 8 bytes of text and a
    // key 3 bytes before them.
    let doc = sjson("p=[1 2]\nq={a=1}\ne=[]\nz = 7\n");
    assert_eq!(doc.extras.len(), 1, "the root only");
    let root = doc.root();
    assert_eq!(root.len(), 4);
    let p = root.get("p").unwrap();
    assert_eq!((p.kind(), p.len(), p.text()), (Kind::Array, 2, "[1 2]"));
    assert_eq!(p.key_lexeme(), Some("p"));
    assert_eq!(p.item_start(), 0);
    let items: Vec<_> = p.children().map(|c| c.text()).collect();
    assert_eq!(items, ["1", "2"]);
    assert_eq!(p.descendants().count(), 3);
    assert!(!p.has_grandchildren());
    let q = root.get("q").unwrap();
    assert_eq!((q.kind(), q.len()), (Kind::Object, 1));
    assert_eq!(q.get("a").unwrap().as_number_lexeme(), Some("1"));
    let e = root.get("e").unwrap();
    assert_eq!((e.len(), e.text(), e.descendants().count()), (0, "[]", 1));
    // The subtree ends after the children: the next member is found.
    assert_eq!(root.get("z").unwrap().text(), "7");
    let keys: Vec<_> = root.members().map(|(k, _)| k.into_owned()).collect();
    assert_eq!(keys, ["p", "q", "e", "z"]);
    assert!(root.has_grandchildren());
}

#[test]
fn containers_that_are_not_flat_or_small_keep_an_extra_entry() {
    // (The extra entries: the root's, x's, and the long child's.)
    for (text, extras, why) in [
        ("x=[1 2 3]\n", 2, "three children"),
        ("x=[100 200]\n", 2, "text over 8 bytes"),
        ("x=[[1]]\n", 2, "a child with children"),
        ("x=[123456789]\n", 3, "a child with an extra entry"),
        (
            "x = [1]\n",
            2,
            "its key 4 bytes before it (a scalar's could be 6)",
        ),
    ] {
        let doc = sjson(text);
        assert_eq!(doc.extras.len(), extras, "{why}");
        let x = doc.root().get("x").unwrap();
        assert_eq!(x.key_lexeme(), Some("x"), "{why}");
        assert_eq!(
            x.text(),
            text[text.find('[').unwrap()..].trim_end(),
            "{why}"
        );
    }
    // A scalar with its key as far before it is inline (and so is the root, then flat).
    assert_eq!(sjson("x = 1\n").extras.len(), 0);
    // A flat container inside one that is not: the outer keeps its entry.
    let doc = sjson("x=[[1] 2]\n");
    assert_eq!(doc.extras.len(), 2, "root and the outer array");
    let x = doc.root().get("x").unwrap();
    assert_eq!(x.len(), 2);
    assert!(x.has_grandchildren());
    let inner: Vec<_> = x.children().map(|c| c.text()).collect();
    assert_eq!(inner, ["[1]", "2"]);
}

#[test]
fn long_scalars_keep_their_end_in_an_extra_entry() {
    // Unit tests store scalars up to 8 bytes inline (MAX_SCALAR_LEN).
    let doc = sjson("a = 12345678\nb = 123456789\nc = \"a long string\"\n");
    assert_eq!(doc.extras.len(), 3, "root, b and c");
    let root = doc.root();
    assert_eq!(root.get("a").unwrap().text(), "12345678");
    assert_eq!(root.get("b").unwrap().text(), "123456789");
    assert_eq!(root.get("c").unwrap().as_str().unwrap(), "a long string");
    assert_eq!(root.get("c").unwrap().key_lexeme(), Some("c"));
    assert_eq!(root.len(), 3);
}

#[test]
fn newline_is_the_first_lines_ending() {
    assert_eq!(sjson("a = 1\r\nb = 2\n").newline(), "\r\n");
    assert_eq!(sjson("a = 1\nb = 2\r\n").newline(), "\n");
    assert_eq!(sjson("a = 1").newline(), "\n");
    assert_eq!(sjson("\r\n").newline(), "\r\n");
    assert_eq!(sjson("\n").newline(), "\n");
}

#[test]
fn text_round_trips() {
    let text = "\u{FEFF}\r\n// c\r\na = [1,2]  \r\n";
    let doc = sjson(text);
    assert_eq!(doc.text(), text);
    assert_eq!(doc.dialect(), Dialect::Sjson);
    assert_eq!(doc.into_text(), text);
}
