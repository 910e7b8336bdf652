//! Property tests: random values printed as SJSON in random styles (and as JSON) parse
//! back losslessly, to the exact value, identically in both parsers; formatting is
//! idempotent and keeps the value; floats keep their bits; integers stay exact; arbitrary
//! bytes never panic and both parsers agree on what they accept.

use levelgen::Rng;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

use sjson::reference::parse_reference;
use sjson::{
    format, lexemes_equal, Dialect, Document, Kind, NumberValue, ParseOptions, Split, Style, Value,
};

mod bytes;
mod model;
mod printer;
mod runs;

use model::*;
use printer::*;

// ---------------------------------------------------------------------------------------
// Checks.

/// `cases` per property, or `PROPTEST_CASES` for a longer hunt.
fn config(cases: u32) -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(cases);
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Parses `text` with both parsers and checks everything a valid document must satisfy;
/// returns the fast parser's document.
fn check_valid(text: &str, dialect: Dialect) -> Result<Document, TestCaseError> {
    let doc = Document::parse(text, dialect)
        .map_err(|e| TestCaseError::fail(format!("{dialect:?}: {e}\n{text}")))?;
    prop_assert_eq!(doc.text(), text);
    let reference = parse_reference(text, ParseOptions::new(dialect))
        .map_err(|e| TestCaseError::fail(format!("{dialect:?} reference: {e}\n{text}")))?;
    prop_assert!(
        doc.same_tree(&reference),
        "the parsers disagree on\n{}",
        text
    );
    check_format(&doc)?;
    Ok(doc)
}

/// `format` in both canonical styles reparses to the same value and is a fixed point.
fn check_format(doc: &Document) -> Result<(), TestCaseError> {
    for dialect in [Dialect::Sjson, Dialect::Json] {
        if dialect == Dialect::Sjson && doc.root().kind() != Kind::Object {
            continue;
        }
        let style = Style::canonical(dialect);
        let once = format(doc, &style);
        let again = Document::parse(once.as_str(), dialect).map_err(|e| {
            TestCaseError::fail(format!(
                "formatted as {dialect:?}: {e}\n{once}\nfrom\n{}",
                doc.text()
            ))
        })?;
        prop_assert!(
            again.root().same_value(&doc.root()),
            "formatting as {:?} changed the value:\n{}\nfrom\n{}",
            dialect,
            once,
            doc.text()
        );
        prop_assert_eq!(model_of(again.root()), model_of(doc.root()));
        prop_assert_eq!(hash(again.root()), hash(doc.root()));
        let twice = format(&again, &style);
        prop_assert_eq!(&twice, &once, "format is not idempotent as {:?}", dialect);
        // JSON formatted as JSON keeps its comments (JSONC), which serde_json rejects.
        let comments_kept = doc.dialect() == Dialect::Json && doc.text().contains('/');
        if dialect == Dialect::Json && !has_infinite_number(doc) && !comments_kept {
            let body = once.strip_prefix('\u{FEFF}').unwrap_or(&once);
            let v: Result<serde_json::Value, _> = serde_json::from_str(body);
            prop_assert!(v.is_ok(), "serde_json rejects\n{}", once);
        }
    }
    Ok(())
}

/// Whether a number overflows f64 (`1e400`): valid JSON that serde_json rejects.
fn has_infinite_number(doc: &Document) -> bool {
    fn walk(v: Value<'_>) -> bool {
        v.as_number().is_some_and(|n| n.as_f64().is_infinite()) || v.children().any(walk)
    }
    walk(doc.root())
}

/// Where each array element starts, with how many containers hold it (the root is 1).
fn element_starts(v: Value<'_>, depth: usize, out: &mut Vec<Split>) {
    for c in v.children() {
        if v.kind() == Kind::Array {
            out.push(Split {
                at: c.span().start,
                depth,
            });
        }
        if c.is_container() {
            element_starts(c, depth + 1, out);
        }
    }
}

fn hash(v: Value<'_>) -> u64 {
    use std::hash::Hasher;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    v.hash_value(&mut h);
    h.finish()
}

