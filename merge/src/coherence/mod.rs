//! Level coherence (docs/design.md "Level coherence"): after the structural merge, a merged
//! level must not reference a missing object, hold a parent cycle, lose an object that no
//! side deleted, or hold an id twice. [`repair`] finds what breaks those invariants and
//! repairs it — restores referenced or orphaned objects from the side that kept them,
//! reverts the losing side's reparents on a cycle — reporting each repair as a
//! [`Conflict`] of kind `dangling-reference`, `cycle` or `orphan`. No I/O happens here.

mod apply;
mod index;
mod plan;
mod sides;
#[cfg(test)]
mod tests;
mod versions;

use std::sync::{Arc, Mutex, PoisonError};

use globset::{Glob, GlobSet, GlobSetBuilder};
use sjson::{Document, ParseError, ParseOptions};

use crate::{Conflict, MergeOptions};
use index::Matchers;
pub use versions::{BaseAgain, Versions};

/// What counts as a reference (`[references]` in assetvc.toml).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReferenceOptions {
    /// Globs on property names under which ids shorter than 8 characters are references.
    pub keys: Vec<String>,
    /// Globs on property names whose reference makes the referrer a child of the target.
    pub parent: Vec<String>,
}

impl Default for ReferenceOptions {
    fn default() -> Self {
        ReferenceOptions {
            keys: ["parent", "*_id", "*_ids", "target", "unit", "members"]
                .map(String::from)
                .to_vec(),
            parent: vec!["parent".into()],
        }
    }
}

/// Why the coherence pass cannot run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CoherenceError {
    /// A `[references]` glob does not compile.
    #[error("[references] {setting}: pattern {pattern:?}: {message}")]
    Pattern {
        /// `keys` or `parent`.
        setting: &'static str,
        /// The pattern.
        pattern: String,
        /// What is wrong.
        message: String,
    },
    /// Indexing a version failed (a bug; nothing is written).
    #[error("internal error: indexing a version for the coherence pass failed")]
    Internal,
    /// Base, not held in memory (`Versions::texts_base_again`), was needed and could not
    /// be read again unchanged; nothing is written.
    #[error("the base version was needed again and could not be read again unchanged (did it change during the merge?)")]
    BaseUnreadable,
    /// A repaired document did not parse back (a bug; nothing is written).
    #[error("internal error: the repaired document does not parse ({0})")]
    Invalid(ParseError),
}

/// At most this many rounds of repairs (each round's repairs can expose more).
const MAX_ROUNDS: usize = 64;

/// The `[references]` globs compiled.
struct Compiled {
    keys: GlobSet,
    parent: GlobSet,
}

/// How many distinct `[references]` settings [`compiled`] keeps.
const COMPILED_KEPT: usize = 8;

/// The globs of `references`, compiled once per process for each setting: a merge of a
/// tree merges thousands of files under one `MergeOptions`, and compiling the globs was
/// 4% of its time (the last few settings are kept, the most recent last).
fn compiled(references: &ReferenceOptions) -> Result<Arc<Compiled>, CoherenceError> {
    static KEPT: Mutex<Vec<(ReferenceOptions, Arc<Compiled>)>> = Mutex::new(Vec::new());
    let lock = || KEPT.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((_, c)) = lock().iter().find(|(r, _)| r == references) {
        return Ok(c.clone());
    }
    // Compiled outside the lock: two threads may both compile one setting, never wait.
    let c = Arc::new(Compiled {
        keys: globs("keys", &references.keys)?,
        parent: globs("parent", &references.parent)?,
    });
    let mut kept = lock();
    if !kept.iter().any(|(r, _)| r == references) {
        if kept.len() == COMPILED_KEPT {
            kept.remove(0);
        }
        kept.push((references.clone(), c.clone()));
    }
    Ok(c)
}

fn globs(setting: &'static str, patterns: &[String]) -> Result<GlobSet, CoherenceError> {
    let mut b = GlobSetBuilder::new();
    for p in patterns {
        let glob = Glob::new(p).map_err(|e| CoherenceError::Pattern {
            setting,
            pattern: p.clone(),
            message: e.kind().to_string(),
        })?;
        b.add(glob);
    }
    b.build().map_err(|e| CoherenceError::Pattern {
        setting,
        pattern: patterns.join(","),
        message: e.to_string(),
    })
}

/// Repairs `merged` (the structural merge of `base`, `ours`, `theirs`) until it holds the
/// coherence invariants; returns the repaired document and one report per repair.
pub fn repair(
    base: &Document,
    ours: &Document,
    theirs: &Document,
    merged: Document,
    options: &MergeOptions,
) -> Result<(Document, Vec<Conflict>), CoherenceError> {
    let versions = Versions::parsed(base, ours, theirs);
    let pass = repaired(&versions, &merged, options, None)?;
    Ok((pass.document.unwrap_or(merged), pass.reports))
}

