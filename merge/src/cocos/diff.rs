//! `assetvc diff` of two Cocos object graphs: the objects matched by identity (as the
//! merge matches them, so renumbered `{"__id__": n}` are no change), each change one
//! line with its object named by node path (`Canvas/Menu/Start<cc.Label>._string: 1 → 2`,
//! `+ Canvas/Menu/Options: {…}`) and references shown as `@` and the object's name.

use crate::hashing::SeededMap;
use sjson::{Dialect, Document, ParseOptions, Path, Segment, Value};

use super::tree::{rewrite_references, J};
use super::{is_cocos, names, Tokens, KEY, REF};
use crate::diff::{diff, Change, DiffOptions};

/// What happened to a Cocos object, or to one of its members.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GraphChangeKind {
    /// Added (the whole object when the property is empty).
    Added,
    /// Removed (the whole object when the property is empty).
    Removed,
    /// A member's value changed.
    Changed,
    /// An element of a list moved to another position (old and new are the indexes).
    Moved,
}

/// One change of a Cocos graph in the engine's terms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphChange {
    /// The object, as people name it: `Canvas/Menu/Start<cc.Label>`.
    pub object: String,
    /// What happened.
    pub kind: GraphChangeKind,
    /// The member inside the object (`_string`, `_children[Canvas/Menu/Start]`); empty
    /// for the whole object.
    pub property: String,
    /// The old value as compact JSON, references as `"@"` and the name of their target
    /// (`None`: absent).
    pub old: Option<String>,
    /// The new value, likewise.
    pub new: Option<String>,
}

/// Both versions in the keyed form, with every object's name by token.
struct Keyed {
    old: Document,
    new: Document,
    names: SeededMap<String, String>,
}

impl Keyed {
    fn of(old: &Document, new: &Document) -> Option<Keyed> {
        if !(is_cocos(old) && is_cocos(new)) {
            return None;
        }
        let mut tokens = Tokens::default();
        let [eo, en] = [old, new].map(super::elements);
        let [ko, kn] = tokens.keyed_versions([eo.as_slice(), en.as_slice()]);
        let parse = |els: &[J]| {
            Document::parse_with(
                J::Arr(els.to_vec()).compact(),
                ParseOptions::new(Dialect::Json),
            )
            .ok()
        };
        let mut names = object_names(old, &ko);
        // The new version's names win: a removed object is named from the old one.
        names.extend(object_names(new, &kn));
        Some(Keyed {
            old: parse(&ko)?,
            new: parse(&kn)?,
            names,
        })
    }

    fn name(&self, token: &str) -> String {
        self.names
            .get(token)
            .cloned()
            .unwrap_or_else(|| token.to_string())
    }

    fn diff(&self, options: &DiffOptions) -> crate::diff::Diff<'_> {
        let keyed = DiffOptions {
            id_keys: vec![KEY.to_string(), REF.to_string()],
            atomic_max: options.atomic_max,
        };
        diff(self.old.root(), self.new.root(), &keyed)
    }

    /// A keyed path's object (its first step) and its member for people.
    fn place(&self, path: &Path) -> (String, String) {
        let mut steps = path.0.iter();
        let object = match steps.next() {
            Some(Segment::Id { value, .. }) => self.name(value),
            Some(other) => segment_text(other, &|t| self.name(t)),
            None => "(root)".to_string(),
        };
        let mut property = String::new();
        for seg in steps {
            let text = segment_text(seg, &|t| self.name(t));
            if !property.is_empty() && !text.starts_with('[') {
                property.push('.');
            }
            property.push_str(&text);
        }
        (object, property)
    }

    /// A keyed value as compact JSON for people: references as `"@name"`, an object's
    /// keyed identity left out.
    fn value(&self, v: Value<'_>) -> String {
        let mut j = J::of(v);
        if let J::Obj(members) = &mut j {
            members.retain(|(k, _)| k != KEY);
        }
        let mut named = |t: &J| Some(J::string(&format!("@{}", self.name(t.as_str()?))));
        match j.reference(REF).cloned() {
            Some(t) => named(&t).unwrap_or(J::Null).compact(),
            None => {
                rewrite_references(&mut j, REF, &mut named);
                j.compact()
            }
        }
    }
}

/// A path step for people: a member's name, an index, a listed reference by the name of
/// its target (`[Canvas/Menu/Start]`).
fn segment_text(seg: &Segment, name: &impl Fn(&str) -> String) -> String {
    match seg {
        Segment::Key(k) => k.clone(),
        Segment::Index(i) => format!("[{i}]"),
        Segment::Id { key, value } if key == REF || key == KEY => format!("[{}]", name(value)),
        Segment::Id { key, value } => format!("[{key}={value}]"),
    }
}

