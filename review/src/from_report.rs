//! A file's section from a step of the merge journal (a [`FileStep`], read as fields): a
//! card per object with conflicts or repairs, marks from the merged file; a sync's pending
//! conflicts say so, with who made the upstream value.

use merge::record::{ConflictRecord, FileStep, Meaning, SideMeanings};
use sjson::{Path, Value};

use crate::cards::{property_text, target, CardSet};
use crate::model::{Card, Fate, FileSection, Placed, Row, Shown};
use crate::objects::{LevelObjects, ObjectKeys};

/// Parses a report's JSON Pointer, keyed elements written `[key=value]`; a number step is
/// an array index.
pub fn parse_pointer(pointer: &str) -> Path {
    merge::changeset::parse_report_pointer(pointer, |_| true)
}

/// A recorded value (compact JSON; `None`: absent or deleted), its numbers as written.
fn shown(value: &Option<String>) -> Shown {
    let Some(text) = value else {
        return Shown::Absent;
    };
    match sjson::Document::parse(text, sjson::Dialect::Json) {
        Ok(doc) if text != "null" => Shown::of(doc.root()),
        Ok(_) => Shown::Absent,
        Err(_) => Shown::Text(text.clone()),
    }
}

/// What a pending conflict of a sync says on the page: whose value the worktree keeps,
/// who made the upstream's, and how to take it.
fn pending_note(file: &str, c: &ConflictRecord) -> Option<String> {
    if !c.pending {
        return None;
    }
    let by =
        c.by.as_deref()
            .map_or(String::new(), |b| format!(" by {b}"));
    Some(format!(
        "Pending: your local value stays in the worktree; the upstream's value was made{by}. \
         To take it: assetvc resolve {file} --all --take upstream"
    ))
}

/// What the page calls git's ours and theirs in a step's conflict `c`: by name, and for a
/// sync's pending conflict by whose they are: `yours`, and the upstream by its author
/// (`upstream (Carol)`) when known.
fn side_labels(step: &FileStep, c: &ConflictRecord) -> [String; 2] {
    if !c.pending {
        return ["ours".to_string(), "theirs".to_string()];
    }
    let meanings = step.sides.unwrap_or(SideMeanings::MERGE);
    let label = |meaning: Meaning| match (meaning, c.by.as_deref()) {
        (Meaning::Local, _) => "yours".to_string(),
        (Meaning::Upstream, Some(by)) => format!("upstream ({by})"),
        (Meaning::Upstream, None) => "upstream".to_string(),
    };
    [label(meanings.ours), label(meanings.theirs)]
}

/// The details of a repair, field by field.
fn repair_details(c: &ConflictRecord) -> Vec<(String, Shown)> {
    let mut details = Vec::new();
    let referrer = c.referrer.as_ref().map(Path::to_string);
    for (key, v) in [("object", &c.object), ("referrer", &referrer)] {
        if let Some(v) = v {
            details.push((key.to_string(), Shown::Text(v.clone())));
        }
    }
    details.push(("taken".to_string(), Shown::Text(c.taken.name().to_string())));
    details
}

/// The cards of a step's conflicts and repairs; `merged` (the merged file's objects)
/// names them.
pub fn cards_from_report(step: &FileStep, merged: &LevelObjects) -> Vec<Card> {
    cards_in(step, merged, None)
}

