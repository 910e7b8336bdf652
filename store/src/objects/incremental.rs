//! Scanning a blob by what changed since the version of the same file scanned before it:
//! the texts are compared object by object (the outermost id'd objects' byte ranges and
//! the text between them), and only objects whose text changed are parsed again, each on
//! its own. An object whose text did not change has the entry it had (an entry depends on
//! the object's value and its place, and the text around it is the same). Anything else —
//! text between objects changed, an object added or removed, an id changed, two changed
//! objects side by side, a repeated id — gives up, and the caller parses the whole blob.
//! Pure: bytes in, entries out.

use std::collections::{BTreeMap, HashSet};
use std::ops::Range;

use gix::ObjectId;
use sjson::{Dialect, Document, ParseOptions};

use super::scan::entry_of;
use super::Entry;

/// The objects of one file by id.
pub(super) type Objects = BTreeMap<String, Entry>;

/// What is kept of the last scanned version of a file to scan the next one by its changes.
pub(super) struct Previous {
    /// The blob it was scanned from.
    pub(super) blob: ObjectId,
    text: Vec<u8>,
    /// The outermost id'd objects in document order.
    outer: Vec<Outer>,
}

/// An outermost id'd object: its byte range and the ids in it (its own first).
struct Outer {
    span: Range<usize>,
    ids: Vec<String>,
}

/// The objects that changed in a new version of a file: ids no longer there, and the new
/// entries of the objects whose text changed (some may equal the old ones).
#[derive(Debug, Default, PartialEq)]
pub(super) struct Edit {
    /// Ids in the old version that are gone.
    pub(super) removed: Vec<String>,
    /// New entries by id, sorted by id.
    pub(super) upserted: Vec<(String, Entry)>,
}

/// Parses a whole blob: its objects (`None` if it does not parse) and, when every id in
/// it is unique, what [`scan_edit`] needs to scan the next version.
pub(super) fn scan_full(
    blob: ObjectId,
    bytes: Vec<u8>,
    dialect: Dialect,
    id_keys: &[String],
) -> (Option<Objects>, Option<Previous>) {
    let Ok(doc) = Document::parse_bytes(bytes, ParseOptions::new(dialect)) else {
        return (None, None);
    };
    let keyed = merge::objects::keyed_objects(doc.root(), id_keys);
    // A Cocos object's name and id depend on other objects: its next version is parsed
    // whole.
    let whole_only = merge::naming::cocos::is_graph(doc.root());
    let mut outer: Vec<Outer> = Vec::new();
    let mut seen = HashSet::with_capacity(keyed.len());
    let mut unique = true;
    for obj in &keyed {
        unique &= seen.insert(obj.id.as_str());
        let span = obj.value.span();
        match outer.last_mut() {
            Some(last) if last.span.end >= span.end => last.ids.push(obj.id.clone()),
            _ => outer.push(Outer {
                span,
                ids: vec![obj.id.clone()],
            }),
        }
    }
    let objects = super::scan::entries(&keyed);
    drop(keyed);
    let previous = (unique && !whole_only).then(|| Previous {
        blob,
        text: doc.into_text().into_bytes(),
        outer,
    });
    (Some(objects), previous)
}

/// Scans `new` (blob `blob`) as an edit of `prev`, whose objects are `old`; `None` when
/// the change is not one [`scan_edit`] handles (then parse the whole blob).
pub(super) fn scan_edit(
    mut prev: Previous,
    old: &Objects,
    blob: ObjectId,
    new: Vec<u8>,
    dialect: Dialect,
    id_keys: &[String],
) -> Option<(Edit, Previous)> {
    let mut edit = Edit::default();
    let mut removed_ids = HashSet::new();
    let (mut o, mut n) = (0usize, 0usize);
    let count = prev.outer.len();
    for i in 0..count {
        let span = prev.outer[i].span.clone();
        let gap = &prev.text[o..span.start];
        if !new.get(n..)?.starts_with(gap) {
            return None;
        }
        n += gap.len();
        let text = &prev.text[span.clone()];
        let start = n;
        if new[n..].starts_with(text) {
            n += text.len();
        } else {
            // Where the text after this object (up to the next object's end) is again.
            let anchor = match prev.outer.get(i + 1) {
                Some(next) => &prev.text[span.end..next.span.end],
                None => &prev.text[span.end..],
            };
            let end = if i + 1 < count {
                n + memchr::memmem::find(&new[n..], anchor)?
            } else {
                new.len().checked_sub(anchor.len()).filter(|e| *e >= n)?
            };
            let pointer = &old.get(prev.outer[i].ids.first()?)?.pointer;
            let (ids, entries) = rescan(&new[n..end], pointer, dialect, id_keys)?;
            // The object keeps its id (else its array may no longer be keyed).
            if ids.first() != prev.outer[i].ids.first() {
                return None;
            }
            let old_ids = std::mem::replace(&mut prev.outer[i].ids, ids);
            removed_ids.extend(old_ids);
            edit.upserted.extend(entries);
            n = end;
        }
        o = span.end;
        prev.outer[i].span = start..n;
    }
    if new.get(n..)? != &prev.text[o..] {
        return None;
    }
    // Every id stays unique in the file.
    let mut new_ids = HashSet::new();
    for (id, _) in &edit.upserted {
        if !new_ids.insert(id.as_str()) || (old.contains_key(id) && !removed_ids.contains(id)) {
            return None;
        }
    }
    edit.removed = removed_ids
        .iter()
        .filter(|id| !new_ids.contains(id.as_str()))
        .cloned()
        .collect();
    edit.removed.sort();
    edit.upserted.sort_by(|a, b| a.0.cmp(&b.0));
    prev.text = new;
    prev.blob = blob;
    Some((edit, prev))
}

