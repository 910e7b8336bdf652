//! Where each item of a container sits in the text, and what trivia belongs to it.
//!
//! The text between two items (a *gap*) is split at its first line break: what comes
//! before (a comma, a same-line comment) is the *trailer* of the item before it, the rest
//! (line break, indentation, comment lines) is the *lead* of the item after it. A gap
//! without a line break (`{ a = 1, b = 2 }`) splits after its last comma. The gap before
//! the closing bracket is split the same way; its rest is the container's *close gap*.

use std::ops::Range;

use crate::doc::{Document, NodeId};
use crate::lexeme::find;

/// The extent of one item (object member or array element) of a container.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ItemLayout {
    /// The item's node.
    pub node: NodeId,
    /// Line break, indentation and comment lines before the item.
    pub lead: Range<usize>,
    /// The key (if any) through the end of the value.
    pub item: Range<usize>,
    /// Comma and same-line comment after the item, up to the line break.
    pub trailer: Range<usize>,
}

/// The items of a container and the trivia before its closing bracket.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContainerLayout {
    /// The items in order.
    pub items: Vec<ItemLayout>,
    /// Text between the last trailer (or the opening bracket) and the closing bracket.
    pub close: Range<usize>,
    /// The inside of the container: just after the opening bracket to the closing one.
    pub inner: Range<usize>,
}

impl Document {
    /// The layout of container `id` (empty for scalars).
    pub fn layout(&self, id: NodeId) -> ContainerLayout {
        self.layout_up_to(id, usize::MAX)
    }

    /// The first two items of container `id` (fewer when it has fewer), the first one's
    /// trailer complete: what the style detection reads, without laying out the rest
    /// of a 100,000-element array.
    pub(crate) fn first_two_items(&self, id: NodeId) -> Vec<ItemLayout> {
        self.layout_up_to(id, 2).items
    }

    /// The layout of the first `limit` items of container `id`; when the container has
    /// more, the last one's trailer and the close gap are left empty.
    fn layout_up_to(&self, id: NodeId, limit: usize) -> ContainerLayout {
        let inner = self.inner_range(id);
        let mut items = Vec::with_capacity((self.len(id) as usize).min(limit));
        if !self.tag(id).is_container() {
            return ContainerLayout {
                items,
                close: inner.clone(),
                inner,
            };
        }
        let mut gap_start = inner.start;
        for child in self.value(id).children().take(limit) {
            let item_start = child.item_start();
            let item = item_start..child.span().end;
            let lead_start = match items.last_mut() {
                Some(prev) => {
                    let split = split_gap(&self.text, gap_start..item_start);
                    prev_trailer(prev, gap_start, split);
                    split
                }
                None => gap_start,
            };
            items.push(ItemLayout {
                node: child.id(),
                lead: lead_start..item_start,
                item: item.clone(),
                trailer: item.end..item.end,
            });
            gap_start = item.end;
        }
        if items.len() < self.len(id) as usize {
            return ContainerLayout {
                items,
                close: inner.end..inner.end,
                inner,
            };
        }
        let close_start = match items.last_mut() {
            Some(prev) => {
                let split = split_gap(&self.text, gap_start..inner.end);
                prev_trailer(prev, gap_start, split);
                split
            }
            None => inner.start,
        };
        ContainerLayout {
            items,
            close: close_start..inner.end,
            inner,
        }
    }

    /// The indentation of the line on which byte `offset` stands.
    pub fn line_indent(&self, offset: usize) -> &str {
        let b = self.text.as_bytes();
        let offset = offset.min(b.len());
        let start = self.line_start(offset);
        let len = b[start..]
            .iter()
            .take_while(|&&c| c == b' ' || c == b'\t')
            .count();
        &self.text[start..start + len]
    }

    /// The start of the line on which byte `offset` stands: found by scanning back, or
    /// on a long line by the table of line starts, built on first use (a scan per item
    /// is quadratic on a one-line 200,000-element array, and the table of a 100,000-entity
    /// level is 8 MB that a short-lined document does not need).
    fn line_start(&self, offset: usize) -> usize {
        /// How far back a line start is looked for before the table is used.
        const SCAN_BACK: usize = 256;
        let b = self.text.as_bytes();
        let from = offset.saturating_sub(SCAN_BACK);
        if let Some(newline) = b[from..offset].iter().rposition(|&c| c == b'\n') {
            return from + newline + 1;
        }
        if from == 0 {
            return 0;
        }
        let starts = self.line_starts.get_or_init(|| {
            (0..b.len())
                .filter(|&i| b[i] == b'\n')
                .map(|i| i + 1)
                .collect()
        });
        match starts.partition_point(|&s| s <= offset) {
            0 => 0,
            k => starts[k - 1],
        }
    }
}

fn prev_trailer(prev: &mut ItemLayout, gap_start: usize, split: usize) {
    prev.trailer = gap_start..split;
}

