//! `assetvc diff` text lines with a map editor's tile grids summarised: the changes of
//! one grid's cells as one line (`layers[Ground #1].data: 17 cells changed in x 3..8,
//! y 2..5`), in place of its first cell's change.

use merge::diff::Diff;
use merge::naming::Names;
use sjson::Document;

use super::paint::Paint;

/// The lines of `d` (from `old` to `new`) for people, objects named by `names`.
pub(super) fn change_lines(
    d: &Diff<'_>,
    (old, new): (Option<&Document>, Option<&Document>),
    names: &Names<'_>,
    paint: Paint,
) -> Vec<String> {
    let grids = match (old, new) {
        (Some(o), Some(n)) => merge::grid_changes(o, n),
        _ => Vec::new(),
    };
    let mut shown = vec![false; grids.len()];
    let mut lines = Vec::new();
    for c in &d.changes {
        match grids.iter().position(|g| g.covers(c)) {
            Some(i) if !std::mem::replace(&mut shown[i], true) => {
                lines.push(paint.yellow(&grids[i].text_with(|p| names.path(p))));
            }
            Some(_) => {}
            None => lines.push(paint.change(c, names)),
        }
    }
    lines
}
