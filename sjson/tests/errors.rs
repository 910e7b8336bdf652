//! Every kind of parse error, with its exact line and column, from both the production
//! parser and (where it reports the same thing) the reference grammar. Deep nesting is a
//! clean error for both, never a stack overflow.

use sjson::reference::parse_reference;
use sjson::{Dialect, Document, ErrorKind, ParseError, ParseOptions, DEFAULT_MAX_DEPTH};

const SJSON: Dialect = Dialect::Sjson;
const JSON: Dialect = Dialect::Json;

fn fast(text: &str, dialect: Dialect) -> ParseError {
    match Document::parse(text, dialect) {
        Ok(_) => panic!("{dialect:?} {text:.80?}: accepted"),
        Err(e) => e,
    }
}

fn reference(text: &str, dialect: Dialect) -> ParseError {
    match parse_reference(text, ParseOptions::new(dialect)) {
        Ok(_) => panic!("{dialect:?} {text:.80?}: the reference parser accepts it"),
        Err(e) => e,
    }
}

/// The error both parsers report (semantic errors: they must agree exactly).
fn both(text: &str, dialect: Dialect) -> ParseError {
    let f = fast(text, dialect);
    let r = reference(text, dialect);
    assert_eq!(f, r, "{dialect:?} {text:.80?}: the parsers disagree");
    f
}

/// A syntax error: the production parser's error is exact; the reference grammar must
/// reject the text too (its position is where pest gave up, not asserted).
fn syntax(text: &str, dialect: Dialect) -> ParseError {
    reference(text, dialect);
    let e = fast(text, dialect);
    assert!(
        matches!(e.kind, ErrorKind::Syntax(_)),
        "{dialect:?} {text:?}: {e:?}"
    );
    e
}

fn at(e: &ParseError) -> (usize, usize) {
    (e.line, e.col)
}

/// Both parsers keep the repeated keys of `text`; returns the first repeat reported.
fn first_repeat(text: &str, dialect: sjson::Dialect) -> ParseError {
    let fast = Document::parse(text, dialect).unwrap();
    let reference = sjson::reference::parse_reference(text, ParseOptions::new(dialect)).unwrap();
    assert_eq!(fast.text(), text);
    assert_eq!(reference.duplicate_keys(), fast.duplicate_keys());
    fast.duplicate_keys()
        .into_iter()
        .next()
        .expect("a repeated key")
}

#[test]
fn duplicate_keys_are_kept_and_reported() {
    let e = first_repeat("a = 1\nb = 2\na = 3\n", SJSON);
    assert_eq!(e.kind, ErrorKind::DuplicateKey("a".into()));
    assert_eq!((e.offset, e.line, e.col), (12, 3, 1));
    assert_eq!(e.to_string(), "3:1: duplicate key \"a\"");

    // Written differently, the same key.
    let e = first_repeat("a = 1\n  \"a\" = 2", SJSON);
    assert_eq!(e.kind, ErrorKind::DuplicateKey("a".into()));
    assert_eq!(at(&e), (2, 3));
    let e = first_repeat("a = 1 \"\\u0061\" = 2", SJSON);
    assert_eq!(e.kind, ErrorKind::DuplicateKey("a".into()));
    assert_eq!(at(&e), (1, 7));
    let e = first_repeat("\"\"\"a\"\"\" = 1\r\na = 2", SJSON);
    assert_eq!(e.kind, ErrorKind::DuplicateKey("a".into()));
    assert_eq!(at(&e), (2, 1));
    let e = first_repeat("{\"é\": 1, \"\\u00e9\": 2}", JSON);
    assert_eq!(e.kind, ErrorKind::DuplicateKey("é".into()));
    assert_eq!(at(&e), (1, 10), "columns count characters");

    // In a nested object; same keys in different objects are fine.
    let e = first_repeat("x = { a = 1 b = { a = 2 } a = 3 }", SJSON);
    assert_eq!(at(&e), (1, 27));
    let doc = Document::parse("a = { a = { a = 1 } } b = [{a = 1} {a = 2}]", SJSON).unwrap();
    assert!(doc.duplicate_keys().is_empty());
    let e = first_repeat("{\"a\": 1, \"a\": 2}", JSON);
    assert_eq!(
        (e.kind.clone(), at(&e)),
        (ErrorKind::DuplicateKey("a".into()), (1, 10))
    );

    // Many keys (the hash-set path), duplicate at the end.
    let mut text: String = (0..40).map(|i| format!("k{i} = {i}\n")).collect();
    text.push_str("k17 = 0\n");
    let e = first_repeat(&text, SJSON);
    assert_eq!(
        (e.kind.clone(), at(&e)),
        (ErrorKind::DuplicateKey("k17".into()), (41, 1))
    );
    // Keys that differ are not duplicates, however close.
    let doc = Document::parse("a = 1 A = 2 \"a \" = 3 \"\\u0062\" = 4", SJSON).unwrap();
    assert!(doc.duplicate_keys().is_empty());
}

