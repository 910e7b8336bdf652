//! Rendering values as text in a [`Style`]: the canonical style of `assetvc fmt`, or the
//! style detected from a document so that new and edited values match their neighbours.

use crate::doc::{Dialect, Document, Kind, NodeId, Value};
use crate::layout::comments;
use crate::string::{self, Quoting};

/// How values are written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Style {
    /// The dialect written.
    pub dialect: Dialect,
    /// One level of indentation.
    pub indent: String,
    /// The line ending.
    pub newline: String,
    /// Between a key and its value, e.g. `" = "` or `": "`.
    pub separator: String,
    /// SJSON: write a comma after each item (JSON always separates with commas).
    pub commas: bool,
    /// All-number arrays of at most this many elements are written on one line.
    pub inline_numbers: usize,
    /// SJSON: quote every key (else keys of letters, digits and `_` are bare).
    pub quote_keys: bool,
    /// Sort object keys.
    pub sort_keys: bool,
}

impl Style {
    /// Stingray's canonical style: tabs, `key = value`, no commas, one key per line, short
    /// all-number arrays on one line. For JSON: tabs, `"key": value`, commas.
    pub fn canonical(dialect: Dialect) -> Style {
        Style {
            dialect,
            indent: "\t".into(),
            newline: "\n".into(),
            separator: match dialect {
                Dialect::Sjson => " = ".into(),
                Dialect::Json => ": ".into(),
            },
            commas: false,
            inline_numbers: 16,
            quote_keys: false,
            sort_keys: false,
        }
    }

    /// The style a document is written in (indentation unit, line ending, separator,
    /// commas, key quoting), falling back to the canonical style for what it does not show.
    pub fn detect(doc: &Document) -> Style {
        let mut style = Style::canonical(doc.dialect());
        style.newline = doc.newline().into();
        let text = doc.text();
        let mut found_indent = false;
        let mut found_commas = false;
        for i in 0..doc.node_count() {
            let id = NodeId(i as u32);
            let v = doc.value(id);
            if i == 1 {
                if let Some(q) = v.key_quoting() {
                    style.quote_keys = q == Quoting::Quoted;
                    let n = doc.node(id);
                    let sep = &text[n.key_end as usize..n.start as usize];
                    if !sep.contains(['\n', '/']) && sep.trim().len() == 1 {
                        style.separator = sep.to_string();
                    }
                }
            }
            if !v.is_container() || (found_indent && found_commas) {
                continue;
            }
            let layout = doc.layout(id);
            if !found_indent {
                if let Some(first) = layout.items.first() {
                    if text[first.lead.clone()].contains('\n') {
                        let outer = if id == NodeId::ROOT && !doc.root_braced() {
                            ""
                        } else {
                            doc.line_indent(v.span().start)
                        };
                        let inner = doc.line_indent(first.item.start);
                        if let Some(unit) = inner.strip_prefix(outer) {
                            if !unit.is_empty() {
                                style.indent = unit.to_string();
                                found_indent = true;
                            }
                        }
                    }
                }
            }
            if !found_commas && layout.items.len() >= 2 {
                found_commas = true;
                style.commas = doc.dialect() == Dialect::Sjson
                    && text[layout.items[0].trailer.clone()].contains(',');
            }
        }
        style
    }
}

/// Writes `value` in `style`; `indent` is the indentation of the line the value starts on.
pub fn render_value(value: Value<'_>, style: &Style, indent: &str, out: &mut String) {
    match value.kind() {
        Kind::Array | Kind::Object => render_container(value, style, indent, out),
        Kind::String => render_string(value, style, out),
        _ => out.push_str(value.text()),
    }
}

/// Writes a key in `style`.
pub fn render_key(key: &str, lexeme: Option<(&str, Quoting)>, style: &Style, out: &mut String) {
    match style.dialect {
        Dialect::Sjson if !style.quote_keys && string::is_plain_key(key) => out.push_str(key),
        _ => match lexeme {
            Some((lx, Quoting::Quoted)) if !(style.dialect == Dialect::Json && has_control(lx)) => {
                out.push_str(lx)
            }
            _ => string::write_quoted(out, key),
        },
    }
}

fn has_control(s: &str) -> bool {
    s.bytes().any(|b| b < 0x20)
}

fn render_string(value: Value<'_>, style: &Style, out: &mut String) {
    let lexeme = value.text();
    match value.quoting() {
        Some(Quoting::Quoted) if !(style.dialect == Dialect::Json && has_control(lexeme)) => {
            out.push_str(lexeme)
        }
        Some(Quoting::Raw) if style.dialect == Dialect::Sjson => out.push_str(lexeme),
        _ => string::write_quoted(out, &value.as_str().unwrap_or_default()),
    }
}

