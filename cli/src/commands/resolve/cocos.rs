//! `assetvc resolve` in a Cocos scene or prefab ([`merge::cocos::is_cocos`]). The merge
//! records a conflict at a position of its result (`/12/_string`) and names it by node
//! path (`Canvas/Menu/Start<cc.Label>._string`); positions mean nothing to a person and
//! change whenever objects are added before them (a later step of a rebase, a save in the
//! editor). So here a conflict is found again in the file by its recorded name, OBJECT is
//! a node's path (its conflicts and its components'), a component
//! (`Canvas/Menu/Start<cc.Label>`) or a conflict's place as `assetvc conflicts` prints it,
//! and the side's value is read from that side's own object, its references (`{"__id__":
//! n}`) renumbered for the file. A conflict on a whole object, or on one end of a link
//! of the node tree (`_parent`, `_children`, `node`, `_components`), is left to the
//! editor: putting one object back alone would renumber every reference after it, and
//! one end of a link taken alone would disagree with the other.

use sjson::{Dialect, Document, Out, ParseOptions, Segment};
use store::at_path::{find, put};

use super::StepConflict;

/// The members that link nodes and components both ways: the merge keeps both ends true.
const LINKS: [&str; 4] = ["_parent", "_children", "node", "_components"];

/// Where a recorded conflict is in the file now.
pub(super) struct Located {
    /// Its object's position in the file.
    index: usize,
    /// The steps below the object (`_string`).
    rest: Vec<Segment>,
    /// The object's name (`Canvas/Menu/Start<cc.Label>`).
    pub(super) object: String,
    /// The conflict's place (`Canvas/Menu/Start<cc.Label>._string`).
    pub(super) place: String,
}

/// Every conflict of `conflicts` found in `doc` (`None`: not found, its object no longer
/// there), in order.
pub(super) fn locate_all(doc: &Document, conflicts: &[StepConflict]) -> Vec<Option<Located>> {
    let names = merge::naming::Names::new(vec![doc.root()], &[], &[]);
    let now: Vec<Option<String>> = merge::naming::cocos::object_names(doc.root())
        .into_iter()
        .map(|n| n.map(|n| sjson::string::terminal_safe_line(&n).into_owned()))
        .collect();
    conflicts.iter().map(|c| locate(&names, &now, c)).collect()
}

/// Where `c` is in the document `names` names, whose objects are named `now`: at its
/// recorded position when the object there has its recorded name, else at the one object
/// whose name and the steps below it give the recorded name.
fn locate(
    names: &merge::naming::Names<'_>,
    now: &[Option<String>],
    c: &StepConflict,
) -> Option<Located> {
    let (first, rest) = c.segs.split_first()?;
    let recorded_at = match first {
        Segment::Index(i) => *i,
        Segment::Key(k) => k.parse().ok()?,
        Segment::Id { .. } => return None,
    };
    let below = match c.pointer.get(1..)?.find('/') {
        Some(at) => &c.pointer[at + 1..],
        None => "",
    };
    let at = |i: usize| {
        // An object without a name (nothing names it) by its position, `[12]`.
        let object = now
            .get(i)?
            .clone()
            .unwrap_or_else(|| names.pointer(&format!("/{i}")));
        let place = names.pointer(&format!("/{i}{below}"));
        Some(Located {
            index: i,
            rest: rest.to_vec(),
            object,
            place,
        })
    };
    let Some(recorded) = c.name.as_deref() else {
        return at(recorded_at);
    };
    if let Some(found) = at(recorded_at).filter(|l| l.place == recorded) {
        return Some(found);
    }
    let mut found = (0..now.len())
        .filter(|&i| now[i].as_deref().is_some_and(|n| recorded.starts_with(n)))
        .filter_map(at)
        .filter(|l| l.place == recorded);
    let one = found.next()?;
    found.next().is_none().then_some(one)
}