/// Where a gap splits into trailer and lead (see the module documentation).
fn split_gap(text: &str, gap: Range<usize>) -> usize {
    let b = text.as_bytes();
    let mut i = gap.start;
    let mut last_comma = None;
    while i < gap.end {
        match b[i] {
            b'\n' => {
                return if i > gap.start && b[i - 1] == b'\r' {
                    i - 1
                } else {
                    i
                }
            }
            b',' => last_comma = Some(i),
            b'/' if b.get(i + 1) == Some(&b'*') => {
                if let Some(end) = find(&b[i + 2..gap.end], b"*/") {
                    i += 2 + end + 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < gap.end && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    last_comma.map_or(gap.start, |c| c + 1)
}

/// The comments in a stretch of trivia, each as written (`// …` without the line
/// break, or `/* … */`).
pub fn comments(trivia: &str) -> Vec<&str> {
    let b = trivia.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'/' && b.get(i + 1) == Some(&b'/') {
            let end = b[i..]
                .iter()
                .position(|&c| c == b'\n')
                .map_or(b.len(), |p| i + p);
            out.push(trivia[i..end].trim_end());
            i = end;
        } else if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
            let end = find(&b[i + 2..], b"*/").map_or(b.len(), |p| i + 2 + p + 2);
            out.push(&trivia[i..end]);
            i = end;
        } else if b[i] == b'"' {
            // Trivia holds no strings; a quote here means this is not trivia. Stop.
            break;
        } else {
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::Dialect;

    #[test]
    fn line_indent_on_short_and_long_lines() {
        let long = "x".repeat(600);
        let text = format!("a = {{\n\t\tb = 1\n  c = \"{long}\" d = 2\n}}\n");
        let doc = Document::parse(&text, Dialect::Sjson).unwrap();
        let a = doc.root().get("a").unwrap();
        let at = |key: &str| a.get(key).unwrap().span().start;
        assert_eq!(doc.line_indent(at("b")), "\t\t");
        // `d` stands 600 bytes past its line's start: the table of line starts finds it.
        assert_eq!(doc.line_indent(at("d")), "  ");
        assert!(doc.line_starts.get().is_some());
        assert_eq!(doc.line_indent(0), "");
        assert_eq!(doc.line_indent(text.len()), "");
    }

    #[test]
    fn the_first_two_items_are_laid_out_as_in_the_whole_layout() {
        for text in [
            "l = [\n  1, // one\n  2\n  3\n]\n",
            "l = [1, 2]",
            "l = [1]",
            "l = []",
        ] {
            let doc = Document::parse(text, Dialect::Sjson).unwrap();
            let id = doc.root().get("l").unwrap().id();
            let (first, whole) = (doc.first_two_items(id), doc.layout(id).items);
            assert_eq!(first.len(), whole.len().min(2), "{text}");
            assert_eq!(first.first(), whole.first(), "{text}");
            if let (Some(f), Some(w)) = (first.get(1), whole.get(1)) {
                assert_eq!(
                    (f.node, &f.lead, &f.item),
                    (w.node, &w.lead, &w.item),
                    "{text}"
                );
            }
        }
    }

    fn pieces(text: &str) -> Vec<(String, String, String)> {
        let doc = Document::parse(text, Dialect::Sjson).unwrap();
        let root = doc.root();
        let id = root.children().next().unwrap().id();
        let l = doc.layout(id);
        l.items
            .iter()
            .map(|it| {
                (
                    text[it.lead.clone()].to_string(),
                    text[it.item.clone()].to_string(),
                    text[it.trailer.clone()].to_string(),
                )
            })
            .collect()
    }

    #[test]
    fn multi_line_items_own_their_comment_lines() {
        let text = "o = {\n\t// about a\n\ta = 1, // one\n\tb = 2\n\t// end\n}\n";
        let p = pieces(text);
        assert_eq!(
            p[0],
            (
                "\n\t// about a\n\t".into(),
                "a = 1".into(),
                ", // one".into()
            )
        );
        assert_eq!(p[1], ("\n\t".into(), "b = 2".into(), "".into()));
        let doc = Document::parse(text, Dialect::Sjson).unwrap();
        let id = doc.root().children().next().unwrap().id();
        assert_eq!(&text[doc.layout(id).close], "\n\t// end\n");
    }

    #[test]
    fn single_line_items_split_after_commas() {
        let p = pieces("o = { a = 1, b = 2 }");
        assert_eq!(p[0], (" ".into(), "a = 1".into(), ",".into()));
        assert_eq!(p[1], (" ".into(), "b = 2".into(), "".into()));
    }

    #[test]
    fn crlf_line_breaks_go_to_the_lead() {
        let p = pieces("o = [\r\n\t1\r\n\t2\r\n]");
        assert_eq!(p[0].2, "");
        assert_eq!(p[1].0, "\r\n\t");
    }

    #[test]
    fn finds_comments() {
        assert_eq!(
            comments("\n\t// a \n /* b\n c */ , // d"),
            vec!["// a", "/* b\n c */", "// d"]
        );
    }
}
