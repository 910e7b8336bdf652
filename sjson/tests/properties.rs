//! Property tests: random values printed as SJSON in random styles (and as JSON) parse
//! back losslessly, to the exact value, identically in both parsers; formatting is
//! idempotent and keeps the value; floats keep their bits; integers stay exact; arbitrary
//! bytes never panic and both parsers agree on what they accept.

use levelgen::Rng;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

use sjson::reference::parse_reference;
use sjson::{
    format, lexemes_equal, Dialect, Document, ErrorKind, Kind, NumberValue, ParseOptions, Split,
    Style, Value,
};

// ---------------------------------------------------------------------------------------
// The model: what a document means.

#[derive(Debug, Clone)]
enum M {
    Null,
    Bool(bool),
    Int(i128),
    Float(f64),
    Str(String),
    Arr(Vec<M>),
    Obj(Vec<(String, M)>),
    /// An integer beyond i128 (never generated; read from mutated texts).
    Big(String),
}

impl PartialEq for M {
    /// Exact: floats by bits (so `-0.0` differs from `0.0`), objects in order.
    fn eq(&self, other: &M) -> bool {
        match (self, other) {
            (M::Null, M::Null) => true,
            (M::Bool(a), M::Bool(b)) => a == b,
            (M::Int(a), M::Int(b)) => a == b,
            (M::Float(a), M::Float(b)) => a.to_bits() == b.to_bits(),
            (M::Str(a), M::Str(b)) => a == b,
            (M::Arr(a), M::Arr(b)) => a == b,
            (M::Obj(a), M::Obj(b)) => a == b,
            (M::Big(a), M::Big(b)) => a == b,
            _ => false,
        }
    }
}

impl M {
    /// The same value with every object's keys sorted (as serde_json's map orders them).
    fn sorted(&self) -> M {
        match self {
            M::Arr(items) => M::Arr(items.iter().map(M::sorted).collect()),
            M::Obj(members) => {
                let mut m: Vec<_> = members
                    .iter()
                    .map(|(k, v)| (k.clone(), v.sorted()))
                    .collect();
                m.sort_by(|a, b| a.0.cmp(&b.0));
                M::Obj(m)
            }
            other => other.clone(),
        }
    }

    /// The value as serde_json's, if its integers fit serde_json's numbers.
    fn to_serde(&self) -> Option<serde_json::Value> {
        use serde_json::Value as J;
        Some(match self {
            M::Null => J::Null,
            M::Bool(b) => J::Bool(*b),
            M::Int(i) => {
                if let Ok(i) = i64::try_from(*i) {
                    J::from(i)
                } else {
                    J::from(u64::try_from(*i).ok()?)
                }
            }
            M::Float(f) => J::Number(serde_json::Number::from_f64(*f)?),
            M::Str(s) => J::String(s.clone()),
            M::Arr(items) => J::Array(items.iter().map(M::to_serde).collect::<Option<_>>()?),
            M::Obj(members) => J::Object(
                members
                    .iter()
                    .map(|(k, v)| Some((k.clone(), v.to_serde()?)))
                    .collect::<Option<_>>()?,
            ),
            M::Big(_) => return None,
        })
    }
}

/// What a parsed value means, exactly.
fn model_of(v: Value<'_>) -> M {
    match v.kind() {
        Kind::Null => M::Null,
        Kind::Bool => M::Bool(v.as_bool().unwrap()),
        Kind::Number => match v.as_number().unwrap() {
            NumberValue::Int(i) => M::Int(i),
            NumberValue::Float(f) => M::Float(f),
            NumberValue::Big(s) => M::Big(s),
        },
        Kind::String => M::Str(v.as_str().expect("validated escapes").into_owned()),
        Kind::Array => M::Arr(v.children().map(model_of).collect()),
        Kind::Object => M::Obj(
            v.children()
                .map(|c| {
                    (
                        c.key().expect("members have keys").into_owned(),
                        model_of(c),
                    )
                })
                .collect(),
        ),
    }
}

