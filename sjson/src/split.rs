//! Parsing a large document on two threads: a second thread parses the elements of one
//! big array from a point a caller names (the printer knows where the middle element of
//! the array it printed starts), while the first parses up to that point. The first
//! thread checks the guess: only when it reaches exactly that point, at the start of an
//! element of an array that deep, does it take the second thread's nodes; otherwise
//! (or when the second thread met an error) it goes on alone, so the result, and any
//! error, is the one-thread parse's.

use std::sync::mpsc::Receiver;

use crate::doc::{Extra, Node};
use crate::error::ParseError;

/// Where a second thread may start parsing: the start of an element of an array that is
/// `depth` containers deep (the root is 1). A hint: the parser checks it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Split {
    /// Byte offset of the element's value.
    pub at: usize,
    /// How many containers hold the element (its array included).
    pub depth: usize,
}

/// Elements parsed by the second thread, up to the bracket that closes their array: node
/// and extra indexes counted from 0 (shifted when they are appended).
pub(crate) struct Piece {
    pub nodes: Vec<Node>,
    pub extras: Vec<Extra>,
    /// How many elements.
    pub count: u32,
    /// Where the closing bracket stands.
    pub end: usize,
}

/// The second thread's piece, awaited by the first at `at`.
pub(crate) struct Pending {
    pub split: Split,
    pub piece: Receiver<Result<Piece, ParseError>>,
}

#[cfg(test)]
pub(crate) static PIECES_TAKEN: std::sync::atomic::AtomicUsize =
    std::sync::atomic::AtomicUsize::new(0);

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering;

    use super::*;
    use crate::{Dialect, Document, Out, OutItem, ParseOptions};

    /// Documents whose arrays hold elements of every kind, strings and comments holding
    /// brackets, and errors before and after any point.
    const TEXTS: &[(&str, Dialect)] = &[
        (
            "a = 1\nl = [\n\t{ id = \"a\" v = [1 2 3] }\n\t{ id = \"b\" s = \"x]\" }\n\t[1 [2]]\n\t\"\"\"raw ] text\"\"\"\n\t// c ]\n\t{}\n\tlonger_bare_string\n]\nz = { k = [true] }\n",
            Dialect::Sjson,
        ),
        (
            "{\"l\": [{\"id\": 1, \"v\": [1, 2]}, [3, {\"k\": \"]\"}], \"long string\", null], \"m\": 2}",
            Dialect::Json,
        ),
        ("[[1, 2], [3, [4, 5]], 6, \"a\\\"]\"]", Dialect::Json),
        ("l = [ { a = 1 a = 2 } { b = 3 } ]", Dialect::Sjson),
        ("l = [ 1 2 { c = [ 3 4 ] } ", Dialect::Sjson),
        ("{\"l\": [1, 2 3]}", Dialect::Json),
        ("l = [ 1 [ 2 [ 3 [ 4 ] ] ] ] m = [ 5 ]", Dialect::Sjson),
        ("l = [ 1 /* ] */ 2 ] m = [ { x = \"\\u00e9\" } ]", Dialect::Sjson),
    ];

    fn same(one: &Result<Document, ParseError>, two: &Result<Document, ParseError>) -> bool {
        match (one, two) {
            (Ok(a), Ok(b)) => a.same_tree(b) && a.text() == b.text(),
            (Err(a), Err(b)) => a == b,
            _ => false,
        }
    }

    #[test]
    fn a_split_parse_is_the_one_thread_parse_wherever_the_hint_points() {
        for (text, dialect) in TEXTS {
            for max_depth in [3, 64] {
                let options = ParseOptions {
                    max_depth,
                    ..ParseOptions::new(*dialect)
                };
                let one = Document::parse_with(text.to_string(), options);
                for at in (0..=text.len()).filter(|&i| text.is_char_boundary(i)) {
                    for depth in 1..=5 {
                        let split = Some(Split { at, depth });
                        let two = Document::parse_split(text.to_string(), options, split);
                        assert!(same(&one, &two), "{text:?} at {at} depth {depth}: {two:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn the_printers_hint_is_taken_and_gives_the_same_document() {
        let mut text = String::from("name = \"level\"\nentities = [\n");
        for i in 0..3000 {
            text.push_str(&format!("\t{{ id = \"e{i}\" pos = [{i} 0 1.5] }}\n"));
        }
        text.push_str("]\n");
        let doc = Document::parse(text.as_str(), Dialect::Sjson).unwrap();
        let entities = doc.root().get("entities").unwrap();
        // An edit of the array (one element dropped) printed in place.
        let items = entities
            .children()
            .filter(|e| e.get("id").unwrap().as_str().unwrap() != "e7")
            .map(|e| OutItem {
                key: None,
                ours: Some(e),
                origin: None,
                value: Out::Value(e),
            })
            .collect();
        let mut entities_items = Some(items);
        let root_items = doc
            .root()
            .members()
            .map(|(k, v)| OutItem {
                value: match entities_items.take_if(|_| v.id() == entities.id()) {
                    Some(items) => Out::Container {
                        kind: crate::Kind::Array,
                        ours: Some(v),
                        items,
                    },
                    None => Out::Value(v),
                },
                key: Some(k),
                ours: Some(v),
                origin: None,
            })
            .collect();
        let out = Out::Container {
            kind: crate::Kind::Object,
            ours: Some(doc.root()),
            items: root_items,
        };
        let (printed, split) = crate::print_with_split(&doc, &out);
        let split = split.expect("a 2,999-element array gives a hint");
        assert_eq!(split.depth, 2);
        assert!(
            printed[split.at..].starts_with("{ id = \"e1500\""),
            "{split:?}"
        );
        let before = PIECES_TAKEN.load(Ordering::SeqCst);
        let options = ParseOptions::new(Dialect::Sjson);
        let two = Document::parse_split(printed.clone(), options, Some(split));
        assert!(
            PIECES_TAKEN.load(Ordering::SeqCst) > before,
            "the piece was taken"
        );
        assert!(same(&Document::parse_with(printed, options), &two));
        assert_eq!(two.unwrap().root().get("entities").unwrap().len(), 2999);
    }
}
