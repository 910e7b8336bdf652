//! Where each item of a container sits in the text, and what trivia belongs to it.
//!
//! The text between two items (a *gap*) is split at its first line break: what comes
//! before (a comma, a same-line comment) is the *trailer* of the item before it, the rest
//! (line break, indentation, comment lines) is the *lead* of the item after it. A gap
//! without a line break (`{ a = 1, b = 2 }`) splits after its last comma. The gap before
//! the closing bracket is split the same way; its rest is the container's *close gap*.

use std::ops::Range;

use crate::doc::{Document, NodeId};
use crate::parse::find;

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
        let inner = self.inner_range(id);
        let mut items = Vec::with_capacity(self.len(id) as usize);
        if !self.tag(id).is_container() {
            return ContainerLayout {
                items,
                close: inner.clone(),
                inner,
            };
        }
        let mut gap_start = inner.start;
        for child in self.value(id).children() {
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
        let starts = self.line_starts.get_or_init(|| {
            (0..b.len())
                .filter(|&i| b[i] == b'\n')
                .map(|i| i + 1)
                .collect()
        });
        let offset = offset.min(b.len());
        let start = match starts.partition_point(|&s| s <= offset) {
            0 => 0,
            k => starts[k - 1],
        };
        let len = b[start..]
            .iter()
            .take_while(|&&c| c == b' ' || c == b'\t')
            .count();
        &self.text[start..start + len]
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
