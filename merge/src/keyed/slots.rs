//! The merged elements of a keyed array by slot (see `merge_keyed`): ours' elements by
//! ours' position, theirs' elements that ours lacks by `ours.len()` + theirs' position.
//!
//! Almost every element of a large merge is ours' own, kept as it stands. Those cost a
//! code each (4 bytes), not an item (104 bytes: 10 MB for a 100,000-element array, the
//! largest table of the merge's peak), and the result holds each stretch of them as one
//! run ([`OutItem::extend_kept`]), which the printer prints as the items it stands for.

use sjson::OutItem;

use crate::hashing::SeededMap;
use crate::keyed_index::Elements;

/// The code of ours' element the result drops.
const DROPPED: u32 = u32::MAX;
/// The code of ours' element the result keeps as it stands.
const KEPT: u32 = u32::MAX - 1;

/// The merged elements of a keyed array by slot.
pub(super) struct Slots<'a> {
    /// For each of ours' elements in order: [`DROPPED`], [`KEPT`], or the position of its
    /// merged item in `merged`.
    ours: Vec<u32>,
    /// The merged items of ours' elements neither dropped nor kept as they stand (taken
    /// out as the result is built).
    merged: Vec<Option<OutItem<'a>>>,
    /// The elements only theirs has, by slot. They are few, so they are kept apart: a
    /// slot for each of theirs' elements would double the table.
    theirs: SeededMap<usize, OutItem<'a>>,
    /// How many slots there are (ours' elements and theirs').
    pub(super) slots: usize,
}

impl<'a> Slots<'a> {
    /// Slots for `ours` elements of ours and `theirs` of theirs, none filled yet.
    pub(super) fn new(ours: usize, theirs: usize) -> Self {
        Slots {
            ours: Vec::with_capacity(ours),
            merged: Vec::new(),
            theirs: SeededMap::default(),
            slots: ours + theirs,
        }
    }

    /// Ours' next element, kept as it stands.
    pub(super) fn push_kept(&mut self) {
        self.ours.push(KEPT);
    }

    /// Ours' next element: its merged item, `None` where the result drops it.
    pub(super) fn push_ours(&mut self, item: Option<OutItem<'a>>) {
        let code = match item {
            // Never more merged items than `KEPT`: nodes are numbered by `u32`.
            Some(item) if self.merged.len() < KEPT as usize => {
                self.merged.push(Some(item));
                (self.merged.len() - 1) as u32
            }
            _ => DROPPED,
        };
        self.ours.push(code);
    }

    /// Theirs' element that ours lacks, at `slot`.
    pub(super) fn insert_theirs(&mut self, slot: usize, item: OutItem<'a>) {
        self.theirs.insert(slot, item);
    }

    /// Whether the result holds the element of slot `r`.
    pub(super) fn holds(&self, r: usize) -> bool {
        match self.ours.get(r) {
            Some(&code) => code != DROPPED,
            None => self.theirs.contains_key(&r),
        }
    }

    /// The elements of the slots in `order` (each held, each once), in that order; `os`
    /// holds ours' elements. Ours' elements kept as they stand that follow one another
    /// in ours and in `order` become one run.
    pub(super) fn into_ordered(mut self, order: &[u32], os: &Elements<'_, 'a>) -> Vec<OutItem<'a>> {
        let mut out: Vec<OutItem<'a>> = Vec::new();
        for &r in order {
            let r = r as usize;
            let item = match self.ours.get(r) {
                Some(&KEPT) => {
                    let v = os.at(r);
                    if out.last_mut().is_some_and(|last| last.extend_kept(v)) {
                        continue;
                    }
                    Some(OutItem::kept(v))
                }
                Some(&DROPPED) => None,
                Some(&k) => self.merged.get_mut(k as usize).and_then(Option::take),
                None => self.theirs.remove(&r),
            };
            out.extend(item);
        }
        out
    }
}