fn is_inline_numbers(value: Value<'_>, style: &Style) -> bool {
    value.kind() == Kind::Array
        && value.len() <= style.inline_numbers
        && value.children().all(|c| c.kind() == Kind::Number)
        && !value.text().contains('/')
}

fn render_container(value: Value<'_>, style: &Style, indent: &str, out: &mut String) {
    let object = value.kind() == Kind::Object;
    let (open, close) = if object { ("{", "}") } else { ("[", "]") };
    if is_inline_numbers(value, style) {
        out.push_str(open);
        let sep = if style.dialect == Dialect::Json {
            ", "
        } else {
            " "
        };
        for (i, c) in value.children().enumerate() {
            if i > 0 {
                out.push_str(sep);
            }
            out.push_str(c.text());
        }
        out.push_str(close);
        return;
    }
    let mut body = String::new();
    let child_indent = format!("{indent}{}", style.indent);
    if !render_items(value, style, &child_indent, &mut body) {
        out.push_str(open);
        out.push_str(close);
        return;
    }
    out.push_str(open);
    out.push_str(&body);
    out.push_str(&style.newline);
    out.push_str(indent);
    out.push_str(close);
}

/// Writes the items of a container, each on its own line at `child_indent` (a line
/// ending before each line), with their comments. Returns `false` if there was nothing
/// to write (no items, no comments).
fn render_items(value: Value<'_>, style: &Style, child_indent: &str, out: &mut String) -> bool {
    let doc = value.doc();
    let text = doc.text();
    let object = value.kind() == Kind::Object;
    let keep_comments = style.dialect == Dialect::Sjson;
    let layout = doc.layout(value.id());
    let close_comments = if keep_comments {
        comments(&text[layout.close.clone()])
    } else {
        Vec::new()
    };
    if layout.items.is_empty() && close_comments.is_empty() {
        return false;
    }
    let mut items: Vec<_> = layout.items.iter().collect();
    if object && style.sort_keys {
        items.sort_by_cached_key(|it| doc.value(it.node).key().unwrap_or_default().into_owned());
    }
    let last = items.len().saturating_sub(1);
    for (i, item) in items.iter().enumerate() {
        let child = doc.value(item.node);
        if keep_comments {
            let inner_gap = if object {
                let n = doc.node(item.node);
                n.key_end as usize..n.start as usize
            } else {
                0..0
            };
            for c in comments(&text[item.lead.clone()])
                .into_iter()
                .chain(comments(&text[inner_gap]))
            {
                out.push_str(&style.newline);
                out.push_str(child_indent);
                out.push_str(c);
            }
        }
        out.push_str(&style.newline);
        out.push_str(child_indent);
        write_item(child, style, child_indent, out);
        if style.dialect == Dialect::Json && i != last || style.commas {
            out.push(',');
        }
        if keep_comments {
            for c in comments(&text[item.trailer.clone()]) {
                out.push(' ');
                out.push_str(c);
            }
        }
    }
    for c in close_comments {
        out.push_str(&style.newline);
        out.push_str(child_indent);
        out.push_str(c);
    }
    true
}

/// Writes an item: `key = value` for members, the value for elements.
pub fn write_item(child: Value<'_>, style: &Style, indent: &str, out: &mut String) {
    if let (Some(key), Some(q)) = (child.key(), child.key_quoting()) {
        render_key(&key, child.key_lexeme().map(|l| (l, q)), style, out);
        out.push_str(&style.separator);
    }
    render_value(child, style, indent, out);
}

/// The whole document in `style` (`assetvc fmt`): comments kept (SJSON), values and
/// number lexemes unchanged, one final line ending; a byte-order mark is kept.
pub fn format(doc: &Document, style: &Style) -> String {
    let mut out = String::with_capacity(doc.text().len() + doc.text().len() / 8);
    if doc.text().starts_with('\u{FEFF}') {
        out.push('\u{FEFF}');
    }
    let root = doc.root();
    if style.dialect == Dialect::Sjson && root.kind() == Kind::Object {
        // Stingray writes the root object without braces, one member per line.
        // Comments before and after a braced root's braces are kept, on their own lines.
        let (text, span) = (doc.text(), root.span());
        let outer = |trivia: &str, body: &mut String| {
            for c in comments(trivia) {
                body.push_str(&style.newline);
                body.push_str(c);
            }
        };
        let mut body = String::new();
        if doc.root_braced() {
            outer(&text[..span.start], &mut body);
        }
        render_items(root, style, "", &mut body);
        if doc.root_braced() {
            outer(&text[span.end..], &mut body);
        }
        let body = body.strip_prefix(style.newline.as_str()).unwrap_or(&body);
        out.push_str(body);
        if !body.is_empty() {
            out.push_str(&style.newline);
        }
        return out;
    }
    render_value(root, style, "", &mut out);
    out.push_str(&style.newline);
    out
}
