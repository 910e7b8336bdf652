//! The dialect of a file by its content: engines write JSON under many extensions
//! (Cocos `.fire`/`.scene`/`.prefab`, LDtk `.ldtk`, Tiled `.tmj`), and SJSON's parser
//! reads a JSON array root as nothing it knows.

use crate::doc::{Dialect, Document};
use crate::parse::ParseOptions;

/// What [`Dialect::detect_parsed`] found: the dialect, and the document when finding it
/// took a parse of the whole text (a braced file not named `.json` that is JSON), so that
/// the caller does not parse it a second time.
#[derive(Debug)]
pub enum Detected {
    /// The dialect, found without a parse (by the name or the first significant
    /// character), or SJSON because the text is not JSON.
    Dialect(Dialect),
    /// JSON, found by parsing the whole text (with [`ParseOptions::new`]`(Dialect::Json)`):
    /// the parsed document.
    Json(Document),
}

impl Detected {
    /// The dialect found.
    pub fn dialect(&self) -> Dialect {
        match self {
            Detected::Dialect(d) => *d,
            Detected::Json(_) => Dialect::Json,
        }
    }

    /// The document, when finding the dialect parsed it.
    pub fn into_document(self) -> Option<Document> {
        match self {
            Detected::Dialect(_) => None,
            Detected::Json(doc) => Some(doc),
        }
    }
}

impl From<Dialect> for Detected {
    /// A dialect found without a parse.
    fn from(dialect: Dialect) -> Detected {
        Detected::Dialect(dialect)
    }
}

impl Dialect {
    /// The dialect of the file at `path` holding `text`: JSON if the name ends in
    /// `.json`, if the first significant character (after a byte-order mark, white space
    /// and comments) is `[`, or if a braced text is valid JSON; SJSON otherwise. Callers
    /// that parse the text next use [`Dialect::detect_parsed`], which keeps the parse.
    pub fn detect(path: &str, text: &str) -> Dialect {
        Dialect::detect_parsed(path, text).dialect()
    }

    /// [`Dialect::detect`], handing back the document where it had to parse the text.
    pub fn detect_parsed(path: &str, text: &str) -> Detected {
        if Dialect::for_path(path) == Dialect::Json {
            return Detected::Dialect(Dialect::Json);
        }
        match first_significant(text) {
            Some(b'[') => Detected::Dialect(Dialect::Json),
            Some(b'{') => match as_json(text) {
                Some(doc) => Detected::Json(doc),
                None => Detected::Dialect(Dialect::Sjson),
            },
            _ => Detected::Dialect(Dialect::Sjson),
        }
    }
}

/// `text` parsed as JSON, if it is (a braced SJSON text fails at its first bare key or `=`).
fn as_json(text: &str) -> Option<Document> {
    let options = ParseOptions::new(Dialect::Json);
    Document::parse_with(text.to_string(), options).ok()
}

/// The first byte of `text` that is not a byte-order mark, white space or a comment.
fn first_significant(text: &str) -> Option<u8> {
    let mut rest = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    loop {
        rest = rest.trim_start_matches([' ', '\t', '\r', '\n']);
        if let Some(comment) = rest.strip_prefix("//") {
            rest = comment.find('\n').map_or("", |e| &comment[e..]);
        } else if let Some(comment) = rest.strip_prefix("/*") {
            rest = comment.find("*/").map_or("", |e| &comment[e + 2..]);
        } else {
            return rest.bytes().next();
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::Dialect;

    #[test]
    fn json_whatever_the_extension() {
        let cases = [
            (
                "a.fire",
                "[\n  {\"__type__\": \"cc.SceneAsset\"}\n]",
                Dialect::Json,
            ),
            ("a.prefab", "\u{FEFF} // c\n[]", Dialect::Json),
            (
                "w.ldtk",
                "{\n  \"jsonVersion\": \"1.5.3\",\n  \"levels\": []\n}",
                Dialect::Json,
            ),
            ("m.tmj", "{ \"a\": 1, /* c */ }", Dialect::Json),
            ("x.level", "{ a = 1 }", Dialect::Sjson),
            ("x.level", "entities = []", Dialect::Sjson),
            ("x.level", "{ \"a\": 1 \"b\": 2 }", Dialect::Sjson),
            ("x.json", "a = 1", Dialect::Json),
            ("x.unit", "", Dialect::Sjson),
            ("x.unit", "/* unterminated", Dialect::Sjson),
        ];
        for (path, text, want) in cases {
            assert_eq!(Dialect::detect(path, text), want, "{path}: {text:?}");
        }
    }

    #[test]
    fn a_braced_json_text_is_handed_back_parsed() {
        use crate::Detected;
        let text = "{ \"a\": [1, 2], // c\n \"b\": {} }";
        let Detected::Json(doc) = Dialect::detect_parsed("w.ldtk", text) else {
            panic!("not parsed");
        };
        assert_eq!(doc.text(), text);
        assert_eq!(doc.root().get("a").unwrap().len(), 2);
        // Found without a parse: nothing to hand back.
        for (path, text) in [("x.json", "{}"), ("a.fire", "[]"), ("x.level", "{ a = 1 }")] {
            let found = Dialect::detect_parsed(path, text);
            assert_eq!(found.dialect(), Dialect::detect(path, text));
            assert!(found.into_document().is_none(), "{path}");
        }
    }

    proptest::proptest! {
        /// `detect_parsed` agrees with `detect`, and a document it hands back is the text
        /// parsed as JSON, byte for byte.
        #[test]
        fn detect_parsed_agrees_with_detect(text in "[{} \\[\\]a=:,\"1/*\n]{0,24}") {
            let found = Dialect::detect_parsed("x.level", &text);
            proptest::prop_assert_eq!(found.dialect(), Dialect::detect("x.level", &text));
            if let Some(doc) = found.into_document() {
                proptest::prop_assert_eq!(doc.text(), text.as_str());
            }
        }
    }
}
