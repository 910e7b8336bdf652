//! The page: header with totals, then per file its map, legend and grouped cards.

use std::collections::HashMap;
use std::fmt::Write as _;

use crate::escape::{html, push_html};
use crate::map;
use crate::model::{short_id, Card, Fate, FileSection, Page, Row, Shown};

/// At most this many cards per file are written; the rest are counted.
pub const MAX_CARDS: usize = 5_000;
/// A card group shows this many cards, then a button for the next page.
pub const PAGE: usize = 50;

const CSS: &str = include_str!("page.css");
const JS: &str = include_str!("page.js");

/// The shapes of the marks, one per fate (colour-blind safe: shape and colour).
const SHAPES: &str = concat!(
    "<svg class=\"defs\" aria-hidden=\"true\" width=\"0\" height=\"0\"><defs><g stroke=\"#0B0F15\" stroke-width=\"1.4\" paint-order=\"stroke\">",
    "<path id=\"m-c\" fill=\"#F0E442\" d=\"M0 -8.5L2.3 -3.2L8 -2.6L3.7 1.3L5 7L0 4L-5 7L-3.7 1.3L-8 -2.6L-2.3 -3.2Z\"/>",
    "<path id=\"m-r\" fill=\"#CC79A7\" fill-rule=\"evenodd\" d=\"M-6.5 0a6.5 6.5 0 1 0 13 0a6.5 6.5 0 1 0 -13 0ZM-3 0a3 3 0 1 0 6 0a3 3 0 1 0 -6 0Z\"/>",
    "<path id=\"m-a\" fill=\"#1DB38A\" d=\"M0 -7.5L7 5.5L-7 5.5Z\"/>",
    "<path id=\"m-d\" fill=\"#E8671A\" d=\"M-6.5 -4L-4 -6.5L0 -2.5L4 -6.5L6.5 -4L2.5 0L6.5 4L4 6.5L0 2.5L-4 6.5L-6.5 4L-2.5 0Z\"/>",
    "<path id=\"m-v\" fill=\"#E69F00\" d=\"M0 -7.5L7.5 0L0 7.5L-7.5 0Z\"/>",
    "<path id=\"m-m\" fill=\"#56B4E9\" d=\"M-5.5 -5.5H5.5V5.5H-5.5Z\"/>",
    "<circle id=\"m-u\" fill=\"#8A94A6\" r=\"2.6\"/>",
    "</g>",
    // Smaller marks for crowded maps: the same shapes scaled about their centre.
    "<g id=\"t-c\" transform=\"scale(.75)\"><use href=\"#m-c\"/></g><g id=\"t-r\" transform=\"scale(.75)\"><use href=\"#m-r\"/></g>",
    "<g id=\"t-a\" transform=\"scale(.75)\"><use href=\"#m-a\"/></g><g id=\"t-d\" transform=\"scale(.75)\"><use href=\"#m-d\"/></g>",
    "<g id=\"t-v\" transform=\"scale(.75)\"><use href=\"#m-v\"/></g><g id=\"t-m\" transform=\"scale(.75)\"><use href=\"#m-m\"/></g>",
    "<g id=\"s-c\" transform=\"scale(.5)\"><use href=\"#m-c\"/></g><g id=\"s-r\" transform=\"scale(.5)\"><use href=\"#m-r\"/></g>",
    "<g id=\"s-a\" transform=\"scale(.5)\"><use href=\"#m-a\"/></g><g id=\"s-d\" transform=\"scale(.5)\"><use href=\"#m-d\"/></g>",
    "<g id=\"s-v\" transform=\"scale(.5)\"><use href=\"#m-v\"/></g><g id=\"s-m\" transform=\"scale(.5)\"><use href=\"#m-m\"/></g>",
    "</defs></svg>"
);

fn icon(out: &mut String, fate: Fate) {
    let _ = write!(
        out,
        "<svg class=\"icon\" viewBox=\"-9 -9 18 18\"><use href=\"#m-{}\"/></svg>",
        fate.code()
    );
}

/// Counts of cards by fate.
fn counts<'a>(cards: impl Iterator<Item = &'a Card>) -> HashMap<Fate, usize> {
    let mut c = HashMap::new();
    for card in cards {
        *c.entry(card.fate).or_insert(0) += 1;
    }
    c
}

