//! Printing an edited document: an [`Out`] tree says, for each place, whether the text
//! of a document node is kept or a container is rebuilt from items. Ours' text is copied
//! wherever ours' node stays in place; everything else is rendered in the style of its
//! new neighbours (indentation, separator, commas, line endings of the printing document).

use std::borrow::Cow;
use std::cell::OnceCell;

use crate::doc::{Dialect, Document, Kind, NodeId};
use crate::layout::{ContainerLayout, ItemLayout};
use crate::render::{format, render_key, render_value, Style};
use crate::split::Split;
use crate::value::Value;

mod fresh;
mod run;
mod several;
mod trivia;

use trivia::{find_item, has_comma, origin_comments, push_without_commas};

/// What to print at one place of the result.
#[derive(Debug, Clone)]
pub enum Out<'a> {
    /// A value taken whole from a document (ours, base or theirs).
    Value(Value<'a>),
    /// A new scalar, written as this lexeme (e.g. `"6f1c…"` or `12`).
    Lexeme(Cow<'a, str>),
    /// A container rebuilt item by item.
    Container {
        /// Array or object.
        kind: Kind,
        /// The printing document's node at this place, whose brackets and trivia are reused.
        ours: Option<Value<'a>>,
        /// The items in order.
        items: Vec<OutItem<'a>>,
    },
    /// Only as the value of an item whose `ours` is an element of an array of the
    /// printing document: that element and the ones after it through `last`, `count` in
    /// all, each kept as it stands, printed exactly as that many items of their own
    /// ([`OutItem::kept`]); built by [`OutItem::extend_kept`]. Printed alone, it prints
    /// nothing.
    Run {
        /// The run's last element.
        last: Value<'a>,
        /// How many elements the run holds.
        count: usize,
    },
}

/// One item of a rebuilt container.
#[derive(Debug, Clone)]
pub struct OutItem<'a> {
    /// The member's key (objects only).
    pub key: Option<Cow<'a, str>>,
    /// The printing document's item at this place: its lead, key text and trailer are kept.
    pub ours: Option<Value<'a>>,
    /// For a new item, the node it comes from: its comments travel with it.
    pub origin: Option<Value<'a>>,
    /// The item's value.
    pub value: Out<'a>,
}

/// Prints `out` as an edit of `doc`, in `doc`'s style.
pub fn print(doc: &Document, out: &Out<'_>) -> String {
    print_with_split(doc, out).0
}

/// Arrays with at least this many elements give a [`Split`] hint.
const SPLIT_FROM: usize = 1024;

/// [`print`](fn@print), with where the printed text can be parsed on two threads: the start of the
/// middle element of the largest array printed in place (see [`Split`]).
pub fn print_with_split(doc: &Document, out: &Out<'_>) -> (String, Option<Split>) {
    if let Out::Value(v) = out {
        if v.id() == NodeId::ROOT {
            if std::ptr::eq(v.doc(), doc) || v.doc().dialect() == doc.dialect() {
                return (v.doc().text().to_string(), None);
            }
            return (format(v.doc(), &Style::detect(doc)), None);
        }
    }
    let mut p = Printer {
        doc,
        text: doc.text(),
        style: Style::detect(doc),
        out: String::with_capacity(doc.text().len() + doc.text().len() / 16),
        depth: 0,
        split: None,
    };
    let root = doc.root();
    let span = root.span();
    p.out.push_str(&p.text[..span.start]);
    p.print_out(out, "", true);
    p.out.push_str(&p.text[span.end..]);
    (p.out, p.split.map(|(_, split)| split))
}

struct Printer<'d> {
    doc: &'d Document,
    text: &'d str,
    style: Style,
    out: String,
    /// How many containers printed in place hold what is being printed.
    depth: usize,
    /// The split hint so far, with its array's length.
    split: Option<(usize, Split)>,
}

fn is_ws(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n')
}

/// Whether a lead begins a new line (its first non-blank characters are a line break).
/// A lone `\r` is not one: a `//` comment printed before it would run on past it.
fn starts_with_line_break(lead: &str) -> bool {
    let rest = lead.trim_start_matches([' ', '\t']);
    rest.starts_with('\n') || rest.starts_with("\r\n")
}

impl<'d> Printer<'d> {
    fn json(&self) -> bool {
        self.doc.dialect() == Dialect::Json
    }

    fn owns(&self, v: &Value<'_>) -> bool {
        std::ptr::eq(v.doc(), self.doc)
    }

