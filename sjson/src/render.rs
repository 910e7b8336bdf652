//! Rendering values as text in a [`Style`]: the canonical style of `assetvc fmt`, or the
//! style detected from a document so that new and edited values match their neighbours.

use crate::doc::{Dialect, Document, Kind, NodeId};
use crate::layout::comments;
use crate::string::{self, Quoting};
use crate::value::Value;

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
                    let key_end = doc.key_range(id).map_or(0, |k| k.end);
                    let sep = &text[key_end..v.span().start];
                    if !sep.contains(['\n', '/']) && sep.trim().len() == 1 {
                        style.separator = sep.to_string();
                    }
                }
            }
            if !v.is_container() || (found_indent && found_commas) {
                continue;
            }
            let items = doc.first_two_items(id);
            if !found_indent {
                if let Some(first) = items.first() {
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
            if !found_commas && items.len() >= 2 {
                found_commas = true;
                style.commas =
                    doc.dialect() == Dialect::Sjson && text[items[0].trailer.clone()].contains(',');
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

/// Writes a key in `style`; `lexeme` is how `key` itself was written, if it was.
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
        // A comment (SJSON keeps them) needs a line of its own.
        && !(style.dialect == Dialect::Sjson && value.text().contains('/'))
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
    // Comments are kept unless SJSON is converted to JSON.
    let keep_comments = style.dialect == Dialect::Sjson || doc.dialect() == Dialect::Json;
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
                let value_start = child.span().start;
                doc.key_range(item.node).map_or(value_start, |k| k.end)..value_start
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

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str, dialect: Dialect) -> Document {
        Document::parse(text, dialect).unwrap_or_else(|e| panic!("{text:?}: {e}"))
    }

    /// Formats `text` in the canonical style of `to`, checks the result reparses to the
    /// same value and is a fixed point, and returns it.
    fn fmt(text: &str, from: Dialect, to: Dialect) -> String {
        let doc = parse(text, from);
        let style = Style::canonical(to);
        let once = format(&doc, &style);
        let again = Document::parse(once.as_str(), to)
            .unwrap_or_else(|e| panic!("{text:?} formatted as {to:?}: {e}\n{once}"));
        assert!(
            again.root().same_value(&doc.root()),
            "value changed:\n{once}"
        );
        assert_eq!(format(&again, &style), once, "not idempotent");
        if to == Dialect::Json {
            serde_json::from_str::<serde_json::Value>(&once)
                .unwrap_or_else(|e| panic!("serde_json rejects {once:?}: {e}"));
        }
        once
    }

    const MESSY: &str = "// head\n  a=1, b : [0.5 [255 255 255]] // t\n  s-k = \"\"\"raw \"q\" x\"\"\" bare = Tools /* x */\n  o = { /* empty */ }\n";

    #[test]
    fn canonical_sjson() {
        assert_eq!(
            fmt(MESSY, Dialect::Sjson, Dialect::Sjson),
            "// head\na = 1\nb = [\n\t0.5\n\t[255 255 255]\n] // t\n\"s-k\" = \"\"\"raw \"q\" x\"\"\"\nbare = \"Tools\" /* x */\no = {\n\t/* empty */\n}\n"
        );
    }

    #[test]
    fn canonical_json() {
        assert_eq!(
            fmt(MESSY, Dialect::Sjson, Dialect::Json),
            "{\n\t\"a\": 1,\n\t\"b\": [\n\t\t0.5,\n\t\t[255, 255, 255]\n\t],\n\t\"s-k\": \"raw \\\"q\\\" x\",\n\t\"bare\": \"Tools\",\n\t\"o\": {}\n}\n"
        );
        let text = "{\n    \"name\": \"x\",\n    \"tags\": [\"a\", \"b\"],\n    \"pos\": [1, 2.50, -0],\n    \"o\": {}, \"e\": [], \"n\": {\"k\": null}\n}";
        assert_eq!(
            fmt(text, Dialect::Json, Dialect::Json),
            "{\n\t\"name\": \"x\",\n\t\"tags\": [\n\t\t\"a\",\n\t\t\"b\"\n\t],\n\t\"pos\": [1, 2.50, -0],\n\t\"o\": {},\n\t\"e\": [],\n\t\"n\": {\n\t\t\"k\": null\n\t}\n}\n"
        );
        assert_eq!(
            fmt(text, Dialect::Json, Dialect::Sjson),
            "name = \"x\"\ntags = [\n\t\"a\"\n\t\"b\"\n]\npos = [1 2.50 -0]\no = {}\ne = []\nn = {\n\tk = null\n}\n"
        );
    }

    #[test]
    fn json_roots_that_are_not_objects() {
        assert_eq!(fmt("[1,2]", Dialect::Json, Dialect::Json), "[1, 2]\n");
        assert_eq!(fmt(" \"s\" ", Dialect::Json, Dialect::Json), "\"s\"\n");
        assert_eq!(fmt("[[]]", Dialect::Json, Dialect::Json), "[\n\t[]\n]\n");
        assert_eq!(fmt("{}", Dialect::Json, Dialect::Json), "{}\n");
    }

    #[test]
    fn empty_documents() {
        assert_eq!(fmt("", Dialect::Sjson, Dialect::Sjson), "");
        assert_eq!(fmt("{ }", Dialect::Sjson, Dialect::Sjson), "");
        assert_eq!(fmt("", Dialect::Sjson, Dialect::Json), "{}\n");
        assert_eq!(
            fmt("// only\n", Dialect::Sjson, Dialect::Sjson),
            "// only\n"
        );
    }

    #[test]
    fn short_number_arrays_stay_on_one_line() {
        let sixteen = format!("a = [{}]", "1 ".repeat(16));
        assert_eq!(
            fmt(&sixteen, Dialect::Sjson, Dialect::Sjson),
            format!("a = [{}]\n", ["1"; 16].join(" "))
        );
        let seventeen = format!("a = [{}]", "1 ".repeat(17));
        assert_eq!(
            fmt(&seventeen, Dialect::Sjson, Dialect::Sjson),
            format!("a = [{}\n]\n", "\n\t1".repeat(17))
        );
        // Mixed arrays and arrays with comments are one item per line.
        assert_eq!(
            fmt("a = [1 \"x\"]", Dialect::Sjson, Dialect::Sjson),
            "a = [\n\t1\n\t\"x\"\n]\n"
        );
        assert_eq!(
            fmt("a = [1 /* c */ 2]", Dialect::Sjson, Dialect::Sjson),
            "a = [\n\t1\n\t/* c */\n\t2\n]\n"
        );
    }

    #[test]
    fn number_arrays_with_comments_inline_in_json() {
        // Regression: JSON drops comments, so the array is inline; it used to be written
        // one number per line, and reformatting the JSON then put it on one line.
        let text = "a = [ // c\n 1 2 /* d */ ]";
        assert_eq!(
            fmt(text, Dialect::Sjson, Dialect::Json),
            "{\n\t\"a\": [1, 2]\n}\n"
        );
        assert_eq!(
            fmt(text, Dialect::Sjson, Dialect::Sjson),
            "a = [\n\t// c\n\t1\n\t2\n\t/* d */\n]\n"
        );
    }

    #[test]
    fn keys() {
        assert_eq!(
            fmt(
                "\"plain_1\" = 1 \"with space\" = 2 source-templates = 3 \"\"\"raw\"\"\" = 4 \"\" = 5 \"\\u0041\" = 6 \"t\tab\" = 7",
                Dialect::Sjson,
                Dialect::Sjson
            ),
            "plain_1 = 1\n\"with space\" = 2\n\"source-templates\" = 3\nraw = 4\n\"\" = 5\nA = 6\n\"t\tab\" = 7\n"
        );
        assert_eq!(
            fmt(
                "\"t\tab\" = 7 \"q\\\"\" = 8 x = 9",
                Dialect::Sjson,
                Dialect::Json
            ),
            "{\n\t\"t\\tab\": 7,\n\t\"q\\\"\": 8,\n\t\"x\": 9\n}\n"
        );
        let doc = parse("a = 1 \"b\" = 2", Dialect::Sjson);
        let mut style = Style::canonical(Dialect::Sjson);
        style.quote_keys = true;
        assert_eq!(format(&doc, &style), "\"a\" = 1\n\"b\" = 2\n");
    }

    #[test]
    fn strings() {
        // SJSON keeps quoted lexemes (raw control characters included) and raw strings;
        // JSON escapes what it must.
        let text = "a = \"x\ty\" b = \"\\u00e9\" c = \"\"\"l1\nl2\"\"\" d = bare";
        assert_eq!(
            fmt(text, Dialect::Sjson, Dialect::Sjson),
            "a = \"x\ty\"\nb = \"\\u00e9\"\nc = \"\"\"l1\nl2\"\"\"\nd = \"bare\"\n"
        );
        assert_eq!(
            fmt(text, Dialect::Sjson, Dialect::Json),
            "{\n\t\"a\": \"x\\ty\",\n\t\"b\": \"\\u00e9\",\n\t\"c\": \"l1\\nl2\",\n\t\"d\": \"bare\"\n}\n"
        );
    }

    #[test]
    fn comments_are_kept_in_sjson() {
        let text =
            "a = { // after brace\n\t// lead\n\tb = /* between */ 1, // trail\n\t// close\n}\n";
        assert_eq!(
            fmt(text, Dialect::Sjson, Dialect::Sjson),
            "a = {\n\t// after brace\n\t// lead\n\t/* between */\n\tb = 1 // trail\n\t// close\n}\n"
        );
        assert_eq!(
            fmt(text, Dialect::Sjson, Dialect::Json),
            "{\n\t\"a\": {\n\t\t\"b\": 1\n\t}\n}\n"
        );
    }

    #[test]
    fn comments_around_a_braced_root_are_kept() {
        // Regression: comments before `{` and after `}` of a braced root were dropped.
        assert_eq!(
            fmt(
                "// head\n{ a = 1 } // tail\n",
                Dialect::Sjson,
                Dialect::Sjson
            ),
            "// head\na = 1\n// tail\n"
        );
        assert_eq!(
            fmt("/* h */ { } /* t */", Dialect::Sjson, Dialect::Sjson),
            "/* h */\n/* t */\n"
        );
        assert_eq!(
            fmt(
                "\u{FEFF}// h\r\n{\r\n\ta = 1 // x\r\n}\r\n",
                Dialect::Sjson,
                Dialect::Sjson
            ),
            "\u{FEFF}// h\na = 1 // x\n"
        );
    }

    #[test]
    fn sort_keys_and_order() {
        let doc = parse("b = 1 a = { d = 1 c = 2 } c = [z y]", Dialect::Sjson);
        assert_eq!(
            format(&doc, &Style::canonical(Dialect::Sjson)),
            "b = 1\na = {\n\td = 1\n\tc = 2\n}\nc = [\n\t\"z\"\n\t\"y\"\n]\n"
        );
        let mut style = Style::canonical(Dialect::Sjson);
        style.sort_keys = true;
        assert_eq!(
            format(&doc, &style),
            "a = {\n\tc = 2\n\td = 1\n}\nb = 1\nc = [\n\t\"z\"\n\t\"y\"\n]\n"
        );
    }

    #[test]
    fn byte_order_mark_is_kept() {
        assert_eq!(
            fmt("\u{FEFF}a=1", Dialect::Sjson, Dialect::Sjson),
            "\u{FEFF}a = 1\n"
        );
        let doc = parse("\u{FEFF}[1]", Dialect::Json);
        assert_eq!(
            format(&doc, &Style::canonical(Dialect::Json)),
            "\u{FEFF}[1]\n"
        );
    }

    #[test]
    fn custom_styles() {
        let doc = parse("a = { b = [1 2] c = \"x\" }", Dialect::Sjson);
        let style = Style {
            dialect: Dialect::Sjson,
            indent: "  ".into(),
            newline: "\r\n".into(),
            separator: ": ".into(),
            commas: true,
            inline_numbers: 1,
            quote_keys: false,
            sort_keys: false,
        };
        let out = format(&doc, &style);
        assert_eq!(
            out,
            "a: {\r\n  b: [\r\n    1,\r\n    2,\r\n  ],\r\n  c: \"x\",\r\n},\r\n"
        );
        let again = parse(&out, Dialect::Sjson);
        assert!(again.root().same_value(&doc.root()));
        assert_eq!(format(&again, &style), out);
    }

    #[test]
    fn detect_style() {
        let doc = parse(
            "{\r\n    \"a\": 1,\r\n    \"b\": [\r\n        2\r\n    ]\r\n}\r\n",
            Dialect::Json,
        );
        let s = Style::detect(&doc);
        assert_eq!(s.indent, "    ");
        assert_eq!(s.newline, "\r\n");
        assert_eq!(s.separator, ": ");
        assert!(s.quote_keys);
        assert!(!s.commas, "JSON commas are not a style choice");

        let doc = parse("a = 1,\nb = {\n  c = 2\n}\n", Dialect::Sjson);
        let s = Style::detect(&doc);
        assert_eq!(s.indent, "  ");
        assert_eq!(s.newline, "\n");
        assert_eq!(s.separator, " = ");
        assert!(s.commas);
        assert!(!s.quote_keys);

        let doc = parse("x : [\n\t1\n\t2\n]\n", Dialect::Sjson);
        let s = Style::detect(&doc);
        assert_eq!(s.indent, "\t");
        assert_eq!(s.separator, " : ");
        assert!(!s.commas);

        // Nothing to detect: the canonical style.
        let doc = parse("", Dialect::Sjson);
        assert_eq!(Style::detect(&doc), Style::canonical(Dialect::Sjson));
    }

    #[test]
    fn render_value_and_items_at_an_indent() {
        let doc = parse("a = { b = [1 x] }", Dialect::Sjson);
        let a = doc.root().get("a").unwrap();
        let style = Style::canonical(Dialect::Sjson);
        let mut out = String::new();
        render_value(a, &style, "\t", &mut out);
        assert_eq!(out, "{\n\t\tb = [\n\t\t\t1\n\t\t\t\"x\"\n\t\t]\n\t}");
        let mut out = String::new();
        write_item(a, &style, "", &mut out);
        assert!(out.starts_with("a = {\n\tb = ["), "{out}");
        let mut out = String::new();
        render_key(
            "needs quotes",
            None,
            &Style::canonical(Dialect::Json),
            &mut out,
        );
        render_key(
            "k",
            Some(("\"\\u006b\"", Quoting::Quoted)),
            &Style::canonical(Dialect::Json),
            &mut out,
        );
        render_key(
            "k",
            Some(("k", Quoting::Bare)),
            &Style::canonical(Dialect::Json),
            &mut out,
        );
        assert_eq!(out, "\"needs quotes\"\"\\u006b\"\"k\"");
    }
}
