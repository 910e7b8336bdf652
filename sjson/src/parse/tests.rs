//! Every construct of both dialects, through both parsers: the production parser must
//! build the same node table as the reference grammar, and the value view must read
//! what the text says.

use super::*;
use crate::doc::Kind;
use crate::number::NumberValue;
use crate::reference::parse_reference;
use crate::value::Value;

/// Parses with both parsers, checks they agree and the text is kept, returns the fast one.
fn parse_both(text: &str, dialect: Dialect) -> Document {
    let fast = Document::parse(text, dialect)
        .unwrap_or_else(|e| panic!("{dialect:?} {text:?}: fast parser: {e}"));
    let reference = parse_reference(text, ParseOptions::new(dialect))
        .unwrap_or_else(|e| panic!("{dialect:?} {text:?}: reference parser: {e}"));
    assert!(
        fast.same_tree(&reference),
        "{dialect:?} {text:?}: trees differ\nfast:      {:?} {:?}\nreference: {:?} {:?}",
        fast.nodes,
        fast.extras,
        reference.nodes,
        reference.extras
    );
    assert_eq!(fast.text(), text);
    fast
}

fn sjson(text: &str) -> Document {
    parse_both(text, Dialect::Sjson)
}

fn json(text: &str) -> Document {
    parse_both(text, Dialect::Json)
}

/// Both parsers reject `text`; returns the production parser's error.
fn fails(text: &str, dialect: Dialect) -> ParseError {
    let reference = parse_reference(text, ParseOptions::new(dialect));
    assert!(
        reference.is_err(),
        "{dialect:?} {text:?}: the reference parser accepts it"
    );
    match Document::parse(text, dialect) {
        Ok(doc) => panic!(
            "{dialect:?} {text:?}: the fast parser accepts it: {}",
            show(doc.root())
        ),
        Err(e) => e,
    }
}

/// A compact, unambiguous rendering of a value: numbers as lexemes, strings with their
/// quoting (`b"…"` bare, `r"…"` raw, `"…"` quoted), keys decoded.
fn show(v: Value<'_>) -> String {
    match v.kind() {
        Kind::Null => "null".into(),
        Kind::Bool => v.as_bool().unwrap().to_string(),
        Kind::Number => v.as_number_lexeme().unwrap().to_string(),
        Kind::String => {
            let prefix = match v.quoting().unwrap() {
                Quoting::Quoted => "",
                Quoting::Raw => "r",
                Quoting::Bare => "b",
            };
            format!("{prefix}{:?}", v.as_str().unwrap())
        }
        Kind::Array => {
            let items: Vec<String> = v.children().map(show).collect();
            format!("[{}]", items.join(","))
        }
        Kind::Object => {
            let items: Vec<String> = v
                .members()
                .map(|(k, c)| format!("{k:?}:{}", show(c)))
                .collect();
            format!("{{{}}}", items.join(","))
        }
    }
}

fn sj(text: &str) -> String {
    show(sjson(text).root())
}

fn js(text: &str) -> String {
    show(json(text).root())
}

