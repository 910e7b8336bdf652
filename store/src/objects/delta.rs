//! A tree's [`Delta`] from its parent's index and the files that changed: objects
//! compared by id, and an id that left one file for another paired as a move. Pure.

use std::collections::{BTreeMap, HashMap, HashSet};

use super::incremental::Edit;
use super::{Delta, Entry, Located, ObjectChange, TreeIndex};

/// A changed file of a tree: its path and its new blob id with its objects (`None`: it
/// does not parse), or `None` when it was removed.
pub(super) type ChangedFile = (String, Option<(String, Option<BTreeMap<String, Entry>>)>);

/// A changed file scanned by its changes: path, new blob id, and the objects that changed.
pub(super) type EditedFile = (String, String, Edit);

/// The delta from `index` (of tree `base`) to the tree in which `files` and `edited`
/// changed (no path in both).
pub(super) fn delta_of(
    index: &TreeIndex,
    base: String,
    files: Vec<ChangedFile>,
    edited: Vec<EditedFile>,
) -> Delta {
    let empty = BTreeMap::new();
    let mut delta = Delta {
        base,
        ..Delta::default()
    };
    let (mut removed, mut created) = (Vec::new(), Vec::new());
    for (path, new) in files {
        let old = index.files.get(&path).map_or(&empty, |f| &f.objects);
        let new = match new {
            Some((blob, objects)) => {
                delta
                    .blobs
                    .push((path.clone(), Some((blob, objects.is_some()))));
                objects.unwrap_or_default()
            }
            None => {
                delta.blobs.push((path.clone(), None));
                BTreeMap::new()
            }
        };
        diff_file(
            &path,
            old,
            &new,
            &mut delta.changes,
            &mut removed,
            &mut created,
        );
    }
    for (path, blob, edit) in edited {
        let old = index.files.get(&path).map_or(&empty, |f| &f.objects);
        delta.blobs.push((path.clone(), Some((blob, true))));
        diff_edit(
            &path,
            old,
            &edit,
            &mut delta.changes,
            &mut removed,
            &mut created,
        );
    }
    pair_moves(removed, created, &mut delta.changes);
    delta
}

/// `entry` of the file at `path`, as a change names it.
fn located(path: &str, entry: &Entry) -> Located {
    Located {
        path: path.to_string(),
        entry: entry.clone(),
    }
}

/// Changes of one file's objects from an [`Edit`]: only the objects it names are looked
/// at (the others' text did not change), in the order [`diff_file`] gives them.
fn diff_edit(
    path: &str,
    old: &BTreeMap<String, Entry>,
    edit: &Edit,
    changes: &mut Vec<ObjectChange>,
    removed: &mut Vec<(String, Located)>,
    created: &mut Vec<(String, Located)>,
) {
    let located = |entry: &Entry| located(path, entry);
    for id in &edit.removed {
        if let Some(o) = old.get(id) {
            removed.push((id.clone(), located(o)));
        }
    }
    for (id, n) in &edit.upserted {
        match old.get(id) {
            Some(o) if same_entry(o, n) => {}
            Some(o) => changes.push(ObjectChange {
                id: id.clone(),
                old: Some(located(o)),
                new: Some(located(n)),
            }),
            None => created.push((id.clone(), located(n))),
        }
    }
}

/// Changes of one file's objects; removals and creations are collected for move pairing.
fn diff_file(
    path: &str,
    old: &BTreeMap<String, Entry>,
    new: &BTreeMap<String, Entry>,
    changes: &mut Vec<ObjectChange>,
    removed: &mut Vec<(String, Located)>,
    created: &mut Vec<(String, Located)>,
) {
    use std::cmp::Ordering;
    let located = |entry: &Entry| located(path, entry);
    // Both maps are sorted by id: one pass over the two, no lookups.
    let (mut old, mut new) = (old.iter().peekable(), new.iter().peekable());
    loop {
        let order = match (old.peek(), new.peek()) {
            (None, None) => break,
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (Some((o, _)), Some((n, _))) => o.cmp(n),
        };
        match order {
            Ordering::Less => {
                let (id, o) = old.next().expect("peeked");
                removed.push((id.clone(), located(o)));
            }
            Ordering::Greater => {
                let (id, n) = new.next().expect("peeked");
                created.push((id.clone(), located(n)));
            }
            Ordering::Equal => {
                let ((id, o), (_, n)) = (old.next().expect("peeked"), new.next().expect("peeked"));
                if !same_entry(o, n) {
                    changes.push(ObjectChange {
                        id: id.clone(),
                        old: Some(located(o)),
                        new: Some(located(n)),
                    });
                }
            }
        }
    }
}

