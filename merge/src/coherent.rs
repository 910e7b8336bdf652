//! The coherent merge: the structural merge, its text parsed back (the check that the
//! printer's output parses), then the coherence pass (docs/design.md "Level coherence"), with
//! work that only reads the result beside the pass.

mod game_pass;

use sjson::{Dialect, Document, ParseOptions};

use crate::game::Game;
use crate::merger::Printed;
use crate::profile::Format;
use crate::{both, cocos, coherence, merger, Conflict, GateViolation, MergeError, MergeOptions};

/// The coherent merge of three documents read in place ([`crate::Inputs::Documents`]),
/// running `beside` on the result (with the conflicts found so far) while the coherence
/// pass checks it: work that only reads the result,
/// such as naming its conflicts for people, overlaps the pass on a large document. When
/// the pass repairs or reports anything, `beside` runs again on the final document with
/// every conflict and repair, so its answer always describes what is returned.
pub(crate) fn merge_beside<R: Send>(
    base: &Document,
    ours: &Document,
    theirs: &Document,
    options: &MergeOptions,
    beside: impl Fn(&Document, &[Conflict]) -> R + Sync,
) -> Result<Coherent<R>, MergeError> {
    match format_pass([base, ours, theirs], options) {
        Some(Pass::Graph) => return cocos_graph([base, ours, theirs], options, &beside),
        Some(Pass::Map(game)) => {
            return game_pass::merge(game, (base, ours, theirs), options, beside)
        }
        None => {}
    }
    merge_plain(base, ours, theirs, options, beside)
}

/// [`merge_beside`] without a map editor's rules ([`crate::game`]).
pub(crate) fn merge_plain<R: Send>(
    base: &Document,
    ours: &Document,
    theirs: &Document,
    options: &MergeOptions,
    beside: impl Fn(&Document, &[Conflict]) -> R + Sync,
) -> Result<Coherent<R>, MergeError> {
    let parallel = options.threads.parallel(ours.text().len());
    // The coherence pass walks the sides on the second core while the merge itself, which
    // runs on one, goes on (after move detection, which uses both).
    let merger = merger::Merger::new(base, ours, theirs, options);
    let edges = crate::edges::Edges::of(base, ours, theirs);
    let (walked, mut printed) = both(
        parallel,
        || parallel.then(|| coherence::walk_sides(ours, theirs, options)),
        || merger.run_split(),
    );
    (printed.text, printed.split) = edges.apply((printed.text, printed.split));
    let versions = coherence::Versions::parsed(base, ours, theirs);
    let ours_dialect = ours.dialect();
    let format = crate::profile::resolve(options.profile, ours);
    checked(
        &versions,
        (printed, Default::default()),
        walked,
        (ours_dialect, parallel, format),
        options,
        beside,
    )
}

/// [`merge_beside`] on versions given up to the merge: once the merged text is
/// printed, their node tables (most of the memory at that point of a large merge) are
/// freed before the result is parsed; the coherence pass works from their texts and the
/// ids walked ahead, and parses a version again only if a repair needs it.
///
/// With `base_again` (base's text read again from where the caller has it), base is
/// freed whole before the result is printed, when the result holds nothing of base (the
/// common case: it is printed from ours and theirs), and read again only if a repair
/// needs it; an error [`coherence::CoherenceError::BaseUnreadable`] if it then cannot be.
pub(crate) fn merge_owned<R: Send>(
    base: Document,
    ours: Document,
    theirs: Document,
    base_again: Option<coherence::BaseAgain<'_>>,
    options: &MergeOptions,
    beside: impl Fn(&Document, &[Conflict]) -> R + Sync,
) -> Result<Coherent<R>, MergeError> {
    match format_pass([&base, &ours, &theirs], options) {
        Some(Pass::Graph) => return cocos_graph([&base, &ours, &theirs], options, &beside),
        // A map editor's file is merged with its rules; it is small enough to keep whole.
        Some(Pass::Map(game)) => {
            return game_pass::merge(game, (&base, &ours, &theirs), options, beside)
        }
        None => {}
    }
    let parallel = options.threads.parallel(ours.text().len());
    let dialects = [base.dialect(), ours.dialect(), theirs.dialect()];
    let format = crate::profile::resolve(options.profile, &ours);
    let (walked, printed, base) = print_owned(base, &ours, &theirs, base_again, options, parallel);
    // The sides' node tables hold the result's parse; their texts stay.
    let (ours, ours_tables) = ours.into_parts();
    let (theirs, theirs_tables) = theirs.into_parts();
    let sides = [ours, theirs];
    let (ours, theirs) = ((&*sides[0], dialects[1]), (&*sides[1], dialects[2]));
    let versions = match &base {
        BaseAfter::Kept(text) => coherence::Versions::texts((text, dialects[0]), ours, theirs),
        BaseAfter::Again(again) => {
            coherence::Versions::texts_base_again((*again, dialects[0]), ours, theirs)
        }
    };
    checked(
        &versions,
        (printed, [ours_tables, theirs_tables]),
        Some(walked),
        (dialects[1], parallel, format),
        options,
        beside,
    )
}

