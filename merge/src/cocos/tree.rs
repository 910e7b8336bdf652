//! An owned JSON tree for the Cocos merge: values keep their lexemes (numbers and strings
//! as written) so that a value printed again reads as it did, and the printer writes the
//! editor's layout (`JSON.stringify(value, null, indent)`).

use sjson::{Kind, Value};

/// One JSON value, owned; numbers and strings keep their lexemes.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum J {
    /// `null`
    Null,
    /// `true` or `false`
    Bool(bool),
    /// A number, as written.
    Num(String),
    /// A string: its decoded text and its JSON lexeme (quotes included).
    Str(String, String),
    /// An array.
    Arr(Vec<J>),
    /// An object's members in order (decoded keys).
    Obj(Vec<(String, J)>),
}

impl J {
    /// The value of an sjson document, owned.
    pub(crate) fn of(v: Value<'_>) -> J {
        match v.kind() {
            Kind::Null => J::Null,
            Kind::Bool => J::Bool(v.as_bool().unwrap_or(false)),
            Kind::Number => J::Num(v.as_number_lexeme().unwrap_or("0").to_string()),
            Kind::String => {
                let text = v.as_str().map(|s| s.into_owned()).unwrap_or_default();
                let raw = v.text();
                let lexeme = if raw.starts_with('"') && v.doc().dialect() == sjson::Dialect::Json {
                    raw.to_string()
                } else {
                    quoted(&text)
                };
                J::Str(text, lexeme)
            }
            Kind::Array => J::Arr(v.children().map(J::of).collect()),
            Kind::Object => J::Obj(
                v.members()
                    .map(|(k, m)| (k.into_owned(), J::of(m)))
                    .collect(),
            ),
        }
    }

    /// A string value made here.
    pub(crate) fn string(text: &str) -> J {
        J::Str(text.to_string(), quoted(text))
    }

    /// The member `key` of an object.
    pub(crate) fn get(&self, key: &str) -> Option<&J> {
        match self {
            J::Obj(members) => members.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The member `key` of an object, mutably.
    pub(crate) fn get_mut(&mut self, key: &str) -> Option<&mut J> {
        match self {
            J::Obj(members) => members.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The text of a string value.
    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            J::Str(text, _) => Some(text),
            _ => None,
        }
    }

    /// The string member `key` of an object, when it is a non-empty string.
    pub(crate) fn str_member(&self, key: &str) -> Option<&str> {
        self.get(key)?.as_str().filter(|s| !s.is_empty())
    }

    /// The target of a reference `{"<field>": …}` (an object of that one member).
    pub(crate) fn reference(&self, field: &str) -> Option<&J> {
        match self {
            J::Obj(members) if members.len() == 1 && members[0].0 == field => Some(&members[0].1),
            _ => None,
        }
    }

    /// Compact JSON text.
    pub(crate) fn compact(&self) -> String {
        let mut out = String::new();
        self.write(&mut out, None, 0);
        out
    }

    /// The editor's layout: `indent` per level, `newline` between lines.
    pub(crate) fn pretty(&self, indent: &str, newline: &str) -> String {
        let mut out = String::new();
        self.write(&mut out, Some((indent, newline)), 0);
        out
    }

    fn write(&self, out: &mut String, layout: Option<(&str, &str)>, depth: usize) {
        match self {
            J::Null => out.push_str("null"),
            J::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            J::Num(n) => out.push_str(n),
            J::Str(_, lexeme) => out.push_str(lexeme),
            J::Arr(items) => {
                let items = items.iter().map(|v| (None, v));
                write_container(out, ('[', ']'), items, layout, depth);
            }
            J::Obj(members) => {
                let items = members.iter().map(|(k, v)| (Some(k.as_str()), v));
                write_container(out, ('{', '}'), items, layout, depth);
            }
        }
    }
}

/// Writes an array or object; empty ones as `[]` / `{}`.
fn write_container<'a>(
    out: &mut String,
    (open, close): (char, char),
    items: impl ExactSizeIterator<Item = (Option<&'a str>, &'a J)>,
    layout: Option<(&str, &str)>,
    depth: usize,
) {
    out.push(open);
    let empty = items.len() == 0;
    for (i, (key, value)) in items.enumerate() {
        if i > 0 {
            out.push(',');
        }
        if let Some((indent, newline)) = layout {
            out.push_str(newline);
            out.push_str(&indent.repeat(depth + 1));
        }
        if let Some(key) = key {
            sjson::string::write_quoted(out, key);
            out.push_str(if layout.is_some() { ": " } else { ":" });
        }
        value.write(out, layout, depth + 1);
    }
    if let (Some((indent, newline)), false) = (layout, empty) {
        out.push_str(newline);
        out.push_str(&indent.repeat(depth));
    }
    out.push(close);
}

/// `text` as a JSON string literal.
fn quoted(text: &str) -> String {
    let mut out = String::new();
    sjson::string::write_quoted(&mut out, text);
    out
}

/// Every reference `{"<field>": …}` in `value`, with the member path that leads to it
/// (keys and array positions joined by `.`), in document order.
pub(crate) fn references<'a>(value: &'a J, field: &str, out: &mut Vec<(String, &'a J)>) {
    fn walk<'a>(v: &'a J, field: &str, path: &mut String, out: &mut Vec<(String, &'a J)>) {
        if let Some(target) = v.reference(field) {
            out.push((path.clone(), target));
            return;
        }
        let len = path.len();
        let step = |path: &mut String, seg: &str| {
            if !path.is_empty() {
                path.push('.');
            }
            path.push_str(seg);
        };
        match v {
            J::Arr(items) => {
                for (i, item) in items.iter().enumerate() {
                    step(path, &i.to_string());
                    walk(item, field, path, out);
                    path.truncate(len);
                }
            }
            J::Obj(members) => {
                for (k, m) in members {
                    step(path, k);
                    walk(m, field, path, out);
                    path.truncate(len);
                }
            }
            _ => {}
        }
    }
    walk(value, field, &mut String::new(), out);
}

/// Rewrites every reference `{"<from>": x}` in `value` to what `f` answers: a new value
/// in its place, or `None` to drop it (from an array; elsewhere it becomes `null`).
pub(crate) fn rewrite_references(value: &mut J, from: &str, f: &mut impl FnMut(&J) -> Option<J>) {
    match value {
        J::Arr(items) => {
            items.retain_mut(|item| match item.reference(from) {
                Some(target) => match f(target) {
                    Some(new) => {
                        *item = new;
                        true
                    }
                    None => false,
                },
                None => {
                    rewrite_references(item, from, f);
                    true
                }
            });
        }
        J::Obj(members) => {
            for (_, m) in members.iter_mut() {
                match m.reference(from) {
                    Some(target) => *m = f(target).unwrap_or(J::Null),
                    None => rewrite_references(m, from, f),
                }
            }
        }
        _ => {}
    }
}