#[test]
fn invalid_utf8() {
    let options = ParseOptions::new(SJSON);
    let e = Document::parse_bytes(b"a = \"x\xffy\"".to_vec(), options).unwrap_err();
    assert_eq!(e.kind, ErrorKind::InvalidUtf8);
    assert_eq!((e.offset, e.line, e.col), (6, 1, 7));
    assert_eq!(e.to_string(), "1:7: invalid UTF-8");
    // Multi-byte characters before it count as one column each.
    let e = Document::parse_bytes(b"\xc3\xa9 = 1\nb = \"\xe2\x82\xac\xc3(\"".to_vec(), options)
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::InvalidUtf8);
    assert_eq!((e.offset, e.line, e.col), (15, 2, 7));
    // A truncated sequence at the end, and the first byte.
    let e = Document::parse_bytes(b"a = 1\r\n\xe2\x82".to_vec(), options).unwrap_err();
    assert_eq!((e.offset, e.line, e.col), (7, 2, 1));
    let e = Document::parse_bytes(vec![0x80], ParseOptions::new(JSON)).unwrap_err();
    assert_eq!(
        (e.kind.clone(), e.offset, e.line, e.col),
        (ErrorKind::InvalidUtf8, 0, 1, 1)
    );
    // Valid bytes parse as text.
    let doc = Document::parse_bytes("a = \"é\"".as_bytes().to_vec(), options).unwrap();
    assert_eq!(doc.root().get("a").unwrap().as_str().unwrap(), "é");
}

#[test]
fn unterminated_string() {
    let e = syntax("a = 1\nb = \"abc", SJSON);
    assert_eq!(e.kind, ErrorKind::Syntax("unterminated string".into()));
    assert_eq!(at(&e), (2, 5), "at the opening quote");
    let e = syntax("a = \"abc\\\"", SJSON);
    assert_eq!(
        (e.kind.clone(), at(&e)),
        (ErrorKind::Syntax("unterminated string".into()), (1, 5))
    );
    let e = syntax("[\"abc", JSON);
    assert_eq!(
        (e.kind.clone(), at(&e)),
        (ErrorKind::Syntax("unterminated string".into()), (1, 2))
    );
    let e = syntax("\"abc = 1", SJSON);
    assert_eq!(
        (e.kind.clone(), at(&e)),
        (ErrorKind::Syntax("unterminated string".into()), (1, 1))
    );
}

#[test]
fn unterminated_block_comment() {
    let e = syntax("a = 1\n  /* x\n*", SJSON);
    assert_eq!(e.kind, ErrorKind::Syntax("unterminated comment".into()));
    assert_eq!(at(&e), (2, 3));
    let e = syntax("a = [1 /*/]", SJSON);
    assert_eq!(
        (e.kind.clone(), at(&e)),
        (ErrorKind::Syntax("unterminated comment".into()), (1, 8))
    );
}

#[test]
fn missing_separator() {
    let e = syntax("a = 1\nb 2", SJSON);
    assert_eq!(
        e.kind,
        ErrorKind::Syntax("expected '=' or ':', found '2'".into())
    );
    assert_eq!(at(&e), (2, 3));
    let e = syntax("a", SJSON);
    assert_eq!(
        e.kind,
        ErrorKind::Syntax("expected '=' or ':', found end of file".into())
    );
    assert_eq!(at(&e), (1, 2));
    let e = syntax("{\"a\" 1}", JSON);
    assert_eq!(e.kind, ErrorKind::Syntax("expected ':', found '1'".into()));
    assert_eq!(at(&e), (1, 6));
    let e = syntax("{\"a\" = 1}", JSON);
    assert_eq!(e.kind, ErrorKind::Syntax("expected ':', found '='".into()));
    // JSON needs commas between items.
    let e = syntax("[1\n 2]", JSON);
    assert_eq!(
        e.kind,
        ErrorKind::Syntax("expected ',' or ']', found '2'".into())
    );
    assert_eq!(at(&e), (2, 2));
    let e = syntax("{\"a\": 1 \"b\": 2}", JSON);
    assert_eq!(
        e.kind,
        ErrorKind::Syntax("expected ',' or '}', found '\"'".into())
    );
    assert_eq!(at(&e), (1, 9));
}

