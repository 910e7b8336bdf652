//! Arbitrary bytes as SJSON: the parser never panics; an accepted text prints back byte for
//! byte, formats in both canonical styles to text that reparses to the same value and is a
//! fixed point, and the reference grammar (on short inputs) builds the same tree.

#![no_main]

use libfuzzer_sys::fuzz_target;
use sjson::reference::parse_reference;
use sjson::{format, Dialect, Document, ErrorKind, Kind, ParseOptions, Style};

const DIALECT: Dialect = Dialect::Sjson;

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
        assert_eq!(
            doc.root().kind(),
            Kind::Object,
            "an SJSON root is an object"
        );
        check_format(doc);
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
