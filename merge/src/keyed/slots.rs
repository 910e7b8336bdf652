//! The merged elements of a keyed array by slot (see `merge_keyed`): ours' elements by
//! ours' position, theirs' elements that ours lacks by `ours.len()` + theirs' position.
//!
//! Almost every element of a large merge is ours' own, kept as it stands. Those cost a
//! byte each, not an item (104 bytes: 10 MB for a 100,000-element array, the
//! largest table of the merge's peak), and the result holds each stretch of them as one
//! run ([`OutItem::extend_kept`]), which the printer prints as the items it stands for.

use sjson::OutItem;

use crate::hashing::SeededMap;
use crate::keyed_index::Elements;

/// What the result holds of one of ours' elements.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Held {
    /// Nothing: the result drops it.
    Dropped,
    /// The element as it stands.
    Kept,
    /// Its merged item (in `Slots::merged`).
    Merged,
}

/// The merged elements of a keyed array by slot.
pub(super) struct Slots<'a> {
    /// What the result holds of each of ours' elements, in order: a byte each.
    ours: Vec<Held>,
    /// The merged items of ours' elements neither dropped nor kept as they stand, by
    /// ours' position, in order (taken out as the result is built). They are few.
    merged: Vec<(u32, Option<OutItem<'a>>)>,
    /// The elements only theirs has, by slot. They are few, so they are kept apart: a
    /// slot for each of theirs' elements would double the table.
    theirs: SeededMap<usize, OutItem<'a>>,
}

impl<'a> Slots<'a> {
    /// Slots for `ours` elements of ours, none filled yet.
    pub(super) fn new(ours: usize) -> Self {
        Slots {
            ours: Vec::with_capacity(ours),
            merged: Vec::new(),
            theirs: SeededMap::default(),
        }
    }

    /// Ours' next element, kept as it stands.
    pub(super) fn push_kept(&mut self) {
        self.ours.push(Held::Kept);
    }

    /// Ours' next element: its merged item, `None` where the result drops it.
    pub(super) fn push_ours(&mut self, item: Option<OutItem<'a>>) {
        let held = match item {
            Some(item) => {
                // Positions fit `u32`: a document's nodes are numbered by `u32`.
                self.merged.push((self.ours.len() as u32, Some(item)));
                Held::Merged
            }
            None => Held::Dropped,
        };
        self.ours.push(held);
    }

    /// Theirs' element that ours lacks, at `slot`.
    pub(super) fn insert_theirs(&mut self, slot: usize, item: OutItem<'a>) {
        self.theirs.insert(slot, item);
    }

    /// Whether the result holds the element of slot `r`.
    pub(super) fn holds(&self, r: usize) -> bool {
        match self.ours.get(r) {
            Some(&held) => held != Held::Dropped,
            None => self.theirs.contains_key(&r),
        }
    }

    /// The elements of the slots in `order` (each held, each once), in that order; `os`
    /// holds ours' elements. Ours' elements kept as they stand that follow one another
    /// in ours and in `order` become one run.
    pub(super) fn into_ordered(mut self, order: &[u32], os: &Elements<'_, 'a>) -> Vec<OutItem<'a>> {
        let mut out: Vec<OutItem<'a>> = Vec::new();
        for &r in order {
            let item = match self.ours.get(r as usize) {
                Some(Held::Kept) => {
                    let v = os.at(r as usize);
                    if out.last_mut().is_some_and(|last| last.extend_kept(v)) {
                        continue;
                    }
                    Some(OutItem::kept(v))
                }
                Some(Held::Dropped) => None,
                Some(Held::Merged) => self
                    .merged
                    .binary_search_by_key(&r, |(at, _)| *at)
                    .ok()
                    .and_then(|k| self.merged[k].1.take()),
                None => self.theirs.remove(&(r as usize)),
            };
            out.extend(item);
        }
        out
    }
}
