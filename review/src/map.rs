//! The top-down map of a level: a mark per placed object, shaped and coloured by its
//! fate; SVG for few objects, a canvas (drawn by the page's script from a compact data
//! block) for the unchanged ones of a large level, with SVG marks for the changed ones.

use std::collections::HashMap;
use std::fmt::Write as _;

use crate::escape::{push_html, push_json_string};
use crate::model::{short_id, Fate, Placed};

/// Width of the map's coordinate space (its `viewBox`), about its width on screen.
pub const WIDTH: f64 = 800.0;
/// Up to this many objects, every mark is an SVG element.
pub const SVG_LIMIT: usize = 2_000;
/// Up to this many changed objects get SVG marks; more go to the canvas too.
pub const CHANGED_SVG_LIMIT: usize = 20_000;
/// Up to this many changed marks get a name label beside them (where one fits).
const LABEL_LIMIT: usize = 60;
const PAD: f64 = 28.0;
/// At most this many grid lines per axis.
const GRID_MAX: usize = 24;
const FONT: f64 = 12.0;
const CHAR_W: f64 = 6.9;

/// What the map needs to know about a mark's object: its fate and its card's anchor.
pub type Fates<'a> = HashMap<&'a str, (Fate, String)>;

/// World → map coordinates.
struct Frame {
    min: [f64; 2],
    scale: f64,
    off: [f64; 2],
    height: f64,
}

impl Frame {
    fn of(objects: &[Placed]) -> Frame {
        let mut min = [f64::INFINITY; 2];
        let mut max = [f64::NEG_INFINITY; 2];
        for p in objects
            .iter()
            .flat_map(|o| std::iter::once(o.at).chain(o.was))
        {
            for i in 0..2 {
                min[i] = min[i].min(p[i]);
                max[i] = max[i].max(p[i]);
            }
        }
        let ext = [(max[0] - min[0]).max(1e-9), (max[1] - min[1]).max(1e-9)];
        let height = (WIDTH * ext[1] / ext[0]).clamp(WIDTH * 0.45, WIDTH * 0.9);
        let scale = ((WIDTH - 2.0 * PAD) / ext[0]).min((height - 2.0 * PAD) / ext[1]);
        let off = [
            (WIDTH - 2.0 * PAD - ext[0] * scale) / 2.0 + PAD,
            (height - 2.0 * PAD - ext[1] * scale) / 2.0 + PAD,
        ];
        Frame {
            min,
            scale,
            off,
            height: height.round(),
        }
    }

    /// Map coordinates, y pointing down (world y up).
    fn map(&self, p: [f64; 2]) -> (f64, f64) {
        let x = self.off[0] + (p[0] - self.min[0]) * self.scale;
        let y = self.height - (self.off[1] + (p[1] - self.min[1]) * self.scale);
        ((x * 10.0).round() / 10.0, (y * 10.0).round() / 10.0)
    }

    fn world(&self, x: f64, y: f64) -> [f64; 2] {
        [
            (x - self.off[0]) / self.scale + self.min[0],
            (self.height - y - self.off[1]) / self.scale + self.min[1],
        ]
    }
}

/// What a mark says on hover: `name · shortid` (or its location).
fn hover_text(o: &Placed) -> String {
    match (&o.name, &o.id) {
        (Some(n), Some(i)) => format!("{n} · {}", short_id(i)),
        (None, Some(i)) => short_id(i).to_string(),
        (Some(n), None) => format!("{n} · {}", o.key),
        (None, None) => o.key.clone(),
    }
}

fn label_text(o: &Placed) -> String {
    match (&o.name, &o.id) {
        (Some(n), _) => n.clone(),
        (None, Some(i)) => short_id(i).to_string(),
        (None, None) => o.key.clone(),
    }
}

/// A "nice" grid step (1, 2, 2.5 or 5 × 10^k) giving about 8 lines over `ext`.
fn grid_step(ext: f64) -> f64 {
    let raw = (ext / 8.0).max(1e-9);
    let mag = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 2.5, 5.0, 10.0]
        .into_iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag)
}

fn number(x: f64) -> String {
    let s = format!("{:.3}", x);
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".into()
    } else {
        s.to_string()
    }
}

