//! The text around the root value (a byte-order mark, header comments, the final line
//! break), merged as one piece each side: a merge is printed as an edit of ours, so
//! without this theirs' change to it (a final newline added, a BOM removed) was lost.

use sjson::{Document, Split, Style};

/// The edges theirs changed where ours kept base's: what the printed text takes instead.
#[derive(Debug, Default)]
pub(crate) struct Edges {
    /// Ours' and theirs' text before the root, when theirs changed it alone.
    prefix: Option<(String, String)>,
    /// Ours' and theirs' text after the root, when theirs changed it alone.
    suffix: Option<(String, String)>,
}

fn prefix(doc: &Document) -> &str {
    &doc.text()[..doc.root().span().start]
}

fn suffix(doc: &Document) -> &str {
    &doc.text()[doc.root().span().end..]
}

/// Theirs' edge where ours kept base's and theirs changed more than its line breaks
/// (a file whose line breaks theirs rewrote keeps ours' as the rest of it does), with
/// its line breaks written as ours' are (`newline`).
fn theirs_alone(b: &str, o: &str, t: &str, newline: &str) -> Option<(String, String)> {
    let lf = |s: &str| s.replace("\r\n", "\n");
    let t = lf(t);
    (b == o && lf(o) != t).then(|| (o.to_string(), t.replace('\n', newline)))
}

impl Edges {
    /// What theirs changed alone around the root (read before base is freed). Only
    /// around a root in brackets in all three: the edges of a braceless SJSON root
    /// change with the style of the whole file.
    pub(crate) fn of(base: &Document, ours: &Document, theirs: &Document) -> Edges {
        if ![base, theirs]
            .iter()
            .all(|d| d.root_braced() == ours.root_braced())
            || !ours.root_braced()
        {
            return Edges::default();
        }
        let newline = Style::detect(ours).newline;
        Edges {
            prefix: theirs_alone(prefix(base), prefix(ours), prefix(theirs), &newline),
            suffix: theirs_alone(suffix(base), suffix(ours), suffix(theirs), &newline),
        }
    }

    /// `text`, printed as an edit of ours (or theirs' whole text), with theirs' edges;
    /// the split hint moved with the text before it.
    pub(crate) fn apply(
        &self,
        (mut text, mut split): (String, Option<Split>),
    ) -> (String, Option<Split>) {
        if let Some((o, t)) = &self.prefix {
            if printed_with(&text, o, t, |a, b| a.starts_with(b)) {
                text.replace_range(..o.len(), t);
                split = split.map(|s| Split {
                    at: (s.at + t.len()).saturating_sub(o.len()),
                    ..s
                });
            }
        }
        if let Some((o, t)) = &self.suffix {
            if printed_with(&text, o, t, |a, b| a.ends_with(b)) {
                let end = text.len() - o.len();
                text.replace_range(end.., t);
            }
        }
        (text, split)
    }
}

/// Whether `text` holds ours' edge `o`, not theirs' `t`: the root starts (ends) with a
/// bracket or a value, never with trivia, so when both fit the longer one is the text's.
fn printed_with(text: &str, o: &str, t: &str, has: impl Fn(&str, &str) -> bool) -> bool {
    has(text, o) && !(has(text, t) && t.len() > o.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use sjson::Dialect;

    fn doc(text: &str) -> Document {
        Document::parse(text, Dialect::Json).unwrap()
    }

    #[test]
    fn theirs_final_line_break_and_bom_are_kept() {
        let (b, o, t) = (
            doc("{\"a\": 1}"),
            doc("{\"a\": 2}"),
            doc("\u{feff}{\"a\": 1}\n"),
        );
        let edges = Edges::of(&b, &o, &t);
        let (text, _) = edges.apply(("{\"a\": 2}".to_string(), None));
        assert_eq!(text, "\u{feff}{\"a\": 2}\n");
        // Theirs' whole text printed: nothing to change.
        let (text, _) = edges.apply((t.text().to_string(), None));
        assert_eq!(text, t.text());
    }

    #[test]
    fn ours_edges_stay_when_ours_changed_them() {
        let (b, o, t) = (doc("{}\n"), doc("{}"), doc("{}\n\n"));
        let edges = Edges::of(&b, &o, &t);
        assert_eq!(edges.apply(("{}".to_string(), None)).0, "{}");
        // Theirs removed the line break ours kept: removed.
        let (b, o, t) = (doc("\n{}\n"), doc("\n{}\n"), doc("{}"));
        let edges = Edges::of(&b, &o, &t);
        let split = Some(Split { at: 1, depth: 1 });
        let (text, split) = edges.apply(("\n{}\n".to_string(), split));
        assert_eq!(text, "{}");
        assert_eq!(split.map(|s| s.at), Some(0));
        // Theirs rewrote the line breaks only: ours' stay; its new one is written as
        // ours' are.
        let (b, o, t) = (doc("{}\r\n"), doc("{}\r\n"), doc("{}\n"));
        assert_eq!(
            Edges::of(&b, &o, &t).apply(("{}\r\n".into(), None)).0,
            "{}\r\n"
        );
        let (b, o, t) = (doc("{\r\n}"), doc("{\r\n}"), doc("{\n}\n"));
        assert_eq!(
            Edges::of(&b, &o, &t).apply(("{\r\n}".into(), None)).0,
            "{\r\n}\r\n"
        );
    }
}
