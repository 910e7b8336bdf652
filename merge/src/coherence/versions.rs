//! The three inputs of a merge as the coherence pass reads them: parsed documents, or
//! only their texts. A large merge frees the inputs' node tables before it parses its
//! result (they are most of its memory at that point): the pass then works from the ids
//! walked ahead ([`super::walk_sides`]) and parses a version again only when a repair
//! needs more of it, which the common merge does not.

use std::cell::{Cell, OnceCell};

use sjson::{Dialect, Document, ParseOptions};

use crate::Side;

/// One of the three inputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Which {
    Base,
    Ours,
    Theirs,
}

impl Which {
    fn index(self) -> usize {
        match self {
            Which::Base => 0,
            Which::Ours => 1,
            Which::Theirs => 2,
        }
    }
}

impl From<Side> for Which {
    fn from(side: Side) -> Which {
        match side {
            Side::Ours => Which::Ours,
            Side::Theirs => Which::Theirs,
        }
    }
}

/// The three inputs (base, ours, theirs) for [`super::repaired`].
pub struct Versions<'t>(Source<'t>);

#[allow(
    clippy::large_enum_variant,
    reason = "one per merge, never moved after it is made"
)]
enum Source<'t> {
    Parsed([&'t Document; 3]),
    Texts {
        texts: [(&'t str, Dialect); 3],
        parsed: [OnceCell<Document>; 3],
        /// Whether a text failed to parse again (see [`Versions::failed`]).
        failed: Cell<bool>,
    },
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
        Versions(Source::Texts {
            texts: [base, ours, theirs],
            parsed: Default::default(),
            failed: Cell::new(false),
        })
    }

    /// The text of version `which`.
    pub(crate) fn text(&self, which: Which) -> &'t str {
        match &self.0 {
            Source::Parsed(docs) => docs[which.index()].text(),
            Source::Texts { texts, .. } => texts[which.index()].0,
        }
    }

    /// Version `which`, parsed (on first use, for versions kept as texts); `None` when its
    /// text does not parse again, which it did once: a bug, after which
    /// [`Versions::failed`] holds and the pass's answer is an error.
    pub(crate) fn doc(&self, which: Which) -> Option<&Document> {
        let (texts, parsed, failed) = match &self.0 {
            Source::Parsed(docs) => return Some(docs[which.index()]),
            Source::Texts {
                texts,
                parsed,
                failed,
            } => (texts, parsed, failed),
        };
        let cell = &parsed[which.index()];
        if let Some(doc) = cell.get() {
            return Some(doc);
        }
        // The text parsed before, under some depth limit: without one, it parses the same.
        let (text, dialect) = texts[which.index()];
        let options = ParseOptions {
            dialect,
            max_depth: usize::MAX,
        };
        match Document::parse_with(text.to_string(), options) {
            Ok(doc) => Some(cell.get_or_init(|| doc)),
            Err(_) => {
                failed.set(true);
                None
            }
        }
    }

    /// Whether a version kept as its text failed to parse again (a bug: the pass's
    /// answer is then not to be used).
    pub(crate) fn failed(&self) -> bool {
        match &self.0 {
            Source::Parsed(_) => false,
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
