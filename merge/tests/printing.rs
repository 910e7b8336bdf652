//! The printed result: ours' bytes where ours' value was kept, new items in the
//! neighbours' style, comments travelling with their key, valid commas, line endings.

use crate::common;

use common::*;

#[test]
fn ours_formatting_survives_byte_for_byte() {
    let base = "// header\r\n".replace("\r\n", "\n")
        + "a   =   1 // one\nb:2,\n\n\n/* block */\nc = [1,2,3]\nd = { x = 1.50, y = 1E-05 }\n";
    let ours = base.replace("c = [1,2,3]", "c = [1,2,3]\ne = \"\"\"raw\"\"\"");
    let theirs = base.replace("x = 1.50", "x = 2");
    let out = sj(&base, &ours, &theirs);
    assert_clean(&out);
    assert_eq!(out.text(), ours.replace("x = 1.50", "x = 2"));
}

#[test]
fn merge_with_unchanged_theirs_is_ours_byte_for_byte() {
    let base = "a = 1\nb = [1 2 3]\n";
    let ours = "\u{FEFF}\n\n// c\na=2,b=[ 1, 2,3 ]  // d\n\n";
    let out = sj(base, ours, base);
    assert_eq!(out.text(), ours);
}

#[test]
fn a_comment_never_runs_into_an_item_after_a_lone_carriage_return() {
    // Ours' element stands after a lone `\r` (not a line break: a `//` comment runs on
    // past it). Theirs puts a new element with a comment before it: the comment must end
    // on a real line break, or it would swallow the old element. (Found by `merge3`.)
    let base = "a = [\rold // note\n]";
    let theirs = "a = [new // about new\nold]";
    let out = sj(base, base, theirs);
    assert_clean(&out);
    assert_value(sjson::Dialect::Sjson, out.text(), "a = [new old]");
    assert!(out.text().contains("// about new\n"), "{:?}", out.text());
}

#[test]
fn crlf_documents_stay_crlf() {
    let base = "a = 1\r\nb = {\r\n\tc = 1\r\n}\r\n";
    let ours = "a = 2\r\nb = {\r\n\tc = 1\r\n}\r\n";
    // Theirs was saved with LF line endings and adds nested values.
    let theirs = "a = 1\nb = {\n\tc = 1\n\td = [\n\t\t{ x = 1 }\n\t]\n}\nnew = {\n\tk = 1\n}\n";
    let out = sj(base, ours, theirs);
    assert_clean(&out);
    assert!(
        !out.text().replace("\r\n", "").contains('\n'),
        "{:?}",
        out.text()
    );
    assert_value(
        Sjson,
        out.text(),
        "a = 2 b = { c = 1 d = [{ x = 1 }] } new = { k = 1 }",
    );
    assert!(
        out.text().starts_with("a = 2\r\nb = {\r\n\tc = 1\r\n"),
        "{:?}",
        out.text()
    );
}