// ---------------------------------------------------------------------------------------
// Strategies.

fn finite_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        3 => any::<u64>().prop_map(f64::from_bits),
        // Subnormals of either sign.
        1 => (1u64..(1 << 52), any::<bool>())
            .prop_map(|(m, neg)| f64::from_bits(m | (u64::from(neg) << 63))),
        1 => prop::sample::select(vec![
            0.0,
            -0.0,
            f64::MIN_POSITIVE,
            f64::MAX,
            f64::MIN,
            f64::EPSILON,
            5e-324,
            -5e-324,
            1e300,
            0.1,
            1.0,
            -1.0,
            1e16,
            9007199254740993.0,
            1.7e38,
            123456789.125,
        ]),
        2 => any::<f32>().prop_map(f64::from),
        2 => -1e6..1e6f64,
    ]
    .prop_filter("finite", |f| f.is_finite())
}

fn int() -> impl Strategy<Value = i128> {
    let two53 = 1i128 << 53;
    prop_oneof![
        3 => -1000i128..1000,
        2 => any::<i64>().prop_map(i128::from),
        1 => any::<u64>().prop_map(i128::from),
        2 => any::<i128>(),
        1 => (two53 - 3..two53 + 3, any::<bool>()).prop_map(|(i, neg)| if neg { -i } else { i }),
        1 => prop::sample::select(vec![
            i64::MIN.into(),
            i64::MAX.into(),
            u64::MAX.into(),
            i128::MIN,
            i128::MAX,
            i128::MAX - 1,
            0,
        ]),
    ]
}

fn text() -> impl Strategy<Value = String> {
    let ch = prop_oneof![
        6 => prop::char::range('a', 'z'),
        3 => prop::sample::select(vec![
            '"', '\\', '/', '*', '\t', '\n', '\r', '\u{0}', '\u{8}', '\u{c}', '\u{1f}', '\u{7f}',
            ' ', '=', ':', ',', '{', '}', '[', ']', '#', '-', '.', '0', '9', 'e', 'é', '€', '😀',
            '\u{FEFF}', '\u{a0}', '\u{2028}', '\u{ffff}',
        ]),
        1 => any::<char>(),
    ];
    prop::collection::vec(ch, 0..8).prop_map(|v| v.into_iter().collect())
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "[a-z_][a-z0-9_]{0,6}",
        3 => text(),
        1 => prop::sample::select(vec![
            "*".to_string(),
            "source-templates".into(),
            "#4d2c5ef0-1e1b".into(),
            "1E7C6F15".into(),
            "true".into(),
            "12".into(),
            "a/b".into(),
            "x/".into(),
        ]),
    ]
}

fn leaf() -> impl Strategy<Value = M> {
    prop_oneof![
        1 => Just(M::Null),
        1 => any::<bool>().prop_map(M::Bool),
        3 => int().prop_map(M::Int),
        3 => finite_f64().prop_map(M::Float),
        4 => text().prop_map(M::Str),
    ]
}

fn object_of(inner: impl Strategy<Value = M>) -> impl Strategy<Value = M> {
    prop::collection::vec((key(), inner), 0..6).prop_map(|members| {
        let mut seen = std::collections::HashSet::new();
        M::Obj(
            members
                .into_iter()
                .filter(|(k, _)| seen.insert(k.clone()))
                .collect(),
        )
    })
}

fn value() -> impl Strategy<Value = M> {
    leaf().prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(M::Arr),
            object_of(inner),
        ]
    })
}

fn sjson_root() -> impl Strategy<Value = M> {
    object_of(value())
}

// ---------------------------------------------------------------------------------------
// A printer with random style choices.

/// The style of one printed document.
#[derive(Debug, Clone)]
struct Choices {
    seed: u64,
    indent: &'static str,
    /// `None`: a random separator per member.
    separator: Option<&'static str>,
    /// 0: none, 1: after every item, 2: at random.
    commas: u8,
    /// Percentage of gaps that get a comment.
    comments: u64,
    /// Percentage of gaps written on one line (or with no white space at all).
    compact: u64,
    bare: bool,
    raw: bool,
    crlf: bool,
    braces: bool,
    final_newline: bool,
    bom: bool,
    leading_blank: bool,
}

