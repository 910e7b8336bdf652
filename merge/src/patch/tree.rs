//! An owned JSON value to apply patches to: numbers kept as their lexemes, object
//! members in order.

use sjson::{Kind, Value};

use super::members::Members;

/// An owned JSON value.
#[derive(Debug, Clone)]
pub enum Json {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, as written.
    Number(String),
    /// A string (decoded).
    String(String),
    /// An array.
    Array(Vec<Json>),
    /// An object, members in order.
    Object(Members),
}

impl Json {
    /// The owned copy of a document value.
    pub fn from_value(v: Value<'_>) -> Json {
        match v.kind() {
            Kind::Null => Json::Null,
            Kind::Bool => Json::Bool(v.as_bool().unwrap_or(false)),
            Kind::Number => Json::Number(v.as_number_lexeme().unwrap_or("0").to_string()),
            Kind::String => Json::String(v.as_str().unwrap_or_default().into_owned()),
            Kind::Array => Json::Array(v.children().map(Json::from_value).collect()),
            Kind::Object => Json::Object(Members::from_list(
                v.members()
                    .map(|(k, c)| (k.into_owned(), Json::from_value(c)))
                    .collect(),
            )),
        }
    }

    /// The value as compact JSON.
    pub fn write(&self, out: &mut String) {
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Number(n) => out.push_str(n),
            Json::String(s) => sjson::string::write_quoted(out, s),
            Json::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write(out);
                }
                out.push(']');
            }
            Json::Object(members) => {
                out.push('{');
                for (i, (k, v)) in members.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    sjson::string::write_quoted(out, k);
                    out.push(':');
                    v.write(out);
                }
                out.push('}');
            }
        }
    }

    /// JSON equality (RFC 6902 `test`): numbers by value, strings by content, arrays
    /// element by element, objects by members whatever their order.
    pub fn equals(&self, other: &Json) -> bool {
        match (self, other) {
            (Json::Null, Json::Null) => true,
            (Json::Bool(a), Json::Bool(b)) => a == b,
            (Json::Number(a), Json::Number(b)) => sjson::lexemes_equal(a, b),
            (Json::String(a), Json::String(b)) => a == b,
            (Json::Array(a), Json::Array(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.equals(y))
            }
            (Json::Object(a), Json::Object(b)) => {
                a.len() == b.len()
                    && a.iter()
                        .all(|(k, v)| b.get(k).is_some_and(|v2| v.equals(v2)))
            }
            _ => false,
        }
    }

    /// About how many bytes the value takes as compact JSON (strings without their
    /// escapes): what the patch size limit counts.
    pub fn size(&self) -> usize {
        match self {
            Json::Null => 4,
            Json::Bool(b) => 4 + usize::from(!*b),
            Json::Number(n) => n.len(),
            Json::String(s) => s.len() + 2,
            Json::Array(items) => 2 + items.iter().map(|i| i.size() + 1).sum::<usize>(),
            Json::Object(members) => {
                2 + members
                    .iter()
                    .map(|(k, v)| member_size(k, v))
                    .sum::<usize>()
            }
        }
    }

    /// The kind's name for messages.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Json::Null => "null",
            Json::Bool(_) => "a boolean",
            Json::Number(_) => "a number",
            Json::String(_) => "a string",
            Json::Array(_) => "an array",
            Json::Object(_) => "an object",
        }
    }
}

/// The bytes a member takes in compact JSON (`"key":value,`).
pub(super) fn member_size(key: &str, value: &Json) -> usize {
    key.len() + 4 + value.size()
}

/// JSON equality of two document values (numbers by value, objects ignoring key order).
pub fn json_equal(a: Value<'_>, b: Value<'_>) -> bool {
    match (a.kind(), b.kind()) {
        (Kind::Object, Kind::Object) => {
            a.len() == b.len()
                && a.members()
                    .all(|(k, v)| b.get(&k).is_some_and(|w| json_equal(v, w)))
        }
        (Kind::Array, Kind::Array) => {
            a.len() == b.len()
                && a.children()
                    .zip(b.children())
                    .all(|(x, y)| json_equal(x, y))
        }
        _ => a.same_value(&b),
    }
}
