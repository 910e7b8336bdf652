//! Runs ([`Out::Run`]): an edit whose arrays hold stretches of kept elements as runs
//! prints byte for byte as the same edit with an item for each element, with the same
//! split hint, in place and in containers printed fresh, and after `Out::onto`.

use std::borrow::Cow;

use levelgen::Rng;
use sjson::{Document, Kind, Out, OutItem, Value};

/// One random edit of a document, built twice: with an item per kept element, and with
/// kept elements that follow one another grouped into runs.
pub(crate) struct Edit<'d> {
    pub(crate) items: Out<'d>,
    pub(crate) runs: Out<'d>,
}

/// A random edit of `doc` from `seed`: elements dropped, replaced, added, containers
/// rebuilt inside or printed fresh; everything else kept.
pub(crate) fn edit(doc: &Document, seed: u64) -> Edit<'_> {
    let mut rng = Rng::new(seed);
    let (items, runs) = container(doc.root(), &mut rng, true);
    Edit { items, runs }
}

/// The edit of container `v` (twice, see [`Edit`]); `root`: the document's root, which
/// is always printed in place.
fn container<'d>(v: Value<'d>, rng: &mut Rng, root: bool) -> (Out<'d>, Out<'d>) {
    let mut items = Vec::new();
    let mut runs: Vec<OutItem<'d>> = Vec::new();
    let array = v.kind() == Kind::Array;
    let new_item = |rng: &mut Rng| OutItem {
        key: (!array).then(|| Cow::Owned(format!("new{}", rng.below(1000)))),
        ours: None,
        origin: None,
        value: Out::Lexeme(Cow::Borrowed("7")),
    };
    for child in v.children() {
        if rng.percent(8) {
            let item = new_item(rng);
            items.push(item.clone());
            runs.push(item);
        }
        match rng.below(100) {
            // Dropped.
            0..=7 => continue,
            // Replaced by a new value.
            8..=15 => {
                let item = OutItem {
                    value: Out::Lexeme(Cow::Borrowed("0.5")),
                    ..OutItem::kept(child)
                };
                let item = OutItem {
                    key: child.key(),
                    ..item
                };
                items.push(item.clone());
                runs.push(item);
                continue;
            }
            // Rebuilt inside.
            16..=30 if child.is_container() => {
                let (a, b) = container(child, rng, false);
                let item = |value| OutItem {
                    key: child.key(),
                    ours: Some(child),
                    origin: None,
                    value,
                };
                items.push(item(a));
                runs.push(item(b));
                continue;
            }
            _ => {}
        }
        let kept = OutItem {
            key: child.key(),
            ..OutItem::kept(child)
        };
        items.push(kept.clone());
        // A run ends where the edit starts a new item at random, too.
        let extended = !rng.one_in(5) && runs.last_mut().is_some_and(|r| r.extend_kept(child));
        if !extended {
            runs.push(kept);
        }
    }
    // Printed fresh now and then: a container of another document.
    let ours = (root || !rng.one_in(6)).then_some(v);
    let out = |items| Out::Container {
        kind: v.kind(),
        ours,
        items,
    };
    (out(items), out(runs))
}