/// What [`repaired`] found.
#[derive(Debug)]
pub struct Repaired {
    /// The repaired document, `None` when the result needed no change.
    pub document: Option<Document>,
    /// One report per repair (the reports may also name ambiguities when nothing changed).
    pub reports: Vec<Conflict>,
    /// True when no two objects of the result's arrays hold the same id, as the pass
    /// indexed them; false when two do, or when the pass changed the result (whose
    /// rounds are not told apart here): then a caller who needs to know checks itself.
    pub unique_ids: bool,
}

/// Ours' and theirs' id'd objects, walked before the merged document exists (the walk
/// needs nothing of it): [`walk_sides`], for [`repaired`]. It holds no borrow of the
/// documents, whose node tables can be freed once it is taken (their texts kept).
pub struct SideWalk {
    ours: sides::Detached,
    theirs: sides::Detached,
}

/// Walks ours and theirs for their id'd objects: work the coherence pass can take ahead,
/// beside the structural merge.
pub fn walk_sides(ours: &Document, theirs: &Document, options: &MergeOptions) -> SideWalk {
    let id_keys_lower = lower(&options.id_keys);
    SideWalk {
        ours: sides::Detached::of(ours, &id_keys_lower),
        theirs: sides::Detached::of(theirs, &id_keys_lower),
    }
}

/// The id keys as the walks match them.
fn lower(id_keys: &[String]) -> Vec<String> {
    id_keys.iter().map(|k| k.to_ascii_lowercase()).collect()
}

/// [`repair`] reading `merged` in place (see [`Repaired`]). `walked`: the sides' objects
/// from [`walk_sides`] with the same options, if they were walked ahead (versions kept
/// as texts are parsed again if they were not, or when a repair needs them).
pub fn repaired(
    versions: &Versions<'_>,
    merged: &Document,
    options: &MergeOptions,
    walked: Option<SideWalk>,
) -> Result<Repaired, CoherenceError> {
    let pass = repaired_from(versions, merged, options, walked);
    // A version kept as text that cannot be had again (a freed base unreadable, or a bug:
    // a text that does not parse again) leaves the pass's answer untrusted.
    match versions.failed() {
        Some(versions::Failure::Unparsable) => Err(CoherenceError::Internal),
        Some(versions::Failure::BaseUnreadable) => Err(CoherenceError::BaseUnreadable),
        None => pass,
    }
}

fn repaired_from(
    versions: &Versions<'_>,
    merged: &Document,
    options: &MergeOptions,
    walked: Option<SideWalk>,
) -> Result<Repaired, CoherenceError> {
    let id_keys_lower = lower(&options.id_keys);
    let globs = compiled(&options.references)?;
    let m = Matchers {
        id_keys_lower: &id_keys_lower,
        keys: &globs.keys,
        parent: &globs.parent,
        threads: options.threads,
    };
    // Only the result is indexed in full; the sides are measured against it by one
    // id-only walk each (what they hold that the result lacks is what can need a
    // repair). Base, and a side's full index, are looked at when a repair needs them.
    let mut state = plan::State::new(versions, &m, options.policy);
    let survey = state.survey(merged, walked);
    let unique_ids = survey.im.dups.is_empty();
    let unchanged = move |reports| Repaired {
        document: None,
        reports,
        unique_ids,
    };
    let sides = &survey.sides;
    if sides.iter().all(|s| s.count == 0) {
        drop(survey);
        return Ok(unchanged(Vec::new()));
    }
    // An id a side holds twice is not a refusal: Stingray writes each flow node twice
    // with one id (the runtime `flow` and `editor_metadata.Flow`), one entity in two
    // places. A reference to it names the entity; the holders stay as the side has them
    // (`dedupe` leaves a side's own repeats alone), and `check` reports repeats within
    // one keyed array.
    let dialect = merged.dialect();
    let mut reports = Vec::new();
    // The first round uses the index built above; later rounds index the repaired text.
    let first = {
        let (edits, mut found) = state.plan(merged, Some(survey));
        reports.append(&mut found);
        (!edits.is_empty()).then(|| apply::apply(merged, &edits))
    };
    let Some(text) = first else {
        return Ok(unchanged(reports));
    };
    let mut doc =
        Document::parse_with(text, ParseOptions::new(dialect)).map_err(CoherenceError::Invalid)?;
    for _ in 1..MAX_ROUNDS {
        let text = {
            let (edits, mut found) = state.plan(&doc, None);
            if edits.is_empty() {
                break;
            }
            reports.append(&mut found);
            apply::apply(&doc, &edits)
        };
        doc = Document::parse_with(text, ParseOptions::new(dialect))
            .map_err(CoherenceError::Invalid)?;
    }
    Ok(Repaired {
        document: Some(doc),
        reports,
        unique_ids: false,
    })
}