fn grid(out: &mut String, f: &Frame) {
    let lo = f.world(0.0, f.height);
    let hi = f.world(WIDTH, 0.0);
    let step = grid_step((hi[0] - lo[0]).max(hi[1] - lo[1]));
    out.push_str("<g class=\"grid\">");
    // By index, at most GRID_MAX lines per axis: `x += step` can stand still where the
    // step is below the coordinates' precision.
    let first = [(lo[0] / step).ceil(), (lo[1] / step).ceil()];
    for k in 0..GRID_MAX {
        let x = (first[0] + k as f64) * step;
        if x.is_nan() || x > hi[0] {
            break;
        }
        let (mx, _) = f.map([x, f.min[1]]);
        let _ = write!(
            out,
            "<line x1=\"{mx}\" y1=\"0\" x2=\"{mx}\" y2=\"{h}\"/><text x=\"{tx}\" y=\"{ty}\">{n}</text>",
            h = f.height,
            tx = mx + 3.0,
            ty = f.height - 5.0,
            n = number(x)
        );
    }
    for k in 0..GRID_MAX {
        let y = (first[1] + k as f64) * step;
        if y.is_nan() || y > hi[1] {
            break;
        }
        let (_, my) = f.map([f.min[0], y]);
        let _ = write!(
            out,
            "<line x1=\"0\" y1=\"{my}\" x2=\"{WIDTH}\" y2=\"{my}\"/><text x=\"4\" y=\"{ty}\">{n}</text>",
            ty = my - 4.0,
            n = number(y)
        );
    }
    out.push_str("</g>");
}

/// Axis-aligned boxes already taken by labels and marks.
struct Taken(Vec<[f64; 4]>);

impl Taken {
    fn free(&self, b: [f64; 4], height: f64) -> bool {
        b[0] >= 2.0
            && b[1] >= 2.0
            && b[2] <= WIDTH - 2.0
            && b[3] <= height - 2.0
            && !self
                .0
                .iter()
                .any(|t| b[0] < t[2] && t[0] < b[2] && b[1] < t[3] && t[1] < b[3])
    }
}

/// A placed label: its box, its anchor point and alignment, and its text.
struct Label<'t> {
    #[cfg_attr(not(test), allow(dead_code))] // the tests check that boxes do not overlap
    bounds: [f64; 4],
    x: f64,
    y: f64,
    anchor: &'static str,
    text: &'t str,
}

/// Places labels for the changed marks, where one fits (right, left, above or below its
/// mark) without overlapping another label or any mark.
fn place_labels(marks: &[(f64, f64, String)], height: f64) -> Vec<Label<'_>> {
    let mut taken = Taken(
        marks
            .iter()
            .map(|(x, y, _)| [x - 7.0, y - 7.0, x + 7.0, y + 7.0])
            .collect(),
    );
    let mut placed = Vec::new();
    for (x, y, text) in marks {
        let (x, y) = (*x, *y);
        let w = text.chars().count() as f64 * CHAR_W;
        let h = FONT + 2.0;
        let candidates = [
            (
                [x + 9.0, y - h / 2.0, x + 9.0 + w, y + h / 2.0],
                x + 9.0,
                y + 4.0,
                "start",
            ),
            (
                [x - 9.0 - w, y - h / 2.0, x - 9.0, y + h / 2.0],
                x - 9.0,
                y + 4.0,
                "end",
            ),
            (
                [x - w / 2.0, y - 9.0 - h, x + w / 2.0, y - 9.0],
                x,
                y - 12.0,
                "middle",
            ),
            (
                [x - w / 2.0, y + 9.0, x + w / 2.0, y + 9.0 + h],
                x,
                y + 20.0,
                "middle",
            ),
        ];
        if let Some((bounds, x, y, anchor)) =
            candidates.into_iter().find(|c| taken.free(c.0, height))
        {
            taken.0.push(bounds);
            placed.push(Label {
                bounds,
                x,
                y,
                anchor,
                text,
            });
        }
    }
    placed
}

fn labels(out: &mut String, marks: &[(f64, f64, String)], height: f64) {
    out.push_str("<g class=\"labels\">");
    for l in place_labels(marks, height) {
        let _ = write!(
            out,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"{}\">",
            l.x, l.y, l.anchor
        );
        push_html(out, l.text);
        out.push_str("</text>");
    }
    out.push_str("</g>");
}