#[test]
fn root_braces_are_optional() {
    let bare = sjson("a = 1");
    let braced = sjson("{ a = 1 }");
    assert!(!bare.root_braced());
    assert!(braced.root_braced());
    assert_eq!(show(bare.root()), r#"{"a":1}"#);
    assert_eq!(show(braced.root()), r#"{"a":1}"#);
    assert!(bare.root().same_value(&braced.root()));
    // A braceless root spans the whole text, trivia included.
    assert_eq!(bare.root().span(), 0..5);
    assert_eq!(sjson("\n{ a = 1 }\n").root().span(), 1..10);
    assert_eq!(sj("{}"), "{}");
    assert_eq!(sj(" { } "), "{}");
}

#[test]
fn empty_and_trivia_only_files_are_empty_objects() {
    for text in [
        "",
        " ",
        "\n\n",
        "\t// only a comment",
        "/* a */ // b\n,,\r\n",
    ] {
        let doc = sjson(text);
        assert_eq!(doc.root().kind(), Kind::Object, "{text:?}");
        assert!(doc.root().is_empty(), "{text:?}");
        assert!(!doc.root_braced());
        assert_eq!(doc.node_count(), 1);
    }
}

#[test]
fn bare_keys_of_real_files() {
    let doc = sjson(
        "* = 1\n#4d2c5ef0-1e1b-4f0a-9a5b-3b0c2d9f6e11 = {}\nsource-templates = []\n1E7C6F15 = 2\n",
    );
    let keys: Vec<_> = doc.root().members().map(|(k, _)| k.into_owned()).collect();
    assert_eq!(
        keys,
        [
            "*",
            "#4d2c5ef0-1e1b-4f0a-9a5b-3b0c2d9f6e11",
            "source-templates",
            "1E7C6F15"
        ]
    );
    for c in doc.root().children() {
        assert_eq!(c.key_quoting(), Some(Quoting::Bare));
        assert_eq!(c.key_lexeme().unwrap(), c.key().unwrap());
    }
    // Keywords and numbers are plain keys.
    assert_eq!(
        sj("true = 1 null = 2 12 = 3 -1.5 = 4"),
        r#"{"true":1,"null":2,"12":3,"-1.5":4}"#
    );
    // Quoted and raw keys.
    let doc = sjson(r#""a b" = 1 """c"d""" = 2"#);
    let kids: Vec<_> = doc.root().children().collect();
    assert_eq!(kids[0].key().unwrap(), "a b");
    assert_eq!(kids[0].key_lexeme().unwrap(), r#""a b""#);
    assert_eq!(kids[0].key_quoting(), Some(Quoting::Quoted));
    assert_eq!(kids[1].key().unwrap(), "c\"d");
    assert_eq!(kids[1].key_quoting(), Some(Quoting::Raw));
}

#[test]
fn equals_or_colon() {
    assert_eq!(sj("a = 1 b: 2 c=3 d:4"), r#"{"a":1,"b":2,"c":3,"d":4}"#);
    assert_eq!(sj("a\n=\n1"), r#"{"a":1}"#);
}

#[test]
fn commas_are_white_space() {
    assert_eq!(sj("a = [1,2,,3]"), r#"{"a":[1,2,3]}"#);
    assert_eq!(sj(",a = 1,,b = 2,"), r#"{"a":1,"b":2}"#);
    assert_eq!(sj("a = [,]"), r#"{"a":[]}"#);
    assert_eq!(sj("{,a = {,b = 1,},}"), r#"{"a":{"b":1}}"#);
    // A comma ends a bare token.
    assert_eq!(sj("a = [x,y]"), r#"{"a":[b"x",b"y"]}"#);
}

#[test]
fn comments() {
    assert_eq!(
        sj("// head\na = 1 // one\n/* two\nlines */ b = /* in */ 2 /**/"),
        r#"{"a":1,"b":2}"#
    );
    // `//` inside a string is text.
    assert_eq!(sj(r#"url = "http://x/*y*/""#), r#"{"url":"http://x/*y*/"}"#);
    assert_eq!(sj(r#"u = """//raw""""#), r#"{"u":r"//raw"}"#);
    // A bare token stops at a comment, but a lone `/` is part of it.
    assert_eq!(sj("a = b//c\n"), r#"{"a":b"b"}"#);
    assert_eq!(sj("a = b/*c*/"), r#"{"a":b"b"}"#);
    assert_eq!(sj("a = b/c"), r#"{"a":b"b/c"}"#);
    assert_eq!(sj("a//c\n= 1"), r#"{"a":1}"#);
    assert_eq!(sj("a = 1//c"), r#"{"a":1}"#);
    assert_eq!(sj("a = true/**/"), r#"{"a":true}"#);
    // Comments do not nest: the first `*/` ends one.
    assert_eq!(sj("/* /* */ a = 1"), r#"{"a":1}"#);
    fails("/* /* */ */ a = 1", Dialect::Sjson);
    // A `//` comment at the end of the file without a line break.
    assert_eq!(sj("a = 1 // end"), r#"{"a":1}"#);
}

#[test]
fn raw_strings() {
    let doc = sjson("text = \"\"\"He said \"hi\",\nthen \"\"left\\n.\"\"\"\n");
    let v = doc.root().get("text").unwrap();
    assert_eq!(v.quoting(), Some(Quoting::Raw));
    assert_eq!(v.as_str().unwrap(), "He said \"hi\",\nthen \"\"left\\n.");
    assert_eq!(sj(r#"a = """""""#), r#"{"a":r""}"#);
    // The first `"""` ends a raw string.
    assert_eq!(sj(r#"a = [""""x""" ""]"#), r#"{"a":[r"\"x",""]}"#);
    // Three quotes always open a raw string: an unterminated one is an error.
    let e = Document::parse(r#"a = ["""x"]"#, Dialect::Sjson).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Syntax("unterminated raw string".into()));
    assert_eq!((e.line, e.col), (1, 6));
    assert!(parse_reference(r#"a = ["""x"]"#, ParseOptions::new(Dialect::Sjson)).is_err());
    assert_eq!(sj(r#"a = ["" "x"]"#), r#"{"a":["","x"]}"#);
    // No escapes in raw strings.
    assert_eq!(sj(r#"a = """\u0041\""""#), r#"{"a":r"\\u0041\\"}"#);
}

#[test]
fn json_escapes() {
    let doc = sjson(r#"s = "\"\\\/\b\f\n\r\t\u00e9\u20AC\ud83d\ude00""#);
    let s = doc.root().get("s").unwrap().as_str().unwrap().into_owned();
    assert_eq!(s, "\"\\/\u{8}\u{c}\n\r\té€😀");
    let doc = json(r#"["\ud83d\ude00", "\u0000", "a\/b"]"#);
    let items: Vec<_> = doc
        .root()
        .children()
        .map(|c| c.as_str().unwrap().into_owned())
        .collect();
    assert_eq!(items, ["😀", "\0", "a/b"]);
    // Escaped keys decode too.
    assert_eq!(sj(r#""\u0061\n" = 1"#), r#"{"a\n":1}"#);
}

#[test]
fn raw_control_characters_in_strings() {
    assert_eq!(sj("a = \"x\ty\nz\r\u{1}\""), r#"{"a":"x\ty\nz\r\u{1}"}"#);
    assert_eq!(sj("\"k\tey\" = 1"), r#"{"k\tey":1}"#);
    for text in ["\"x\ty\"", "\"x\ny\"", "[\"\u{0}\"]", "{\"a\u{1f}\": 1}"] {
        let e = fails(text, Dialect::Json);
        assert_eq!(
            e.kind,
            ErrorKind::Syntax("control character in string".into())
        );
    }
    // DEL and other non-ASCII are not control characters for JSON.
    assert_eq!(js("\"\u{7f}\u{85}\""), r#""\u{7f}\u{85}""#);
}

#[test]
fn no_space_between_tokens() {
    assert_eq!(sj("a=[0.5[255 255 255]]"), r#"{"a":[0.5,[255,255,255]]}"#);
    assert_eq!(sj("b={c=1}d=2"), r#"{"b":{"c":1},"d":2}"#);
    assert_eq!(sj(r#"a="x"b="y""#), r#"{"a":"x","b":"y"}"#);
    assert_eq!(
        sj(r#"a=[1"x"true{}[]null"""r"""]"#),
        r#"{"a":[1,"x",true,{},[],null,r"r"]}"#
    );
    assert_eq!(sj("{a=1}"), r#"{"a":1}"#);
    assert_eq!(sj("a:{b:[]}c:d"), r#"{"a":{"b":[]},"c":b"d"}"#);
}

#[test]
fn bare_string_values() {
    let doc = sjson("categories = [ Tools ]\nmode = fast-ish\n");
    let tools = doc
        .root()
        .get("categories")
        .unwrap()
        .children()
        .next()
        .unwrap();
    assert_eq!(tools.kind(), Kind::String);
    assert_eq!(tools.quoting(), Some(Quoting::Bare));
    assert_eq!(tools.as_str().unwrap(), "Tools");
    assert_eq!(tools.text(), "Tools");
    assert_eq!(
        doc.root().get("mode").unwrap().as_str().unwrap(),
        "fast-ish"
    );
    // Bare tokens that merely start like numbers or keywords are strings.
    assert_eq!(
        sj("a = [1E7C6F15 01 1. 1e .5 - -x 1.5.2 0x10 +1 Infinity NaN]"),
        r#"{"a":[b"1E7C6F15",b"01",b"1.",b"1e",b".5",b"-",b"-x",b"1.5.2",b"0x10",b"+1",b"Infinity",b"NaN"]}"#
    );
    // Non-ASCII white space is not white space.
    assert_eq!(sj("a = x\u{a0}y"), r#"{"a":b"x\u{a0}y"}"#);
}

#[test]
fn numbers_keep_their_lexemes() {
    let doc = sjson(
        "a = [1E-05 -0 1.0 0 -12.5e+3 9007199254740993 123456789012345678901234567890123456789012]",
    );
    let arr = doc.root().get("a").unwrap();
    let lexemes: Vec<_> = arr
        .children()
        .map(|c| {
            assert_eq!(c.kind(), Kind::Number);
            c.as_number_lexeme().unwrap()
        })
        .collect();
    assert_eq!(
        lexemes,
        [
            "1E-05",
            "-0",
            "1.0",
            "0",
            "-12.5e+3",
            "9007199254740993",
            "123456789012345678901234567890123456789012"
        ]
    );
    let values: Vec<_> = arr.children().map(|c| c.as_number().unwrap()).collect();
    assert_eq!(values[0], NumberValue::Float(1e-5));
    assert_eq!(values[1], NumberValue::Int(0));
    assert_eq!(values[2], NumberValue::Int(1));
    assert_eq!(values[4], NumberValue::Float(-12500.0));
    assert!(matches!(values[5], NumberValue::Int(9007199254740993)));
    assert!(matches!(values[6], NumberValue::Big(_)));
    // JSON numbers are the same lexemes.
    assert_eq!(js("[1E-05, -0, 1.0, 2e3]"), "[1E-05,-0,1.0,2e3]");
}

#[test]
fn keywords_need_a_token_boundary() {
    assert_eq!(
        sj("a = [true false null trueish nullable false_ True NULL]"),
        r#"{"a":[true,false,null,b"trueish",b"nullable",b"false_",b"True",b"NULL"]}"#
    );
    assert_eq!(sj("a=true,b=false"), r#"{"a":true,"b":false}"#);
    assert_eq!(sj("a = [true]"), r#"{"a":[true]}"#);
}

#[test]
fn crlf_bom_final_newline_and_blank_lines() {
    let doc = sjson("a = 1\r\nb = [\r\n\t1\r\n]\r\n");
    assert_eq!(doc.newline(), "\r\n");
    assert_eq!(show(doc.root()), r#"{"a":1,"b":[1]}"#);
    let doc = sjson("\u{FEFF}a = 1\n");
    assert_eq!(doc.root().span(), 3..doc.text().len());
    assert_eq!(show(doc.root()), r#"{"a":1}"#);
    assert_eq!(doc.newline(), "\n");
    let doc = sjson("\u{FEFF}{a = 1}");
    assert!(doc.root_braced());
    assert_eq!(doc.root().span(), 3..10);
    // A byte-order mark is white space anywhere in SJSON, but ends a bare token.
    assert_eq!(sj("a\u{FEFF}= x\u{FEFF}"), r#"{"a":b"x"}"#);
    assert_eq!(sj("a = 1"), r#"{"a":1}"#);
    assert_eq!(sj("\na = 1\n"), r#"{"a":1}"#);
    assert_eq!(sj("\r\n\r\na = 1\r\n\r\n"), r#"{"a":1}"#);
    assert_eq!(js("\u{FEFF}[1]"), "[1]");
    assert_eq!(js("\u{FEFF} [1]\r\n"), "[1]");
    assert_eq!(js("[1]"), "[1]");
}

#[test]
fn json_byte_order_mark_only_first() {
    // Regression: the JSON grammar let white space come before the mark.
    for text in [
        " \u{FEFF}1",
        "\n\u{FEFF}[]",
        "\u{FEFF}\u{FEFF}1",
        "[\u{FEFF}1]",
    ] {
        fails(text, Dialect::Json);
    }
}

#[test]
fn json_root_may_be_any_value() {
    assert_eq!(js("[1, 2]"), "[1,2]");
    assert_eq!(js(r#""s""#), r#""s""#);
    assert_eq!(js(" 1.5 "), "1.5");
    assert_eq!(js("true"), "true");
    assert_eq!(js("null"), "null");
    assert_eq!(js("{}"), "{}");
    assert_eq!(
        js(r#"{"a": [1, {"b": null}], "c": "d"}"#),
        r#"{"a":[1,{"b":null}],"c":"d"}"#
    );
    assert!(json("{}").root_braced());
}

#[test]
fn sjson_root_must_be_an_object() {
    for text in [
        "[1]",
        "\"s\"",
        "1",
        "true",
        "a",
        "{a = 1} b = 2",
        "{a = 1}}",
        "a = 1}",
    ] {
        fails(text, Dialect::Sjson);
    }
}

#[test]
fn vermintide_cfg_semicolons_and_suffixed_numbers() {
    let text = "title = \"P\";\ndescription = \"a\n\nb\";\npublished_id = 1374248490L;\nv = 5;\n";
    let doc = sjson(text);
    let root = doc.root();
    assert_eq!(root.len(), 4);
    assert_eq!(root.get("description").unwrap().as_str().unwrap(), "a\n\nb");
    // The suffixed number is a bare lexeme, kept as written; the `;` after it separates.
    assert_eq!(root.get("published_id").unwrap().text(), "1374248490L");
    assert_eq!(root.get("v").unwrap().text(), "5");
    assert_eq!(root.get("v").unwrap().as_number_lexeme(), Some("5"));
    assert_eq!(doc.text(), text, "kept byte for byte");
}

#[test]
fn json_takes_comments_and_trailing_commas() {
    let text = "// c\n{\n  \"a\": [1, 2,], /* b */\n  \"b\": {\"c\": 1,},\n} /* end */\n";
    let doc = json(text);
    assert_eq!(show(doc.root()), show(sjson(text).root()));
    assert_eq!(doc.root().get("a").unwrap().len(), 2);
    assert_eq!(json("[1,]").root().len(), 1);
    assert_eq!(json("{\"a\"/**/:/**/1//x\n}").root().len(), 1);
}

#[test]
fn sjson_syntax_is_an_error_in_json() {
    for text in [
        "{a: 1}",
        r#"{"a" = 1}"#,
        "[1 2]",
        "[1, 2,,]",
        "{,}",
        "[,]",
        r#"{"a": 1 /* c */ "b": 2}"#,
        "[1 /* unterminated ]",
        r#"{"a": 1 "b": 2}"#,
        "[,1]",
        "[1,,2]",
        "[tools]",
        r#"[""""""]"#,
        "",
        "a = 1",
        "[01]",
        "[1.]",
        "[.5]",
        "[+1]",
        "[-]",
        "[1e]",
        "[truex]",
        "['a']",
        "[1] [2]",
        "{\"a\": 1}\u{FEFF}",
    ] {
        fails(text, Dialect::Json);
    }
}

#[test]
fn sjson_accepts_json() {
    let text = r#"{"a": [1, 2.5e-3, {"b": null}], "c": "d\u00e9", "e": true}"#;
    assert_eq!(show(sjson(text).root()), show(json(text).root()));
    assert!(sjson(text).root().same_value(&json(text).root()));
}

#[test]
fn malformed_sjson() {
    for text in [
        "a",
        "a =",
        "a = ",
        "= 1",
        "a = =",
        "a = [",
        "a = [}",
        "a = {]",
        "a = {b}",
        "a = {b = }",
        "a b = 1",
        "a = \"x",
        "a = 1 /* x",
        "a = \"\\x\"",
        "a = \"\\u12\"",
        "a = \"\\u12G4\"",
        "[a = 1]",
        "a = [b = 1]",
        "a = 1 \"b\"",
        "\"a\"",
    ] {
        fails(text, Dialect::Sjson);
    }
}

#[test]
fn spans_and_keys_point_into_the_text() {
    let text = "a = [1 \"x\"]\n\"k\" : { b = true }";
    let doc = sjson(text);
    let root = doc.root();
    let a = root.get("a").unwrap();
    assert_eq!(a.text(), "[1 \"x\"]");
    assert_eq!(a.item_start(), 0);
    let k = root.get("k").unwrap();
    assert_eq!(k.key_lexeme(), Some("\"k\""));
    assert_eq!(k.text(), "{ b = true }");
    assert_eq!(&text[k.item_start()..k.span().end], "\"k\" : { b = true }");
    assert_eq!(doc.node_count(), 6);
    let second = a.children().nth(1).unwrap();
    assert_eq!(second.text(), "\"x\"");
    assert_eq!(second.key(), None);
    assert_eq!(second.item_start(), second.span().start);
}

#[test]
fn same_tree_notices_differences() {
    let a = sjson("a = 1");
    assert!(a.same_tree(&sjson("a = 1")));
    assert!(!a.same_tree(&sjson("a = 2 ")));
    assert!(!a.same_tree(&sjson("{a=1}")));
    assert!(!json("[1]").same_tree(&sjson("a = [1]")));
}

#[test]
fn depth_limit_counts_a_braceless_root() {
    // Regression: the reference parser's depth check did not count the braceless root
    // as a level, so it accepted `a = [[…]]` with 512 brackets that the production
    // parser rejects.
    let options = ParseOptions {
        dialect: Dialect::Sjson,
        max_depth: 3,
    };
    for (text, ok) in [
        ("a = [[1]]", true),
        ("a = [[[1]]]", false),
        ("{a = [[1]]}", true),
        ("{a = [[[1]]]}", false),
        ("// c\n\u{FEFF}, a = [[1]]", true),
        ("/* { */ a = [[[1]]]", false),
    ] {
        let fast = Document::parse_with(text.to_string(), options);
        let reference = parse_reference(text, options);
        assert_eq!(fast.is_ok(), ok, "{text:?}: {fast:?}");
        assert_eq!(reference.is_ok(), ok, "{text:?}: {reference:?}");
        if let (Err(f), Err(r)) = (fast, reference) {
            assert_eq!(f, r, "{text:?}");
            assert_eq!(f.kind, ErrorKind::TooDeep(3));
        }
    }
}

#[test]
fn dialect_for_path() {
    assert_eq!(Dialect::for_path("a/b.JSON"), Dialect::Json);
    assert_eq!(Dialect::for_path("level.level"), Dialect::Sjson);
    assert_eq!(Dialect::for_path("x.json.bak"), Dialect::Sjson);
}

#[test]
fn number_len_matches_the_grammar() {
    for (lexeme, len) in [
        ("0", 1),
        ("-0", 2),
        ("01", 1),
        ("1.", 1),
        ("1.5", 3),
        ("1e5", 3),
        ("1E+5", 4),
        ("1e+", 1),
        ("-", 0),
        ("-a", 0),
        (".5", 0),
        ("12.34e-56x", 9),
    ] {
        assert_eq!(number_len(lexeme.as_bytes()), len, "{lexeme:?}");
    }
}

#[test]
fn bare_tokens_that_start_like_numbers_are_numbers_only_when_whole() {
    // The scanner takes a number in one scan when a byte that ends bare tokens follows it;
    // otherwise the whole bare token is classified. Both parsers agree on each.
    let tokens = [
        ("0", true),
        ("-0", true),
        ("12", true),
        ("-1.5e+3", true),
        ("1e5", true),
        ("1.2.3", false),
        ("12abc", false),
        ("-", false),
        ("1e", false),
        ("1e+", false),
        ("0x10", false),
        ("00", false),
        ("1.", false),
        ("-.5", false),
        ("1/2", false),
        ("1-2", false),
        ("1\u{e9}", false),
    ];
    for (token, number) in tokens {
        for text in [
            format!("a = {token}"),
            format!("a = {token}\n"),
            format!("a = [{token} {token}]\n"),
            format!("a = [{token},{token}]"),
            format!("a = {{b = {token}}}"),
            format!("a = {token}// c\n"),
            format!("a = {token}/* c */ b = 1"),
            format!("a = {token};"),
        ] {
            let doc = sjson(&text);
            let a = doc.root().get("a").unwrap();
            let kinds: Vec<Kind> = match a.kind() {
                Kind::Array => a.children().map(|c| c.kind()).collect(),
                Kind::Object => vec![a.get("b").unwrap().kind()],
                kind => vec![kind],
            };
            let want = if number { Kind::Number } else { Kind::String };
            assert!(kinds.iter().all(|&k| k == want), "{text:?}: {kinds:?}");
        }
    }
}