fn choices() -> impl Strategy<Value = Choices> {
    (
        any::<u64>(),
        prop::sample::select(vec!["\t", "  ", "    ", " "]),
        prop::option::of(prop::sample::select(vec![
            " = ", "=", " : ", ":", ": ", " =", "\t=\t",
        ])),
        0u8..3,
        prop::sample::select(vec![0u64, 10, 40]),
        prop::sample::select(vec![0u64, 30, 100]),
        any::<bool>(),
        any::<bool>(),
        any::<(bool, bool, bool, bool, bool)>(),
    )
        .prop_map(
            |(seed, indent, separator, commas, comments, compact, bare, raw, flags)| Choices {
                seed,
                indent,
                separator,
                commas,
                comments,
                compact,
                bare,
                raw,
                crlf: flags.0,
                braces: flags.1,
                final_newline: flags.2,
                bom: flags.3,
                leading_blank: flags.4,
            },
        )
}

fn is_bare_char(c: char) -> bool {
    !matches!(
        c,
        ' ' | '\t' | '\r' | '\n' | '\u{FEFF}' | '"' | '=' | ':' | ',' | '{' | '}' | '[' | ']'
    )
}

/// Whether `s` reads back as one bare token.
fn bare_token(s: &str) -> bool {
    !s.is_empty() && s.chars().all(is_bare_char) && !s.contains("//") && !s.contains("/*")
}

/// Whether `s` is a JSON number lexeme (a bare token that reads as a number).
fn is_number(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = usize::from(b.first() == Some(&b'-'));
    let digits = |i: &mut usize| {
        let start = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i - start
    };
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            digits(&mut i);
        }
        _ => return false,
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// A number lexeme for `f` with the same value: shortest round trip, sometimes with
/// `E`, an explicit `+` or a zero-padded exponent (`1E-05`).
fn float_lexeme(f: f64, rng: &mut Rng) -> String {
    let s = format!("{f:?}");
    let Some(e) = s.find('e') else { return s };
    let (mantissa, exp) = (&s[..e], &s[e + 1..]);
    let (sign, digits) = match exp.strip_prefix('-') {
        Some(d) => ("-", d),
        None => (if rng.percent(30) { "+" } else { "" }, exp),
    };
    let e = if rng.percent(50) { "E" } else { "e" };
    let pad = "0".repeat(rng.below(3) as usize);
    format!("{mantissa}{e}{sign}{pad}{digits}")
}