#[test]
fn crlf_json_stays_crlf() {
    let base = "{\r\n  \"a\": 1,\r\n  \"b\": 2\r\n}\r\n";
    let ours = "{\r\n  \"a\": 5,\r\n  \"b\": 2\r\n}\r\n";
    let theirs = "{\n  \"a\": 1,\n  \"b\": 2,\n  \"c\": {\n    \"d\": [1, 2]\n  }\n}\n";
    let out = js(base, ours, theirs);
    assert_clean(&out);
    assert!(
        !out.text().replace("\r\n", "").contains('\n'),
        "{:?}",
        out.text()
    );
    assert_value(Json, out.text(), r#"{"a": 5, "b": 2, "c": {"d": [1, 2]}}"#);
}

#[test]
fn comments_travel_with_a_new_key() {
    let out = sj(
        "a = 1\nb = 2\n",
        "a = 5\nb = 2\n",
        "a = 1\n// about n\nn = 3 // trailing\nb = 2\n",
    );
    assert_clean(&out);
    assert_eq!(out.text(), "a = 5\n// about n\nn = 3 // trailing\nb = 2\n");
}

#[test]
fn comments_travel_with_a_new_nested_key() {
    let base = "o = {\n\ta = 1\n\tb = 2\n}\nz = 1\n";
    let ours = "o = {\n\ta = 1\n\tb = 3\n}\nz = 2\n";
    let theirs = "o = {\n\ta = 1\n\t/* block */\n\t// line\n\tn = 4 // after\n\tb = 2\n}\nz = 1\n";
    let out = sj(base, ours, theirs);
    assert_clean(&out);
    assert_eq!(
        out.text(),
        "o = {\n\ta = 1\n\t/* block */\n\t// line\n\tn = 4 // after\n\tb = 3\n}\nz = 2\n"
    );
}

#[test]
fn comments_travel_with_a_new_keyed_element() {
    let base = "l = [\n\t{ id = 1 }\n]\n";
    let ours = "l = [\n\t{ id = 1 x = 1 }\n]\n";
    let theirs = "l = [\n\t{ id = 1 }\n\t// the second\n\t{ id = 2 }\n]\n";
    let out = sj(base, ours, theirs);
    assert_clean(&out);
    assert_eq!(
        out.text(),
        "l = [\n\t{ id = 1 x = 1 }\n\t// the second\n\t{ id = 2 }\n]\n"
    );
}

#[test]
fn a_new_first_key_of_a_braceless_root() {
    // Regression: the result started with an empty line.
    let out = sj("a = 1\nb = 2\n", "a = 1\nb = 3\n", "y = 0\na = 1\nb = 2\n");
    assert_eq!(out.text(), "y = 0\na = 1\nb = 3\n");
    // With comments: theirs' comment comes along, ours' header stays on its own line.
    let out = sj(
        "a = 1\nb = 2\n",
        "// head\na = 1\nb = 3\n",
        "// about y\ny = 0\na = 1\nb = 2\n",
    );
    assert_eq!(out.text(), "// about y\ny = 0\n// head\na = 1\nb = 3\n");
}

#[test]
fn deleting_the_first_key_of_a_braceless_root() {
    // Regression: the result started with an empty line.
    let out = sj("a = 1\nb = 2\n", "a = 1\nb = 3\n", "b = 2\n");
    assert_eq!(out.text(), "b = 3\n");
    let out = sj("\n\nx = 1\nz = 1\n", "\n\nx = 1\nz = 2\n", "z = 1\n");
    assert_eq!(out.text(), "\n\nz = 2\n");
}

#[test]
fn single_line_braceless_root_insertions() {
    // Regression: `y = 1x = 1 z = 2` did not parse (internal error).
    let out = sj("x = 1 z = 1", "x = 1 z = 2", "y = 1 x = 1 z = 1");
    assert_clean(&out);
    assert_eq!(out.text(), "y = 1 x = 1 z = 2");
    let out = sj("x = 1 z = 1", "z = 2", "x = 1 z = 1");
    assert_eq!(out.text(), "z = 2");
}

#[test]
fn single_line_sjson_with_commas() {
    let out = sj("a = [1,2] b = 1", "a = [1,2] b = 2", "a = [1,2,3] b = 1");
    assert_eq!(out.text(), "a = [1,2,3] b = 2");
    // Both changed the list: rebuilt in place.
    let out = sj("a = [1,2]", "a = [0,1,2]", "a = [1,2,3]");
    assert_value(Sjson, out.text(), "a = [0 1 2 3]");
    let out = sj("o = {a=1,b=2}", "o = {a=1,b=3}", "o = {x=0,a=1,b=2,y=4}");
    assert_value(Sjson, out.text(), "o = {x=0 a=1 b=3 y=4}");
}

#[test]
fn reordered_keyed_elements_on_one_line() {
    let out = sj(
        "a = [{id=1 x=1} {id=2 x=1}] b = 0",
        "a = [{id=1 x=1} {id=2 x=2}] b = 1",
        "a = [{id=2 x=1} {id=1 x=1}] b = 0",
    );
    assert_clean(&out);
    assert_value(Sjson, out.text(), "a = [{id=2 x=2} {id=1 x=1}] b = 1");
    let out = sj(
        "a = [{id=1},{id=2},{id=3}] b = 0",
        "a = [{id=1},{id=2},{id=3}] b = 1",
        "a = [{id=3},{id=1},{id=2}] b = 0",
    );
    assert_value(Sjson, out.text(), "a = [{id=3} {id=1} {id=2}] b = 1");
}

/// Ours edits `z` so the object is rebuilt in place; theirs' edits are in `edit`.
fn json_object_case(base: &str, theirs: &str) -> String {
    let ours = base.replace("\"z\": 0", "\"z\": 1");
    let out = js(base, &ours, theirs);
    assert_clean(&out);
    out.into_text()
}

#[test]
fn json_object_commas_after_insertions() {
    let base = r#"{"a": 1, "b": 2, "z": 0}"#;
    // At the start, the middle and the end.
    let text = json_object_case(base, r#"{"x": 0, "a": 1, "y": 5, "b": 2, "z": 0, "w": 9}"#);
    assert_eq!(text, r#"{"x": 0, "a": 1, "y": 5, "b": 2, "z": 1, "w": 9}"#);
    let base = "{\n  \"a\": 1,\n  \"b\": 2,\n  \"z\": 0\n}\n";
    let text = json_object_case(
        base,
        "{\n  \"x\": 0,\n  \"a\": 1,\n  \"y\": 5,\n  \"b\": 2,\n  \"z\": 0,\n  \"w\": 9\n}\n",
    );
    assert_eq!(
        text,
        "{\n  \"x\": 0,\n  \"a\": 1,\n  \"y\": 5,\n  \"b\": 2,\n  \"z\": 1,\n  \"w\": 9\n}\n"
    );
}

#[test]
fn json_object_commas_after_deletions() {
    let base = "{\n  \"a\": 1,\n  \"b\": 2,\n  \"c\": 3,\n  \"z\": 0\n}\n";
    for (theirs, expected) in [
        // First, middle, last (after ours' last edit), everything but z.
        (
            "{\n  \"b\": 2,\n  \"c\": 3,\n  \"z\": 0\n}\n",
            "{\n  \"b\": 2,\n  \"c\": 3,\n  \"z\": 1\n}\n",
        ),
        (
            "{\n  \"a\": 1,\n  \"c\": 3,\n  \"z\": 0\n}\n",
            "{\n  \"a\": 1,\n  \"c\": 3,\n  \"z\": 1\n}\n",
        ),
        ("{\n  \"z\": 0\n}\n", "{\n  \"z\": 1\n}\n"),
    ] {
        assert_eq!(json_object_case(base, theirs), expected);
    }
    // The last key deleted by theirs, ours edited the first.
    let ours = base.replace("\"a\": 1", "\"a\": 5");
    let out = js(base, &ours, "{\n  \"a\": 1,\n  \"b\": 2,\n  \"c\": 3\n}\n");
    assert_eq!(out.text(), "{\n  \"a\": 5,\n  \"b\": 2,\n  \"c\": 3\n}\n");
    // Single line.
    let base = r#"{"a": 1, "b": 2, "c": 3, "z": 0}"#;
    assert_eq!(
        json_object_case(base, r#"{"b": 2, "c": 3, "z": 0}"#),
        r#"{"b": 2, "c": 3, "z": 1}"#
    );
    assert_eq!(
        json_object_case(base, r#"{"a": 1, "b": 2, "z": 0}"#),
        r#"{"a": 1, "b": 2, "z": 1}"#
    );
    let ours = r#"{"a": 5, "b": 2, "c": 3, "z": 0}"#;
    let out = js(base, ours, r#"{"a": 1, "b": 2, "c": 3}"#);
    assert_eq!(out.text(), r#"{"a": 5, "b": 2, "c": 3}"#);
}

#[test]
fn json_array_commas() {
    let base = r#"{"l": [1, 2, 3], "k": 0}"#;
    let cases = [
        // ours' list, theirs' list, merged.
        ("[0, 1, 2, 3]", "[1, 2, 3, 4]", "[0, 1, 2, 3, 4]"),
        ("[2, 3]", "[1, 2]", "[2]"),
        ("[1, 3]", "[1, 2, 3, 4]", "[1, 3, 4]"),
        ("[1, 1.5, 2, 3]", "[1, 2, 2.5, 3]", "[1, 1.5, 2, 2.5, 3]"),
        ("[9, 1, 2, 3]", "[1, 2, 3]", "[9, 1, 2, 3]"),
    ];
    for (ours_l, theirs_l, merged) in cases {
        let ours = format!(r#"{{"l": {ours_l}, "k": 1}}"#);
        let theirs = format!(r#"{{"l": {theirs_l}, "k": 0}}"#);
        let out = js(base, &ours, &theirs);
        assert_clean(&out);
        assert_value(Json, out.text(), &format!(r#"{{"l": {merged}, "k": 1}}"#));
    }
    // Multi-line arrays.
    let base = "{\"l\": [\n  1,\n  2,\n  3\n], \"k\": 0}";
    let ours = "{\"l\": [\n  1,\n  3\n], \"k\": 1}";
    let theirs = "{\"l\": [\n  7,\n  1,\n  2,\n  3,\n  8\n], \"k\": 0}";
    let out = js(base, ours, theirs);
    assert_clean(&out);
    assert_eq!(out.text(), "{\"l\": [\n  7,\n  1,\n  3,\n  8\n], \"k\": 1}");
}

#[test]
fn json_keyed_array_commas() {
    let base = r#"{"a":[{"id":1},{"id":2}],"k":0}"#;
    let ours = r#"{"a":[{"id":1}],"k":1}"#;
    let theirs = r#"{"a":[{"id":0},{"id":1},{"id":2},{"id":3}],"k":0}"#;
    let out = js(base, ours, theirs);
    assert_clean(&out);
    assert_value(
        Json,
        out.text(),
        r#"{"a":[{"id":0},{"id":1},{"id":3}],"k":1}"#,
    );
    // Into empty containers.
    let out = js(
        r#"{"a":[],"o":{},"k":0}"#,
        r#"{"a":[],"o":{},"k":1}"#,
        r#"{"a":[1],"o":{"x":1},"k":0}"#,
    );
    assert_value(Json, out.text(), r#"{"a":[1],"o":{"x":1},"k":1}"#);
    let out = js(
        r#"{"a":[],"o":{}}"#,
        r#"{"a":[1,2],"o":{"p":1}}"#,
        r#"{"a":[3],"o":{"q":2}}"#,
    );
    assert_value(Json, out.text(), r#"{"a":[1,2,3],"o":{"p":1,"q":2}}"#);
}

#[test]
fn sjson_values_from_theirs_are_rendered_as_json_in_json() {
    // A JSON document never gets SJSON syntax, even in multi-line new values.
    let base = "{\n  \"a\": 1\n}\n";
    let ours = "{\n  \"a\": 2\n}\n";
    let theirs =
        "{\n  \"a\": 1,\n  \"n\": {\n    \"x\": [1,\n      2],\n    \"s\": \"t\\u00e9\"\n  }\n}\n";
    let out = js(base, ours, theirs);
    assert_clean(&out);
    assert_value(
        Json,
        out.text(),
        r#"{"a": 2, "n": {"x": [1, 2], "s": "té"}}"#,
    );
}

#[test]
fn new_values_use_ours_style() {
    // Ours: four spaces, `:` separator, commas.
    let base = "{\n    a: 1,\n    b: 2,\n}\n";
    let ours = "{\n    a: 1,\n    b: 3,\n}\n";
    let theirs = "a = 1\nb = 2\nc = {\n\td = 1\n\te = [\n\t\t{ f = 1 }\n\t]\n}\n";
    let out = sj(base, ours, theirs);
    assert_clean(&out);
    assert_eq!(
        out.text(),
        "{\n    a: 1,\n    b: 3,\n    c: {\n        d: 1,\n        e: [\n            {\n                f: 1,\n            },\n        ],\n    },\n}\n"
    );
}

#[test]
fn three_quotes_always_open_a_raw_string() {
    // Regression (found by the merge3 fuzz target): SJSON used to read an unterminated
    // `"""` as `""` and a string, so ours' `"""x"` (two strings) turned into the start of
    // a raw string once theirs' raw string came after it. Three quotes now always open a
    // raw string, so that input is rejected and nothing can change meaning in a merge.
    let base = "w = [1]\n";
    let ours = "w = [\"\"\"x\" 1]\n";
    let theirs = "w = [1 \"\"\"raw\"\"\"]\n";
    let err = merge::merge(
        merge::Inputs::texts(base, ours, theirs, Sjson),
        &merge::MergeOptions::default(),
    )
    .unwrap_err();
    assert!(
        matches!(
            err,
            merge::MergeError::Parse {
                version: merge::Version::Ours,
                ..
            }
        ),
        "{err}"
    );
    let out = sj(base, "w = [\"\" \"x\" 1]\n", theirs);
    assert_clean(&out);
    assert_value(Sjson, out.text(), "w = [\"\" \"x\" 1 \"\"\"raw\"\"\"]");
    // The fuzzer's inputs: whatever parses merges into text that parses, and
    // merge(b, b, x) is x.
    let q = |n: usize| "\"".repeat(n);
    let fuzzed = [
        (
            "weights = [0.5 0.25 0.25]\n".to_string(),
            format!("\0eiPghts = [{}.\"0.25]\n", q(35)),
            format!(
                "\0eiPghts = [{}.\"0.6 0.2 0.2jj\"white\"jjjjjjjjjjj0.0]\n",
                q(35)
            ),
        ),
        (
            "weights : [0.5 0\"\"\"\"\"\u{2}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\"1e5 0.25]\n"
                .to_string(),
            "weights : [0.5 0\"\"\"\"\"\u{2}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\"1e5 0.25]\n"
                .to_string(),
            format!(
                "weights = [\u{0}\u{0}52{}\u{c}{}05 ..{}6{}-\"2{}.{}a{}1e5 0.25]\n",
                q(5),
                q(39),
                q(4),
                q(10),
                q(36),
                q(13),
                q(17)
            ),
        ),
    ];
    for (b, o, t) in &fuzzed {
        let options = merge::MergeOptions::default();
        if let Ok(out) = merge::merge(merge::Inputs::texts(b, o, t, Sjson), &options) {
            parse(Sjson, out.text());
        }
        if let Ok(out) = merge::merge(merge::Inputs::texts(b, b, t, Sjson), &options) {
            assert!(parse(Sjson, out.text())
                .root()
                .same_value(&parse(Sjson, t).root()));
        }
    }
}

#[test]
fn new_values_do_not_run_into_comments() {
    // Regression (found by the merge3 fuzz target): a bare string `s/` printed right
    // before ours' comment `// l}` read as `s` and the comment `/// l}`.
    let out = sj("// l}\n", "// l}\n", "// li1ghtinu\nambie =s/");
    assert_value(Sjson, out.text(), "ambie = \"s/\"");
    assert_eq!(out.text(), "// li1ghtinu\nambie = s/\n// l}\n");
    // Ours' value replaced in place, its comment right after it.
    let out = sj(
        "a = 1// c\nb = 1\n",
        "a = 1// c\nb = 2\n",
        "a = s/\nb = 1\n",
    );
    assert_value(Sjson, out.text(), "a = \"s/\" b = 2");
    assert_eq!(out.text(), "a = s/ // c\nb = 2\n");
    // New items in containers that hold only a comment.
    let out = sj(
        "a = [1] b = {}",
        "a = [/* c */] b = {// d\n}",
        "a = [1 s/] b = { x = y/ }",
    );
    // (Ours emptied `a`, theirs appended to it: a conflict, theirs taken.)
    assert_value(Sjson, out.text(), "a = [1 \"s/\"] b = { x = \"y/\" }");
}

#[test]
fn a_replaced_value_does_not_run_into_the_next_item() {
    // Regression (found by the merge3 fuzz target): ours wrote `"u-94"color` with no
    // space; theirs' `0.02` in place of `"u-94"` made `0.02color`, which does not parse.
    let base = "fog = { density = 1.02, color = [0.5 0.5 0.6] }\n";
    let ours = "fog = { density = \"u-94\"color = [0.5 0.5 0.6] }\n";
    let theirs = "fog = { density = 0.02, color = [0.5 0.5 0.7] }\n";
    let out = sj(base, ours, theirs);
    assert_value(
        Sjson,
        out.text(),
        "fog = { density = 0.02 color = [0.5 0.5 0.7] }",
    );
    assert_eq!(
        out.text(),
        "fog = { density = 0.02 color = [0.5 0.5 0.7] }\n"
    );
    // A bare string for a quoted one.
    let out = sj(
        "o = { a = \"s\"b = 1 }",
        "o = { a = \"s\"b = 2 }",
        "o = { a = t b = 1 }",
    );
    assert_eq!(out.text(), "o = { a = t b = 2 }");
}

#[test]
fn a_value_taken_from_theirs_keeps_ours_layout_over_several_lines() {
    // #34: theirs writes the arrays on one line, the file over several; the merged
    // value is written over several lines like the rest of the file.
    let base = r#"{"a": {"q": [7, 8], "o": {"m": 1, "n": 2}}, "b": 1}"#;
    let ours = "{\n  \"a\": {\n    \"q\": [\n      7,\n      8\n    ],\n    \"o\": {\n      \"m\": 1,\n      \"n\": 2\n    }\n  },\n  \"b\": 2\n}\n";
    let theirs = r#"{"a": {"q": [7, 9], "o": {"m": 1, "n": 3}}, "b": 1}"#;
    let out = js(base, ours, theirs);
    assert_clean(&out);
    assert_eq!(
        out.text(),
        ours.replace("8\n", "9\n").replace("\"n\": 2", "\"n\": 3")
    );
    // SJSON too; an array ours writes on one line stays on one line.
    let base = "a = [1 2]\nb = [1 2]\nc = 1\n";
    let ours = "a = [\n\t1\n\t2\n]\nb = [1 2]\nc = 2\n";
    let theirs = "a = [3 4 5]\nb = [3 4]\nc = 1\n";
    let out = sj(base, ours, theirs);
    assert_clean(&out);
    assert_eq!(out.text(), "a = [\n\t3\n\t4\n\t5\n]\nb = [3 4]\nc = 2\n");
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(proptest_cases(64)))]
    #[test]
    fn a_taken_array_holds_theirs_values_in_ours_layout(
        old in proptest::collection::vec(0i32..100, 1..6),
        new in proptest::collection::vec(0i32..100, 1..6),
    ) {
        let one_line = |v: &[i32]| v.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(" ");
        let several: String = old.iter().map(|n| format!("\t{n}\n")).collect();
        let base = format!("a = [{}]\nc = 1\n", one_line(&old));
        let ours = format!("a = [\n{several}]\nc = 2\n");
        let theirs = format!("a = [{}]\nc = 1\n", one_line(&new));
        let out = sj(&base, &ours, &theirs);
        assert_value(Sjson, out.text(), &format!("a = [{}]\nc = 2\n", one_line(&new)));
        // Over several lines, as ours writes it.
        let lines = out.text().lines().count();
        proptest::prop_assert!(lines >= new.len() + 2, "{}", out.text());
    }
}
