//! The three versions of a merge and how their objects are identified: what move
//! detection and the merge's context read.

use std::borrow::Cow;

use sjson::{Document, Value};

use crate::Side;

/// Base, ours and theirs, with the id keys that name their objects.
pub(crate) struct Versions<'a> {
    /// The common ancestor.
    pub(crate) base: &'a Document,
    /// The current version.
    pub(crate) ours: &'a Document,
    /// The other version.
    pub(crate) theirs: &'a Document,
    /// The profile's id keys then the configured ones, lower-cased.
    pub(crate) id_keys_lower: Vec<String>,
}

impl<'a> Versions<'a> {
    /// The document a side's values come from.
    pub(crate) fn doc(&self, side: Side) -> &'a Document {
        match side {
            Side::Ours => self.ours,
            Side::Theirs => self.theirs,
        }
    }

    /// The id key and id of an object, by the id keys (case-insensitive).
    pub(crate) fn id_of(&self, v: Value<'a>) -> Option<(Cow<'a, str>, Cow<'a, str>)> {
        crate::id::id_of(&self.id_keys_lower, v)
    }
}
