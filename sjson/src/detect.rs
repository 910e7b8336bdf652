//! The dialect of a file by its content: engines write JSON under many extensions
//! (Cocos `.fire`/`.scene`/`.prefab`, LDtk `.ldtk`, Tiled `.tmj`), and SJSON's parser
//! reads a JSON array root as nothing it knows.

use crate::doc::{Dialect, Document};
use crate::parse::ParseOptions;

impl Dialect {
    /// The dialect of the file at `path` holding `text`: JSON if the name ends in
    /// `.json`, if the first significant character (after a byte-order mark, white space
    /// and comments) is `[`, or if a braced text is valid JSON; SJSON otherwise.
    pub fn detect(path: &str, text: &str) -> Dialect {
        if Dialect::for_path(path) == Dialect::Json {
            return Dialect::Json;
        }
        match first_significant(text) {
            Some(b'[') => Dialect::Json,
            Some(b'{') if is_json(text) => Dialect::Json,
            _ => Dialect::Sjson,
        }
    }
}

/// Whether `text` parses as JSON (a braced SJSON text fails at its first bare key or `=`).
fn is_json(text: &str) -> bool {
    let options = ParseOptions::new(Dialect::Json);
    Document::parse_with(text.to_string(), options).is_ok()
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
}
