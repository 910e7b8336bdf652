//! The page of `assetvc who`: who else is editing which objects, on each level's map.

use std::collections::HashMap;

use crate::cards::{target, CardSet};
use crate::from_diff::placed;
use crate::from_report::parse_pointer;
use crate::model::{Fate, FileSection, Page, Row};
use crate::objects::LevelObjects;

/// Another user's work in progress (one WIP ref).
#[derive(Debug, Clone, Default)]
pub struct WhoUser {
    /// The user (`git config assetvc.user`, else `user.email`).
    pub user: String,
    /// The branch the work is on.
    pub branch: String,
    /// How old the WIP commit is, for people: `3 min ago`.
    pub age: String,
}

/// One object someone edits.
#[derive(Debug, Clone, Default)]
pub struct WhoEdit {
    /// Who edits it (a [`WhoUser::user`]).
    pub user: String,
    /// The file, relative to the repository root.
    pub file: String,
    /// The object's JSON Pointer, keyed elements by id: `/entities/[id=6f1c…]`; empty
    /// for an object of a Cocos scene, named by node path in `name`.
    pub pointer: String,
    /// The object's name, when known (else it is looked up in `levels`).
    pub name: Option<String>,
    /// `added`, `deleted`, `moved` or `modified`.
    pub kind: String,
    /// The properties changed (`position`, `light.color`).
    pub properties: Vec<String>,
    /// Whether you are editing this object too.
    pub mine_too: bool,
}

/// Everything `render_who` needs.
#[derive(Debug, Clone, Default)]
pub struct WhoPage {
    /// A line under the title: the upstream compared against.
    pub subtitle: String,
    /// The other users with fresh work in progress.
    pub users: Vec<WhoUser>,
    /// What they edit.
    pub edits: Vec<WhoEdit>,
    /// Each edited file's objects (e.g. in the upstream), for the names and the map:
    /// `(file, LevelObjects::of(root, &keys))`.
    pub levels: Vec<(String, LevelObjects)>,
}

fn fate(kind: &str) -> Fate {
    match kind {
        "added" => Fate::Added,
        "deleted" | "removed" => Fate::Deleted,
        "moved" => Fate::Moved,
        _ => Fate::Modified,
    }
}

/// The page of `assetvc who`: a card per edited object (who, since when, which
/// properties), grouped by file; objects edited by two people, or by you too, are
/// conflicts.
pub fn who_page(w: &WhoPage) -> Page {
    // Linear in the edits (a WIP may touch 100 000 files): edits grouped by file in one
    // pass, in the order files are first met; levels and users found by name in maps.
    let mut by_file: HashMap<&str, Vec<&WhoEdit>> = HashMap::new();
    let mut files: Vec<&str> = Vec::new();
    for e in &w.edits {
        by_file
            .entry(e.file.as_str())
            .or_insert_with(|| {
                files.push(e.file.as_str());
                Vec::new()
            })
            .push(e);
    }
    let levels: HashMap<&str, &LevelObjects> =
        w.levels.iter().map(|(f, o)| (f.as_str(), o)).collect();
    let by_user: HashMap<&str, &WhoUser> = w.users.iter().map(|u| (u.user.as_str(), u)).collect();
    let empty = LevelObjects::default();
    let sections = files
        .into_iter()
        .map(|file| {
            let objects = levels.get(file).copied().unwrap_or(&empty);
            let mut set = CardSet::default();
            let mut editors: HashMap<String, Vec<&str>> = Default::default();
            for e in by_file.remove(file).unwrap_or_default() {
                let t = match (&e.name, e.pointer.is_empty()) {
                    // A Cocos object, by node path.
                    (Some(name), true) => crate::cards::Target {
                        key: name.clone(),
                        id: None,
                        location: name.clone(),
                        property: sjson::Path::root(),
                    },
                    _ => target(&parse_pointer(&e.pointer), &[objects]),
                };
                let users = editors.entry(t.key.clone()).or_default();
                if !users.contains(&e.user.as_str()) {
                    users.push(&e.user);
                }
                let shared = e.mine_too || users.len() > 1;
                let age = by_user
                    .get(e.user.as_str())
                    .map(|u| format!(" on {} · {}", u.branch, u.age))
                    .unwrap_or_default();
                let what = if e.properties.is_empty() {
                    e.kind.clone()
                } else {
                    e.properties.join(", ")
                };
                let mine = if e.mine_too {
                    " — you edit it too"
                } else {
                    ""
                };
                let row = Row::Note(format!("{}{age}: {what}{mine}", e.user));
                set.add(
                    &t,
                    if shared {
                        Fate::Conflict
                    } else {
                        fate(&e.kind)
                    },
                    Some(row),
                );
                if let Some(n) = &e.name {
                    set.card(&t).name.get_or_insert_with(|| n.clone());
                }
            }
            FileSection {
                path: file.to_string(),
                status: "being edited".into(),
                notes: Vec::new(),
                cards: set.finish(&[objects]),
                objects: placed(&LevelObjects::default(), objects),
            }
        })
        .collect();
    let users: Vec<String> = w.users.iter().map(|u| u.user.clone()).collect();
    Page {
        title: "Who is editing what".into(),
        subtitle: if users.is_empty() {
            format!("{} · nobody else is editing", w.subtitle)
        } else {
            format!("{} · {}", w.subtitle, users.join(", "))
        },
        files: sections,
    }
}

/// The HTML page of `assetvc who` (see [`who_page`]).
pub fn render_who(w: &WhoPage) -> String {
    crate::html::render(&who_page(w))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::objects::ObjectKeys;

    #[test]
    fn objects_two_people_edit_are_conflicts() {
        let doc = sjson::Document::parse(
            "entities = [ { id = \"e1\" name = \"crate\" pos = [1 2 0] } { id = \"e2\" name = \"lamp\" pos = [3 4 0] } ]",
            sjson::Dialect::Sjson,
        )
        .unwrap();
        let edit = |user: &str, id: &str, mine_too: bool| WhoEdit {
            user: user.into(),
            file: "a.level".into(),
            pointer: format!("/entities/[id={id}]"),
            kind: "modified".into(),
            properties: vec!["pos".into()],
            mine_too,
            ..WhoEdit::default()
        };
        let w = WhoPage {
            subtitle: "origin/main".into(),
            users: vec![WhoUser {
                user: "alice".into(),
                branch: "main".into(),
                age: "2 min ago".into(),
            }],
            edits: vec![
                edit("alice", "e1", false),
                edit("bob", "e1", false),
                edit("alice", "e2", true),
            ],
            levels: vec![(
                "a.level".into(),
                LevelObjects::of(doc.root(), &ObjectKeys::default()),
            )],
        };
        let page = who_page(&w);
        assert_eq!(page.files.len(), 1);
        let cards = &page.files[0].cards;
        assert_eq!(cards.len(), 2);
        assert_eq!(
            (cards[0].name.as_deref(), cards[0].fate),
            (Some("crate"), Fate::Conflict)
        );
        assert_eq!(cards[0].rows.len(), 2);
        assert_eq!(cards[1].fate, Fate::Conflict);
        assert_eq!(page.files[0].objects.len(), 2);
        let html = render_who(&w);
        assert!(html.contains("alice on main · 2 min ago: pos"));
    }
}