/// A format's own merge pass, in place of the plain merge.
enum Pass {
    /// A Cocos Creator object graph ([`cocos::merge_cocos`]).
    Graph,
    /// A map editor's file ([`game_pass::merge`]).
    Map(Game),
}

/// The pass the merge's format takes ([`crate::profile::resolve`]: the configured profile,
/// else ours' content): a Cocos graph when all three versions are graphs; a map editor's
/// rules for Tiled and LDtk (theirs' content decides when ours' says nothing and no profile
/// was configured: ours may be a file the map editor has not written yet).
fn format_pass([base, ours, theirs]: [&Document; 3], options: &MergeOptions) -> Option<Pass> {
    match crate::profile::resolve(options.profile, ours) {
        Format::Cocos2 | Format::Cocos3 => [ours, theirs, base]
            .into_iter()
            .all(cocos::is_cocos)
            .then_some(Pass::Graph),
        format => Game::of_format(format)
            .or_else(|| {
                options
                    .profile
                    .is_none()
                    .then(|| Game::of(theirs))
                    .flatten()
            })
            .map(Pass::Map),
    }
}

fn cocos_graph<R>(
    [base, ours, theirs]: [&Document; 3],
    options: &MergeOptions,
    beside: &impl Fn(&Document, &[Conflict]) -> R,
) -> Result<Coherent<R>, MergeError> {
    cocos::merge_cocos(base, ours, theirs, options).and_then(|outcome| {
        let document = Document::parse_with(outcome.text, ParseOptions::new(ours.dialect()))
            .map_err(MergeError::Invalid)?;
        let format = crate::profile::resolve(options.profile, ours);
        let violations = crate::gate::recheck(&document, [base, ours, theirs], format, options);
        let conflicts = outcome.conflicts;
        let beside = beside(&document, &conflicts);
        Ok(Coherent {
            conflicts,
            violations,
            document,
            beside,
            unique_ids: false,
        })
    })
}

/// The size of base's text from which freeing it during the merge, and reading it again
/// if a repair needs it ([`crate::Inputs::Owned`]'s `base_again`), is worth its cost:
/// below it, base is small and kept.
pub const FREE_BASE_FROM: usize = 1 << 20;

/// A coherent merge's result ([`merge_beside`]).
#[derive(Debug)]
pub(crate) struct Coherent<R> {
    /// Every true conflict, then every repair.
    pub conflicts: Vec<Conflict>,
    /// Invariants the result breaks that its inputs kept (the result gate).
    pub violations: Vec<GateViolation>,
    /// The result, parsed.
    pub document: Document,
    /// What `beside` answered on `document`.
    pub beside: R,
    /// True when no two objects of `document`'s arrays hold the same id, as the coherence
    /// pass indexed them; false when two do, or when the pass changed the result (not
    /// indexed again here): a caller who must know then checks itself.
    pub unique_ids: bool,
}

/// Where the coherence pass finds base after the merge of versions given up to it.
enum BaseAfter<'a> {
    /// Its text, kept as it is held (a mapped file's is not copied).
    Kept(sjson::Text),
    /// Freed: read again on demand.
    Again(coherence::BaseAgain<'a>),
}