    fn print_out(&mut self, out: &Out<'_>, indent: &str, in_place: bool) {
        match out {
            Out::Value(v) => self.copy_value(*v, indent, in_place),
            Out::Lexeme(text) => self.out.push_str(text),
            Out::Container {
                kind,
                ours: Some(o),
                items,
            } if in_place && self.owns(o) => self.print_in_place(*o, items, indent),
            Out::Container { kind, items, .. } => self.print_fresh(*kind, items, indent, None),
            Out::Run { .. } => {}
        }
    }

    fn copy_value(&mut self, v: Value<'_>, indent: &str, in_place: bool) {
        let text = v.text();
        let compatible = v.doc().dialect() == self.doc.dialect()
            || (v.doc().dialect() == Dialect::Json && !self.json());
        if (self.owns(&v) && in_place || !text.contains('\n') && compatible)
            && v.id() != NodeId::ROOT
        {
            self.out.push_str(text);
        } else {
            render_value(v, &self.style, indent, &mut self.out);
        }
    }

    fn push_newline_indent(&mut self, indent: &str) {
        self.out.push_str(&self.style.newline);
        self.out.push_str(indent);
    }

    /// Starts a line at `indent`: after a line break, unless nothing precedes it in the
    /// file (`at_file_start`, cleared here).
    fn push_line(&mut self, indent: &str, at_file_start: &mut bool) {
        if !std::mem::take(at_file_start) {
            self.out.push_str(&self.style.newline);
        }
        self.out.push_str(indent);
    }

    /// Separates an item from the one printed before it on the same line: a comma if the
    /// container writes them, then `gap` (the container's own spacing) after a comma, a
    /// space after anything else but white space.
    fn push_separator(&mut self, gap: &str, commas: bool) {
        if commas && !self.out.ends_with(',') {
            self.out.push(',');
        }
        if self.out.ends_with(',') {
            self.out.push_str(gap);
        } else if !self.out.ends_with(is_ws) {
            self.out.push(' ');
        }
    }

    /// Copies trivia; in JSON without its commas (the printer writes them where they
    /// belong now), comments kept as written.
    fn push_trivia(&mut self, trivia: &str) {
        if self.json() {
            push_without_commas(trivia, &mut self.out);
        } else {
            self.out.push_str(trivia);
        }
    }