/// Whether `wanted` names the conflict `c`, at `l`: its place, its object, the object's
/// node (`Canvas/Menu/Start` for `Canvas/Menu/Start<cc.Label>`), the component an object
/// named by it belongs to (`Canvas/Start<cc.Button>` for
/// `Canvas/Start<cc.Button>.clickEvents.0`), or, as the merge recorded it, its pointer
/// or a pointer above it (`/12`, `/12/_string`).
pub(super) fn names(wanted: &str, c: &StepConflict, l: &Located) -> bool {
    if wanted == l.place || wanted == l.object {
        return true;
    }
    if let Some(below) = c.pointer.strip_prefix(wanted) {
        if wanted.starts_with('/') && (below.is_empty() || below.starts_with('/')) {
            return true;
        }
    }
    match l.object.strip_prefix(wanted) {
        Some(after) => after.starts_with('<') || (wanted.ends_with('>') && after.starts_with('.')),
        None => false,
    }
}

/// `doc`'s text with the value at `l` as in `source` (the side taken), and the value
/// taken (compact JSON; `None`: deleted); `None` when `doc` already holds it or the value
/// cannot be taken alone (said on stderr).
pub(super) fn redo(
    doc: &Document,
    l: &Located,
    source: &Document,
    side: merge::Version,
    shown: &str,
) -> Option<(String, Option<String>)> {
    let warn = |why: &str| {
        eprintln!(
            "assetvc: warning: {shown} {}: {why}; left as it is",
            l.place
        );
    };
    if l.rest.is_empty() {
        warn("a whole object of a Cocos graph (resolve it in the editor)");
        return None;
    }
    // One end of a link taken alone would leave the other end disagreeing.
    if matches!(&l.rest[0], Segment::Key(k) if LINKS.contains(&k.as_str())) {
        warn("a link of the node tree (resolve it in the editor)");
        return None;
    }
    // The object in the side, and the side's objects in the file.
    let there = merge::cocos::counterparts(source, doc);
    let Some(Some(q)) = there.get(l.index).copied() else {
        warn(&format!("the object is not in {side}"));
        return None;
    };
    let mut here = vec![None; source.root().len()];
    for (j, k) in there.iter().enumerate() {
        if let Some(slot) = k.and_then(|k| here.get_mut(k)) {
            *slot = Some(j);
        }
    }
    let at = |i: usize| {
        let mut segs = vec![Segment::Index(i)];
        segs.extend(l.rest.iter().cloned());
        segs
    };
    let new = find(source.root(), &at(q));
    let renumbered = match new {
        Some((_, v)) => {
            let Some(text) = merge::cocos::value_renumbered(v, &|k| here.get(k).copied().flatten())
            else {
                warn(&format!("{side}'s value names an object not in the file"));
                return None;
            };
            Some(text)
        }
        None => None,
    };
    // Compact JSON as the renumbering writes it, lexemes kept.
    let compact = |v| merge::cocos::value_renumbered(v, &Some);
    let current = find(doc.root(), &at(l.index));
    let same = match (&renumbered, current) {
        (Some(text), Some((_, v))) => Some(text) == compact(v).as_ref(),
        (None, None) => true,
        _ => false,
    };
    if same {
        return None;
    }
    // The side's own text where its references read the same here, else the value
    // renumbered.
    let parsed = match (&renumbered, new) {
        (Some(text), Some((_, v))) if Some(text) != compact(v).as_ref() => {
            Some(Document::parse_with(text.clone(), ParseOptions::new(Dialect::Json)).ok()?)
        }
        _ => None,
    };
    let value = match (&parsed, new) {
        (Some(d), Some((i, _))) => Some((i, d.root())),
        (None, new) => new,
        _ => None,
    };
    let edited = put(doc.root(), &at(l.index), value).map(|out: Out<'_>| sjson::print(doc, &out));
    let Some(edited) = edited else {
        warn("its container is no longer in the file");
        return None;
    };
    Some((edited, renumbered))
}