/// The structural merge of versions given up to it, printed, with the sides walked
/// beside it (whatever their size: only their texts are kept after the merge). Base is
/// freed before printing when the output holds nothing of it and `base_again` can read
/// it again; otherwise its text is kept.
fn print_owned<'a>(
    base: Document,
    ours: &Document,
    theirs: &Document,
    base_again: Option<coherence::BaseAgain<'a>>,
    options: &MergeOptions,
    parallel: bool,
) -> (coherence::SideWalk, Printed, BaseAfter<'a>) {
    let edges = crate::edges::Edges::of(&base, ours, theirs);
    let (out, conflicts) = merger::Merger::new(&base, ours, theirs, options).merge();
    // The sides are walked beside the printer (not beside the merge, whose memory is the
    // peak of a large merge).
    let print = |out: &sjson::Out<'_>| {
        let (walked, (text, split)) = both(
            parallel,
            || coherence::walk_sides(ours, theirs, options),
            || sjson::print_with_split(ours, out),
        );
        let (text, split) = edges.apply((text, split));
        (
            walked,
            Printed {
                text,
                conflicts,
                split,
            },
        )
    };
    let again = match base_again {
        Some(again) if out.only_from(&[ours, theirs]) => again,
        _ => {
            let (walked, printed) = print(&out);
            drop(out);
            return (walked, printed, BaseAfter::Kept(base.into_source()));
        }
    };
    let out = out
        .onto(&[ours, theirs])
        .expect("Out::only_from checked that every value is of ours or theirs");
    drop(base);
    let (walked, printed) = print(&out);
    (walked, printed, BaseAfter::Again(again))
}

/// The coherence pass on the printed merge, with `beside` run on the result beside it.
fn checked<R: Send>(
    versions: &coherence::Versions<'_>,
    (printed, reuse): (Printed, [sjson::Tables; 2]),
    walked: Option<coherence::SideWalk>,
    (ours_dialect, parallel, format): (Dialect, bool, crate::profile::Format),
    options: &MergeOptions,
    beside: impl Fn(&Document, &[Conflict]) -> R + Sync,
) -> Result<Coherent<R>, MergeError> {
    // The result is an edit of ours, in ours' dialect.
    let (mut conflicts, merged) = parse_printed(printed, ours_dialect, parallel, reuse)?;
    let id_keys_lower = crate::profile::id_keys_lower(format, options);
    let rules = |ids_known_unique| crate::gate::Rules {
        id_keys_lower: &id_keys_lower,
        format,
        ids_known_unique,
    };
    let gate = |document: &Document, ids_known_unique: bool| {
        crate::gate::check(document, |v| versions.doc(v), &rules(ids_known_unique))
    };
    // On a large result the gate looks at it beside the coherence pass, as if the pass will
    // find the ids unique and change nothing (the common case): a clean result is then
    // known clean. Otherwise the gate runs below.
    let ((early, ahead), checked) = both(
        parallel,
        || {
            let early = beside(&merged, &conflicts);
            (early, parallel && crate::gate::clean(&merged, &rules(true)))
        },
        || coherence::repaired(versions, &merged, options, walked),
    );
    let pass = checked?;
    let unique_ids = pass.unique_ids;
    if pass.document.is_none() && pass.reports.is_empty() {
        let violations = match ahead && unique_ids {
            true => Vec::new(),
            false => gate(&merged, unique_ids),
        };
        return Ok(Coherent {
            conflicts,
            violations,
            document: merged,
            beside: early,
            unique_ids,
        });
    }
    conflicts.extend(pass.reports);
    let document = pass.document.unwrap_or(merged);
    let violations = gate(&document, unique_ids);
    let beside = beside(&document, &conflicts);
    Ok(Coherent {
        conflicts,
        violations,
        document,
        beside,
        unique_ids,
    })
}

/// Parses the structural merge's text, as printed with its split hint, into the node
/// tables of versions no longer needed: its conflicts and the document.
fn parse_printed(
    printed: Printed,
    dialect: Dialect,
    parallel: bool,
    reuse: [sjson::Tables; 2],
) -> Result<(Vec<Conflict>, Document), MergeError> {
    let Printed {
        text,
        conflicts,
        split,
    } = printed;
    // A large result is parsed on two threads, from the printer's hint.
    let split = split.filter(|_| parallel);
    let merged = Document::parse_split_reusing(text, ParseOptions::new(dialect), split, reuse)
        .map_err(MergeError::Invalid)?;
    Ok((conflicts, merged))
}
