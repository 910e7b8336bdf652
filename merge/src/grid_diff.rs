//! A tile grid's changes between two versions for people: one line per grid, the count
//! of cells changed and their bounding box (`layers[Ground #1].data: 17 cells changed in
//! x 3..8, y 2..5`), instead of one line per cell.

use sjson::{Document, Path};

use crate::diff::Change;
use crate::game::Game;
use crate::grid::{grids, Grid};

/// A grid changed between two versions of a Tiled map or LDtk project.
pub struct GridChange<'a> {
    /// The report pointer of the grid's cells (`/layers/[id=1]/data`).
    pub pointer: String,
    /// Cells that differ at the same coordinates.
    pub cells: usize,
    /// The changed cells' bounding box: min x, min y, max x, max y.
    pub bounds: Option<(i64, i64, i64, i64)>,
    /// Old and new width × height, when the grid was resized.
    pub resized: Option<((usize, usize), (usize, usize))>,
    old: sjson::Value<'a>,
    new: sjson::Value<'a>,
}

impl GridChange<'_> {
    /// Whether `change` is a change of this grid's cells (or of the whole cells' array).
    pub fn covers(&self, change: &Change<'_>) -> bool {
        let inside = |grid: sjson::Value<'_>, v: sjson::Value<'_>| {
            std::ptr::eq(grid.doc(), v.doc()) && grid.contains(v.id())
        };
        match change {
            Change::Changed { old, new, .. } => inside(self.new, *new) || inside(self.old, *old),
            Change::Added { value, .. } | Change::Moved { value, .. } => inside(self.new, *value),
            Change::Removed { value, .. } => inside(self.old, *value),
        }
    }

    /// The change as one line, the grid's place rendered by `place` from its pointer.
    pub fn text_with(&self, place: impl Fn(&Path) -> String) -> String {
        let path = Path::parse(&self.pointer).unwrap_or_default();
        let mut line = format!("{}: ", place(&path));
        let plural = if self.cells == 1 { "" } else { "s" };
        line.push_str(&format!("{} cell{plural} changed", self.cells));
        if let Some((x0, y0, x1, y1)) = self.bounds {
            line.push_str(&format!(" in x {x0}..{x1}, y {y0}..{y1}"));
        }
        if let Some(((ow, oh), (nw, nh))) = self.resized {
            line.push_str(&format!(", resized {ow}×{oh} → {nw}×{nh}"));
        }
        line
    }
}

/// The grids that changed from `old` to `new` when both are a map editor's file (none
/// otherwise: one look at the roots).
pub fn grid_changes<'a>(old: &'a Document, new: &'a Document) -> Vec<GridChange<'a>> {
    let Some(game) = Game::of_sides(new, old) else {
        return Vec::new();
    };
    let before: std::collections::HashMap<String, Grid<'a>> = grids(game, old)
        .into_iter()
        .filter(Grid::is_whole)
        .map(|g| (g.key.clone(), g))
        .collect();
    grids(game, new)
        .into_iter()
        .filter(Grid::is_whole)
        .filter_map(|g| {
            let o = before.get(&g.key)?;
            let change = compare(o, &g);
            (change.cells > 0 || change.resized.is_some()).then_some(change)
        })
        .collect()
}

fn compare<'a>(old: &Grid<'a>, new: &Grid<'a>) -> GridChange<'a> {
    let (a, b) = (old.lexemes(), new.lexemes());
    let mut change = GridChange {
        pointer: new.pointer.to_string(),
        cells: 0,
        bounds: None,
        resized: ((old.width, old.height) != (new.width, new.height))
            .then_some(((old.width, old.height), (new.width, new.height))),
        old: old.cells,
        new: new.cells,
    };
    for y in 0..old.height.min(new.height) {
        for x in 0..old.width.min(new.width) {
            if a[y * old.width + x] == b[y * new.width + x] {
                continue;
            }
            let (cx, cy) = (x as i64 + new.origin.0, y as i64 + new.origin.1);
            change.cells += 1;
            change.bounds = Some(match change.bounds {
                None => (cx, cy, cx, cy),
                Some((x0, y0, x1, y1)) => (x0.min(cx), y0.min(cy), x1.max(cx), y1.max(cy)),
            });
        }
    }
    change
}
