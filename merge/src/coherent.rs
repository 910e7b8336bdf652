//! The coherent merge: the structural merge, its text parsed back (the check that the
//! printer's output parses), then the coherence pass (DESIGN.md "Level coherence"), with
//! work that only reads the result beside the pass.

use sjson::{Dialect, Document, ParseOptions};

use crate::PARALLEL_FROM;
use crate::{both, coherence, merger, Conflict, MergeError, MergeOptions, MergeOutcome};

/// [`crate::merge_coherent_document`], running `beside` on the result (with the conflicts
/// found so far) while the coherence pass checks it: work that only reads the result,
/// such as naming its conflicts for people, overlaps the pass on a large document. When
/// the pass repairs or reports anything, `beside` runs again on the final document with
/// every conflict and repair, so its answer always describes what is returned.
pub fn merge_coherent_beside<R: Send>(
    base: &Document,
    ours: &Document,
    theirs: &Document,
    options: &MergeOptions,
    beside: impl Fn(&Document, &[Conflict]) -> R + Sync,
) -> Result<Coherent<R>, MergeError> {
    coherent(Inputs::Borrowed(base, ours, theirs), options, beside)
}

/// [`merge_coherent_beside`] on versions given up to the merge: once the merged text is
/// printed, their node tables (most of the memory at that point of a large merge) are
/// freed before the result is parsed; the coherence pass works from their texts and the
/// ids walked ahead, and parses a version again only if a repair needs it.
pub fn merge_coherent_owned<R: Send>(
    base: Document,
    ours: Document,
    theirs: Document,
    options: &MergeOptions,
    beside: impl Fn(&Document, &[Conflict]) -> R + Sync,
) -> Result<Coherent<R>, MergeError> {
    coherent(Inputs::Owned(base, ours, theirs), options, beside)
}

/// A coherent merge's result ([`merge_coherent_beside`]).
#[derive(Debug)]
pub struct Coherent<R> {
    /// The conflicts and repairs; `text` is empty, the text is `document`'s.
    pub outcome: MergeOutcome,
    /// The result, parsed.
    pub document: Document,
    /// What `beside` answered on `document`.
    pub beside: R,
    /// True when no two objects of `document`'s arrays hold the same id, as the coherence
    /// pass indexed them; false when two do, or when the pass changed the result (not
    /// indexed again here): a caller who must know then checks itself.
    pub unique_ids: bool,
}

/// The three versions (base, ours, theirs), borrowed or given up to the merge.
#[allow(
    clippy::large_enum_variant,
    reason = "one per merge, taken apart at once"
)]
enum Inputs<'a> {
    Borrowed(&'a Document, &'a Document, &'a Document),
    Owned(Document, Document, Document),
}

fn coherent<R: Send>(
    inputs: Inputs<'_>,
    options: &MergeOptions,
    beside: impl Fn(&Document, &[Conflict]) -> R + Sync,
) -> Result<Coherent<R>, MergeError> {
    let (base, ours, theirs) = match &inputs {
        Inputs::Borrowed(b, o, t) => (*b, *o, *t),
        Inputs::Owned(b, o, t) => (b, o, t),
    };
    let parallel = ours.text().len() >= PARALLEL_FROM;
    let dialects = [base.dialect(), ours.dialect(), theirs.dialect()];
    // The coherence pass walks the sides on the second core while the merge itself, which
    // runs on one, goes on (after move detection, which uses both). Versions given up are
    // walked whatever their size: only their texts are kept after the merge.
    let walk = parallel || matches!(inputs, Inputs::Owned(..));
    let merger = merger::Merger::new(base, ours, theirs, options);
    let (walked, printed) = both(
        parallel,
        || walk.then(|| coherence::walk_sides(ours, theirs, options)),
        || merger.run_split(),
    );
    let texts;
    let versions = match inputs {
        Inputs::Borrowed(b, o, t) => coherence::Versions::parsed(b, o, t),
        Inputs::Owned(b, o, t) => {
            texts = [b.into_text(), o.into_text(), t.into_text()];
            let [b, o, t] = [0, 1, 2].map(|i| (texts[i].as_str(), dialects[i]));
            coherence::Versions::texts(b, o, t)
        }
    };
    // The result is an edit of ours, in ours' dialect.
    let (mut outcome, merged) = parse_printed(printed, dialects[1])?;
    let (early, checked) = both(
        parallel,
        || beside(&merged, &outcome.conflicts),
        || coherence::repaired(&versions, &merged, options, walked),
    );
    let pass = checked?;
    let unique_ids = pass.unique_ids;
    if pass.document.is_none() && pass.reports.is_empty() {
        return Ok(Coherent {
            outcome,
            document: merged,
            beside: early,
            unique_ids,
        });
    }
    outcome.conflicts.extend(pass.reports);
    let document = pass.document.unwrap_or(merged);
    let beside = beside(&document, &outcome.conflicts);
    Ok(Coherent {
        outcome,
        document,
        beside,
        unique_ids,
    })
}

/// Parses the structural merge's text, as printed with its split hint; the outcome's
/// `text` is empty, the text is the document's.
fn parse_printed(
    (mut outcome, split): (MergeOutcome, Option<sjson::Split>),
    dialect: Dialect,
) -> Result<(MergeOutcome, Document), MergeError> {
    let text = std::mem::take(&mut outcome.text);
    // A large result is parsed on two threads, from the printer's hint.
    let split = split.filter(|_| text.len() >= PARALLEL_FROM);
    let merged = Document::parse_split(text, ParseOptions::new(dialect), split)
        .map_err(MergeError::Invalid)?;
    Ok((outcome, merged))
}