#[test]
fn other_syntax_errors() {
    for (text, dialect, message, pos) in [
        ("a = ", SJSON, "expected value, found end of file", (1, 5)),
        ("a = [1 }", SJSON, "expected value, found '}'", (1, 8)),
        ("[1]", SJSON, "expected key, found '['", (1, 1)),
        ("a = 1 }", SJSON, "expected key, found '}'", (1, 7)),
        (
            "{a = 1} b",
            SJSON,
            "expected end of file, found 'b'",
            (1, 9),
        ),
        ("[1,,]", JSON, "expected value, found ','", (1, 4)),
        ("{\"a\":1,,}", JSON, "expected string, found ','", (1, 8)),
        ("{a:1}", JSON, "expected string, found 'a'", (1, 2)),
        ("/ c\n1", JSON, "expected value, found '/'", (1, 1)),
        ("1 2", JSON, "expected end of file, found '2'", (1, 3)),
        ("", JSON, "expected value, found end of file", (1, 1)),
        ("\"x\ty\"", JSON, "control character in string", (1, 3)),
    ] {
        let e = syntax(text, dialect);
        assert_eq!(e.kind, ErrorKind::Syntax(message.into()), "{text:?}");
        assert_eq!(at(&e), pos, "{text:?}");
    }
}

#[test]
fn invalid_escape() {
    let e = syntax("a = \"x\\q\"", SJSON);
    assert_eq!(e.kind, ErrorKind::Syntax("invalid escape".into()));
    assert_eq!(at(&e), (1, 7), "at the backslash");
    let e = syntax("a = 1\n\"k\\u12x4\" = 1", SJSON);
    assert_eq!(
        (e.kind.clone(), at(&e)),
        (ErrorKind::Syntax("invalid escape".into()), (2, 3))
    );
    let e = syntax("[\"\\U0041\"]", JSON);
    assert_eq!(
        (e.kind.clone(), at(&e)),
        (ErrorKind::Syntax("invalid escape".into()), (1, 3))
    );
    let e = syntax("[\"\\u004\"]", JSON);
    assert_eq!(
        (e.kind.clone(), at(&e)),
        (ErrorKind::Syntax("invalid escape".into()), (1, 3))
    );
}

#[test]
fn lone_surrogates() {
    for (text, dialect, pos) in [
        ("a = \"\\ud800\"", SJSON, (1, 5)),
        ("a = \"x\\udc00\"", SJSON, (1, 5)),
        ("a = 1\n\"\\ud83d\" = 2", SJSON, (2, 1)),
        ("a = \"\\ud800\\u0041\"", SJSON, (1, 5)),
        ("a = \"\\ud800\\ud800\"", SJSON, (1, 5)),
        ("a = \"\\ud800\\n\"", SJSON, (1, 5)),
        ("[\"ok\", \"\\udfff\"]", JSON, (1, 8)),
        ("{\"\\ud800x\": 1}", JSON, (1, 2)),
    ] {
        let e = both(text, dialect);
        assert_eq!(e.kind, ErrorKind::InvalidEscape, "{text:?}");
        assert_eq!(at(&e), pos, "{text:?}");
        assert_eq!(
            e.to_string(),
            format!("{}:{}: invalid unicode escape", pos.0, pos.1)
        );
    }
    // A pair is fine; raw strings have no escapes.
    assert!(Document::parse("a = \"\\uD83D\\uDE00\" b = \"\"\"\\ud800\"\"\"", SJSON).is_ok());
}

/// Parses with both parsers in a thread with a small stack (debug builds, pest recursion).
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap()
}

fn nested(open: &str, inner: &str, close: &str, n: usize) -> String {
    format!("{}{inner}{}", open.repeat(n), close.repeat(n))
}

/// Both parsers accept `text` and build the same tree.
fn accepted(text: &str, options: ParseOptions) {
    let f = Document::parse_with(text.to_string(), options)
        .unwrap_or_else(|e| panic!("{text:.60?}: {e}"));
    let r = parse_reference(text, options).unwrap_or_else(|e| panic!("{text:.60?}: {e}"));
    assert!(f.same_tree(&r));
}

/// Both parsers report `TooDeep(limit)` at byte `offset`.
fn too_deep(text: &str, options: ParseOptions, offset: usize) {
    let f = Document::parse_with(text.to_string(), options).unwrap_err();
    let r = parse_reference(text, options).unwrap_err();
    assert_eq!(f.kind, ErrorKind::TooDeep(options.max_depth), "{text:.60?}");
    assert_eq!(f.offset, offset, "{text:.60?}");
    assert_eq!((f.line, f.col), (1, offset + 1));
    assert_eq!(f, r, "{text:.60?}");
}

