//! The laws' tiny document model, and a printer with random SJSON/JSON styles.

use levelgen::Rng;
use sjson::Dialect;

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum J {
    Null,
    Bool(bool),
    Num(String),
    Str(String),
    Arr(Vec<J>),
    Obj(Vec<(String, J)>),
}

impl J {
    pub(crate) fn get(&self, k: &str) -> Option<&J> {
        match self {
            J::Obj(m) => m.iter().find(|(x, _)| x == k).map(|(_, v)| v),
            _ => None,
        }
    }

    pub(crate) fn get_mut(&mut self, k: &str) -> Option<&mut J> {
        match self {
            J::Obj(m) => m.iter_mut().find(|(x, _)| x == k).map(|(_, v)| v),
            _ => None,
        }
    }

    pub(crate) fn members(&mut self) -> &mut Vec<(String, J)> {
        match self {
            J::Obj(m) => m,
            _ => panic!("not an object"),
        }
    }

    pub(crate) fn elements(&mut self) -> &mut Vec<J> {
        match self {
            J::Arr(a) => a,
            _ => panic!("not an array"),
        }
    }

    /// Sets `k` (in place if present, else appended after `after`, else at the end).
    pub(crate) fn set(&mut self, k: &str, v: J, after: Option<&str>) {
        let m = self.members();
        if let Some(slot) = m.iter_mut().find(|(x, _)| x == k) {
            slot.1 = v;
            return;
        }
        let at = after
            .and_then(|a| m.iter().position(|(x, _)| x == a))
            .map_or(m.len(), |i| i + 1);
        m.insert(at, (k.to_string(), v));
    }

    pub(crate) fn remove(&mut self, k: &str) {
        self.members().retain(|(x, _)| x != k);
    }

    pub(crate) fn is_scalar(&self) -> bool {
        !matches!(self, J::Arr(_) | J::Obj(_))
    }
}

#[derive(Clone, Debug)]
pub(crate) struct Style {
    pub(crate) json: bool,
    pub(crate) indent: &'static str,
    pub(crate) sep: &'static str,
    pub(crate) commas: bool,
    pub(crate) braces: bool,
    pub(crate) inline: bool,
    pub(crate) comments: bool,
    pub(crate) nl: &'static str,
}

impl Style {
    pub(crate) fn random(rng: &mut Rng, json: bool) -> Style {
        Style {
            json,
            indent: rng.pick::<&str>(&["\t", "  ", "    "]),
            sep: if json {
                rng.pick::<&str>(&[": ", ":"])
            } else {
                rng.pick::<&str>(&[" = ", " : ", "=", ": "])
            },
            commas: !json && rng.one_in(3),
            braces: json || rng.one_in(4),
            inline: rng.one_in(2),
            comments: !json && rng.one_in(2),
            nl: if rng.one_in(6) { "\r\n" } else { "\n" },
        }
    }

    pub(crate) fn dialect(&self) -> Dialect {
        if self.json {
            Dialect::Json
        } else {
            Dialect::Sjson
        }
    }
}

pub(crate) fn is_plain(k: &str) -> bool {
    let mut cs = k.chars();
    cs.next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && cs.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

pub(crate) fn quote(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

pub(crate) fn key_hash(k: &str) -> u32 {
    k.bytes()
        .fold(7u32, |h, b| h.wrapping_mul(31).wrapping_add(b as u32))
}

pub(crate) fn print_doc(root: &J, st: &Style) -> String {
    let mut out = String::new();
    if st.braces {
        print_value(root, st, 0, &mut out);
        out.push_str(st.nl);
    } else {
        let J::Obj(m) = root else { panic!() };
        for (k, v) in m {
            print_member(k, v, st, 0, &mut out);
            out.push_str(st.nl);
        }
    }
    out
}

pub(crate) fn print_member(k: &str, v: &J, st: &Style, depth: usize, out: &mut String) {
    let pad = st.indent.repeat(depth);
    if st.comments && key_hash(k) & 3 == 0 {
        out.push_str(&format!(
            "// about {}{}{pad}",
            k.replace(['\n', '\r'], " "),
            st.nl
        ));
    }
    print_key(k, st, out);
    print_value(v, st, depth, out);
}

/// A member's key (bare when the style and the key allow it) and the separator after it.
pub(crate) fn print_key(k: &str, st: &Style, out: &mut String) {
    if !st.json && is_plain(k) {
        out.push_str(k);
    } else {
        quote(k, out);
    }
    out.push_str(st.sep);
}

pub(crate) fn print_value(v: &J, st: &Style, depth: usize, out: &mut String) {
    let pad = st.indent.repeat(depth + 1);
    let close_pad = st.indent.repeat(depth);
    let item_sep = if st.json || st.commas { ", " } else { " " };
    match v {
        J::Null => out.push_str("null"),
        J::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        J::Num(n) => out.push_str(n),
        J::Str(s) => quote(s, out),
        J::Arr(a) if a.is_empty() => out.push_str("[]"),
        J::Obj(m) if m.is_empty() => out.push_str("{}"),
        J::Arr(a) if a.len() <= 16 && a.iter().all(|e| matches!(e, J::Num(_))) => {
            out.push('[');
            for (i, e) in a.iter().enumerate() {
                if i > 0 {
                    out.push_str(item_sep);
                }
                print_value(e, st, depth, out);
            }
            out.push(']');
        }
        J::Obj(m) if st.inline && m.len() <= 3 && m.iter().all(|(_, v)| v.is_scalar()) => {
            out.push_str(if st.json { "{" } else { "{ " });
            for (i, (k, v)) in m.iter().enumerate() {
                if i > 0 {
                    out.push_str(item_sep);
                }
                print_key(k, st, out);
                print_value(v, st, depth, out);
            }
            out.push_str(if st.json { "}" } else { " }" });
        }
        J::Arr(a) => {
            out.push('[');
            for (i, e) in a.iter().enumerate() {
                out.push_str(st.nl);
                out.push_str(&pad);
                print_value(e, st, depth + 1, out);
                if st.json && i + 1 < a.len() || st.commas {
                    out.push(',');
                }
            }
            out.push_str(st.nl);
            out.push_str(&close_pad);
            out.push(']');
        }
        J::Obj(m) => {
            out.push('{');
            for (i, (k, v)) in m.iter().enumerate() {
                out.push_str(st.nl);
                out.push_str(&pad);
                print_member(k, v, st, depth + 1, out);
                if st.json && i + 1 < m.len() || st.commas {
                    out.push(',');
                }
            }
            out.push_str(st.nl);
            out.push_str(&close_pad);
            out.push('}');
        }
    }
}