proptest! {
    #![proptest_config(config(256))]

    /// (a) SJSON in random styles: lossless, exact, both parsers agree, format is sound.
    #[test]
    fn sjson_round_trips(root in sjson_root(), c in choices()) {
        let text = Printer::new(c, false).sjson_document(&root);
        let doc = check_valid(&text, Dialect::Sjson)?;
        prop_assert_eq!(model_of(doc.root()), root.clone());
        prop_assert!(doc.root().same_value(&doc.root()));
        // The same value printed as JSON is the same value.
        let json = Printer::new(Choices { bom: false, ..choices_plain() }, true).json_document(&root);
        let jdoc = check_valid(&json, Dialect::Json)?;
        prop_assert!(jdoc.root().same_value(&doc.root()), "{}\nvs\n{}", json, text);
        prop_assert_eq!(hash(jdoc.root()), hash(doc.root()));
        // SJSON accepts JSON.
        let as_sjson = check_valid(&json, Dialect::Sjson)?;
        prop_assert_eq!(model_of(as_sjson.root()), root);
    }

    /// A parse on two threads is the one-thread parse, whether the hint names the start
    /// of an array element (the second thread's elements are taken) or any other place,
    /// and on a broken text (one character cut) the error is the same.
    #[test]
    fn split_parses_are_one_thread_parses(
        root in sjson_root(),
        c in choices(),
        element in any::<prop::sample::Index>(),
        anywhere in any::<prop::sample::Index>(),
        depth in 1usize..6,
    ) {
        let text = Printer::new(c, false).sjson_document(&root);
        let doc = Document::parse(text.as_str(), Dialect::Sjson)
            .map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        let mut starts = Vec::new();
        element_starts(doc.root(), 1, &mut starts);
        let boundaries: Vec<usize> = (0..=text.len()).filter(|&i| text.is_char_boundary(i)).collect();
        let cut = boundaries[anywhere.index(boundaries.len())];
        let broken: String = text[..cut].chars().chain(text[cut..].chars().skip(1)).collect();
        let mut hints = vec![Split { at: cut, depth }];
        if !starts.is_empty() {
            hints.push(starts[element.index(starts.len())]);
        }
        let options = ParseOptions::new(Dialect::Sjson);
        for input in [&text, &broken] {
            let one = Document::parse_with(input.clone(), options);
            // Tables a parse leaves behind, full of another document's nodes.
            let used = || doc.clone().into_parts().1;
            for hint in &hints {
                let two = Document::parse_split(input.clone(), options, Some(*hint));
                let reused = Document::parse_split_reusing(input.clone(), options, Some(*hint), [used(), used()]);
                for two in [&two, &reused] {
                    match (&one, two) {
                        (Ok(a), Ok(b)) => prop_assert!(a.same_tree(b), "{:?} in\n{}", hint, input),
                        (Err(a), Err(b)) => prop_assert_eq!(a, b),
                        _ => prop_assert!(false, "{:?}: {:?} against {:?} in\n{}", hint, one.is_ok(), two.is_ok(), input),
                    }
                }
            }
        }
    }

    /// An edit whose kept elements are held as runs prints byte for byte as the same
    /// edit with an item for each element (with the same split hint), and so does it
    /// moved `onto` its document.
    #[test]
    fn runs_print_as_their_items(
        root in sjson_root(),
        c in choices(),
        seed in any::<u64>(),
        json in any::<bool>(),
    ) {
        let (text, dialect) = match json {
            true => (Printer::new(c, true).json_document(&root), Dialect::Json),
            false => (Printer::new(c, false).sjson_document(&root), Dialect::Sjson),
        };
        let doc = Document::parse(text.as_str(), dialect)
            .map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        let edit = runs::edit(&doc, seed);
        let (items, items_split) = sjson::print_with_split(&doc, &edit.items);
        let (runs, runs_split) = sjson::print_with_split(&doc, &edit.runs);
        prop_assert_eq!(&runs, &items, "in\n{}", text);
        prop_assert_eq!(runs_split, items_split);
        let moved = edit.runs.onto(&[&doc]);
        prop_assert!(moved.is_some());
        if let Some(moved) = moved {
            prop_assert_eq!(sjson::print(&doc, &moved), items);
        }
    }

    /// (a) JSON with random white space and escapes; serde_json agrees on the value.
    #[test]
    fn json_round_trips(root in value(), c in choices()) {
        let text = Printer::new(c, true).json_document(&root);
        let doc = check_valid(&text, Dialect::Json)?;
        prop_assert_eq!(model_of(doc.root()), root.clone());
        let body = text.strip_prefix('\u{FEFF}').unwrap_or(&text);
        let v: Result<serde_json::Value, _> = serde_json::from_str(body);
        prop_assert!(v.is_ok(), "serde_json rejects\n{}", text);
        if let Some(serde) = root.to_serde() {
            for printed in [
                serde_json::to_string(&serde).unwrap(),
                serde_json::to_string_pretty(&serde).unwrap(),
            ] {
                let sdoc = check_valid(&printed, Dialect::Json)?;
                prop_assert_eq!(model_of(sdoc.root()).sorted(), root.sorted());
            }
        }
    }

    /// (b) Every finite float's shortest round-trip lexeme parses to the same bits.
    #[test]
    fn floats_are_bit_exact(f in finite_f64(), seed in any::<u64>()) {
        let lexeme = float_lexeme(f, &mut Rng::new(seed));
        for (text, dialect) in [
            (format!("[{lexeme}]"), Dialect::Json),
            (lexeme.clone(), Dialect::Json),
            (format!("a = {lexeme}"), Dialect::Sjson),
            (format!("a=[{lexeme}]"), Dialect::Sjson),
        ] {
            let doc = Document::parse(text.as_str(), dialect)
                .map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
            let mut v = doc.root();
            while v.is_container() {
                v = v.children().next().unwrap();
            }
            prop_assert_eq!(v.as_number_lexeme(), Some(lexeme.as_str()));
            match v.as_number().unwrap() {
                NumberValue::Float(g) => prop_assert_eq!(g.to_bits(), f.to_bits(), "{}", lexeme),
                other => prop_assert!(false, "{} read as {:?}", lexeme, other),
            }
        }
        let (exp, debug) = (format!("{f:e}"), format!("{f:?}"));
        prop_assert!(lexemes_equal(&lexeme, &exp));
        prop_assert!(lexemes_equal(&lexeme, &debug));
        let next = f64::from_bits(f.to_bits() + 1);
        if next.is_finite() && f != 0.0 {
            let next = format!("{next:?}");
            prop_assert!(!lexemes_equal(&lexeme, &next));
        }
    }

    /// (c) Integers are exact, beyond 2^53 and up to i128 (and beyond as big integers).
    #[test]
    fn integers_are_exact(a in int(), b in int(), zeros in 0usize..30) {
        let (la, lb) = (a.to_string(), b.to_string());
        prop_assert_eq!(lexemes_equal(&la, &lb), a == b);
        prop_assert!(matches!(NumberValue::from_lexeme(&la), NumberValue::Int(x) if x == a));
        if let Some(a1) = a.checked_add(1) {
            prop_assert!(!lexemes_equal(&la, &a1.to_string()));
        }
        let doc = Document::parse(format!("[{la}, {lb}]"), Dialect::Json).unwrap();
        let kids: Vec<_> = doc.root().children().collect();
        prop_assert_eq!(kids[0].same_value(&kids[1]), a == b);
        // An integral float lexeme equals the integer exactly when it is exact.
        let f = a as f64;
        prop_assert_eq!(lexemes_equal(&format!("{f:?}"), &la), f as i128 == a && f < 1.7014118346046923e38);
        // Big integers: trailing digits take them past i128.
        if a != 0 && b != 0 {
            let big_a = format!("{la}{}", "0".repeat(zeros + 40));
            let big_b = format!("{lb}{}", "0".repeat(zeros + 40));
            prop_assert!(matches!(NumberValue::from_lexeme(&big_a), NumberValue::Big(_)));
            prop_assert_eq!(lexemes_equal(&big_a, &big_b), a == b);
            let (longer, tenfold) = (format!("{big_a}1"), format!("{big_a}0"));
            prop_assert!(!lexemes_equal(&big_a, &longer));
            prop_assert!(!lexemes_equal(&big_a, &tenfold));
            let doc = Document::parse(format!("a = [{big_a} {big_b}]"), Dialect::Sjson).unwrap();
            let kids: Vec<_> = doc.root().get("a").unwrap().children().collect();
            prop_assert_eq!(kids[0].same_value(&kids[1]), a == b);
        }
    }
}

fn choices_plain() -> Choices {
    Choices {
        seed: 7,
        indent: "\t",
        separator: None,
        commas: 0,
        comments: 0,
        compact: 30,
        bare: false,
        raw: false,
        crlf: false,
        braces: true,
        final_newline: true,
        bom: false,
        leading_blank: false,
    }
}