fn chips(out: &mut String, counts: &HashMap<Fate, usize>) {
    for fate in Fate::ALL {
        if let Some(n) = counts.get(&fate) {
            let _ = write!(out, "<span class=\"chip {}\">", fate.code());
            icon(out, fate);
            let _ = write!(out, "<b>{n}</b> {}</span>", fate.counted(*n));
        }
    }
}

fn value(out: &mut String, v: &Shown, other: Option<&Shown>) {
    match v {
        Shown::Absent => out.push_str("<span class=\"v none\">—</span>"),
        Shown::Scalar(s) => {
            out.push_str("<span class=\"v num\">");
            push_html(out, s);
            out.push_str("</span>");
        }
        Shown::Text(s) => {
            out.push_str("<span class=\"v str\">");
            push_html(out, s);
            out.push_str("</span>");
        }
        Shown::Vector(items) => {
            let before = match other {
                Some(Shown::Vector(o)) if o.len() == items.len() => Some(o),
                _ => None,
            };
            out.push_str("<span class=\"v vec\">");
            for (i, c) in items.iter().enumerate() {
                let changed = before.is_some_and(|b| !sjson::lexemes_equal(&b[i], c));
                out.push_str(if changed { "<i class=\"chg\">" } else { "<i>" });
                push_html(out, c);
                out.push_str("</i>");
            }
            out.push_str("</span>");
        }
        Shown::Other(s) => {
            out.push_str("<span class=\"v obj\">");
            push_html(out, s);
            out.push_str("</span>");
        }
    }
}

fn property(out: &mut String, p: &str) {
    out.push_str("<th>");
    push_html(out, if p.is_empty() { "(object)" } else { p });
    out.push_str("</th>");
}

fn row(out: &mut String, r: &Row, whole: bool) {
    match r {
        Row::Change {
            property: p,
            old,
            new,
        } if whole => {
            let (class, v) = if matches!(new, Shown::Absent) {
                ("old", old)
            } else {
                ("new", new)
            };
            out.push_str("<tr class=\"chg-row\">");
            property(out, p);
            let _ = write!(out, "<td class=\"{class}\" colspan=\"3\">");
            value(out, v, None);
            out.push_str("</td></tr>");
        }
        Row::Change {
            property: p,
            old,
            new,
        } => {
            out.push_str("<tr class=\"chg-row\">");
            property(out, p);
            out.push_str("<td class=\"old\">");
            value(out, old, None);
            out.push_str("</td><td class=\"arrow\">→</td><td class=\"new\">");
            value(out, new, Some(old));
            out.push_str("</td></tr>");
        }
        Row::Conflict {
            property: p,
            kind,
            base,
            ours,
            theirs,
            taken,
            sides,
            pending,
        } => {
            out.push_str("<tr class=\"conflict-row\"><td colspan=\"4\"><div class=\"head\"><span class=\"prop\">");
            push_html(out, if p.is_empty() { "(object)" } else { p });
            out.push_str("</span><span class=\"kind\">");
            push_html(out, &kind.replace('-', " "));
            out.push_str("</span></div><div class=\"three\">");
            let [ours_label, theirs_label] = sides;
            for (side, label, v) in [
                ("base", "base", base),
                ("ours", ours_label.as_str(), ours),
                ("theirs", theirs_label.as_str(), theirs),
            ] {
                let took = taken == side;
                let _ = write!(
                    out,
                    "<div class=\"side{}\"><span class=\"who\">",
                    if took { " taken" } else { "" },
                );
                push_html(out, label);
                if took {
                    out.push_str(" ✓ taken");
                }
                out.push_str("</span>");
                value(out, v, (side != "base").then_some(base));
                out.push_str("</div>");
            }
            out.push_str("</div>");
            if let Some(note) = pending {
                out.push_str("<div class=\"pending\">");
                push_html(out, note);
                out.push_str("</div>");
            }
            out.push_str("</td></tr>");
        }
        Row::Repair {
            property: p,
            kind,
            details,
        } => {
            out.push_str("<tr class=\"repair-row\">");
            property(out, p);
            out.push_str("<td colspan=\"3\"><div class=\"kind\">");
            push_html(out, &kind.replace('-', " "));
            out.push_str("</div><dl>");
            for (k, v) in details {
                out.push_str("<dt>");
                push_html(out, k);
                out.push_str("</dt><dd>");
                value(out, v, None);
                out.push_str("</dd>");
            }
            out.push_str("</dl></td></tr>");
        }
        Row::Note(n) => {
            out.push_str("<tr class=\"note-row\"><td colspan=\"4\">");
            push_html(out, n);
            out.push_str("</td></tr>");
        }
    }
}

