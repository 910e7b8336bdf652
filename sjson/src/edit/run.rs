//! Runs: one item standing for a stretch of the printing document's items kept as they
//! stand ([`Out::Run`]). A large array's merge keeps most of its elements; a run holds a
//! stretch of them in one item where an item each would take a table as large as the
//! array (10 MB for 100,000 elements). The printer prints a run exactly as the items it
//! stands for, one by one ([`OutItem::each`]).

use std::borrow::Cow;

use super::{Out, OutItem};
use crate::doc::NodeId;
use crate::value::Value;

impl<'a> OutItem<'a> {
    /// `v`, an element of an array of the printing document, kept as it stands: its
    /// text, lead and trailer printed as they are where its array is printed in place.
    pub fn kept(v: Value<'a>) -> Self {
        OutItem {
            key: None,
            ours: Some(v),
            origin: None,
            value: Out::Value(v),
        }
    }

    /// Extends this item, when it holds elements kept as they stand (see
    /// [`OutItem::kept`]), by `next`, an element of the same array: when `next` is the
    /// element right after them there, this item becomes (or stays) a run ending at
    /// `next`, and the answer is true; otherwise nothing changes and it is false.
    pub fn extend_kept(&mut self, next: Value<'a>) -> bool {
        let (Some(first), None, None) = (self.ours, &self.key, self.origin) else {
            return false;
        };
        let (last, count) = match &self.value {
            Out::Value(v) if v.id() == first.id() && std::ptr::eq(v.doc(), first.doc()) => {
                (first, 1)
            }
            Out::Run { last, count } => (*last, *count),
            _ => return false,
        };
        let doc = last.doc();
        let adjacent = std::ptr::eq(doc, next.doc()) && doc.next(last.id()) == next.id().0;
        if !adjacent || next.key_lexeme().is_some() {
            return false;
        }
        self.value = Out::Run {
            last: next,
            count: count + 1,
        };
        true
    }

    /// How many items this stands for: a run's count, else one.
    pub(crate) fn width(&self) -> usize {
        match &self.value {
            Out::Run { count, .. } => *count,
            _ => 1,
        }
    }

    /// Whether this is a run ([`Out::Run`]).
    pub(crate) fn is_run(&self) -> bool {
        matches!(self.value, Out::Run { .. })
    }

    /// The items this stands for, in order: itself, or for a run each of its elements
    /// as [`OutItem::kept`] makes it (at most [`OutItem::width`] of them).
    pub(crate) fn each(&self) -> Each<'_, 'a> {
        match (&self.value, self.ours) {
            (Out::Run { last, count }, Some(first)) => Each::Run {
                next: Some(first),
                last: *last,
                left: *count,
            },
            (Out::Run { .. }, None) => Each::One(None),
            _ => Each::One(Some(self)),
        }
    }
}

/// The items an item stands for ([`OutItem::each`]).
pub(crate) enum Each<'i, 'a> {
    /// An item standing for itself (taken once).
    One(Option<&'i OutItem<'a>>),
    /// The elements of a run still to come.
    Run {
        /// The next element, if any.
        next: Option<Value<'a>>,
        /// The run's last element.
        last: Value<'a>,
        /// How many elements may still come.
        left: usize,
    },
}

impl<'i, 'a> Iterator for Each<'i, 'a> {
    type Item = Cow<'i, OutItem<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Each::One(item) => item.take().map(Cow::Borrowed),
            Each::Run { next, last, left } => {
                let v = next.take().filter(|_| *left > 0)?;
                *left -= 1;
                let doc = v.doc();
                let after = doc.next(v.id());
                if v.id() != last.id() && (after as usize) < doc.node_count() {
                    *next = Some(doc.value(NodeId(after)));
                }
                Some(Cow::Owned(OutItem::kept(v)))
            }
        }
    }
}

