//! Arbitrary bytes as strict JSON: the parser never panics; an accepted text prints back
//! byte for byte, formats in both canonical styles to text that reparses to the same value
//! and is a fixed point, and the reference grammar (on short inputs) builds the same tree.
//!
//! Also meant to hold, once `serde_json = "1"` is a dependency of this crate: whatever we
//! accept, `serde_json::from_str::<serde_json::Value>` accepts (after a leading byte-order
//! mark, which serde_json does not skip), except numbers beyond f64's range (`1e400`,
//! valid JSON that serde_json rejects) and nesting deeper than serde_json's limit of 128.
//! The property tests (`sjson/tests/properties.rs`) check it meanwhile.

#![no_main]

use libfuzzer_sys::fuzz_target;
use sjson::reference::parse_reference;
use sjson::{format, Dialect, Document, ErrorKind, Kind, ParseOptions, Quoting, Style};

const DIALECT: Dialect = Dialect::Json;

/// The reference parser is recursive and slow: only short inputs go through it.
const REFERENCE_MAX_LEN: usize = 4096;

fuzz_target!(|data: &[u8]| {
    let options = ParseOptions::new(DIALECT);
    let parsed = Document::parse_bytes(data.to_vec(), options);
    let Ok(text) = std::str::from_utf8(data) else {
        let e = parsed.expect_err("invalid UTF-8 is accepted");
        assert_eq!(e.kind, ErrorKind::InvalidUtf8);
        return;
    };
    if let Ok(doc) = &parsed {
        assert_eq!(doc.text(), text, "the text is not kept byte for byte");
        check_strict(doc);
        check_format(doc);
        // SJSON is a superset of JSON: the same text means the same value there.
        if doc.root().kind() == Kind::Object {
            let as_sjson = Document::parse(text, Dialect::Sjson)
                .unwrap_or_else(|e| panic!("SJSON rejects JSON: {e}"));
            assert!(as_sjson.root().same_value(&doc.root()));
        }
    }
    if data.len() < REFERENCE_MAX_LEN {
        let reference = parse_reference(text, options);
        match (&parsed, &reference) {
            (Ok(fast), Ok(reference)) => {
                assert!(
                    fast.same_tree(reference),
                    "the parsers build different trees"
                )
            }
            (Err(_), Err(_)) => {}
            (fast, reference) => panic!(
                "the parsers disagree: fast {:?}, reference {:?}",
                fast.as_ref().err(),
                reference.as_ref().err()
            ),
        }
    }
});

/// A JSON document holds only JSON: quoted strings and keys, no raw control characters.
fn check_strict(doc: &Document) {
    fn walk(v: sjson::Value<'_>) {
        if let Some(q) = v.key_quoting() {
            assert_eq!(q, Quoting::Quoted, "a JSON key that is not quoted");
        }
        if let Some(q) = v.quoting() {
            assert_eq!(q, Quoting::Quoted, "a JSON string that is not quoted");
            assert!(
                !v.text().bytes().any(|b| b < 0x20),
                "a raw control character in a JSON string"
            );
        }
        v.children().for_each(walk);
    }
    walk(doc.root());
}

/// Formatting in both canonical styles keeps the value and is idempotent.
fn check_format(doc: &Document) {
    for dialect in [Dialect::Sjson, Dialect::Json] {
        if dialect == Dialect::Sjson && doc.root().kind() != Kind::Object {
            continue;
        }
        let style = Style::canonical(dialect);
        let once = format(doc, &style);
        let again = Document::parse(once.as_str(), dialect)
            .unwrap_or_else(|e| panic!("formatted as {dialect:?} does not parse: {e}\n{once}"));
        assert!(
            again.root().same_value(&doc.root()),
            "formatting as {dialect:?} changed the value:\n{once}"
        );
        assert_eq!(
            format(&again, &style),
            once,
            "format as {dialect:?} is not idempotent"
        );
    }
}
