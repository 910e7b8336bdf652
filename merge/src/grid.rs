//! Tile grids merged cell by cell: a Tiled tile layer's (or infinite map chunk's) `data`
//! and an LDtk layer's `intGridCsv` are width × height cells. Merged as a sequence, both
//! sides' painting shifts cells and changes the grid's length; here each cell is merged
//! on its own, at its coordinates: one side's change wins over base, both changing a cell
//! differently is a conflict resolved by policy, and one grid's conflicts are reported as
//! one entry (how many cells, in which box). A resize on one side is kept (the result's
//! width and height are the merge's) and the other side's painting is replayed at the
//! same coordinates, so the grid always holds exactly width × height cells.

use std::collections::HashMap;

use sjson::{Document, Kind, Path, Segment, Value};

use crate::game::{int, walk, Edit, Game};
use crate::{Conflict, ConflictKind, Policy, Side};

/// A grid of a document.
pub(crate) struct Grid<'d> {
    /// What pairs it across versions: its object's pointer, a chunk by its coordinates.
    pub(crate) key: String,
    /// The place of its cells' array (`/layers/[id=3]/data`).
    pub(crate) pointer: Path,
    pub(crate) width: usize,
    pub(crate) height: usize,
    /// The coordinates of its first cell (a chunk's place in an infinite map).
    pub(crate) origin: (i64, i64),
    /// Whether it is a chunk of an infinite map (where no chunk is, every cell is empty).
    pub(crate) chunk: bool,
    /// The cells' array.
    pub(crate) cells: Value<'d>,
}

impl<'d> Grid<'d> {
    /// Whether it holds exactly width × height numbers.
    pub(crate) fn is_whole(&self) -> bool {
        Some(self.cells.len()) == self.width.checked_mul(self.height)
            && self.cells.children().all(|c| c.kind() == Kind::Number)
    }

    pub(crate) fn lexemes(&self) -> Vec<&'d str> {
        self.cells.children().map(|c| c.text()).collect()
    }
}

/// The grids of `doc`, whole or not.
pub(crate) fn grids(game: Game, doc: &Document) -> Vec<Grid<'_>> {
    let (member, wide, high) = match game {
        Game::Tiled => ("data", "width", "height"),
        Game::Ldtk => ("intGridCsv", "__cWid", "__cHei"),
    };
    let mut out = Vec::new();
    walk(doc.root(), &mut Path::root(), &mut |v, path| {
        if v.kind() != Kind::Object {
            return;
        }
        let Some(cells) = v.get(member).filter(|c| c.kind() == Kind::Array) else {
            return;
        };
        let size = |k: &str| int(v.get(k)).and_then(|n| usize::try_from(n).ok());
        let (Some(width), Some(height)) = (size(wide), size(high)) else {
            return;
        };
        let chunk = match (path.0.last(), int(v.get("x")), int(v.get("y"))) {
            (Some(Segment::Index(_)), Some(x), Some(y)) if game == Game::Tiled => Some((x, y)),
            _ => None,
        };
        let key = match chunk {
            Some((x, y)) => format!("{}@{x},{y}", Path(path.0[..path.0.len() - 1].to_vec())),
            None => path.to_string(),
        };
        let mut pointer = path.clone();
        pointer.push(Segment::Key(member.into()));
        let origin = chunk.unwrap_or((0, 0));
        out.push(Grid {
            key,
            pointer,
            width,
            height,
            origin,
            chunk: chunk.is_some(),
            cells,
        });
    });
    out
}

/// The edits that drop every chunk of an infinite map's layer after the first at the
/// same coordinates (two sides that each painted where no chunk was add one chunk each,
/// and the structural merge keeps both): the first is merged cell by cell from both.
pub(crate) fn duplicate_chunks(game: Game, doc: &Document) -> Vec<Edit> {
    if game != Game::Tiled {
        return Vec::new();
    }
    let mut edits = Vec::new();
    walk(doc.root(), &mut Path::root(), &mut |v, _| {
        let Some(chunks) = v.get("chunks").filter(|c| c.kind() == Kind::Array) else {
            return;
        };
        let mut seen = std::collections::HashSet::new();
        let mut previous: Option<Value<'_>> = None;
        for chunk in chunks.children() {
            let at = (int(chunk.get("x")), int(chunk.get("y")));
            let placed = at.0.is_some() && at.1.is_some();
            match previous {
                Some(p) if placed && !seen.insert(at) => {
                    edits.push((p.span().end..chunk.span().end, String::new()));
                }
                _ => {
                    seen.insert(at);
                }
            }
            previous = Some(chunk);
        }
    });
    edits
}

/// The grids of a merge's result, merged cell by cell from the versions'.
pub(crate) struct GridMerge {
    /// The replacements of the result's grids that differ from the cell-by-cell merge.
    pub(crate) edits: Vec<Edit>,
    /// The places of the grids merged cell by cell (the structural merge's conflicts
    /// inside them are superseded).
    pub(crate) replaced: Vec<Path>,
    /// One [`ConflictKind::Cells`] per grid where both sides painted a cell differently.
    pub(crate) reports: Vec<Conflict>,
}

