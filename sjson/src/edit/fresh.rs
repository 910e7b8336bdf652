//! Containers printed fresh (no node of the printing document to keep): on one line when
//! they are short arrays of numbers, or objects of scalars among objects written on one
//! line; otherwise one item per line, in the printing document's style.

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

/// Whether a short array of numbers prints on one line: `len` items of these kinds.
fn short_numbers(len: usize, mut kinds: impl Iterator<Item = Kind>, inline_numbers: usize) -> bool {
    len <= inline_numbers && kinds.all(|k| k == Kind::Number)
}

/// Whether `item` prints on one line (a scalar, or a short array of numbers) and carries
/// no comment that a line of its own would keep.
fn fits_one_line(item: &OutItem<'_>, inline_numbers: usize) -> bool {
    let one_line = match &item.value {
        Out::Value(v) if v.kind() == Kind::Array => {
            short_numbers(v.len(), v.children().map(|c| c.kind()), inline_numbers)
        }
        Out::Value(v) => !v.is_container(),
        Out::Lexeme(_) => true,
        Out::Container {
            kind: Kind::Array,
            items,
            ..
        } => {
            let kinds = items.iter().map(|i| match &i.value {
                Out::Value(v) => v.kind(),
                _ => Kind::Null,
            });
            short_numbers(items.len(), kinds, inline_numbers)
        }
        Out::Container { .. } => false,
    };
    one_line
        && item
            .origin
            .or(item.ours)
            .is_none_or(|v| origin_comments(v, true).is_empty())
}

impl Printer<'_> {
    pub(super) fn print_fresh(&mut self, kind: Kind, items: &[OutItem<'_>], indent: &str) {
        // The neighbours' style holds for this container only, not the ones inside it.
        let inline_objects = self.fresh_inline.take();
        if let Some(style) = inline_objects {
            let inline_numbers = self.style.inline_numbers;
            if kind == Kind::Object
                && !items.is_empty()
                && items.iter().all(|i| fits_one_line(i, inline_numbers))
            {
                return self.print_inline_object(items, style);
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

    /// `{a = 1 b = 2}` (with commas where the document writes them), like its neighbours.
    fn print_inline_object(&mut self, items: &[OutItem<'_>], style: InlineObjects) {
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
        }
        if style.padded {
            self.out.push(' ');
        }
        self.out.push('}');
    }
}