#[test]
fn nesting_limit_is_512() {
    on_small_stack(|| {
        assert_eq!(DEFAULT_MAX_DEPTH, 512);
        let json = ParseOptions::new(JSON);
        let sjson = ParseOptions::new(SJSON);
        accepted(&nested("[", "", "]", 512), json);
        too_deep(&nested("[", "", "]", 513), json, 512);
        accepted(&nested("{\"a\":", "1", "}", 512), json);
        too_deep(&nested("{\"a\":", "1", "}", 513), json, 512 * 5);
        // SJSON: the root object is the first level, braced or not.
        accepted(&nested("{a=", "1", "}", 512), sjson);
        too_deep(&nested("{a=", "1", "}", 513), sjson, 512 * 3);
        accepted(&format!("a={}", nested("[", "", "]", 511)), sjson);
        too_deep(&format!("a={}", nested("[", "", "]", 512)), sjson, 2 + 511);
        accepted(&format!("a={}", nested("{b=", "1", "}", 511)), sjson);
        too_deep(
            &format!("a={}", nested("{b=", "1", "}", 512)),
            sjson,
            2 + 511 * 3,
        );
        // Brackets in strings and comments do not count.
        let hidden = format!(
            "a = \"{0}\" b = \"\"\"{0}\"\"\" // {0}\n/* {0} */",
            "[".repeat(1000)
        );
        accepted(&hidden, sjson);
    });
}

#[test]
fn two_hundred_thousand_levels_are_a_clean_error() {
    on_small_stack(|| {
        let n = 200_000;
        let json = ParseOptions::new(JSON);
        let sjson = ParseOptions::new(SJSON);
        too_deep(&"[".repeat(n), json, 512);
        too_deep(&nested("[", "", "]", n), json, 512);
        too_deep(&nested("{\"a\":", "1", "}", n), json, 512 * 5);
        too_deep(&"{a=".repeat(n), sjson, 512 * 3);
        too_deep(&nested("{a=", "1", "}", n), sjson, 512 * 3);
        too_deep(&format!("a={}", "[".repeat(n)), sjson, 2 + 511);
        too_deep(&format!("a={}", "{b=[".repeat(n)), sjson, 2 + 255 * 4 + 3);
        // SJSON accepts a deep array as a value only; as a root it is an error at once.
        let e = Document::parse("[".repeat(n), SJSON).unwrap_err();
        assert_eq!((e.line, e.col), (1, 1));
        assert!(parse_reference(&"[".repeat(n), sjson).is_err());
        // Deep but within a huge custom limit: the production parser has no recursion.
        let deep = ParseOptions {
            dialect: JSON,
            max_depth: usize::MAX,
        };
        let doc = Document::parse_with(nested("[", "1", "]", n), deep).unwrap();
        assert_eq!(doc.node_count(), n + 1);
    });
}

#[test]
fn custom_max_depth() {
    let three = ParseOptions {
        dialect: JSON,
        max_depth: 3,
    };
    accepted("[[[1]]]", three);
    accepted("[[[]], [[]], {\"a\": [1]}]", three);
    too_deep("[[[[1]]]]", three, 3);
    too_deep("[[], [[{}]]]", three, 7);
    let e = Document::parse_with("[[[[1]]]]".into(), three).unwrap_err();
    assert_eq!(e.to_string(), "1:4: nesting deeper than 3 levels");
    let one = ParseOptions {
        dialect: SJSON,
        max_depth: 1,
    };
    accepted("a = 1 b = x", one);
    accepted("{a = 1}", one);
    too_deep("a = []", one, 4);
    too_deep("{a = {}}", one, 5);
    let zero = ParseOptions {
        dialect: JSON,
        max_depth: 0,
    };
    accepted("1", zero);
    too_deep("[]", zero, 0);
}

#[test]
fn error_positions_on_crlf_and_wide_lines() {
    let e = first_repeat("a = 1\r\nb = 2\r\n  a = 3\r\n", SJSON);
    assert_eq!(at(&e), (3, 3));
    let text = "😀 = 1\r\n😀😀 = \"x";
    let e = syntax(text, SJSON);
    assert_eq!(at(&e), (2, 6));
    assert_eq!(sjson::source_line(text, e.offset), "😀😀 = \"x");
    assert_eq!(sjson::source_line(text, 0), "😀 = 1");
}
