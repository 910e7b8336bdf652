//! Moving an [`Out`] from the documents it was built against onto a subset of them, so
//! that the others can be freed before it is printed: a merge builds its result from
//! three versions, but prints only values of two of them (ours and theirs).

use std::borrow::Cow;

use crate::{Document, Out, OutItem, Value};

impl<'a> Out<'a> {
    /// Whether every value this holds belongs to one of `docs` (by address).
    pub fn only_from(&self, docs: &[&Document]) -> bool {
        let ok = |v: &Value<'_>| docs.iter().any(|d| std::ptr::eq(v.doc(), *d));
        match self {
            Out::Value(v) => ok(v),
            Out::Lexeme(_) => true,
            Out::Run { last, .. } => ok(last),
            Out::Container { ours, items, .. } => {
                ours.as_ref().is_none_or(ok)
                    && items.iter().all(|item| {
                        item.ours.as_ref().is_none_or(ok)
                            && item.origin.as_ref().is_none_or(ok)
                            && item.value.only_from(docs)
                    })
            }
        }
    }

    /// The same output, borrowing only `docs`: each value is looked up again in the
    /// document it belongs to, and each borrowed string is sliced again from the text of
    /// one of `docs` that holds it, or copied. `None` when a value belongs to none of
    /// `docs` (see [`Out::only_from`]). Large containers are converted in place.
    pub fn onto<'b>(self, docs: &[&'b Document]) -> Option<Out<'b>> {
        let value = |v: Value<'a>| -> Option<Value<'b>> {
            let doc = docs.iter().find(|d| std::ptr::eq(v.doc(), **d))?;
            Some(doc.value(v.id()))
        };
        // `Some(None)` for no value, `None` for a value of none of `docs`.
        let value_opt = |v: Option<Value<'a>>| v.map_or(Some(None), |v| value(v).map(Some));
        Some(match self {
            Out::Value(v) => Out::Value(value(v)?),
            Out::Lexeme(s) => Out::Lexeme(text_onto(s, docs)),
            Out::Run { last, count } => Out::Run {
                last: value(last)?,
                count,
            },
            Out::Container { kind, ours, items } => {
                let ours = value_opt(ours)?;
                // `collect` into a `Vec` of the same layout reuses the allocation.
                let items: Option<Vec<OutItem<'b>>> = items
                    .into_iter()
                    .map(|item| {
                        Some(OutItem {
                            key: item.key.map(|k| text_onto(k, docs)),
                            ours: value_opt(item.ours)?,
                            origin: value_opt(item.origin)?,
                            value: item.value.onto(docs)?,
                        })
                    })
                    .collect();
                Out::Container {
                    kind,
                    ours,
                    items: items?,
                }
            }
        })
    }
}

/// `s` borrowed from the text of one of `docs` if it lies in one, else owned.
fn text_onto<'b>(s: Cow<'_, str>, docs: &[&'b Document]) -> Cow<'b, str> {
    let borrowed = match s {
        Cow::Owned(s) => return Cow::Owned(s),
        Cow::Borrowed(s) => s,
    };
    let start = borrowed.as_ptr() as usize;
    for doc in docs {
        let text = doc.text();
        let from = text.as_ptr() as usize;
        if start >= from && start + borrowed.len() <= from + text.len() {
            if let Some(again) = text.get(start - from..start - from + borrowed.len()) {
                return Cow::Borrowed(again);
            }
        }
    }
    Cow::Owned(borrowed.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{print, Dialect, Kind};

    fn doc(text: &str) -> Document {
        Document::parse(text, Dialect::Sjson).unwrap()
    }

    fn member<'d>(d: &'d Document, key: &str) -> Value<'d> {
        d.root().get(key).unwrap()
    }

    #[test]
    fn an_output_moved_onto_its_documents_prints_the_same() {
        let (a, b, c) = (doc("x = 1\ny = [1 2]\n"), doc("x = 2\n"), doc("z = 3\n"));
        let key_from_c = c.root().members().next().unwrap().0;
        let out = Out::Container {
            kind: Kind::Object,
            ours: Some(a.root()),
            items: vec![
                OutItem {
                    key: Some(Cow::Borrowed(&a.text()[..1])),
                    ours: Some(member(&a, "x")),
                    origin: None,
                    value: Out::Value(member(&b, "x")),
                },
                OutItem {
                    key: Some(key_from_c),
                    ours: None,
                    origin: None,
                    value: Out::Lexeme(Cow::Borrowed("4")),
                },
            ],
        };
        let printed = print(&a, &out);
        assert!(out.only_from(&[&a, &b]));
        assert!(!out.only_from(&[&a]), "b's value is not a's");
        let moved = out.clone().onto(&[&a, &b]).unwrap();
        assert_eq!(print(&a, &moved), printed);
        let Out::Container { items, .. } = &moved else {
            panic!("a container stays one");
        };
        // The key borrowed from a is borrowed again; c's key, not in a or b, is copied.
        assert!(matches!(items[0].key, Some(Cow::Borrowed("x"))));
        assert!(matches!(items[1].key, Some(Cow::Owned(ref k)) if k == "z"));
        assert!(out.onto(&[&a]).is_none());
    }
}
