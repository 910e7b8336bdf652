//! A printer of model values with random style choices.

use levelgen::Rng;
use proptest::prelude::*;

use crate::model::*;

// ---------------------------------------------------------------------------------------
// A printer with random style choices.

/// The style of one printed document.
#[derive(Debug, Clone)]
pub(crate) struct Choices {
    pub(crate) seed: u64,
    pub(crate) indent: &'static str,
    /// `None`: a random separator per member.
    pub(crate) separator: Option<&'static str>,
    /// 0: none, 1: after every item, 2: at random.
    pub(crate) commas: u8,
    /// Percentage of gaps that get a comment.
    pub(crate) comments: u64,
    /// Percentage of gaps written on one line (or with no white space at all).
    pub(crate) compact: u64,
    pub(crate) bare: bool,
    pub(crate) raw: bool,
    pub(crate) crlf: bool,
    pub(crate) braces: bool,
    pub(crate) final_newline: bool,
    pub(crate) bom: bool,
    pub(crate) leading_blank: bool,
}

pub(crate) fn choices() -> impl Strategy<Value = Choices> {
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

pub(crate) fn is_bare_char(c: char) -> bool {
    !matches!(
        c,
        ' ' | '\t' | '\r' | '\n' | '\u{FEFF}' | '"' | '=' | ':' | ',' | ';' | '{' | '}' | '[' | ']'
    )
}

/// Whether `s` reads back as one bare token.
pub(crate) fn bare_token(s: &str) -> bool {
    !s.is_empty() && s.chars().all(is_bare_char) && !s.contains("//") && !s.contains("/*")
}

/// Whether `s` is a JSON number lexeme (a bare token that reads as a number).
pub(crate) fn is_number(s: &str) -> bool {
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
pub(crate) fn float_lexeme(f: f64, rng: &mut Rng) -> String {
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
pub(crate) fn write_quoted(out: &mut String, s: &str, json: bool, rng: &mut Rng) {
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

pub(crate) struct Printer {
    pub(crate) c: Choices,
    pub(crate) rng: Rng,
    pub(crate) out: String,
    pub(crate) nl: &'static str,
    pub(crate) json: bool,
}

pub(crate) const LINE_COMMENTS: &[&str] = &["// c", "//", "// \"q\" {[=", "//// x", "// /* y"];
pub(crate) const BLOCK_COMMENTS: &[&str] = &[
    "/* c */",
    "/**/",
    "/* a\n b */",
    "/* // x */",
    "/* \"{\" */",
    "/***/",
];

impl Printer {
    pub(crate) fn new(c: Choices, json: bool) -> Printer {
        let nl = if c.crlf { "\r\n" } else { "\n" };
        Printer {
            rng: Rng::new(c.seed),
            c,
            out: String::new(),
            nl,
            json,
        }
    }

    pub(crate) fn newline(&mut self, level: usize) {
        self.out.push_str(self.nl);
        for _ in 0..level {
            self.out.push_str(self.c.indent);
        }
    }

    /// White space (and in SJSON comments and commas) between tokens. `delimit`: the
    /// previous token was bare, a number or a keyword, so something must separate it
    /// from the next one.
    pub(crate) fn gap(&mut self, level: usize, delimit: bool) {
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

    pub(crate) fn comma(&mut self, last: bool) {
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
    pub(crate) fn string(&mut self, s: &str, is_key: bool) -> bool {
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
    pub(crate) fn value(&mut self, m: &M, level: usize) -> bool {
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

    pub(crate) fn separator(&mut self) {
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
    pub(crate) fn items<'m>(
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

    pub(crate) fn sjson_document(mut self, root: &M) -> String {
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

    pub(crate) fn json_document(mut self, root: &M) -> String {
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