/// Appends one SVG mark; `size` picks the shape's size: `m` full, `t` three quarters,
/// `s` half (unchanged objects are always small dots).
fn mark(out: &mut String, o: &Placed, at: (f64, f64), fate: Fate, size: char, card: Option<&str>) {
    let (x, y) = at;
    let size = if fate == Fate::Unchanged { 'm' } else { size };
    let _ = write!(
        out,
        "<use class=\"mk {c}\" href=\"#{size}-{c}\" x=\"{x}\" y=\"{y}\" data-t=\"",
        c = fate.code()
    );
    push_html(out, &hover_text(o));
    if let Some(card) = card {
        let _ = write!(out, "\" data-card=\"{card}");
    }
    out.push_str("\"/>");
}

/// The map of `objects` (the file's `index`-th section), marks coloured by `fates`
/// (objects not in it are unchanged).
pub fn render(out: &mut String, objects: &[Placed], fates: &Fates<'_>) {
    let f = Frame::of(objects);
    let fate_of = |o: &Placed| fates.get(o.key.as_str());
    let changed = objects.iter().filter(|o| fate_of(o).is_some()).count();
    let canvas = objects.len() > SVG_LIMIT;
    // Smaller marks where many changed objects crowd the map.
    let size = match changed {
        0..=200 => 'm',
        201..=1000 => 't',
        _ => 's',
    };
    let _ = write!(
        out,
        "<div class=\"map\" data-objects=\"{}\" style=\"aspect-ratio:{WIDTH}/{}\">",
        objects.len(),
        f.height
    );
    if canvas {
        out.push_str("<canvas></canvas>");
    }
    let _ = write!(
        out,
        "<svg viewBox=\"0 0 {WIDTH} {}\" preserveAspectRatio=\"xMidYMid meet\">",
        f.height
    );
    grid(out, &f);
    // Trails of moved objects, under the marks.
    out.push_str("<g class=\"trails\">");
    for o in objects {
        if let (Some(was), Some(_)) = (o.was, fate_of(o)) {
            let (x1, y1) = f.map(was);
            let (x2, y2) = f.map(o.at);
            let _ = write!(
                out,
                "<line x1=\"{x1}\" y1=\"{y1}\" x2=\"{x2}\" y2=\"{y2}\"/><circle cx=\"{x1}\" cy=\"{y1}\" r=\"3\"/>"
            );
        }
    }
    out.push_str("</g><g class=\"marks\">");
    let mut in_canvas: Vec<(f64, f64, Fate, &Placed)> = Vec::new();
    let mut labelled: Vec<(f64, f64, String)> = Vec::new();
    let mut svg_changed = 0;
    // Unchanged first, so changed marks are drawn on top.
    for o in objects.iter().filter(|o| fate_of(o).is_none()) {
        let (x, y) = f.map(o.at);
        if canvas {
            in_canvas.push((x, y, Fate::Unchanged, o));
        } else {
            mark(out, o, (x, y), Fate::Unchanged, size, None);
        }
    }
    let mut changed_sorted: Vec<&Placed> =
        objects.iter().filter(|o| fate_of(o).is_some()).collect();
    // Most telling fates last, so they are on top.
    changed_sorted.sort_by_key(|o| std::cmp::Reverse(fate_of(o).map(|f| f.0)));
    for o in changed_sorted {
        let (fate, card) = fate_of(o)
            .cloned()
            .unwrap_or((Fate::Unchanged, String::new()));
        let (x, y) = f.map(o.at);
        if svg_changed < CHANGED_SVG_LIMIT {
            mark(out, o, (x, y), fate, size, Some(&card));
            svg_changed += 1;
            if changed <= LABEL_LIMIT {
                labelled.push((x, y, label_text(o)));
            }
        } else {
            in_canvas.push((x, y, fate, o));
        }
    }
    out.push_str("</g>");
    labels(out, &labelled, f.height);
    out.push_str("</svg>");
    if canvas {
        canvas_data(out, &in_canvas);
    }
    out.push_str("<div class=\"tip\" hidden></div></div>");
}

