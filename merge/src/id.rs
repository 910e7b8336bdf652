//! The identity of an id'd object: a string, or a number by exact value. Indexes key
//! objects by one text per id ([`Id::into_key`]); the encoding is injective, so that the
//! number `5` and the string `"\u00005"` are two identities (issue #33: one NUL-prefixed
//! text made them one, and ours' edit landed on theirs' different object).

use std::borrow::Cow;

use sjson::{Kind, NumberValue, Value};

/// Marks a number's key.
const NUMBER: char = '\u{0}';
/// Marks a string key that would otherwise start with a marker.
const ESCAPED: char = '\u{1}';

/// An id: a string or a number.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Id<'a> {
    /// A string id, decoded.
    Str(Cow<'a, str>),
    /// A number id, by value: its shortest exact text (`7.0` is `7`).
    Number(String),
}

impl<'a> Id<'a> {
    /// The id that value `v` is, if it is a string or a number.
    pub fn of(v: Value<'a>) -> Option<Id<'a>> {
        match v.kind() {
            Kind::String => v.as_str().map(Id::Str),
            Kind::Number => v.as_number().map(|n| Id::Number(number_text(n))),
            _ => None,
        }
    }

    /// The identity text indexes key by: a string as it is (escaped when it starts with
    /// a marker), a number marked by a leading NUL. Two ids have one text only when they
    /// are equal.
    pub fn into_key(self) -> Cow<'a, str> {
        match self {
            Id::Str(s) if s.starts_with([NUMBER, ESCAPED]) => Cow::Owned(format!("{ESCAPED}{s}")),
            Id::Str(s) => s,
            Id::Number(n) => Cow::Owned(format!("{NUMBER}{n}")),
        }
    }

    /// The id an identity text of [`Id::into_key`] stands for.
    pub fn from_key(key: &'a str) -> Id<'a> {
        if let Some(n) = key.strip_prefix(NUMBER) {
            Id::Number(n.to_string())
        } else if let Some(s) = key.strip_prefix(ESCAPED) {
            Id::Str(Cow::Borrowed(s))
        } else {
            Id::Str(Cow::Borrowed(key))
        }
    }

    /// The id as people read it in paths: numbers as written (`[id=5]`), strings as they
    /// are unless they would read as a number (or are empty), then quoted (`[id="5"]`),
    /// so that the two never share a path.
    pub fn display(&self) -> String {
        match self {
            Id::Number(n) => n.clone(),
            Id::Str(s) if s.parse::<f64>().is_ok() || s.is_empty() || s.contains(NUMBER) => {
                let mut quoted = String::new();
                sjson::string::write_quoted(&mut quoted, s);
                quoted
            }
            Id::Str(s) => s.to_string(),
        }
    }
}

/// A number's text by value: integers exactly, `7.0` as `7`.
fn number_text(n: NumberValue) -> String {
    match n {
        NumberValue::Int(i) => i.to_string(),
        NumberValue::Big(s) => s.to_string(),
        NumberValue::Float(f) if f.fract() == 0.0 && f.abs() < 1e38 => (f as i128).to_string(),
        NumberValue::Float(f) => format!("{f:?}"),
    }
}

/// The id key (as written) and identity text of object `v`: the first of `id_keys_lower`
/// present, matched case-insensitively.
pub(crate) fn id_of<'a>(
    id_keys_lower: &[String],
    v: Value<'a>,
) -> Option<(Cow<'a, str>, Cow<'a, str>)> {
    id_member(id_keys_lower, v).map(|(key, id, _)| (key, id))
}

/// The id key (as written), identity text ([`id_text`]) and id member value of object
/// `v`: the member whose key comes first in `id_keys_lower`, matched case-insensitively.
pub fn id_member<'a>(
    id_keys_lower: &[String],
    v: Value<'a>,
) -> Option<(Cow<'a, str>, Cow<'a, str>, Value<'a>)> {
    if v.kind() != Kind::Object {
        return None;
    }
    // One scan of the members: the one whose key comes first in `id_keys_lower` wins.
    let mut best: Option<(usize, Cow<'a, str>, Value<'a>)> = None;
    for (key, value) in v.members() {
        let limit = best.as_ref().map_or(id_keys_lower.len(), |b| b.0);
        let rank = id_keys_lower[..limit]
            .iter()
            .position(|wanted| key.eq_ignore_ascii_case(wanted));
        if let Some(rank) = rank {
            best = Some((rank, key, value));
            if rank == 0 {
                break;
            }
        }
    }
    let (_, key, value) = best?;
    id_text(value).map(|id| (key, id, value))
}

/// An id's identity text ([`Id::into_key`]): strings as they are, numbers by
/// exact value, never one text for a number and a string (`7.0` is `7`).
pub fn id_text(v: Value<'_>) -> Option<Cow<'_, str>> {
    Id::of(v).map(Id::into_key)
}

/// An id as people read it in paths ([`Id::display`]).
pub(crate) fn id_display(id: &str) -> String {
    Id::from_key(id).display()
}

#[cfg(test)]
mod tests {
    use super::Id;
    use proptest::prelude::*;
    use sjson::{Dialect, Document};

    fn ids(text: &str) -> Vec<String> {
        let d = Document::parse(text, Dialect::Json).unwrap();
        let l = d.root();
        l.children()
            .map(|v| Id::of(v).unwrap().into_key().into_owned())
            .collect()
    }

    #[test]
    fn numbers_and_strings_never_share_a_key() {
        let keys = ids(r#"[5, "5", "\u00005", "\u0001\u00005", "\u00015", 5.0, 50e-1]"#);
        assert_eq!(keys[0], keys[5]);
        assert_eq!(keys[0], keys[6]);
        let distinct: std::collections::HashSet<_> = keys[..5].iter().collect();
        assert_eq!(distinct.len(), 5, "{keys:?}");
        let shown: Vec<String> = keys.iter().map(|k| Id::from_key(k).display()).collect();
        assert_eq!(shown[0], "5");
        assert_eq!(shown[1], "\"5\"");
        assert_eq!(shown[2], "\"\\u00005\"");
    }

    proptest! {
        #[test]
        fn keys_round_trip(s in "[\u{0}\u{1}a5]{0,4}") {
            let key = Id::Str(s.clone().into()).into_key();
            prop_assert_eq!(Id::from_key(&key), Id::Str(s.into()));
            let number = Id::Number("5".into()).into_key();
            prop_assert_ne!(key, number);
        }
    }
}
