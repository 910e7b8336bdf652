//! What a merge reads and never changes ([`Context`]): the settings, the three versions,
//! the id keys, the engine format, the keyed arrays indexed so far and the moves each
//! side made. The merge's changing state is the merger's own ([`crate::merger`]).

use std::borrow::Cow;
use std::sync::Arc;

use sjson::{Document, Value};

use crate::keyed_index::{KeyedCache, KeyedIndex};
use crate::moves::Moves;
use crate::profile::Format;
use crate::versions::Versions;
use crate::{MergeOptions, Side};

/// The read-only side of a merge, built once before it starts (the moves detected then).
pub(crate) struct Context<'a> {
    opts: &'a MergeOptions,
    versions: Versions<'a>,
    /// The engine format, chosen once ([`crate::profile::resolve`]).
    format: Format,
    /// [`Context::keyed`] of each array seen, by (document address, node).
    keyed_cache: KeyedCache<'a>,
    moves: Moves,
}

impl<'a> Context<'a> {
    /// The context of merging `ours` and `theirs` from `base` with `opts`: the format
    /// resolved, the id keys gathered, both sides' moves found (and the keyed arrays
    /// indexed on the way kept for the merge).
    pub(crate) fn new(
        base: &'a Document,
        ours: &'a Document,
        theirs: &'a Document,
        opts: &'a MergeOptions,
    ) -> Self {
        let format = crate::profile::resolve(opts.profile, ours);
        let own = format
            .knowledge()
            .id_keys
            .iter()
            .map(|k| k.to_ascii_lowercase());
        let id_keys_lower = own
            .chain(opts.id_keys.iter().map(|k| k.to_ascii_lowercase()))
            .collect();
        let versions = Versions {
            base,
            ours,
            theirs,
            id_keys_lower,
        };
        let (moves, keyed) = Moves::detect(&versions, opts.threads);
        Context {
            opts,
            versions,
            format,
            keyed_cache: std::cell::RefCell::new(keyed),
            moves,
        }
    }

    /// The merge settings.
    pub(crate) fn opts(&self) -> &'a MergeOptions {
        self.opts
    }

    /// The three versions and their id keys.
    pub(crate) fn versions(&self) -> &Versions<'a> {
        &self.versions
    }

    /// The common ancestor.
    pub(crate) fn base(&self) -> &'a Document {
        self.versions.base
    }

    /// The current version.
    pub(crate) fn ours(&self) -> &'a Document {
        self.versions.ours
    }

    /// The other version.
    pub(crate) fn theirs(&self) -> &'a Document {
        self.versions.theirs
    }

    /// The document a side's values come from.
    pub(crate) fn doc(&self, side: Side) -> &'a Document {
        self.versions.doc(side)
    }

    /// The profile's id keys then the configured ones, lower-cased.
    pub(crate) fn id_keys_lower(&self) -> &[String] {
        &self.versions.id_keys_lower
    }

    /// The id key and id of an object, by the configured id keys (case-insensitive).
    pub(crate) fn id_of(&self, v: Value<'a>) -> Option<(Cow<'a, str>, Cow<'a, str>)> {
        self.versions.id_of(v)
    }

    /// The engine format.
    pub(crate) fn format(&self) -> Format {
        self.format
    }

    /// The moves each side made.
    pub(crate) fn moves(&self) -> &Moves {
        &self.moves
    }

    /// The side a true conflict is resolved to.
    pub(crate) fn policy_side(&self) -> Side {
        self.opts.policy.side()
    }

    /// The ids of `arr` if it is a keyed array: every element an object with an id under
    /// the same id key, ids unique (computed once per array and merge).
    pub(crate) fn keyed(&self, arr: Value<'a>) -> Option<Arc<KeyedIndex<'a>>> {
        let slot = (arr.doc() as *const Document as usize, arr.id());
        if let Some(cached) = self.keyed_cache.borrow().get(&slot) {
            return cached.clone();
        }
        let keyed = KeyedIndex::by_id(self.id_keys_lower(), arr).map(Arc::new);
        self.keyed_cache.borrow_mut().insert(slot, keyed.clone());
        keyed
    }

    /// Forgets [`Context::keyed`] of `arr`: asked again, it is built again. For a keyed
    /// array merged already, whose index its merge then owns alone.
    pub(crate) fn forget_keyed(&self, arr: Value<'a>) {
        let slot = (arr.doc() as *const Document as usize, arr.id());
        self.keyed_cache.borrow_mut().remove(&slot);
    }

    /// How many arrays are indexed so far (keyed or not).
    #[cfg(test)]
    pub(crate) fn arrays_indexed(&self) -> usize {
        self.keyed_cache.borrow().len()
    }
}
