//! Containers printed fresh (no node of the printing document to keep): on one line when
//! they are short arrays of numbers, or objects whose values fit on one line among objects
//! written on one line; otherwise one item per line, in the printing document's style.

use super::{origin_comments, Out, OutItem, Printer};
use crate::doc::{Document, Kind};
use crate::layout::ContainerLayout;

/// How the objects of a container are written when each is on one line: `{a = 1}`, or
/// `{ a = 1 }` when `padded`; `{a = 1, b = 2}` when `commas`.
#[derive(Debug, Clone, Copy)]
pub(super) struct InlineObjects {
    padded: bool,
    commas: bool,
}

/// The style of `layout`'s objects when it holds objects and each is written on one line.
pub(super) fn inline_objects(doc: &Document, layout: &ContainerLayout) -> Option<InlineObjects> {
    let mut objects = layout
        .items
        .iter()
        .map(|l| doc.value(l.node))
        .filter(|v| v.kind() == Kind::Object);
    let first = objects.next()?;
    let one_line = |text: &str| !text.contains(['\n', '\r']);
    let text = doc.text();
    (one_line(first.text()) && objects.all(|v| one_line(v.text()))).then(|| InlineObjects {
        padded: first.text().starts_with("{ "),
        commas: doc
            .layout(first.id())
            .items
            .iter()
            .any(|l| text[l.trailer.clone()].contains(',')),
    })
}

/// Whether `item` carries a comment that only a line of its own would keep.
fn has_lead_comment(item: &OutItem<'_>) -> bool {
    item.origin
        .or(item.ours)
        .is_some_and(|v| !origin_comments(v, true).is_empty())
}

impl Printer<'_> {
    /// Prints a container that has no node of the printing document to keep; `beside`:
    /// the style of the one-line objects it stands among, if it does.
    pub(super) fn print_fresh(
        &mut self,
        kind: Kind,
        items: &[OutItem<'_>],
        indent: &str,
        beside: Option<InlineObjects>,
    ) {
        // A run (a keyed array's kept elements) is printed as the items it stands for.
        let expanded = super::run::expanded(items);
        let items: &[OutItem<'_>] = &expanded;
        if let Some(style) = beside {
            if kind == Kind::Object
                && !items.is_empty()
                && !items.iter().any(has_lead_comment)
                && self.print_inline_object(items, style)
            {
                return;
            }
        }
        let (open, close) = if kind == Kind::Object {
            ("{", "}")
        } else {
            ("[", "]")
        };
        self.out.push_str(open);
        if items.is_empty() {
            self.out.push_str(close);
            return;
        }
        let inline = kind == Kind::Array
            && items.len() <= self.style.inline_numbers
            && items
                .iter()
                .all(|i| matches!(&i.value, Out::Value(v) if v.kind() == Kind::Number));
        let child_indent = format!("{indent}{}", self.style.indent);
        let last = items.len() - 1;
        for (i, item) in items.iter().enumerate() {
            if inline {
                if i > 0 {
                    self.out.push_str(if self.json() { ", " } else { " " });
                }
            } else {
                if let (Some(v), false) = (item.origin.or(item.ours), self.json()) {
                    for c in origin_comments(v, true) {
                        self.push_newline_indent(&child_indent);
                        self.out.push_str(&c);
                    }
                }
                self.push_newline_indent(&child_indent);
            }
            self.push_new_key(item);
            self.print_out(&item.value, &child_indent, false);
            if !inline && (self.json() && i != last || self.style.commas) {
                self.out.push(',');
            }
        }
        if !inline {
            self.push_newline_indent(indent);
        }
        self.out.push_str(close);
    }

    /// `{a = 1 b = 2}` (with commas where the neighbours write them), like its neighbours;
    /// false, with nothing printed, when an item's value takes more than one line.
    fn print_inline_object(&mut self, items: &[OutItem<'_>], style: InlineObjects) -> bool {
        let start = self.out.len();
        self.out.push('{');
        if style.padded {
            self.out.push(' ');
        }
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                let comma = self.json() || style.commas;
                self.out.push_str(if comma { ", " } else { " " });
            }
            self.push_new_key(item);
            self.print_out(&item.value, "", false);
            if self.out[start..].contains('\n') {
                self.out.truncate(start);
                return false;
            }
        }
        if style.padded {
            self.out.push(' ');
        }
        self.out.push('}');
        true
    }
}