/// The changes from `old` to `new` in the engine's terms, when both are Cocos object
/// graphs ([`is_cocos`]): objects matched by identity (renumbering is no change), named
/// by node path and component type; `None` otherwise.
pub fn graph_changes(
    old: &Document,
    new: &Document,
    options: &DiffOptions,
) -> Option<Vec<GraphChange>> {
    let keyed = Keyed::of(old, new)?;
    let d = keyed.diff(options);
    let changes = d
        .changes
        .iter()
        .map(|c| {
            let (object, property) = keyed.place(c.path());
            let (kind, old, new) = match c {
                Change::Added { value, .. } => (GraphChangeKind::Added, None, Some(*value)),
                Change::Removed { value, .. } => (GraphChangeKind::Removed, Some(*value), None),
                Change::Changed { old, new, .. } => {
                    (GraphChangeKind::Changed, Some(*old), Some(*new))
                }
                Change::Moved {
                    from_index,
                    to_index,
                    ..
                } => {
                    return GraphChange {
                        object,
                        kind: GraphChangeKind::Moved,
                        property,
                        old: Some(from_index.to_string()),
                        new: Some(to_index.to_string()),
                    }
                }
            };
            GraphChange {
                object,
                kind,
                property,
                old: old.map(|v| keyed.value(v)),
                new: new.map(|v| keyed.value(v)),
            }
        })
        .collect();
    Some(changes)
}

/// One line per change from `old` to `new`, when both are Cocos object graphs
/// ([`is_cocos`]); `None` otherwise. Lines are safe to show on a terminal.
pub fn diff_lines(old: &Document, new: &Document, options: &DiffOptions) -> Option<Vec<String>> {
    let keyed = Keyed::of(old, new)?;
    let d = keyed.diff(options);
    let name = |token: &str| keyed.name(token);
    let lines = d
        .changes
        .iter()
        .map(|c| sjson::string::terminal_safe(&named(&c.text(), &name)).into_owned())
        .collect();
    Some(lines)
}

/// Each object's name for people ([`names::object_name`]) by its token in `keyed`.
fn object_names(doc: &Document, keyed: &[J]) -> SeededMap<String, String> {
    keyed
        .iter()
        .enumerate()
        .filter_map(|(i, el)| {
            let token = el.get(KEY)?.as_str()?.to_string();
            let name = names::object_name(doc.root(), i)
                .unwrap_or_else(|| el.str_member("__type__").unwrap_or("?").to_string());
            Some((token, name))
        })
        .collect()
}

/// `text` with the keyed form's tokens replaced by names: `[__key__=o5]` and
/// `[__ref__=o5]` steps by the object's name, `{__ref__ = "o5"}` by `@` and the name, and
/// the `__key__ = "o5", ` member of an object's summary left out.
fn named(text: &str, name: &impl Fn(&str) -> String) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let patterns: [(&str, &str, bool); 4] = [
        ("[__key__=", "]", false),
        ("[__ref__=", "]", true),
        ("{__ref__ = \"", "\"}", true),
        ("__key__ = \"", "\", ", false),
    ];
    'scan: while !rest.is_empty() {
        for (i, (open, close, _)) in patterns.iter().enumerate() {
            let Some(after) = rest.strip_prefix(open) else {
                continue;
            };
            let Some(end) = after.find(close) else {
                continue;
            };
            let token = &after[..end];
            match i {
                0 => out.push_str(&name(token)),
                1 => {
                    let _ = std::fmt::Write::write_fmt(&mut out, format_args!("[{}]", name(token)));
                }
                2 => {
                    out.push('@');
                    out.push_str(&name(token));
                }
                _ => {}
            }
            rest = &after[end + close.len()..];
            // A path's first step is an object: its members follow with a `.`.
            continue 'scan;
        }
        let c = rest.chars().next().unwrap_or(' ');
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::tests::{base_tree, node, scene};
    use super::*;

    #[test]
    fn graph_changes_name_objects_and_references_and_ignore_renumbering() {
        let base = base_tree();
        let mut new = base.clone();
        new[0].children[0]
            .children
            .insert(0, node("o", "Options", vec![]));
        let doc = |t: &str| Document::parse(t, Dialect::Json).unwrap();
        let (old, new) = (doc(&scene(&base)), doc(&scene(&new)));
        let changes = graph_changes(&old, &new, &Default::default()).unwrap();
        let added: Vec<&str> = changes
            .iter()
            .filter(|c| c.kind == GraphChangeKind::Added && c.property.is_empty())
            .map(|c| c.object.as_str())
            .collect();
        assert_eq!(
            added,
            ["Canvas/Menu/Options", "Canvas/Menu/Options<cc.Label>"]
        );
        let listed = changes
            .iter()
            .find(|c| c.object == "Canvas/Menu" && c.property.starts_with("_children"))
            .unwrap_or_else(|| panic!("{changes:?}"));
        assert_eq!(listed.new.as_deref(), Some(r#""@Canvas/Menu/Options""#));
        // Nothing else: every other object was only renumbered.
        assert_eq!(changes.len(), 3, "{changes:?}");
        for c in &changes {
            for text in [&c.old, &c.new].into_iter().flatten() {
                assert!(!text.contains(KEY) && !text.contains(REF), "{c:?}");
            }
        }
        let same = graph_changes(&old, &old, &Default::default()).unwrap();
        assert!(same.is_empty());
    }
}
