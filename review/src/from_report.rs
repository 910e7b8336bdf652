//! A file's section from a merge report entry (a step of the merge journal): a card per
//! object with conflicts or repairs, marks from the merged file.

use serde_json::Value as Json;
use sjson::{Path, Value};

use crate::cards::{property_text, target, CardSet};
use crate::model::{Card, Fate, FileSection, Placed, Row, Shown};
use crate::objects::{LevelObjects, ObjectKeys};

/// The conflict kinds of the merge (entries of other kinds are shown as repairs).
const CONFLICT_KINDS: [&str; 5] = [
    "both-modified",
    "delete-modify",
    "modify-delete",
    "both-added",
    "order",
];

/// Parses a report's JSON Pointer, keyed elements written `[key=value]`; a number step is
/// an array index.
pub fn parse_pointer(pointer: &str) -> Path {
    merge::changeset::parse_report_pointer(pointer, |_| true)
}

fn text(v: &Json, field: &str) -> String {
    v.get(field)
        .and_then(Json::as_str)
        .unwrap_or_default()
        .to_string()
}

/// The cards of a report entry's `conflicts` list; `merged` (the merged file's objects)
/// names them.
pub fn cards_from_report(entries: &[Json], merged: &LevelObjects) -> Vec<Card> {
    cards_in(entries, merged, None)
}

/// [`cards_from_report`]; `root` (the merged file) names a Cocos graph's objects by node
/// path and component type.
fn cards_in(entries: &[Json], merged: &LevelObjects, root: Option<Value<'_>>) -> Vec<Card> {
    let known = [merged];
    let mut set = CardSet::default();
    for e in entries {
        let path = parse_pointer(&text(e, "path"));
        let t = root
            .and_then(|r| crate::engine::graph_target(&path, r))
            .unwrap_or_else(|| target(&path, &known));
        let property = property_text(&t.property);
        let kind = text(e, "kind");
        let is_conflict = CONFLICT_KINDS.contains(&kind.as_str())
            || ["base", "ours", "theirs"]
                .iter()
                .any(|f| e.get(f).is_some());
        if is_conflict {
            let row = Row::Conflict {
                property,
                kind,
                base: Shown::of_report_field(e.get("base")),
                ours: Shown::of_report_field(e.get("ours")),
                theirs: Shown::of_report_field(e.get("theirs")),
                taken: text(e, "taken"),
            };
            set.add(&t, Fate::Conflict, Some(row));
        } else {
            let details = e
                .as_object()
                .into_iter()
                .flatten()
                .filter(|(k, _)| k.as_str() != "path" && k.as_str() != "kind")
                .map(|(k, v)| (k.clone(), Shown::of_json(v)))
                .collect();
            let row = Row::Repair {
                property,
                kind,
                details,
            };
            set.add(&t, Fate::Restored, Some(row));
        }
    }
    set.finish(&known)
}

/// A file's section from its report entry (`{"path", "policy", "conflicts", "unresolved"}`)
/// and the merged file's root, when it could be read.
pub fn report_section(entry: &Json, merged: Option<Value<'_>>, keys: &ObjectKeys) -> FileSection {
    let objects = merged
        .map(|v| LevelObjects::of(v, keys))
        .unwrap_or_default();
    let entries: &[Json] = entry
        .get("conflicts")
        .and_then(Json::as_array)
        .map_or(&[], Vec::as_slice);
    let cards = cards_in(entries, &objects, merged);
    let mut notes = Vec::new();
    if let Some(reason) = entry.get("unresolved").and_then(Json::as_str) {
        notes.push(format!("Not merged, left for you to resolve: {reason}."));
    }
    if entries.is_empty() && notes.is_empty() {
        notes.push("Merged cleanly.".into());
    }
    let policy = text(entry, "policy");
    FileSection {
        path: text(entry, "path"),
        status: if policy.is_empty() {
            "merged".into()
        } else {
            format!("merged · policy {policy}")
        },
        notes,
        cards,
        objects: objects
            .list
            .iter()
            .filter_map(|o| {
                Some(Placed {
                    key: o.key.clone(),
                    id: o.id.clone(),
                    name: o.name.clone(),
                    at: o.at?,
                    was: None,
                })
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers_parse_back_to_paths() {
        let p = parse_pointer("/entities/[id=a~1b]/light/color/2");
        assert_eq!(
            merge::diff::path_text(&p),
            "entities[id=a/b].light.color[2]"
        );
        assert_eq!(parse_pointer(""), Path::root());
    }

    #[test]
    fn conflicts_and_repairs_become_cards() {
        let report = serde_json::json!({
            "path": "levels/a.level", "policy": "theirs",
            "conflicts": [
                {"path": "/entities/[id=e1]/position", "kind": "both-modified",
                 "base": [0, 0, 0], "ours": [1, 0, 0], "theirs": [2, 0, 0], "taken": "theirs"},
                {"path": "/entities/[id=e2]", "kind": "dangling-reference",
                 "referrer": "/flow/[id=n1]/unit", "repair": "restored from ours"}
            ]
        });
        let doc = sjson::Document::parse(
            "entities = [ { id = \"e1\" name = \"crate\" position = [2 0 0] } { id = \"e2\" name = \"gate\" pos = [4 4] } ]",
            sjson::Dialect::Sjson,
        )
        .unwrap();
        let s = report_section(&report, Some(doc.root()), &ObjectKeys::default());
        assert_eq!(s.cards.len(), 2);
        assert_eq!(s.cards[0].fate, Fate::Conflict);
        assert_eq!(s.cards[0].name.as_deref(), Some("crate"));
        assert!(matches!(&s.cards[0].rows[0], Row::Conflict { taken, .. } if taken == "theirs"));
        assert_eq!(s.cards[1].fate, Fate::Restored);
        match &s.cards[1].rows[0] {
            Row::Repair { kind, details, .. } => {
                assert_eq!(kind, "dangling-reference");
                assert_eq!(details[0].0, "referrer");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(s.objects.len(), 2);
        assert_eq!(s.status, "merged · policy theirs");
    }
}