/// Whether two entries are equal, the cheap comparison (the value hash) first; an
/// object only renumbered in its array ([`same_place`]) is the same.
fn same_entry(a: &Entry, b: &Entry) -> bool {
    a.hash == b.hash && a.props == b.props && a.name == b.name && same_place(&a.pointer, &b.pointer)
}

/// Whether two pointers of an object name the same place: equal, or positions in the same
/// array (`/12` and `/14`: a Cocos object without an id of its own, renumbered when
/// objects are added before it, has not moved).
pub(super) fn same_place(a: &str, b: &str) -> bool {
    fn position(p: &str) -> Option<&str> {
        let (container, last) = p.rsplit_once('/')?;
        (!last.is_empty() && last.bytes().all(|c| c.is_ascii_digit())).then_some(container)
    }
    a == b || matches!((position(a), position(b)), (Some(x), Some(y)) if x == y)
}

/// An id removed from one file and added to another in the same delta, once each, moved.
fn pair_moves(
    removed: Vec<(String, Located)>,
    created: Vec<(String, Located)>,
    changes: &mut Vec<ObjectChange>,
) {
    let mut removed_count: HashMap<&str, usize> = HashMap::new();
    for (id, _) in &removed {
        *removed_count.entry(id.as_str()).or_default() += 1;
    }
    let mut created_count: HashMap<&str, usize> = HashMap::new();
    for (id, _) in &created {
        *created_count.entry(id.as_str()).or_default() += 1;
    }
    let unique_ids: HashSet<String> = removed_count
        .iter()
        .filter(|(id, n)| **n == 1 && created_count.get(*id) == Some(&1))
        .map(|(id, _)| id.to_string())
        .collect();
    let unique = |id: &str| unique_ids.contains(id);
    let mut moved_from: HashMap<String, Located> = HashMap::new();
    let mut out = Vec::new();
    for (id, old) in &removed {
        if unique(id) {
            moved_from.insert(id.clone(), old.clone());
        } else {
            out.push(ObjectChange {
                id: id.clone(),
                old: Some(old.clone()),
                new: None,
            });
        }
    }
    for (id, new) in created {
        let old = if unique(&id) {
            moved_from.remove(&id)
        } else {
            None
        };
        out.push(ObjectChange {
            id,
            old,
            new: Some(new),
        });
    }
    changes.extend(out);
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::objects::FileObjects;

    /// A tree index from path → (id → hash) (a hash of 0 makes a file that does not parse).
    fn tree(files: &BTreeMap<String, BTreeMap<String, u64>>) -> TreeIndex {
        let mut index = TreeIndex::default();
        for (path, objects) in files {
            let parsed = !objects.values().any(|h| *h == 0);
            let objects = objects
                .iter()
                .filter(|_| parsed)
                .map(|(id, h)| {
                    let entry = Entry {
                        pointer: format!("/e/[id={id}]"),
                        hash: *h,
                        name: None,
                        props: vec![("x".into(), *h)],
                    };
                    (id.clone(), entry)
                })
                .collect();
            let blob = format!("{path}{objects:?}");
            index.files.insert(
                path.clone(),
                FileObjects {
                    blob,
                    parsed,
                    objects,
                },
            );
        }
        index
    }

    fn files() -> impl Strategy<Value = BTreeMap<String, BTreeMap<String, u64>>> {
        let ids = prop::collection::btree_map("[a-f]", 0u64..4, 0..5);
        prop::collection::btree_map("[pqr]\\.level", ids, 0..4)
    }

    proptest! {
        /// Applying the delta between two trees' indexes to the first gives the second;
        /// an id that left exactly one file for exactly one other is one move.
        #[test]
        fn applying_a_delta_gives_the_new_index(old in files(), new in files()) {
            let (old_index, new_index) = (tree(&old), tree(&new));
            let paths: std::collections::BTreeSet<&String> = old.keys().chain(new.keys()).collect();
            let changed: Vec<ChangedFile> = paths
                .into_iter()
                .filter(|p| old_index.files.get(*p) != new_index.files.get(*p))
                .map(|p| {
                    let f = new_index.files.get(p).map(|f| {
                        (f.blob.clone(), f.parsed.then(|| f.objects.clone()))
                    });
                    (p.clone(), f)
                })
                .collect();
            let delta = delta_of(&old_index, "base".into(), changed, Vec::new());
            let mut applied = old_index.clone();
            applied.apply(&delta);
            prop_assert_eq!(&applied, &new_index);
            for change in &delta.changes {
                // A move pairs the only removal of an id with its only creation.
                let unpaired = delta
                    .changes
                    .iter()
                    .filter(|c| c.id == change.id && (c.old.is_none() || c.new.is_none()))
                    .count();
                if let (Some(o), Some(n)) = (&change.old, &change.new) {
                    prop_assert!(o.path == n.path || unpaired == 0);
                }
            }
        }
    }
}