    fn print_in_place(&mut self, o: Value<'_>, items: &[OutItem<'_>], indent: &str) {
        self.depth += 1;
        self.print_items_in_place(o, items, indent);
        self.depth -= 1;
    }

    /// Notes where the item `at` starts in the output, when it is the middle element of
    /// the largest array printed so far.
    fn note_split(&mut self, at: &Place<'_>) {
        let (i, n) = (at.index, at.count);
        let larger = self.split.is_none_or(|(m, _)| n > m);
        if at.container.kind() == Kind::Array && n >= SPLIT_FROM && i == n / 2 && larger {
            let at = self.out.len();
            self.split = Some((
                n,
                Split {
                    at,
                    depth: self.depth,
                },
            ));
        }
    }

    fn print_items_in_place(&mut self, o: Value<'_>, items: &[OutItem<'_>], indent: &str) {
        let shape = self.shape_of(o, items, indent);
        if !shape.braceless {
            self.out.push_str(&o.text()[..1]);
        }
        // The layout position of the item printed just before, if it was ours' in place,
        // and whether its value was replaced.
        let mut previous: Option<usize> = None;
        let mut previous_replaced = false;
        // A run stands for its elements, each printed as an item of its own.
        let count = items.iter().map(OutItem::width).sum();
        for (i, item) in items.iter().flat_map(OutItem::each).enumerate() {
            let item = &*item;
            let placed = item
                .ours
                .filter(|v| self.owns(v))
                .and_then(|v| find_item(&shape.layout.items, v.id()));
            let position = placed.map(|(p, _)| p);
            let follows_original = match (previous, position) {
                (Some(prev), Some(p)) => p == prev + 1,
                (None, Some(p)) => i == 0 && p == 0,
                _ => false,
            };
            previous = position;
            let at = Place {
                container: o,
                index: i,
                count,
            };
            match placed.map(|(_, l)| l) {
                Some(l) => {
                    let after = (follows_original, previous_replaced);
                    previous_replaced = self.print_placed_item(at, item, l, &shape, after);
                }
                None => self.print_new_item(at, item, &shape),
            }
        }
        self.print_close(o, !items.is_empty(), &shape, indent);
    }

    /// How container `o`, printed in place with `items`, is laid out: read from ours'
    /// text, so that the edit keeps its style.
    fn shape_of(&self, o: Value<'_>, items: &[OutItem<'_>], indent: &str) -> Shape<'d> {
        let doc = self.doc;
        let text = self.text;
        let layout = doc.layout(o.id());
        let braceless = o.id() == NodeId::ROOT && !doc.root_braced();
        let all_scalar = items
            .iter()
            .flat_map(OutItem::each)
            .all(|i| match &i.value {
                Out::Value(v) => !v.is_container(),
                Out::Lexeme(_) => true,
                Out::Container { .. } | Out::Run { .. } => false,
            });
        let multiline = (braceless && layout.items.is_empty())
            || layout
                .items
                .iter()
                .any(|l| text[l.lead.clone()].contains('\n'))
            || text[layout.close.clone()].contains('\n')
            || (layout.items.is_empty() && !(o.kind() == Kind::Array && all_scalar));
        let child_indent: String = layout
            .items
            .iter()
            .find(|l| text[l.lead.clone()].contains('\n'))
            .map(|l| doc.line_indent(l.item.start).to_string())
            .unwrap_or_else(|| {
                if braceless {
                    String::new()
                } else {
                    format!("{indent}{}", self.style.indent)
                }
            });
        // SJSON: whether items are followed by commas; JSON: whether the last one is
        // too (a trailing comma, as JSONC editors write).
        let commas = match self.json() {
            false => layout.items.first(),
            true => layout.items.last(),
        }
        .is_some_and(|l| has_comma(&text[l.trailer.clone()]));
        // The white space after the opening bracket, and between two items on one line.
        let first_space = layout.items.first().map_or("", |l| {
            let lead = &text[l.lead.clone()];
            &lead[..lead.len() - lead.trim_start_matches(is_ws).len()]
        });
        let gap = layout
            .items
            .get(1)
            .map(|l| &text[l.lead.clone()])
            .filter(|g| g.chars().all(is_ws))
            .unwrap_or(" ");
        Shape {
            layout,
            braceless,
            multiline,
            child_indent,
            commas,
            first_space,
            gap,
            inline_objects: OnceCell::new(),
        }
    }

    /// Prints `item`, which stands where ours' item `l` stood: with that item's trivia.
    /// `after`: whether it follows the item it followed in ours, and whether the item
    /// printed before had its value replaced. Returns whether this one's value is
    /// replaced.
    fn print_placed_item(
        &mut self,
        at: Place<'_>,
        item: &OutItem<'_>,
        l: &ItemLayout,
        shape: &Shape<'_>,
        (follows_original, previous_replaced): (bool, bool),
    ) -> bool {
        let (doc, text) = (self.doc, self.text);
        let lead = &text[l.lead.clone()];
        if follows_original {
            // After a replaced value, ours' `a = "s"b = 1` needs a space
            // (with `0.5` for `"s"`, `0.5b` would be one bare string).
            if previous_replaced
                && !lead.starts_with(is_ws)
                && !self.out.ends_with(|c: char| is_ws(c) || c == ',')
            {
                self.out.push(' ');
            }
            self.push_trivia(lead);
        } else if at.index == 0 {
            // Now first, after the bracket (or at the start of a braceless
            // root's file): the white space that stood there, then its own
            // comments.
            self.out.push_str(shape.first_space);
            self.push_trivia(lead.trim_start_matches(is_ws));
        } else if shape.multiline && !starts_with_line_break(lead) {
            self.push_newline_indent(&shape.child_indent);
            self.push_trivia(lead.trim_start_matches(is_ws));
        } else {
            if !shape.multiline && !lead.starts_with(is_ws) {
                self.push_separator(shape.gap, shape.commas);
            }
            self.push_trivia(lead);
        }
        let value = doc.value(l.node);
        self.out.push_str(&text[l.item.start..value.span().start]);
        // A value of ours copied in place needs no indentation.
        let copied = matches!(&item.value,
            Out::Value(v) if self.owns(v) && v.id() != NodeId::ROOT);
        let line_indent = match copied {
            true => String::new(),
            false => doc.line_indent(l.item.start).to_string(),
        };
        self.note_split(&at);
        match several::over_several_lines(&item.value, value, self.doc, &self.style) {
            Some((v, style)) => render_value(v, &style, &line_indent, &mut self.out),
            None => self.print_out(&item.value, &line_indent, true),
        }
        let trailer = &text[l.trailer.clone()];
        if self.json() && (!at.is_last() || shape.commas && shape.multiline) {
            self.out.push(',');
        }
        // A new value must not run into the comment after the old one
        // (`a = 1// c` holding a bare string `s` is `s// c`: one string); a `,` or
        // Vermintide's `;` ends any value.
        let replaced = !matches!(&item.value, Out::Value(v) if v.id() == l.node && self.owns(v));
        if replaced && trailer.starts_with(|c: char| !is_ws(c) && c != ',' && c != ';') {
            self.out.push(' ');
        }
        self.push_trivia(trailer);
        replaced
    }

    /// Prints `item`, which has no place in ours' container: on its own line (with the
    /// comments of the node it comes from) or after a separator.
    fn print_new_item(&mut self, at: Place<'_>, item: &OutItem<'_>, shape: &Shape<'_>) {
        let multiline = shape.multiline;
        let lead_comments = match item.origin {
            Some(v) if multiline => origin_comments(v, true),
            _ => Vec::new(),
        };
        // The first line of a braceless root has no line break before it.
        let mut at_file_start = shape.braceless && at.index == 0;
        if multiline {
            for c in &lead_comments {
                self.push_line(&shape.child_indent, &mut at_file_start);
                self.out.push_str(c);
            }
            self.push_line(&shape.child_indent, &mut at_file_start);
        } else if at.index > 0 {
            self.push_separator(shape.gap, shape.commas);
        } else if !shape.layout.items.is_empty() {
            self.out.push_str(shape.first_space);
        } else if at.container.text().len() > 2 {
            self.out.push(' ');
        }
        self.push_new_key(item);
        self.note_split(&at);
        match &item.value {
            // A new object among objects on one line is written on one line too.
            Out::Container {
                kind: Kind::Object,
                items,
                ..
            } => {
                let beside = *shape
                    .inline_objects
                    .get_or_init(|| fresh::inline_objects(self.doc, &shape.layout));
                self.print_fresh(Kind::Object, items, &shape.child_indent, beside);
            }
            value => self.print_out(value, &shape.child_indent, false),
        }
        // On one line, commas go between items only.
        if !at.is_last() && (self.json() || shape.commas) || shape.commas && multiline {
            self.out.push(',');
        }
        if let (Some(v), true) = (item.origin, multiline) {
            for c in origin_comments(v, false) {
                self.out.push(' ');
                self.out.push_str(&c);
            }
        }
    }

    /// The key of a new member and the separator after it (nothing for an element): as
    /// the node it comes from wrote it when it can be, else in this document's style.
    /// The origin's key is only used when it is this key: a change set's value comes from
    /// its line's `"value"` member.
    fn push_new_key(&mut self, item: &OutItem<'_>) {
        if let Some(key) = &item.key {
            let lexeme = item
                .origin
                .filter(|v| v.key().as_deref() == Some(&**key))
                .and_then(|v| Some((v.key_lexeme()?, v.key_quoting()?)));
            render_key(key, lexeme, &self.style, &mut self.out);
            self.out.push_str(&self.style.separator);
        }
    }

    /// Prints the end of container `o` printed in place: the trivia before its closing
    /// bracket (on a line of its own when items were added to a multi-line container),
    /// then the bracket.
    fn print_close(&mut self, o: Value<'_>, has_items: bool, shape: &Shape<'_>, indent: &str) {
        let multiline = shape.multiline;
        let close = &self.text[shape.layout.close.clone()];
        if multiline && has_items && !close.contains('\n') && !shape.braceless {
            self.push_newline_indent(indent);
            self.push_trivia(close.trim_start_matches(is_ws));
        } else if !multiline && has_items && shape.layout.items.is_empty() && close.is_empty() {
            self.out.push(' ');
        } else {
            // The close of an empty container may start with a comment: not right
            // after a new value (`s/` and `// c` would read as `s/// c`).
            if has_items && close.starts_with(|c: char| !is_ws(c)) && !self.out.ends_with(is_ws) {
                if multiline {
                    self.push_newline_indent(indent);
                } else {
                    self.out.push(' ');
                }
            }
            self.push_trivia(close);
        }
        if !shape.braceless {
            self.out.push_str(&o.text()[o.text().len() - 1..]);
        }
    }
}

/// How a container printed in place is laid out ([`Printer::shape_of`]).
struct Shape<'t> {
    /// Ours' items and trivia.
    layout: ContainerLayout,
    /// A braceless root (SJSON): no brackets to print.
    braceless: bool,
    /// One item per line (else all on one line).
    multiline: bool,
    /// The indentation of an item on its own line.
    child_indent: String,
    /// SJSON items followed by commas; in JSON, a comma after the last item too.
    commas: bool,
    /// The white space after the opening bracket.
    first_space: &'t str,
    /// The white space between two items on one line.
    gap: &'t str,
    /// How ours' objects here are written when each is on one line (read when a new
    /// object is printed here, once).
    inline_objects: OnceCell<Option<fresh::InlineObjects>>,
}

/// Where an item is printed: its container, its index and the number of items.
#[derive(Clone, Copy)]
struct Place<'v> {
    container: Value<'v>,
    index: usize,
    count: usize,
}

impl Place<'_> {
    fn is_last(&self) -> bool {
        self.index == self.count.saturating_sub(1)
    }
}