/// The canvas marks as a JSON block: coordinates in tenths of map units, one fate letter
/// per mark, the hover texts.
fn canvas_data(out: &mut String, marks: &[(f64, f64, Fate, &Placed)]) {
    out.push_str("<script type=\"application/json\" class=\"map-data\">{\"x\":[");
    for (i, (x, _, _, _)) in marks.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let _ = write!(out, "{}", (x * 10.0).round() as i64);
    }
    out.push_str("],\"y\":[");
    for (i, (_, y, _, _)) in marks.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let _ = write!(out, "{}", (y * 10.0).round() as i64);
    }
    out.push_str("],\"f\":\"");
    out.extend(marks.iter().map(|m| m.2.code()));
    out.push_str("\",\"t\":[");
    for (i, (_, _, _, o)) in marks.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_json_string(out, &hover_text(o));
    }
    out.push_str("]}</script>");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn placed(key: &str, x: f64, y: f64) -> Placed {
        Placed {
            key: key.into(),
            id: Some(key.into()),
            name: Some(format!("n{key}")),
            at: [x, y],
            was: None,
        }
    }

    #[test]
    fn frames_keep_every_object_inside_the_map() {
        let objects = vec![
            placed("a", -1000.0, 5.0),
            placed("b", 1000.0, 7.0),
            placed("c", 0.0, 6.0),
        ];
        let f = Frame::of(&objects);
        for o in &objects {
            let (x, y) = f.map(o.at);
            assert!((PAD - 0.1..=WIDTH - PAD + 0.1).contains(&x), "{x}");
            assert!((0.0..=f.height).contains(&y), "{y}");
        }
        // y points up in the world, down on the map.
        assert!(f.map([0.0, 7.0]).1 < f.map([0.0, 5.0]).1);
    }

    #[test]
    fn small_maps_are_svg_and_large_ones_add_a_canvas_with_every_object() {
        let mut fates = Fates::new();
        fates.insert("1", (Fate::Added, "c0-0".to_string()));
        let few: Vec<Placed> = (0..10)
            .map(|i| placed(&i.to_string(), i as f64, 0.0))
            .collect();
        let mut out = String::new();
        render(&mut out, &few, &fates);
        assert_eq!(out.matches("<use class=\"mk ").count(), 10);
        assert!(out.contains("data-card=\"c0-0\""));
        assert!(!out.contains("<canvas"));
        let many: Vec<Placed> = (0..SVG_LIMIT + 5)
            .map(|i| placed(&i.to_string(), (i % 100) as f64, (i / 100) as f64))
            .collect();
        let mut out = String::new();
        render(&mut out, &many, &fates);
        assert_eq!(out.matches("<use class=\"mk ").count(), 1);
        assert!(out.contains("<canvas"));
        let start = out.find("class=\"map-data\">").unwrap() + "class=\"map-data\">".len();
        let end = out[start..].find("</script>").unwrap() + start;
        let data: serde_json::Value = serde_json::from_str(&out[start..end]).unwrap();
        assert_eq!(data["x"].as_array().unwrap().len(), SVG_LIMIT + 4);
        assert_eq!(data["f"].as_str().unwrap().len(), SVG_LIMIT + 4);
    }

    #[test]
    fn extreme_coordinates_give_a_bounded_grid() {
        for objects in [
            vec![placed("a", 1e12, 0.0), placed("b", 1e12 + 1e-3, 1e-3)],
            vec![placed("a", -1e300, 1e300), placed("b", 1e300, -1e300)],
            vec![placed("a", 3.0, 3.0)],
        ] {
            let mut out = String::new();
            render(&mut out, &objects, &Fates::new());
            assert!(
                out.matches("<line").count() <= 2 * GRID_MAX,
                "{}",
                out.len()
            );
            assert_eq!(out.matches("<use class=\"mk ").count(), objects.len());
        }
    }

    #[test]
    fn labels_never_overlap_each_other_or_marks() {
        let marks: Vec<(f64, f64, String)> = (0..40)
            .map(|i| {
                (
                    100.0 + (i % 5) as f64 * 12.0,
                    100.0 + (i / 5) as f64 * 9.0,
                    format!("object_{i}"),
                )
            })
            .collect();
        let placed = place_labels(&marks, 600.0);
        assert!(!placed.is_empty() && placed.len() < 40, "{}", placed.len());
        let overlap =
            |a: [f64; 4], b: [f64; 4]| a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];
        for (i, a) in placed.iter().enumerate() {
            for b in &placed[i + 1..] {
                assert!(!overlap(a.bounds, b.bounds));
            }
            for (x, y, _) in &marks {
                assert!(!overlap(a.bounds, [x - 7.0, y - 7.0, x + 7.0, y + 7.0]));
            }
        }
    }
}
