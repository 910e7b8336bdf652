//! Arbitrary bytes: never a panic, and both parsers agree on what they accept.

use levelgen::Rng;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

use crate::model::*;
use crate::printer::*;
use crate::*;
use sjson::reference::parse_reference;
use sjson::{Dialect, Document, ErrorKind, ParseOptions};

// ---------------------------------------------------------------------------------------
// (d) Arbitrary bytes.

pub(crate) const FRAGMENTS: &[&[u8]] = &[
    b"{",
    b"}",
    b"[",
    b"]",
    b"=",
    b":",
    b",",
    b" ",
    b"\n",
    b"\r\n",
    b"\t",
    b"\"",
    b"\"\"\"",
    b"//",
    b"/*",
    b"*/",
    b"/",
    b"*",
    b"\\",
    b"\\u",
    b"\\n",
    b"d800",
    b"dc00",
    b"00e9",
    b"a",
    b"b",
    b"key",
    b"1",
    b"0",
    b"-",
    b".",
    b"e",
    b"E+",
    b"12.5",
    b"true",
    b"false",
    b"null",
    b"\xef\xbb\xbf",
    b"\xc3\xa9",
    b"\xff",
    b"\xc3",
    b"\x00",
    b"\x1f",
    b"#",
    b"-x",
];

/// Bytes that print readably in failure reports.
#[derive(Clone)]
pub(crate) struct Bytes(Vec<u8>);

impl std::fmt::Debug for Bytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "b\"{}\"", self.0.escape_ascii())
    }
}

pub(crate) fn fragments() -> impl Strategy<Value = Bytes> {
    prop::collection::vec(prop::sample::select(FRAGMENTS), 0..40).prop_map(|v| Bytes(v.concat()))
}

/// A valid SJSON or JSON text with a few bytes deleted, inserted or replaced.
pub(crate) fn mutated() -> impl Strategy<Value = (Bytes, Dialect)> {
    (
        sjson_root(),
        choices(),
        any::<bool>(),
        prop::collection::vec(
            (any::<u16>(), 0u8..3, prop::sample::select(FRAGMENTS)),
            1..4,
        ),
    )
        .prop_map(|(root, c, json, edits)| {
            let text = if json {
                Printer::new(c, true).json_document(&root)
            } else {
                Printer::new(c, false).sjson_document(&root)
            };
            let mut bytes = text.into_bytes();
            for (at, op, frag) in edits {
                let i = usize::from(at) % (bytes.len() + 1);
                match op {
                    0 if i < bytes.len() => {
                        bytes.remove(i);
                    }
                    1 if i < bytes.len() => bytes[i] = frag[0],
                    _ => {
                        bytes.splice(i..i, frag.iter().copied());
                    }
                }
            }
            (
                Bytes(bytes),
                if json { Dialect::Json } else { Dialect::Sjson },
            )
        })
}

/// Both parsers on `bytes` as `dialect` with a small depth limit: no panic, the same
/// verdict, the same tree; an accepted text prints back and formats soundly.
pub(crate) fn check_bytes(bytes: &[u8], dialect: Dialect) -> Result<(), TestCaseError> {
    let options = ParseOptions {
        dialect,
        max_depth: 24,
    };
    let fast = Document::parse_bytes(bytes.to_vec(), options);
    let Ok(text) = std::str::from_utf8(bytes) else {
        let e = fast.expect_err("invalid UTF-8 is an error");
        prop_assert_eq!(e.kind, ErrorKind::InvalidUtf8);
        return Ok(());
    };
    let reference = parse_reference(text, options);
    match (&fast, &reference) {
        (Ok(f), Ok(r)) => {
            prop_assert!(f.same_tree(r), "trees differ for {:?}", text);
            prop_assert_eq!(f.text(), text);
            check_format(f)?;
            // Whatever strict JSON we accept, serde_json accepts (numbers within f64's
            // range); JSONC (comments, trailing commas) it does not.
            if dialect == Dialect::Json && !has_infinite_number(f) && !maybe_jsonc(text) {
                let body = text.strip_prefix('\u{FEFF}').unwrap_or(text);
                let v: Result<serde_json::Value, _> = serde_json::from_str(body);
                prop_assert!(v.is_ok(), "serde_json rejects {:?}", text);
            }
        }
        (Err(_), Err(_)) => {}
        _ => prop_assert!(
            false,
            "{:?} {:?}: fast {:?}, reference {:?}",
            dialect,
            text,
            fast.as_ref().map(|_| ()),
            reference.as_ref().map(|_| ())
        ),
    }
    Ok(())
}

/// Whether `text` may hold a comment or a trailing comma (a cheap over-approximation:
/// strings are not skipped).
fn maybe_jsonc(text: &str) -> bool {
    text.contains('/')
        || text.match_indices(',').any(|(i, _)| {
            let next = text[i + 1..].trim_start_matches([' ', '\t', '\r', '\n']);
            next.starts_with([']', '}'])
        })
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..64).prop_map(Bytes)) {
        check_bytes(&bytes.0, Dialect::Sjson)?;
        check_bytes(&bytes.0, Dialect::Json)?;
    }

    #[test]
    fn token_soup_parsers_agree(bytes in fragments()) {
        check_bytes(&bytes.0, Dialect::Sjson)?;
        check_bytes(&bytes.0, Dialect::Json)?;
    }

    #[test]
    fn mutated_documents_parsers_agree((bytes, dialect) in mutated()) {
        check_bytes(&bytes.0, dialect)?;
    }
}

#[test]
pub(crate) fn printer_sanity() {
    // The test printer itself writes what it means.
    let root = M::Obj(vec![
        ("a".into(), M::Int(1)),
        (
            "b c".into(),
            M::Arr(vec![M::Float(0.5), M::Str("x".into()), M::Null]),
        ),
    ]);
    // Keys are written bare 70% of the time when allowed: some of these seeds do it, and
    // every seed writes what it means.
    let mut bare_keys = 0;
    for seed in 0..20 {
        let c = Choices {
            seed,
            bare: true,
            ..choices_plain()
        };
        let text = Printer::new(c, false).sjson_document(&root);
        let doc = Document::parse(text.as_str(), Dialect::Sjson).unwrap();
        assert_eq!(model_of(doc.root()), root, "{text}");
        let key = doc.root().children().next().unwrap().key_lexeme();
        assert!(key == Some("a") || key == Some("\"a\""), "{key:?}");
        bare_keys += usize::from(key == Some("a"));
    }
    assert!(bare_keys > 0);
    assert!(is_number("-0.5e+07") && !is_number("01") && !is_number("1.") && !is_number("-"));
    assert!(bare_token("a/b") && !bare_token("a//b") && !bare_token("a b") && !bare_token(""));
    let f = float_lexeme(1e-5, &mut Rng::new(1));
    assert!(f.to_ascii_lowercase().contains('e'), "{f}");
}