/// Merges each grid of `merged` cell by cell from its `[base, ours, theirs]` versions.
pub(crate) fn merge_grids(
    game: Game,
    versions: [&Document; 3],
    merged: &Document,
    policy: Policy,
) -> GridMerge {
    let mut out = GridMerge {
        edits: Vec::new(),
        replaced: Vec::new(),
        reports: Vec::new(),
    };
    let result = grids(game, merged);
    if result.is_empty() {
        return out;
    }
    let [base, ours, theirs] = versions.map(|d| {
        let whole = grids(game, d).into_iter().filter(Grid::is_whole);
        whole.map(|g| (g.key.clone(), g)).collect::<HashMap<_, _>>()
    });
    let mut merged_keys = std::collections::HashSet::new();
    for g in &result {
        // A second chunk at one place is dropped ([`duplicate_chunks`]).
        if !merged_keys.insert(g.key.as_str()) {
            continue;
        }
        let [b, o, t] = [&base, &ours, &theirs].map(|m| m.get(&g.key));
        if o.is_none() && t.is_none() || !within_versions(g, [b, o, t]) {
            continue;
        }
        let merge = merge_cells(g, [b, o, t], policy.side());
        out.replaced.push(g.pointer.clone());
        if g.cells.len() != merge.cells.len() || g.lexemes() != merge.cells {
            out.edits.push((g.cells.span(), render(g, o, &merge.cells)));
        }
        if let Some(report) = merge.report(g, policy.side()) {
            out.reports.push(report);
        }
    }
    out
}

/// Whether result grid `g`'s size is one its versions' widths and heights allow (no wider
/// than the widest, no higher than the highest), so that a corrupt size never makes the
/// merge fill a grid bigger than the versions hold.
fn within_versions(g: &Grid<'_>, versions: [Option<&Grid<'_>>; 3]) -> bool {
    let present = versions.iter().flatten();
    let width = present.clone().map(|v| v.width).max().unwrap_or(0);
    let height = present.clone().map(|v| v.height).max().unwrap_or(0);
    let cells: usize = present.map(|v| v.cells.len()).sum();
    g.width <= width
        && g.height <= height
        && g.width
            .checked_mul(g.height)
            .is_some_and(|n| n <= cells.saturating_mul(4))
}

/// One grid merged: its cells, and where both sides painted a cell differently.
struct Cells<'d> {
    cells: Vec<&'d str>,
    conflicts: usize,
    /// The conflicts' bounding box: min x, min y, max x, max y.
    bounds: Option<(i64, i64, i64, i64)>,
}

impl Cells<'_> {
    fn report(&self, g: &Grid<'_>, taken: Side) -> Option<Conflict> {
        let (x0, y0, x1, y1) = self.bounds?;
        let n = self.conflicts;
        let plural = if n == 1 { "" } else { "s" };
        Some(Conflict {
            path: g.pointer.clone(),
            kind: ConflictKind::Cells,
            base: None,
            ours: None,
            theirs: None,
            taken,
            object: Some(format!("{n} cell{plural} in x {x0}..{x1}, y {y0}..{y1}")),
            referrer: None,
        })
    }
}

/// The cells of result grid `g` (its width and height) from the versions' grids at the
/// same coordinates: a cell only one side changed from base takes that side's value.
fn merge_cells<'d>(g: &Grid<'_>, versions: [Option<&Grid<'d>>; 3], taken: Side) -> Cells<'d> {
    let [b, o, t] = versions.map(|v| v.map(|g| (g.width, g.lexemes())));
    // A chunk base did not have: its cells were empty.
    let empty = g.chunk && b.is_none();
    let at = |v: &Option<(usize, Vec<&'d str>)>, x: usize, y: usize| {
        let (width, cells) = v.as_ref()?;
        (x < *width).then(|| cells.get(y * width + x).copied())?
    };
    let mut out = Cells {
        cells: Vec::with_capacity(g.width * g.height),
        conflicts: 0,
        bounds: None,
    };
    for y in 0..g.height {
        for x in 0..g.width {
            let bc = at(&b, x, y).or(empty.then_some("0"));
            let (oc, tc) = (at(&o, x, y), at(&t, x, y));
            let cell = match (oc, tc) {
                (Some(o), Some(t)) if o == t || bc == Some(t) => o,
                (Some(o), Some(t)) if bc == Some(o) => t,
                (Some(o), Some(t)) => {
                    let (cx, cy) = (x as i64 + g.origin.0, y as i64 + g.origin.1);
                    out.conflicts += 1;
                    out.bounds = Some(match out.bounds {
                        None => (cx, cy, cx, cy),
                        Some((a, b, c, d)) => (a.min(cx), b.min(cy), c.max(cx), d.max(cy)),
                    });
                    match taken {
                        Side::Ours => o,
                        Side::Theirs => t,
                    }
                }
                (Some(one), None) | (None, Some(one)) => one,
                (None, None) => bc.unwrap_or("0"),
            };
            out.cells.push(cell);
        }
    }
    out
}

/// `cells` as an array written like the result's (or ours') array: its brackets'
/// padding and the separator between its first two cells.
fn render(g: &Grid<'_>, ours: Option<&Grid<'_>>, cells: &[&str]) -> String {
    let style = [Some(g), ours]
        .into_iter()
        .flatten()
        .find(|s| s.cells.len() >= 2)
        .unwrap_or(g);
    let text = style.cells.doc().text();
    let span = style.cells.span();
    let mut children = style.cells.children();
    let (first, second, last) = (
        children.next(),
        children.next(),
        style.cells.children().last(),
    );
    let sep = match (first, second) {
        (Some(a), Some(b)) => &text[a.span().end..b.span().start],
        _ => ",",
    };
    let (open, close) = match (first, last) {
        (Some(a), Some(z)) => (
            &text[span.start..a.span().start],
            &text[z.span().end..span.end],
        ),
        _ => ("[", "]"),
    };
    let mut out = String::with_capacity(cells.len() * (sep.len() + 2) + 2);
    out.push_str(open);
    for (i, cell) in cells.iter().enumerate() {
        if i > 0 {
            out.push_str(sep);
        }
        out.push_str(cell);
    }
    out.push_str(close);
    out
}
