//! The pass for map editors' files ([`crate::game`]): theirs' clashing new ids renumbered
//! before the coherent merge, grids merged cell by cell and counters raised after it.

use sjson::{Document, Path, Segment};

use super::{merge_plain, Coherent};
use crate::game::{spliced, Game};
use crate::{counters, grid, Conflict, MergeError, MergeOptions};

/// The coherent merge of a map editor's file: theirs' new ids that clash with ours' are
/// renumbered first, then the structural merge and coherence pass run, then the result's
/// grids are merged cell by cell and its counters set above its ids. Each renumbering
/// and each grid's cell conflicts are reported among the conflicts.
pub(crate) fn merge<R: Send>(
    game: Game,
    (base, ours, theirs): (&Document, &Document, &Document),
    options: &MergeOptions,
    beside: impl Fn(&Document, &[Conflict]) -> R + Sync,
) -> Result<Coherent<R>, MergeError> {
    let options = game.options(options);
    let renumbered = counters::renumber(game, base, ours, theirs).map_err(MergeError::Invalid)?;
    let theirs = renumbered.document.as_ref().unwrap_or(theirs);
    let mut merged = merge_plain(base, ours, theirs, &options, &beside)?;
    let grids = grid::merge_grids(game, [base, ours, theirs], &merged.document, options.policy);
    let mut edits = grids.edits;
    edits.extend(grid::duplicate_chunks(game, &merged.document));
    edits.extend(counters::counter_edits(game, &merged.document));
    let superseded = |c: &Conflict| grids.replaced.iter().any(|p| is_under(&c.path, p));
    let conflicts = &mut merged.conflicts;
    let reported = conflicts.len();
    conflicts.retain(|c| !superseded(c));
    let reports_changed =
        conflicts.len() != reported || !renumbered.reports.is_empty() || !grids.reports.is_empty();
    conflicts.splice(0..0, renumbered.reports);
    conflicts.extend(grids.reports);
    let changed = !edits.is_empty();
    if changed {
        merged.document = spliced(&merged.document, edits).map_err(MergeError::Invalid)?;
        merged.unique_ids = false;
        // The gate again, on the result with its grids and counters.
        let format = crate::profile::resolve(options.profile, ours);
        merged.violations =
            crate::gate::recheck(&merged.document, [base, ours, theirs], format, &options);
    }
    if changed || reports_changed {
        merged.beside = beside(&merged.document, &merged.conflicts);
    }
    Ok(merged)
}

/// Whether `path` is `parent` or lies below it, step by step as their pointers read (a
/// number step the same whether an index or a key).
fn is_under(path: &Path, parent: &Path) -> bool {
    path.0.len() >= parent.0.len() && path.0.iter().zip(&parent.0).all(|(a, b)| same_step(a, b))
}

/// Whether two steps read the same in a pointer (`3` as an index and as a key).
fn same_step(a: &Segment, b: &Segment) -> bool {
    match (a, b) {
        (Segment::Index(i), Segment::Key(k)) | (Segment::Key(k), Segment::Index(i)) => {
            *k == i.to_string()
        }
        _ => a == b,
    }
}