fn card(out: &mut String, c: &Card, anchor: &str, hidden: bool) {
    let _ = write!(
        out,
        "<article class=\"card {}\" id=\"{anchor}\"{}><header><span class=\"badge\">",
        c.fate.code(),
        if hidden { " hidden" } else { "" }
    );
    icon(out, c.fate);
    let _ = write!(out, "{}</span><h3>", c.fate.word());
    push_html(out, c.name.as_deref().unwrap_or(&c.location));
    out.push_str("</h3>");
    if let Some(id) = &c.id {
        out.push_str("<code class=\"sid\" title=\"");
        push_html(out, id);
        out.push_str("\">");
        push_html(out, short_id(id));
        out.push_str("</code>");
    }
    out.push_str("</header><div class=\"loc\">");
    push_html(out, &c.location);
    out.push_str("</div><table>");
    let whole = matches!(c.fate, Fate::Added | Fate::Deleted);
    for r in &c.rows {
        row(out, r, whole);
    }
    out.push_str("</table></article>");
}

/// The properties changed most often in a file (whole added or deleted objects aside).
fn top_properties(out: &mut String, section: &FileSection) {
    let mut n: HashMap<&str, usize> = HashMap::new();
    for c in &section.cards {
        if matches!(c.fate, Fate::Added | Fate::Deleted) {
            continue;
        }
        for r in &c.rows {
            if let Row::Change { property, .. } | Row::Conflict { property, .. } = r {
                *n.entry(property.as_str()).or_insert(0) += 1;
            }
        }
    }
    if n.is_empty() {
        return;
    }
    let mut top: Vec<(&str, usize)> = n.into_iter().collect();
    top.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    out.push_str("<div class=\"stats\"><h4>Changed properties</h4><ul>");
    for (p, count) in top.iter().take(8) {
        out.push_str("<li><code>");
        push_html(out, p);
        let _ = write!(out, "</code><b>{count}</b></li>");
    }
    if top.len() > 8 {
        let _ = write!(out, "<li class=\"rest\">and {} more</li>", top.len() - 8);
    }
    out.push_str("</ul></div>");
}

fn legend(out: &mut String, section: &FileSection, fates: &map::Fates<'_>) {
    let mut n: HashMap<Fate, usize> = HashMap::new();
    let mut trails = false;
    for o in &section.objects {
        let f = fates.get(o.key.as_str()).map_or(Fate::Unchanged, |f| f.0);
        *n.entry(f).or_insert(0) += 1;
        trails |= f != Fate::Unchanged && o.was.is_some();
    }
    out.push_str("<ul class=\"legend\">");
    for fate in Fate::ALL {
        if let Some(count) = n.get(&fate) {
            let _ = write!(out, "<li class=\"{}\">", fate.code());
            icon(out, fate);
            let _ = write!(out, "{} <b>{count}</b></li>", fate.counted(*count));
        }
    }
    if trails {
        out.push_str("<li class=\"trail\"><svg class=\"icon\" viewBox=\"0 0 18 18\"><line x1=\"2\" y1=\"15\" x2=\"16\" y2=\"3\"/></svg>from old place</li>");
    }
    out.push_str("</ul>");
}

