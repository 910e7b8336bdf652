//! Repeated keys. Real files repeat keys (Minecraft lang files write `"_comment"` many
//! times, a translation table may define a key twice): both parsers keep every member
//! where it stands, as git does. This module finds the repeats, for a warning by `check`
//! and for the merge, which pairs the k-th of equal keys of one side with the k-th of
//! the other's.

use std::borrow::Cow;

use crate::doc::{Document, Kind, NodeId};
use crate::error::{ErrorKind, ParseError};
use crate::value::Value;

/// Objects with at most this many members are checked pair by pair, without a hash set.
const FEW: usize = 12;

impl Value<'_> {
    /// Whether this object has a key that two of its members share (`false` for
    /// anything else). Cheap for the common case of distinct keys: a pairwise check on
    /// small objects, one hash set on large ones.
    pub fn has_duplicate_keys(&self) -> bool {
        if self.kind() != Kind::Object || self.len() < 2 {
            return false;
        }
        let keys: Vec<Cow<'_, str>> = self.members().map(|(k, _)| k).collect();
        if keys.len() <= FEW {
            return (1..keys.len()).any(|j| keys[..j].contains(&keys[j]));
        }
        let mut seen = std::collections::HashSet::new();
        !keys.iter().all(|k| seen.insert(k))
    }
}

impl Document {
    /// Every member whose key an earlier member of the same object repeats, in text
    /// order: a [`ErrorKind::DuplicateKey`] at the repeated key (a warning: the document
    /// is valid, and merges pair equal keys by their order).
    pub fn duplicate_keys(&self) -> Vec<ParseError> {
        let mut found = Vec::new();
        for i in 0..self.node_count() {
            let v = self.value(NodeId(i as u32));
            if v.has_duplicate_keys() {
                repeats(v, &mut found);
            }
        }
        found.sort_by_key(|e| e.offset);
        found
    }
}

/// The repeated keys of object `v`, appended to `found`.
fn repeats(v: Value<'_>, found: &mut Vec<ParseError>) {
    let text = v.doc().text();
    let mut seen = std::collections::HashSet::new();
    for (key, member) in v.members() {
        if !seen.insert(key.clone()) {
            let at = member.item_start();
            let kind = ErrorKind::DuplicateKey(key.into_owned());
            found.push(ParseError::at(kind, text, at));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{Dialect, Document, ErrorKind};

    #[test]
    fn repeated_keys_are_kept_and_listed() {
        let text = "{\n  \"_comment\": \"a\",\n  \"x\": 1,\n  \"_comment\": \"b\"\n}\n";
        let doc = Document::parse(text, Dialect::Json).unwrap();
        assert_eq!(doc.text(), text);
        assert_eq!(doc.root().len(), 3);
        assert!(doc.root().has_duplicate_keys());
        let dups = doc.duplicate_keys();
        assert_eq!(dups.len(), 1);
        assert_eq!(dups[0].kind, ErrorKind::DuplicateKey("_comment".into()));
        assert_eq!((dups[0].line, dups[0].col), (4, 3));
    }

    #[test]
    fn distinct_keys_list_nothing() {
        let big: String = (0..40).map(|i| format!("k{i} = {i}\n")).collect();
        for text in ["a = 1 b = { a = 2 }", big.as_str()] {
            let doc = Document::parse(text, Dialect::Sjson).unwrap();
            assert!(!doc.root().has_duplicate_keys());
            assert!(doc.duplicate_keys().is_empty());
        }
        let dup = format!("{big}k3 = 0\n");
        let doc = Document::parse(dup, Dialect::Sjson).unwrap();
        assert_eq!(doc.duplicate_keys().len(), 1);
    }

    proptest::proptest! {
        /// JSON with comments, trailing commas and repeated keys parses, prints back byte
        /// for byte, and keeps every member.
        #[test]
        fn jsonc_with_repeats_round_trips(
            members in proptest::collection::vec((0..3usize, 0..4usize, 0..100u32), 0..12),
            trailing in proptest::bool::ANY,
        ) {
            let trivia = ["", " // c, d\n", " /* , */ ", "\n"];
            let mut text = String::from("{");
            for (i, (key, t, value)) in members.iter().enumerate() {
                if i > 0 {
                    text.push(',');
                }
                text.push_str(trivia[*t]);
                text.push_str(&format!("\"k{key}\": {value}"));
            }
            if trailing && !members.is_empty() {
                text.push(',');
            }
            text.push_str(" // end\n}");
            let doc = Document::parse(text.as_str(), Dialect::Json).unwrap();
            proptest::prop_assert_eq!(doc.text(), text.as_str());
            proptest::prop_assert_eq!(doc.root().len(), members.len());
            let distinct: std::collections::HashSet<_> = members.iter().map(|m| m.0).collect();
            proptest::prop_assert_eq!(doc.duplicate_keys().len(), members.len() - distinct.len());
        }
    }

    #[test]
    fn escaped_keys_repeat_by_their_decoded_text() {
        let doc = Document::parse(r#"{"é": 1, "\u00e9": 2}"#, Dialect::Json).unwrap();
        let dups = doc.duplicate_keys();
        assert_eq!(dups[0].kind, ErrorKind::DuplicateKey("é".into()));
    }
}
