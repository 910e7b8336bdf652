//! The identities of an array's elements, in order, held as spans of the document's text:
//! 8 bytes an id where a `Cow<str>` takes 24. A 100,000-element array's ids are listed for
//! each of the three versions during a merge.

use std::borrow::Cow;
use std::ops::Index;

use crate::id_table::IdSource;

/// The length that marks an id held in [`IdList::owned`], its start being the index there.
const OWNED: u32 = u32::MAX;

/// Ids in order: those borrowed from `text` as spans of it, the others (escaped strings,
/// numbers, ids made for an alignment) owned.
pub(crate) struct IdList<'a> {
    /// The text the borrowed ids lie in (the document's).
    text: &'a str,
    /// Each id: start and length in `text`, or its index in `owned` and [`OWNED`].
    spans: Vec<(u32, u32)>,
    /// The ids not in `text`.
    owned: Vec<Box<str>>,
}

impl<'a> IdList<'a> {
    /// An empty list of ids that mostly lie in `text`, with room for `capacity`.
    pub(crate) fn with_capacity(text: &'a str, capacity: usize) -> Self {
        IdList {
            text,
            spans: Vec::with_capacity(capacity),
            owned: Vec::new(),
        }
    }

    /// A list of `ids`, those that lie in `text` kept as spans of it.
    pub(crate) fn from_ids(text: &'a str, ids: impl IntoIterator<Item = Cow<'a, str>>) -> Self {
        let ids = ids.into_iter();
        let mut list = IdList::with_capacity(text, ids.size_hint().0);
        for id in ids {
            list.push(id);
        }
        list
    }

    /// Appends `id`.
    pub(crate) fn push(&mut self, id: Cow<'a, str>) {
        if let Cow::Borrowed(s) = id {
            if let Some(span) = self.span_of(s) {
                self.spans.push(span);
                return;
            }
        }
        let at = u32::try_from(self.owned.len()).expect("fewer than 2^32 ids");
        self.owned.push(id.into_owned().into_boxed_str());
        self.spans.push((at, OWNED));
    }

    /// Where `s` lies in `text`, if it does (and fits a span).
    fn span_of(&self, s: &str) -> Option<(u32, u32)> {
        let start = (s.as_ptr() as usize).checked_sub(self.text.as_ptr() as usize)?;
        let end = start.checked_add(s.len())?;
        (end <= self.text.len()).then_some(())?;
        let len = u32::try_from(s.len()).ok().filter(|&l| l != OWNED)?;
        Some((u32::try_from(start).ok()?, len))
    }

    /// How many ids there are.
    pub(crate) fn len(&self) -> usize {
        self.spans.len()
    }

    /// Whether there are none.
    pub(crate) fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// The id at `i`.
    pub(crate) fn get(&self, i: usize) -> &str {
        match self.spans[i] {
            (at, OWNED) => &self.owned[at as usize],
            (start, len) => &self.text[start as usize..(start + len) as usize],
        }
    }

    /// The ids in order.
    pub(crate) fn iter(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }
}

impl Index<usize> for IdList<'_> {
    type Output = str;

    fn index(&self, i: usize) -> &str {
        self.get(i)
    }
}

impl IdSource for IdList<'_> {
    fn id_at(&self, at: usize) -> &str {
        self.get(at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_in_the_text_are_spans_the_others_owned() {
        let text = "a = \"door\" b = \"lamp\"";
        let ids = [
            Cow::Borrowed(&text[5..9]),
            Cow::Owned("\u{0}7".to_string()),
            Cow::Borrowed("elsewhere"),
            Cow::Borrowed(&text[16..20]),
            Cow::Borrowed(&text[21..]),
        ];
        let list = IdList::from_ids(text, ids.clone());
        assert_eq!(list.len(), 5);
        assert!(list.iter().eq(ids.iter().map(|id| &**id)));
        assert_eq!(&list[3], "lamp");
        assert_eq!(
            list.owned.len(),
            2,
            "the number and the id outside the text"
        );
        assert_eq!(list.spans[0], (5, 4));
        assert_eq!(list.spans[4], (21, 0));
        assert!(IdList::from_ids("", []).is_empty());
    }
}
