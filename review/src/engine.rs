//! Sections in the engine's terms: a Cocos object by its node path and component type
//! (`Canvas/Menu/Start<cc.Label>`, never an array position or an internal reference
//! token), a map editor's object by its name and its layer's, and a tile grid's change as
//! a count of cells with their bounding box.

use merge::cocos::diff::{GraphChange, GraphChangeKind};
use merge::diff::Change;
use merge::naming::Names;
use merge::profile::Format;
use merge::GridChange;
use sjson::{Path, Segment, Value};

use crate::cards::{CardSet, Target};
use crate::model::{Fate, FileSection, Row, Shown};

/// A file's section from the changes of a Cocos graph ([`merge::cocos::diff::graph_changes`]):
/// a card per object, named by node path and component type. No map: a scene's nodes
/// are placed relative to their parents.
pub fn graph_section(path: &str, status: &str, changes: &[GraphChange]) -> FileSection {
    let mut set = CardSet::default();
    for c in changes {
        let t = Target {
            key: c.object.clone(),
            id: None,
            location: c.object.clone(),
            property: Path::root(),
        };
        let json = |v: &Option<String>| {
            v.as_deref()
                .and_then(|text| serde_json::from_str::<serde_json::Value>(text).ok())
        };
        let (old, new) = (json(&c.old), json(&c.new));
        let whole = c.property.is_empty();
        let fate = match c.kind {
            GraphChangeKind::Added if whole => Fate::Added,
            GraphChangeKind::Removed if whole => Fate::Deleted,
            _ if c.property == "_parent" => Fate::Moved,
            _ => Fate::Modified,
        };
        if whole && matches!(c.kind, GraphChangeKind::Added | GraphChangeKind::Removed) {
            let added = c.kind == GraphChangeKind::Added;
            set.add(&t, fate, None);
            let value = if added { &new } else { &old };
            for (k, v) in value.iter().flat_map(|v| v.as_object()).flatten() {
                let shown = Shown::of_json(v);
                let (old, new) = if added {
                    (Shown::Absent, shown)
                } else {
                    (shown, Shown::Absent)
                };
                let property = k.clone();
                set.add(&t, fate, Some(Row::Change { property, old, new }));
            }
            continue;
        }
        let property = match (c.kind, c.property.is_empty()) {
            (GraphChangeKind::Moved, _) => format!("{} (order)", c.property),
            (_, true) => "(whole value)".to_string(),
            _ => c.property.clone(),
        };
        let row = Row::Change {
            property,
            old: Shown::of_report_field(old.as_ref()),
            new: Shown::of_report_field(new.as_ref()),
        };
        set.add(&t, fate, Some(row));
    }
    let cards = set.finish(&[]);
    let mut notes = Vec::new();
    if changes.is_empty() {
        notes.push("Objects renumbered or formatting changed; no value changed.".to_string());
    }
    FileSection {
        path: path.to_string(),
        status: status.to_string(),
        notes,
        cards,
        objects: Vec::new(),
    }
}

/// A report pointer's object in a Cocos graph `root`: the element its first step names,
/// by node path and component type, and the member inside it.
pub(crate) fn graph_target(path: &Path, root: Value<'_>) -> Option<Target> {
    let (Segment::Index(i), rest) = path.0.split_first()? else {
        return None;
    };
    if !merge::cocos::is_graph(root) {
        return None;
    }
    let name = merge::cocos::names::object_name(root, *i)?;
    Some(Target {
        key: name.clone(),
        id: None,
        location: name,
        property: Path(rest.to_vec()),
    })
}

/// What a diff of a map editor's file shows in the editor's terms: objects placed by
/// the names of the object and its layer, and each changed grid as one row.
#[derive(Default)]
pub(crate) struct MapView<'a> {
    /// Names for places (a map editor's file only).
    pub names: Option<Names<'a>>,
    /// The grids that changed.
    pub grids: Vec<GridChange<'a>>,
}

