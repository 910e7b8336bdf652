//! A file's section from a two-way diff: cards from the changes, marks from both versions.

use merge::diff::Change;
use sjson::{Segment, Value};

use crate::cards::{property_text, target, CardSet};
use crate::engine::MapView;
use crate::model::{Card, Fate, FileSection, Placed, Row, Shown};
use crate::objects::{LevelObjects, ObjectKeys};

/// The cards of `changes`; `old` and `new` (the objects of both versions) name them and
/// resolve objects without ids.
pub fn cards_from_changes(
    changes: &[Change<'_>],
    old: &LevelObjects,
    new: &LevelObjects,
    keys: &ObjectKeys,
) -> Vec<Card> {
    cards_in_view(changes, old, new, keys, &MapView::default())
}

/// [`cards_from_changes`] with places and grids shown as `view` says.
fn cards_in_view(
    changes: &[Change<'_>],
    old: &LevelObjects,
    new: &LevelObjects,
    keys: &ObjectKeys,
    view: &MapView<'_>,
) -> Vec<Card> {
    let known = [new, old];
    let mut set = CardSet::default();
    let mut grid_shown = vec![false; view.grids.len()];
    for change in changes {
        let at = |p: &sjson::Path| view.place(target(p, &known), p);
        if view.grid_row(change, &mut set, &mut grid_shown, at) {
            continue;
        }
        let t = at(change.path());
        let at_object = t.property.0.is_empty();
        let moves_it = t
            .property
            .0
            .first()
            .is_some_and(|s| matches!(s, Segment::Key(k) if keys.position_keys.contains(k)));
        let property = property_text(&t.property);
        match change {
            Change::Added { value, .. } if at_object => {
                set.add(&t, Fate::Added, None);
                members(&mut set, &t, *value, Fate::Added, keys, true);
            }
            Change::Removed { value, .. } if at_object => {
                set.add(&t, Fate::Deleted, None);
                members(&mut set, &t, *value, Fate::Deleted, keys, false);
            }
            Change::Moved {
                from,
                to,
                from_index,
                to_index,
                value,
            } => {
                let (fate, property, old, new) = if from == to {
                    let at = |i: usize| Shown::Text(format!("index {i}"));
                    (Fate::Modified, "(order)", at(*from_index), at(*to_index))
                } else {
                    let at = |p: &sjson::Path| Shown::Text(merge::diff::path_text(p));
                    (Fate::Moved, "(parent)", at(from), at(to))
                };
                let row = Row::Change {
                    property: property.into(),
                    old,
                    new,
                };
                set.add(&t, fate, Some(row));
                if set.card(&t).name.is_none() {
                    set.card(&t).name = name_of(*value);
                }
            }
            Change::Changed { old, new, .. } => {
                let fate = if moves_it {
                    Fate::Moved
                } else {
                    Fate::Modified
                };
                let row = Row::Change {
                    property: or_whole(property),
                    old: Shown::of(*old),
                    new: Shown::of(*new),
                };
                set.add(&t, fate, Some(row));
            }
            Change::Added { value, .. } | Change::Removed { value, .. } => {
                let added = matches!(change, Change::Added { .. });
                let fate = if moves_it {
                    Fate::Moved
                } else {
                    Fate::Modified
                };
                let (old, new) = if added {
                    (Shown::Absent, Shown::of(*value))
                } else {
                    (Shown::of(*value), Shown::Absent)
                };
                let row = Row::Change {
                    property: or_whole(property),
                    old,
                    new,
                };
                set.add(&t, fate, Some(row));
            }
        }
    }
    set.finish(&known)
}

fn or_whole(property: String) -> String {
    if property.is_empty() {
        "(whole value)".into()
    } else {
        property
    }
}

fn name_of(v: Value<'_>) -> Option<String> {
    v.get("name")
        .and_then(|n| n.as_str())
        .map(|n| n.into_owned())
}

/// One row per member of an added (or deleted) object, its id member left out.
fn members(
    set: &mut CardSet,
    t: &crate::cards::Target,
    v: Value<'_>,
    fate: Fate,
    keys: &ObjectKeys,
    added: bool,
) {
    if set.card(t).name.is_none() {
        set.card(t).name = name_of(v);
    }
    if v.kind() != sjson::Kind::Object {
        let row = Row::Change {
            property: "(value)".into(),
            old: if added { Shown::Absent } else { Shown::of(v) },
            new: if added { Shown::of(v) } else { Shown::Absent },
        };
        set.add(t, fate, Some(row));
        return;
    }
    for (k, c) in v.members() {
        if keys.id_keys.iter().any(|i| k.eq_ignore_ascii_case(i)) {
            continue;
        }
        let (old, new) = if added {
            (Shown::Absent, Shown::of(c))
        } else {
            (Shown::of(c), Shown::Absent)
        };
        set.add(
            t,
            fate,
            Some(Row::Change {
                property: k.into_owned(),
                old,
                new,
            }),
        );
    }
}

/// The map's marks: every placed object of `new`, with its old position when it moved,
/// and the placed objects of `old` that `new` no longer has.
pub fn placed(old: &LevelObjects, new: &LevelObjects) -> Vec<Placed> {
    let mut out: Vec<Placed> = Vec::with_capacity(new.list.len());
    for o in &new.list {
        let Some(at) = o.at else { continue };
        let was = old.get(&o.key).and_then(|w| w.at).filter(|w| *w != at);
        out.push(Placed {
            key: o.key.clone(),
            id: o.id.clone(),
            name: o.name.clone(),
            at,
            was,
        });
    }
    for o in &old.list {
        let Some(at) = o.at else { continue };
        if new.get(&o.key).is_none() {
            out.push(Placed {
                key: o.key.clone(),
                id: o.id.clone(),
                name: o.name.clone(),
                at,
                was: None,
            });
        }
    }
    out
}

/// A whole file's section: `old`/`new` are the two versions' roots (`None` for a missing
/// side) and `changes` their diff.
pub fn diff_section(
    path: &str,
    status: &str,
    old: Option<Value<'_>>,
    new: Option<Value<'_>>,
    changes: &[Change<'_>],
    keys: &ObjectKeys,
) -> FileSection {
    let old_objects = old.map(|v| LevelObjects::of(v, keys)).unwrap_or_default();
    let new_objects = new.map(|v| LevelObjects::of(v, keys)).unwrap_or_default();
    let view = MapView::of(old, new, &keys.id_keys);
    let cards = cards_in_view(changes, &old_objects, &new_objects, keys, &view);
    let mut notes = Vec::new();
    if changes.is_empty() {
        notes.push("Formatting changed; no value changed.".to_string());
    }
    FileSection {
        path: path.to_string(),
        status: status.to_string(),
        notes,
        cards,
        objects: placed(&old_objects, &new_objects),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use merge::diff::{diff, DiffOptions};

    const OLD: &str = "entities = [\n{ id = \"e1\" name = \"crate\" position = [0 0 0] tint = \"white\" }\n{ id = \"e2\" name = \"barrel\" position = [5 0 0] }\n{ id = \"e3\" name = \"lamp\" position = [1 1 0] }\n]\nsettings = { fog = 0.1 }\n";
    const NEW: &str = "entities = [\n{ id = \"e1\" name = \"crate\" position = [2 1 0] tint = \"white\" }\n{ id = \"e3\" name = \"lamp\" position = [1 1 0] tint = \"red\" }\n{ id = \"e4\" name = \"torch\" position = [3 3 0] }\n]\nsettings = { fog = 0.2 }\n";

    #[test]
    fn one_card_per_changed_object_with_its_fate() {
        let a = sjson::Document::parse(OLD, sjson::Dialect::Sjson).unwrap();
        let b = sjson::Document::parse(NEW, sjson::Dialect::Sjson).unwrap();
        let d = diff(a.root(), b.root(), &DiffOptions::default());
        let keys = ObjectKeys::default();
        let s = diff_section(
            "l.level",
            "modified",
            Some(a.root()),
            Some(b.root()),
            &d.changes,
            &keys,
        );
        let fates: Vec<(&str, Fate, Option<&str>)> = s
            .cards
            .iter()
            .map(|c| (c.key.as_str(), c.fate, c.name.as_deref()))
            .collect();
        for want in [
            ("e1", Fate::Moved, Some("crate")),
            ("e2", Fate::Deleted, Some("barrel")),
            ("e3", Fate::Modified, Some("lamp")),
            ("e4", Fate::Added, Some("torch")),
            ("settings", Fate::Modified, None),
        ] {
            assert!(fates.contains(&want), "{want:?} not in {fates:?}");
        }
        assert_eq!(fates.len(), 5);
        let e1 = s.cards.iter().find(|c| c.key == "e1").unwrap();
        assert_eq!(
            e1.rows,
            [Row::Change {
                property: "position".into(),
                old: Shown::Vector(vec!["0".into(), "0".into(), "0".into()]),
                new: Shown::Vector(vec!["2".into(), "1".into(), "0".into()]),
            }]
        );
        // Marks: e1 (with its old place), e3, e4 and the deleted e2.
        let mut keys: Vec<&str> = s.objects.iter().map(|o| o.key.as_str()).collect();
        keys.sort();
        assert_eq!(keys, ["e1", "e2", "e3", "e4"]);
        let e1 = s.objects.iter().find(|o| o.key == "e1").unwrap();
        assert_eq!((e1.at, e1.was), ([2.0, 1.0], Some([0.0, 0.0])));
    }
}