/// The ids in one object (its own first) and their entries.
type Rescanned = (Vec<String>, Vec<(String, Entry)>);

/// The ids and entries of one object's new text `slice`, the object having been at
/// `pointer` (`…/[key=id]`): parsed alone as the one element of an array, so that its
/// own id is read the way its array reads it.
fn rescan(slice: &[u8], pointer: &str, dialect: Dialect, id_keys: &[String]) -> Option<Rescanned> {
    // Must be one whole object: a trailing comment or an open string could take in the
    // text after it.
    if slice.first() != Some(&b'{') || slice.last() != Some(&b'}') {
        return None;
    }
    let (head, tail): (&[u8], &[u8]) = match dialect {
        Dialect::Sjson => (b"x = [\n", b"\n]\n"),
        Dialect::Json => (b"{\"x\": [\n", b"\n]}\n"),
    };
    let mut text = Vec::with_capacity(head.len() + slice.len() + tail.len());
    text.extend_from_slice(head);
    text.extend_from_slice(slice);
    text.extend_from_slice(tail);
    let doc = Document::parse_bytes(text, ParseOptions::new(dialect)).ok()?;
    let keyed = merge::objects::keyed_objects(doc.root(), id_keys);
    let first = keyed.first()?;
    if first.value.span() != (head.len()..head.len() + slice.len()) {
        return None;
    }
    // `/x/[key=id]…` here is `pointer…` in the file.
    let own = first.pointer.strip_prefix("/x")?.to_string();
    let base = pointer.strip_suffix(own.as_str())?;
    let mut ids = Vec::with_capacity(keyed.len());
    let mut entries = Vec::with_capacity(keyed.len());
    for obj in &keyed {
        let rel = obj.pointer.strip_prefix("/x")?;
        ids.push(obj.id.clone());
        entries.push((obj.id.clone(), entry_of(obj, format!("{base}{rel}"))));
    }
    Some((ids, entries))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn keys() -> Vec<String> {
        vec!["id".to_string()]
    }

    fn oid(n: u8) -> ObjectId {
        ObjectId::from_bytes_or_panic(&[n; 20])
    }

    /// An SJSON level from (id, x, children) triples.
    fn level(entities: &[(u8, i32, Vec<u8>)]) -> String {
        level_in(entities, Dialect::Sjson)
    }

    /// A level from (id, x, children) triples, in `dialect`.
    fn level_in(entities: &[(u8, i32, Vec<u8>)], dialect: Dialect) -> String {
        let json = dialect == Dialect::Json;
        let (open, eq, sep) = if json {
            ("{\n", ": ", ",")
        } else {
            ("", " = ", "")
        };
        let q = |k: &str| {
            if json {
                format!("\"{k}\"")
            } else {
                k.to_string()
            }
        };
        let mut s = format!(
            "{open}{}{eq}[0.1{sep} 0.2]{sep}\n{}{eq}[\n",
            q("ambient"),
            q("entities")
        );
        for (i, (id, x, children)) in entities.iter().enumerate() {
            s.push_str(&format!(
                "\t{{\n\t\t{}{eq}\"e{id}\"{sep}\n\t\t{}{eq}{x}",
                q("id"),
                q("x")
            ));
            if !children.is_empty() {
                s.push_str(&format!("{sep}\n\t\t{}{eq}[\n", q("components")));
                for (j, c) in children.iter().enumerate() {
                    let comma = if j + 1 < children.len() { sep } else { "" };
                    s.push_str(&format!(
                        "\t\t\t{{ {}{eq}\"c{id}_{c}\"{sep} {}{eq}{c} }}{comma}\n",
                        q("id"),
                        q("v")
                    ));
                }
                s.push_str("\t\t]");
            }
            let comma = if i + 1 < entities.len() { sep } else { "" };
            s.push_str(&format!("\n\t}}{comma}\n"));
        }
        s.push_str("]\n");
        if json {
            s.push_str("}\n");
        }
        s
    }

    /// The file's objects after an edit, from the old ones.
    fn applied(old: &Objects, edit: &Edit) -> Objects {
        let mut out = old.clone();
        for id in &edit.removed {
            out.remove(id);
        }
        for (id, e) in &edit.upserted {
            out.insert(id.clone(), e.clone());
        }
        out
    }

    fn entity() -> impl Strategy<Value = (i32, Vec<u8>)> {
        (0i32..3, prop::collection::vec(0u8..3, 0..3))
    }

    proptest! {
        /// Scanning by changes gives the objects a whole parse gives, or gives up.
        #[test]
        fn an_edit_scan_equals_a_full_scan(
            before in prop::collection::vec(entity(), 1..6),
            after in prop::collection::vec(entity(), 1..6),
            json in any::<bool>(),
        ) {
            let with_ids = |v: &[(i32, Vec<u8>)]| -> Vec<(u8, i32, Vec<u8>)> {
                v.iter().enumerate().map(|(i, (x, c))| (i as u8, *x, c.clone())).collect()
            };
            let dialect = if json { Dialect::Json } else { Dialect::Sjson };
            let (a, b) = (level_in(&with_ids(&before), dialect), level_in(&with_ids(&after), dialect));
            let (old, prev) = scan_full(oid(1), a.into_bytes(), dialect, &keys());
            let (old, prev) = (old.unwrap(), prev.unwrap());
            let (full, _) = scan_full(oid(2), b.clone().into_bytes(), dialect, &keys());
            let full = full.unwrap();
            if let Some((edit, next)) = scan_edit(prev, &old, oid(2), b.into_bytes(), dialect, &keys()) {
                prop_assert_eq!(applied(&old, &edit), full);
                prop_assert_eq!(next.blob, oid(2));
                prop_assert!(edit.removed.iter().all(|id| old.contains_key(id)));
            }
        }
    }

    #[test]
    fn changes_inside_objects_are_scanned_alone() {
        let a = level(&[(1, 0, vec![]), (2, 0, vec![1]), (3, 0, vec![1])]);
        let b = level(&[(1, 5, vec![]), (2, 0, vec![1]), (3, 0, vec![1, 2])]);
        let (old, prev) = scan_full(oid(1), a.into_bytes(), Dialect::Sjson, &keys());
        let (old, prev) = (old.unwrap(), prev.unwrap());
        let (edit, _) = scan_edit(
            prev,
            &old,
            oid(2),
            b.clone().into_bytes(),
            Dialect::Sjson,
            &keys(),
        )
        .expect("an edit inside objects");
        let ids: Vec<&str> = edit.upserted.iter().map(|(id, _)| id.as_str()).collect();
        assert_eq!(ids, ["c3_1", "c3_2", "e1", "e3"]);
        let full = scan_full(oid(2), b.into_bytes(), Dialect::Sjson, &keys()).0;
        assert_eq!(Some(applied(&old, &edit)), full);
        assert_eq!(
            edit.upserted[1].1.pointer,
            "/entities/[id=e3]/components/[id=c3_2]"
        );
    }

    #[test]
    fn an_added_object_or_a_changed_id_gives_up() {
        let a = level(&[(1, 0, vec![]), (2, 0, vec![])]);
        let (old, prev) = scan_full(oid(1), a.clone().into_bytes(), Dialect::Sjson, &keys());
        let old = old.unwrap();
        let added = level(&[(1, 0, vec![]), (2, 0, vec![]), (3, 0, vec![])]);
        assert!(scan_edit(
            prev.unwrap(),
            &old,
            oid(2),
            added.into_bytes(),
            Dialect::Sjson,
            &keys()
        )
        .is_none());
        let renamed = a.replace("\"e2\"", "\"e9\"");
        let prev = scan_full(oid(1), a.into_bytes(), Dialect::Sjson, &keys()).1;
        assert!(scan_edit(
            prev.unwrap(),
            &old,
            oid(2),
            renamed.into_bytes(),
            Dialect::Sjson,
            &keys()
        )
        .is_none());
    }
}