/// `items` with each run replaced by the items it stands for; borrowed when none is a
/// run.
pub(crate) fn expanded<'i, 'a>(items: &'i [OutItem<'a>]) -> Cow<'i, [OutItem<'a>]> {
    if !items.iter().any(OutItem::is_run) {
        return Cow::Borrowed(items);
    }
    Cow::Owned(
        items
            .iter()
            .flat_map(OutItem::each)
            .map(Cow::into_owned)
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{print_with_split, Dialect, Document, Kind};

    /// A 3,000-element array edited in place (two elements dropped, one replaced), with
    /// an item per element and with runs: the same text and the same split hint.
    #[test]
    fn a_large_arrays_runs_print_as_its_items() {
        let mut text = String::from("name = \"level\"\nentities = [\n");
        for i in 0..3000 {
            text.push_str(&format!(
                "\t{{ id = \"e{i}\" pos = [{i} 0 1.5] }} // e{i}\n"
            ));
        }
        text.push_str("]\n");
        let doc = Document::parse(text.as_str(), Dialect::Sjson).unwrap();
        let entities = doc.root().get("entities").unwrap();
        let edited = |runs: bool| {
            let mut items: Vec<OutItem<'_>> = Vec::new();
            for (i, e) in entities.children().enumerate() {
                if i == 7 || i == 1500 {
                    continue;
                }
                if i == 2000 {
                    items.push(OutItem {
                        value: Out::Lexeme(Cow::Borrowed("{}")),
                        ..OutItem::kept(e)
                    });
                    continue;
                }
                if !(runs && items.last_mut().is_some_and(|l| l.extend_kept(e))) {
                    items.push(OutItem::kept(e));
                }
            }
            let root_items = doc
                .root()
                .members()
                .map(|(k, v)| OutItem {
                    value: match v.id() == entities.id() {
                        true => Out::Container {
                            kind: Kind::Array,
                            ours: Some(v),
                            items: items.clone(),
                        },
                        false => Out::Value(v),
                    },
                    key: Some(k),
                    ours: Some(v),
                    origin: None,
                })
                .collect();
            let out = Out::Container {
                kind: Kind::Object,
                ours: Some(doc.root()),
                items: root_items,
            };
            (print_with_split(&doc, &out), items.len())
        };
        let ((one_by_one, split), n) = edited(false);
        let ((with_runs, run_split), runs) = edited(true);
        assert_eq!(n, 2998);
        // Four runs around the two drops and the replaced element, which is not one.
        assert_eq!(runs, 5);
        assert_eq!(with_runs, one_by_one);
        assert!(split.is_some());
        assert_eq!(run_split, split);
    }

    /// Only the element right after a run's last, of the same document, extends it.
    #[test]
    fn only_the_next_element_extends_a_run() {
        let doc = Document::parse("l = [1 [2 3] 4 5]\nm = {a = 1}", Dialect::Sjson).unwrap();
        let other = Document::parse("l = [1 [2 3] 4 5]", Dialect::Sjson).unwrap();
        let l: Vec<Value<'_>> = doc.root().get("l").unwrap().children().collect();
        let inner: Vec<Value<'_>> = l[1].children().collect();
        let mut run = OutItem::kept(l[0]);
        assert!(!run.extend_kept(l[2]));
        assert!(!run.extend_kept(inner[0]));
        let theirs = other.root().get("l").unwrap().children().nth(1).unwrap();
        assert!(!run.extend_kept(theirs));
        assert!(run.extend_kept(l[1]));
        assert!(run.extend_kept(l[2]));
        assert!(run.extend_kept(l[3]));
        assert_eq!(run.width(), 4);
        let each: Vec<String> = run.each().map(|i| i.ours.unwrap().text().into()).collect();
        assert_eq!(each, ["1", "[2 3]", "4", "5"]);
        // After the array's last element comes the next member: not an element.
        let m = doc.root().get("m").unwrap();
        assert!(!run.extend_kept(m));
        // A member of an object is no element.
        let a = m.get("a").unwrap();
        let mut member = OutItem::kept(a);
        assert!(!member.extend_kept(a));
    }
}