/// [`cards_from_report`]; `root` (the merged file) names a Cocos graph's objects by node
/// path and component type.
fn cards_in(step: &FileStep, merged: &LevelObjects, root: Option<Value<'_>>) -> Vec<Card> {
    let known = [merged];
    let mut set = CardSet::default();
    for c in &step.conflicts {
        // A number step is an array index.
        let path = merge::changeset::reported_indices(&c.path, |_| true);
        let t = root
            .and_then(|r| crate::engine::graph_target(&path, r))
            .unwrap_or_else(|| target(&path, &known));
        let property = property_text(&t.property);
        let kind = c.kind.name().to_string();
        if c.kind.is_repair() {
            let row = Row::Repair {
                property,
                kind,
                details: repair_details(c),
            };
            set.add(&t, Fate::Restored, Some(row));
        } else {
            let row = Row::Conflict {
                property,
                kind,
                base: shown(&c.base),
                ours: shown(&c.ours),
                theirs: shown(&c.theirs),
                taken: c.taken.name().to_string(),
                sides: side_labels(step, c),
                pending: pending_note(&step.path, c),
            };
            set.add(&t, Fate::Conflict, Some(row));
        }
    }
    set.finish(&known)
}

/// A file's section from its journal step and the merged file's root, when it could be
/// read.
pub fn report_section(
    step: &FileStep,
    merged: Option<Value<'_>>,
    keys: &ObjectKeys,
) -> FileSection {
    let objects = merged
        .map(|v| LevelObjects::of(v, keys))
        .unwrap_or_default();
    let cards = cards_in(step, &objects, merged);
    let mut notes = Vec::new();
    if let Some(reason) = &step.unresolved {
        notes.push(format!("Not merged, left for you to resolve: {reason}."));
    }
    let pending = step.conflicts.iter().filter(|c| c.pending).count();
    if pending > 0 {
        notes.push(format!(
            "{pending} pending conflict{} of a sync: your local value{} stay{} in the worktree \
             until you resolve {}.",
            if pending == 1 { "" } else { "s" },
            if pending == 1 { "" } else { "s" },
            if pending == 1 { "s" } else { "" },
            if pending == 1 { "it" } else { "them" },
        ));
    }
    if step.conflicts.is_empty() && notes.is_empty() {
        notes.push("Merged cleanly.".into());
    }
    FileSection {
        path: step.path.clone(),
        status: match step.policy {
            None => "merged".into(),
            Some(policy) => format!("merged · policy {}", policy.name()),
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
        let report: FileStep = serde_json::from_str(
            r#"{"path": "levels/a.level", "policy": "theirs",
            "conflicts": [
                {"path": "/entities/[id=e1]/position", "kind": "both-modified",
                 "base": [0, 0, 0], "ours": [1, 0, 0], "theirs": [2.50, 0, 0], "taken": "theirs",
                 "pending": true, "by": "Carol"},
                {"path": "/entities/[id=e2]", "kind": "dangling-reference",
                 "referrer": "/flow/[id=n1]/unit", "taken": "ours"}
            ]}"#,
        )
        .unwrap();
        let doc = sjson::Document::parse(
            "entities = [ { id = \"e1\" name = \"crate\" position = [2 0 0] } { id = \"e2\" name = \"gate\" pos = [4 4] } ]",
            sjson::Dialect::Sjson,
        )
        .unwrap();
        let s = report_section(&report, Some(doc.root()), &ObjectKeys::default());
        assert_eq!(s.cards.len(), 2);
        assert_eq!(s.cards[0].fate, Fate::Conflict);
        assert_eq!(s.cards[0].name.as_deref(), Some("crate"));
        match &s.cards[0].rows[0] {
            Row::Conflict {
                taken,
                theirs,
                sides,
                pending,
                ..
            } => {
                assert_eq!(taken, "theirs");
                // The number as written, not as f64 prints it.
                assert_eq!(
                    theirs,
                    &Shown::Vector(vec!["2.50".into(), "0".into(), "0".into()])
                );
                assert!(pending.as_deref().is_some_and(|p| p.contains("by Carol")));
                // A sync's pending conflict: your value and the upstream author's.
                assert_eq!(
                    sides,
                    &["yours".to_string(), "upstream (Carol)".to_string()]
                );
            }
            other => panic!("{other:?}"),
        }
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
        assert!(s.notes.iter().any(|n| n.contains("1 pending conflict")));
    }
}