/// Writes `s` as a quoted string with random (valid) escapes. `json`: control characters
/// must be escaped; otherwise raw tabs and line breaks are sometimes kept.
fn write_quoted(out: &mut String, s: &str, json: bool, rng: &mut Rng) {
    out.push('"');
    for c in s.chars() {
        let u = |out: &mut String, code: u32, rng: &mut Rng| {
            if rng.percent(50) {
                out.push_str(&format!("\\u{code:04x}"));
            } else {
                out.push_str(&format!("\\u{code:04X}"));
            }
        };
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '/' if rng.percent(30) => out.push_str("\\/"),
            '\n' if !json && rng.percent(30) => out.push('\n'),
            '\t' | '\r' | '\u{1}' if !json && rng.percent(30) => out.push(c),
            '\n' | '\t' | '\r' | '\u{8}' | '\u{c}' if rng.percent(60) => out.push_str(match c {
                '\n' => "\\n",
                '\t' => "\\t",
                '\r' => "\\r",
                '\u{8}' => "\\b",
                _ => "\\f",
            }),
            c if (c as u32) < 0x20 => u(out, c as u32, rng),
            c if !c.is_ascii() && rng.percent(30) => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    u(out, u32::from(*unit), rng);
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

struct Printer {
    c: Choices,
    rng: Rng,
    out: String,
    nl: &'static str,
    json: bool,
}

const LINE_COMMENTS: &[&str] = &["// c", "//", "// \"q\" {[=", "//// x", "// /* y"];
const BLOCK_COMMENTS: &[&str] = &[
    "/* c */",
    "/**/",
    "/* a\n b */",
    "/* // x */",
    "/* \"{\" */",
    "/***/",
];

impl Printer {
    fn new(c: Choices, json: bool) -> Printer {
        let nl = if c.crlf { "\r\n" } else { "\n" };
        Printer {
            rng: Rng::new(c.seed),
            c,
            out: String::new(),
            nl,
            json,
        }
    }

    fn newline(&mut self, level: usize) {
        self.out.push_str(self.nl);
        for _ in 0..level {
            self.out.push_str(self.c.indent);
        }
    }

    /// White space (and in SJSON comments and commas) between tokens. `delimit`: the
    /// previous token was bare, a number or a keyword, so something must separate it
    /// from the next one.
    fn gap(&mut self, level: usize, delimit: bool) {
        if !self.json && self.rng.below(100) < self.c.comments {
            if self.rng.percent(50) {
                self.out.push(' ');
                let c = self.rng.pick(LINE_COMMENTS);
                self.out.push_str(c);
                self.newline(level);
            } else {
                self.out.push(' ');
                let c = self.rng.pick(BLOCK_COMMENTS);
                self.out.push_str(c);
                if self.rng.percent(50) {
                    self.newline(level);
                } else if self.rng.percent(50) {
                    self.out.push(' ');
                }
            }
            return;
        }
        if self.rng.below(100) < self.c.compact {
            let options: &[&str] = if self.json {
                &[" ", "", "\t"]
            } else {
                &[" ", "", ",", " , ", "\u{FEFF}"]
            };
            let g = self.rng.pick(options);
            if g.is_empty() && delimit {
                self.out.push(' ');
            } else {
                self.out.push_str(g);
            }
        } else {
            if !self.json && self.rng.percent(10) {
                self.out.push_str(self.nl);
            }
            self.newline(level);
        }
    }

    fn comma(&mut self, last: bool) {
        if self.json {
            if !last {
                self.out.push(',');
            }
            return;
        }
        match self.c.commas {
            1 => self.out.push(','),
            2 if self.rng.percent(50) => self.out.push(','),
            _ => {}
        }
    }

    /// Writes a string or key; returns whether it needs a delimiter after it.
    fn string(&mut self, s: &str, is_key: bool) -> bool {
        if !self.json {
            let bare_ok = bare_token(s)
                && (is_key || !(matches!(s, "true" | "false" | "null") || is_number(s)));
            if self.c.bare && bare_ok && self.rng.percent(70) {
                self.out.push_str(s);
                return true;
            }
            if self.c.raw && !s.contains("\"\"\"") && !s.ends_with('"') && self.rng.percent(40) {
                self.out.push_str("\"\"\"");
                self.out.push_str(s);
                self.out.push_str("\"\"\"");
                return false;
            }
        }
        let mut out = std::mem::take(&mut self.out);
        write_quoted(&mut out, s, self.json, &mut self.rng);
        self.out = out;
        // `""` right before another string would read as the start of a raw string.
        s.is_empty()
    }

    /// Writes a value; returns whether it needs a delimiter after it.
    fn value(&mut self, m: &M, level: usize) -> bool {
        match m {
            M::Null => self.out.push_str("null"),
            M::Bool(b) => self.out.push_str(if *b { "true" } else { "false" }),
            M::Int(i) => self.out.push_str(&i.to_string()),
            M::Float(f) => {
                let lexeme = float_lexeme(*f, &mut self.rng);
                self.out.push_str(&lexeme);
            }
            M::Str(s) => return self.string(s, false),
            M::Big(s) => self.out.push_str(s),
            M::Arr(items) => {
                self.out.push('[');
                self.items(items.iter().map(|v| (None, v)), level + 1);
                self.out.push(']');
                return false;
            }
            M::Obj(members) => {
                self.out.push('{');
                self.items(
                    members.iter().map(|(k, v)| (Some(k.as_str()), v)),
                    level + 1,
                );
                self.out.push('}');
                return false;
            }
        }
        true
    }

    fn separator(&mut self) {
        if self.json {
            let s = self.rng.pick(&[":", ": ", " : ", "\n:\t"]);
            self.out.push_str(s);
            return;
        }
        let s = match self.c.separator {
            Some(s) => s,
            None => self
                .rng
                .pick(&[" = ", "=", " : ", ":", "= ", " /* c */ = "]),
        };
        self.out.push_str(s);
    }

    /// Writes the items of a container at `level` (the close gap at `level - 1`).
    fn items<'m>(
        &mut self,
        items: impl ExactSizeIterator<Item = (Option<&'m str>, &'m M)>,
        level: usize,
    ) {
        let n = items.len();
        let mut delimit = false;
        for (i, (key, v)) in items.enumerate() {
            self.gap(level, delimit);
            if let Some(k) = key {
                self.string(k, true);
                self.separator();
            }
            delimit = self.value(v, level);
            let before = self.out.len();
            self.comma(i + 1 == n);
            if self.out.len() > before {
                delimit = false;
            }
        }
        if n > 0 || self.rng.percent(50) {
            self.gap(level.saturating_sub(1), delimit);
        }
    }

    fn sjson_document(mut self, root: &M) -> String {
        let M::Obj(members) = root else {
            panic!("an SJSON root is an object")
        };
        if self.c.bom {
            self.out.push('\u{FEFF}');
        }
        if self.c.leading_blank {
            self.out.push_str(self.nl);
        }
        let items = members.iter().map(|(k, v)| (Some(k.as_str()), v));
        if self.c.braces {
            self.out.push('{');
            self.items(items, 1);
            self.out.push('}');
        } else {
            self.items(items, 0);
        }
        if self.c.final_newline {
            self.out.push_str(self.nl);
        }
        self.out
    }

    fn json_document(mut self, root: &M) -> String {
        if self.c.bom {
            self.out.push('\u{FEFF}');
        }
        if self.c.leading_blank {
            self.out.push_str(self.nl);
        }
        self.value(root, 0);
        if self.c.final_newline {
            self.out.push_str(self.nl);
        }
        self.out
    }
}

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
        if dialect == Dialect::Json && !has_infinite_number(doc) {
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
            for hint in &hints {
                let two = Document::parse_split(input.clone(), options, Some(*hint));
                match (&one, &two) {
                    (Ok(a), Ok(b)) => prop_assert!(a.same_tree(b), "{:?} in\n{}", hint, input),
                    (Err(a), Err(b)) => prop_assert_eq!(a, b),
                    _ => prop_assert!(false, "{:?}: {:?} against {:?} in\n{}", hint, one.is_ok(), two.is_ok(), input),
                }
            }
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

// ---------------------------------------------------------------------------------------
// (d) Arbitrary bytes.

const FRAGMENTS: &[&[u8]] = &[
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
struct Bytes(Vec<u8>);

impl std::fmt::Debug for Bytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "b\"{}\"", self.0.escape_ascii())
    }
}

fn fragments() -> impl Strategy<Value = Bytes> {
    prop::collection::vec(prop::sample::select(FRAGMENTS), 0..40).prop_map(|v| Bytes(v.concat()))
}

/// A valid SJSON or JSON text with a few bytes deleted, inserted or replaced.
fn mutated() -> impl Strategy<Value = (Bytes, Dialect)> {
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
fn check_bytes(bytes: &[u8], dialect: Dialect) -> Result<(), TestCaseError> {
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
            // Whatever JSON we accept, serde_json accepts (numbers within f64's range).
            if dialect == Dialect::Json && !has_infinite_number(f) {
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
fn printer_sanity() {
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