fn section(out: &mut String, index: usize, s: &FileSection) {
    let anchors: Vec<String> = (0..s.cards.len())
        .map(|i| format!("c{index}-{i}"))
        .collect();
    let fates: map::Fates<'_> = s
        .cards
        .iter()
        .zip(&anchors)
        .take(MAX_CARDS)
        .map(|(c, a)| (c.key.as_str(), (c.fate, a.clone())))
        .collect();
    let _ = write!(
        out,
        "<section class=\"file\" id=\"f{index}\"><header class=\"file-head\"><h2>"
    );
    push_html(out, &s.path);
    out.push_str("</h2><span class=\"status\">");
    push_html(out, &s.status);
    out.push_str("</span><span class=\"chips\">");
    chips(out, &counts(s.cards.iter()));
    out.push_str("</span></header>");
    for n in &s.notes {
        out.push_str("<p class=\"note\">");
        push_html(out, n);
        out.push_str("</p>");
    }
    let has_map = !s.objects.is_empty();
    let _ = write!(
        out,
        "<div class=\"body{}\">",
        if has_map { "" } else { " nomap" }
    );
    if has_map {
        out.push_str("<div class=\"map-pane\">");
        map::render(out, &s.objects, &fates);
        legend(out, s, &fates);
        top_properties(out, s);
        out.push_str("</div>");
    }
    out.push_str("<div class=\"cards\">");
    let shown = &s.cards[..s.cards.len().min(MAX_CARDS)];
    for fate in Fate::ALL {
        let group: Vec<usize> = (0..shown.len())
            .filter(|&i| shown[i].fate == fate)
            .collect();
        if group.is_empty() {
            continue;
        }
        let _ = write!(
            out,
            "<details class=\"group {}\" open><summary>",
            fate.code()
        );
        icon(out, fate);
        let _ = write!(
            out,
            "{} <span class=\"count\">{}</span></summary>",
            fate.counted(group.len()),
            group.len()
        );
        for (n, &i) in group.iter().enumerate() {
            card(out, &shown[i], &anchors[i], n >= PAGE);
        }
        if group.len() > PAGE {
            let _ = write!(
                out,
                "<button class=\"more\" type=\"button\">Show {PAGE} more · <span>{}</span> not shown</button>",
                group.len() - PAGE
            );
        }
        out.push_str("</details>");
    }
    if s.cards.len() > MAX_CARDS {
        let _ = write!(
            out,
            "<p class=\"note\">{} more changed objects are not shown here; use <code>--json</code> for all of them.</p>",
            s.cards.len() - MAX_CARDS
        );
    }
    if s.cards.is_empty() && has_map {
        out.push_str("<p class=\"note\">No object changed.</p>");
    }
    out.push_str("</div></div></section>");
}

/// The page as one self-contained HTML document (inline CSS and script, nothing fetched).
pub fn render(page: &Page) -> String {
    let mut out = String::with_capacity(64 * 1024);
    out.push_str("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width,initial-scale=1\"><meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\"><title>");
    push_html(&mut out, &page.title);
    out.push_str("</title><style>");
    out.push_str(CSS);
    out.push_str("</style></head><body>");
    out.push_str(SHAPES);
    out.push_str(
        "<header class=\"top\"><div class=\"brand\">assetvc</div><div class=\"titles\"><h1>",
    );
    push_html(&mut out, &page.title);
    out.push_str("</h1><p>");
    push_html(&mut out, &page.subtitle);
    let objects: usize = page.files.iter().map(|f| f.cards.len()).sum();
    let _ = write!(
        out,
        "</p></div><div class=\"totals\"><span class=\"total\"><b>{objects}</b> changed object{} in <b>{}</b> file{}</span>",
        if objects == 1 { "" } else { "s" },
        page.files.len(),
        if page.files.len() == 1 { "" } else { "s" }
    );
    chips(&mut out, &counts(page.files.iter().flat_map(|f| &f.cards)));
    out.push_str("</div><input class=\"filter\" type=\"search\" placeholder=\"Filter: name, id, property\" aria-label=\"Filter cards\"></header>");
    if page.files.len() > 1 {
        out.push_str("<nav class=\"files\">");
        for (i, f) in page.files.iter().enumerate() {
            let _ = write!(
                out,
                "<a href=\"#f{i}\">{}<span class=\"count\">{}</span></a>",
                html(&f.path),
                f.cards.len()
            );
        }
        out.push_str("</nav>");
    }
    out.push_str("<main>");
    if page.files.is_empty() {
        out.push_str("<p class=\"empty\">Nothing to review: no asset changed.</p>");
    }
    for (i, f) in page.files.iter().enumerate() {
        section(&mut out, i, f);
    }
    out.push_str("</main><script>");
    out.push_str(JS);
    out.push_str("</script></body></html>\n");
    out
}
