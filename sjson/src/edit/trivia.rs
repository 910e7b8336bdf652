//! The trivia around an item as the printer needs it: commas outside comments, the
//! comments an item carries in its own document (kept with it when it moves), and an
//! item's layout found through its parent.

use crate::doc::{Document, NodeId};
use crate::layout::{comments, ItemLayout};
use crate::value::Value;

/// Appends `trivia` (white space, commas, comments) without its commas.
pub(super) fn push_without_commas(trivia: &str, out: &mut String) {
    let mut rest = trivia;
    while let Some(i) = rest.find([',', '/']) {
        out.push_str(&rest[..i]);
        let comment = comment_len(&rest[i..]);
        out.push_str(&rest[i..i + comment]);
        rest = &rest[i + comment.max(1)..];
    }
    out.push_str(rest);
}

/// Whether `trivia` holds a comma outside its comments.
pub(super) fn has_comma(trivia: &str) -> bool {
    let mut rest = trivia;
    while let Some(i) = rest.find([',', '/']) {
        let comment = comment_len(&rest[i..]);
        if comment == 0 && rest[i..].starts_with(',') {
            return true;
        }
        rest = &rest[i + comment.max(1)..];
    }
    false
}

/// The length of the comment at the start of `s` (0 if none): `//` to the line break,
/// `/*` through `*/`.
fn comment_len(s: &str) -> usize {
    if s.starts_with("//") {
        s.find('\n').unwrap_or(s.len())
    } else if let Some(body) = s.strip_prefix("/*") {
        body.find("*/").map_or(s.len(), |e| e + 4)
    } else {
        0
    }
}

pub(super) fn find_item(items: &[ItemLayout], id: NodeId) -> Option<(usize, &ItemLayout)> {
    items
        .binary_search_by_key(&id, |l| l.node)
        .ok()
        .map(|i| (i, &items[i]))
}

/// The comments before (`lead`) or after an item in its own document.
pub(super) fn origin_comments(v: Value<'_>, lead: bool) -> Vec<String> {
    let doc = v.doc();
    if !may_have_comments(v, lead) {
        return Vec::new();
    }
    // Find the item's layout through its parent: scan for the container holding it.
    let Some(parent) = parent_of(doc, v.id()) else {
        return Vec::new();
    };
    let layout = doc.layout(parent);
    let Some((_, l)) = find_item(&layout.items, v.id()) else {
        return Vec::new();
    };
    let range = if lead {
        l.lead.clone()
    } else {
        l.trailer.clone()
    };
    comments(&doc.text()[range])
        .into_iter()
        .filter(|c| !lead || !c.contains('\n') || c.starts_with("/*"))
        .map(str::to_string)
        .collect()
}

/// A cheap test that the trivia before (or after) an item holds no comment, so the
/// costlier layout lookup is skipped for almost every item.
fn may_have_comments(v: Value<'_>, lead: bool) -> bool {
    let doc = v.doc();
    let text = doc.text().as_bytes();
    if lead {
        let start = v.item_start();
        let gap_start = match v.id().index().checked_sub(1) {
            None => 0,
            Some(prev) => {
                let p = doc.span(NodeId(prev as u32));
                if p.start < start && start < p.end {
                    p.start
                } else {
                    p.end
                }
            }
        };
        text[gap_start.min(start)..start].contains(&b'/')
    } else {
        let end = v.span().end;
        let line_end = text[end..]
            .iter()
            .position(|&c| c == b'\n')
            .map_or(text.len(), |p| end + p);
        text[end..line_end].contains(&b'/')
    }
}

/// The container holding node `id`, by walking down from the root.
fn parent_of(doc: &Document, id: NodeId) -> Option<NodeId> {
    let mut current = doc.root();
    loop {
        let child = current
            .children()
            .find(|c| c.id() <= id && id.index() < doc.next(c.id()) as usize)?;
        if child.id() == id {
            return Some(current.id());
        }
        current = child;
    }
}