impl<'a> MapView<'a> {
    /// The view of a diff from `old` to `new`: empty unless one is a Tiled map or an LDtk
    /// project.
    pub fn of(old: Option<Value<'a>>, new: Option<Value<'a>>, keys: &[String]) -> MapView<'a> {
        let is_map = |v: &Value<'a>| {
            matches!(
                Format::by_content(v.doc()),
                Some((Format::Tiled | Format::Ldtk, _))
            )
        };
        if !new.iter().chain(old.iter()).any(is_map) {
            return MapView::default();
        }
        let grids = match (old, new) {
            (Some(o), Some(n)) => merge::grid_changes(o.doc(), n.doc()),
            _ => Vec::new(),
        };
        let roots = new.into_iter().chain(old).collect();
        // Tiled names objects and layers by `name`, LDtk by `identifier`.
        let natural = ["name", "identifier", "__identifier"].map(String::from);
        MapView {
            names: Some(Names::new(roots, keys, &natural)),
            grids,
        }
    }

    /// `t` with its location named for people (`layers[Enemies #3].objects[spawn #7]`).
    pub fn place(&self, mut t: Target, path: &Path) -> Target {
        if let Some(names) = &self.names {
            let object = Path(path.0[..path.0.len() - t.property.0.len()].to_vec());
            t.location = names.path(&object);
        }
        t
    }

    /// Whether `change` is inside a grid that changed; the grid's row is added (once) to
    /// its layer's card in `set`.
    pub fn grid_row(
        &self,
        change: &Change<'_>,
        set: &mut CardSet,
        shown: &mut [bool],
        target: impl Fn(&Path) -> Target,
    ) -> bool {
        let Some(i) = self.grids.iter().position(|g| g.covers(change)) else {
            return false;
        };
        if !std::mem::replace(&mut shown[i], true) {
            let grid = &self.grids[i];
            let pointer = Path::parse(&grid.pointer).unwrap_or_default();
            let t = self.place(target(&pointer), &pointer);
            let property = crate::cards::property_text(&t.property);
            let text = grid.text_with(|_| property.clone());
            set.add(&t, Fate::Modified, Some(Row::Note(text)));
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use crate::{report_section, ObjectKeys};

    const SCENE: &str = r#"[
      {"__type__": "cc.SceneAsset", "scene": {"__id__": 1}},
      {"__type__": "cc.Scene", "_parent": null, "_children": [{"__id__": 2}], "_id": "s"},
      {"__type__": "cc.Node", "_name": "Canvas", "_parent": {"__id__": 1}, "_children": [], "_components": [{"__id__": 3}], "_id": "c"},
      {"__type__": "cc.Label", "node": {"__id__": 2}, "_string": "Go", "_id": "l"}
    ]"#;

    #[test]
    fn a_cocos_conflict_is_carded_by_node_path_and_component_type() {
        let doc = sjson::Document::parse(SCENE, sjson::Dialect::Json).unwrap();
        let report: merge::record::FileStep = serde_json::from_value(serde_json::json!({
            "path": "scene.fire", "policy": "theirs",
            "conflicts": [
                {"path": "/3/_string", "kind": "both-modified",
                 "base": "Go", "ours": "Start", "theirs": "Play", "taken": "theirs"},
                {"path": "/2/_parent", "kind": "both-modified",
                 "base": "@Canvas", "ours": "@Menu", "theirs": "@Canvas", "taken": "theirs"}
            ]
        }))
        .unwrap();
        let s = report_section(&report, Some(doc.root()), &ObjectKeys::default());
        assert_eq!(s.cards.len(), 2, "{:?}", s.cards);
        assert_eq!(s.cards[0].location, "Canvas<cc.Label>");
        assert_eq!(s.cards[1].location, "Canvas");
        match &s.cards[0].rows[0] {
            crate::Row::Conflict { property, .. } => assert_eq!(property, "_string"),
            other => panic!("{other:?}"),
        }
    }
}
