//! The three inputs of a merge as the coherence pass reads them: parsed documents, or
//! only their texts. A large merge frees the inputs' node tables before it parses its
//! result (they are most of its memory at that point): the pass then works from the ids
//! walked ahead ([`super::walk_sides`]) and parses a version again only when a repair
//! needs more of it, which the common merge does not.

use std::cell::{Cell, OnceCell};

use sjson::{Dialect, Document, ParseOptions};

use crate::{Side, Version};

/// The three inputs (base, ours, theirs) for [`super::repaired`].
pub struct Versions<'t>(Source<'t>);

/// Base's text again, read from where the caller has it (a file, a blob), when the pass
/// needs base whole; `None` when it cannot be read again unchanged.
pub type BaseAgain<'t> = &'t dyn Fn() -> Option<String>;

/// Where base's text is read from, when the versions are kept as texts (the sides' are
/// always held).
#[derive(Clone, Copy)]
enum BaseText<'t> {
    /// Held in memory.
    Held(&'t str),
    /// Not held: read again on demand.
    Again(BaseAgain<'t>),
}

#[allow(
    clippy::large_enum_variant,
    reason = "one per merge, never moved after it is made"
)]
enum Source<'t> {
    Parsed([&'t Document; 3]),
    Texts {
        base: (BaseText<'t>, Dialect),
        /// Ours' and theirs' texts.
        sides: [(&'t str, Dialect); 2],
        /// Base, ours and theirs, once parsed again.
        parsed: [OnceCell<Document>; 3],
        /// Whether a text failed to parse or be read again (see [`Versions::failed`]).
        failed: Cell<Option<Failure>>,
    },
}

/// Why a version kept as text could not be had again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Failure {
    /// Its text did not parse again, which it did once: a bug.
    Unparsable,
    /// Base could not be read again unchanged.
    BaseUnreadable,
}

impl<'t> Versions<'t> {
    /// Versions already parsed.
    pub fn parsed(base: &'t Document, ours: &'t Document, theirs: &'t Document) -> Self {
        Versions(Source::Parsed([base, ours, theirs]))
    }

    /// Versions kept as their texts, each with the dialect it parsed as before; a version
    /// is parsed again the first time the pass needs it whole.
    pub fn texts(
        base: (&'t str, Dialect),
        ours: (&'t str, Dialect),
        theirs: (&'t str, Dialect),
    ) -> Self {
        Self::kept((BaseText::Held(base.0), base.1), [ours, theirs])
    }

    /// [`Versions::texts`] without base's text: it is read again (`base.0`) the first
    /// time the pass needs base whole, which the common merge does not.
    pub(crate) fn texts_base_again(
        base: (BaseAgain<'t>, Dialect),
        ours: (&'t str, Dialect),
        theirs: (&'t str, Dialect),
    ) -> Self {
        Self::kept((BaseText::Again(base.0), base.1), [ours, theirs])
    }

    fn kept(base: (BaseText<'t>, Dialect), sides: [(&'t str, Dialect); 2]) -> Self {
        Versions(Source::Texts {
            base,
            sides,
            parsed: Default::default(),
            failed: Cell::new(None),
        })
    }

    /// The text of side `side`.
    pub(crate) fn side_text(&self, side: Side) -> &'t str {
        match &self.0 {
            Source::Parsed(docs) => docs[Version::from(side).index()].text(),
            Source::Texts { sides, .. } => sides[Version::from(side).index() - 1].0,
        }
    }

    /// Version `which`, parsed (on first use, for versions kept as texts); `None` when its
    /// text cannot be had again or does not parse again (which it did once), after
    /// which [`Versions::failed`] holds, the pass's answer is an error and no version is
    /// read or parsed again.
    pub(crate) fn doc(&self, which: Version) -> Option<&Document> {
        let (base, sides, parsed, failed) = match &self.0 {
            Source::Parsed(docs) => return Some(docs[which.index()]),
            Source::Texts {
                base,
                sides,
                parsed,
                failed,
            } => (base, sides, parsed, failed),
        };
        let cell = &parsed[which.index()];
        if let Some(doc) = cell.get() {
            return Some(doc);
        }
        if failed.get().is_some() {
            return None;
        }
        let (text, dialect) = match (which, base) {
            (Version::Base, (BaseText::Held(text), dialect)) => (text.to_string(), *dialect),
            (Version::Base, (BaseText::Again(read), dialect)) => match read() {
                Some(text) => (text, *dialect),
                None => {
                    failed.set(Some(Failure::BaseUnreadable));
                    return None;
                }
            },
            // (Ours and theirs follow base in `Version`'s order.)
            (side, _) => {
                let (text, dialect) = sides[side.index() - 1];
                (text.to_string(), dialect)
            }
        };
        // The text parsed before, under some depth limit: without one, it parses the same.
        let options = ParseOptions {
            dialect,
            max_depth: usize::MAX,
        };
        match Document::parse_with(text, options) {
            Ok(doc) => Some(cell.get_or_init(|| doc)),
            Err(_) => {
                failed.set(Some(Failure::Unparsable));
                None
            }
        }
    }

    /// Whether a version kept as its text could not be had again, and why (the pass's
    /// answer is then not to be used).
    pub(crate) fn failed(&self) -> Option<Failure> {
        match &self.0 {
            Source::Parsed(_) => None,
            Source::Texts { failed, .. } => failed.get(),
        }
    }

    /// How many versions kept as texts were parsed again (for tests).
    #[cfg(test)]
    pub(crate) fn parsed_again(&self) -> usize {
        match &self.0 {
            Source::Parsed(_) => 0,
            Source::Texts { parsed, .. } => parsed.iter().filter(|c| c.get().is_some()).count(),
        }
    }
}

#[cfg(test)]
mod tests;
