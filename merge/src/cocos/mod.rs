//! Cocos Creator scenes and prefabs (2.x `.fire`/`.prefab`, 3.x `.scene`/`.prefab`): one
//! flat JSON array of objects that name each other by position, `{"__id__": 12}`.
//!
//! A merge element by element never renumbers those positions, so when the sides insert or
//! delete objects the references run past the end or name the wrong object. Here each
//! version is turned into a keyed form first: every object gets an identity that is the
//! same in every version (module `keys`), and every `{"__id__": n}` becomes a reference to that
//! identity. The keyed forms are merged by the ordinary merger (objects by identity, their
//! members property by property, `_children`/`_components` as keyed lists), then the result
//! is made whole again (module `rebuild`: dangling references restored or dropped, back-links
//! `_parent`/`_children` and `node`/`_components` made true both ways, objects nothing
//! reaches dropped) and laid out as an array with every reference renumbered.

mod counterpart;
pub mod diff;
mod keys;
mod rebuild;
mod similar;
mod tree;
mod values;

#[cfg(test)]
mod tests;

use crate::hashing::SeededMap;
use sjson::{Dialect, Document, ParseOptions, Path, Segment};

pub use crate::naming::cocos as names;
pub use crate::naming::cocos::is_graph;
use crate::{Conflict, MergeError, MergeOptions, Structural};
pub use counterpart::{counterparts, value_renumbered};
use tree::J;

/// Whether `doc` is a Cocos Creator object graph: a non-empty array whose elements are
/// all objects with a string `__type__`, the first a scene or prefab asset (`cc.SceneAsset`,
/// `cc.Prefab`), or any of them holding an `{"__id__": n}` reference. Reads only the
/// top-level elements' members unless the first element is not an asset.
pub fn is_cocos(doc: &Document) -> bool {
    is_graph(doc.root())
}

/// Merges three versions of a Cocos object graph ([`is_cocos`]): objects matched by
/// identity, merged member by member, the array laid out again with every `{"__id__": n}`
/// renumbered and every back-link true. The text is in ours' layout (ours' own text when
/// the result equals ours). Conflicts name the result's objects by position
/// (`/12/_string`); [`names`] renders them as node paths. The text is not parsed here:
/// [`crate::merge`] parses it back and checks it with the result gate.
pub(crate) fn merge_cocos(
    base: &Document,
    ours: &Document,
    theirs: &Document,
    options: &MergeOptions,
) -> Result<Structural, MergeError> {
    let versions = [base, ours, theirs].map(elements);
    let mut tokens = Tokens::default();
    let keyed = tokens.keyed_versions(versions.each_ref().map(Vec::as_slice));
    let inner = MergeOptions {
        policy: options.policy,
        id_keys: vec![KEY.to_string(), REF.to_string()],
        natural_keys: Vec::new(),
        atomic_max: options.atomic_max,
        references: options.references.clone(),
        // The format's knowledge (editor-derived members) holds in the keyed form too.
        profile: Some(crate::profile::resolve(options.profile, ours)),
        threads: options.threads,
    };
    let parse = |els: &[J]| {
        let text = J::Arr(els.to_vec()).compact();
        Document::parse_with(text, ParseOptions::new(Dialect::Json)).map_err(MergeError::Invalid)
    };
    let [kb, ko, kt] = [parse(&keyed[0])?, parse(&keyed[1])?, parse(&keyed[2])?];
    let merged = crate::structural(&kb, &ko, &kt, &inner);
    let merged_doc = Document::parse_with(merged.text, ParseOptions::new(Dialect::Json))
        .map_err(MergeError::Invalid)?;
    let mut merged_elements = match J::of(merged_doc.root()) {
        J::Arr(items) => items,
        _ => Vec::new(),
    };
    // The root stays first.
    let root = tokens.token("root");
    if let Some(i) = merged_elements
        .iter()
        .position(|el| el.get(KEY).and_then(J::as_str) == Some(root.as_str()))
    {
        let el = merged_elements.remove(i);
        merged_elements.insert(0, el);
    }
    let side = options.policy.side();
    let sources = match side {
        crate::Side::Theirs => [&keyed[2], &keyed[1], &keyed[0]],
        crate::Side::Ours => [&keyed[1], &keyed[2], &keyed[0]],
    };
    // The editor's layout when both sides keep it (a side laid out otherwise, by hand or
    // by another tool, is followed instead, as the merge's order follows it).
    let editor_order = in_editor_order(&versions[1]) && in_editor_order(&versions[2]);
    let sources = sources.map(|s| s.as_slice());
    let rebuilt = rebuild::rebuild(merged_elements, sources, side, editor_order);
    let text = if rebuilt.elements == versions[1] {
        ours.text().to_string()
    } else {
        in_style_of(ours.text(), &J::Arr(rebuilt.elements))
    };
    let mut namer = values::Namer::new(
        &text,
        &rebuilt.positions,
        [(ours, &keyed[1]), (theirs, &keyed[2]), (base, &keyed[0])],
    );
    let conflicts: Vec<Conflict> = merged
        .conflicts
        .into_iter()
        .map(|mut c| {
            c.path = in_result(&c.path, &rebuilt.positions);
            c
        })
        .chain(rebuilt.repairs)
        .map(|c| namer.conflict(c))
        .collect();
    Ok(Structural { text, conflicts })
}

/// Whether `elements` are laid out the way the editor writes them ([`rebuild::preorder`]),
/// as nearly every scene and prefab is.
fn in_editor_order(elements: &[J]) -> bool {
    let adjacency: Vec<Vec<usize>> = elements
        .iter()
        .map(|el| {
            let mut refs = Vec::new();
            tree::references(el, "__id__", &mut refs);
            refs.iter()
                .filter_map(|(_, t)| keys::index_of(t, elements.len()))
                .collect()
        })
        .collect();
    rebuild::preorder(&adjacency)
        .into_iter()
        .eq(0..elements.len())
}

/// The member naming an object's identity in the keyed form.
const KEY: &str = "__key__";
/// The member of a reference by identity in the keyed form.
const REF: &str = "__ref__";

/// The top-level elements of a document, owned.
fn elements(doc: &Document) -> Vec<J> {
    doc.root().children().map(J::of).collect()
}

/// Short tokens for identities, shared by the three versions.
#[derive(Default)]
struct Tokens {
    of: SeededMap<String, String>,
}

impl Tokens {
    fn token(&mut self, identity: &str) -> String {
        let next = self.of.len();
        self.of
            .entry(identity.to_string())
            .or_insert_with(|| format!("o{next}"))
            .clone()
    }

    /// A version in keyed form: each element given its identity's token as [`KEY`], each
    /// `{"__id__": n}` turned into `{"__ref__": token}` (out of range: a token no object has).
    /// The versions `[base, sides…]` in keyed form, a side's objects that only their
    /// path would not match paired with base's by content ([`similar::matched`]).
    fn keyed_versions<const N: usize>(&mut self, versions: [&[J]; N]) -> [Vec<J>; N] {
        let base_ids = keys::identities(versions[0]);
        versions.map(|els| {
            let ids = if std::ptr::eq(els, versions[0]) {
                base_ids.clone()
            } else {
                similar::matched(versions[0], &base_ids, els)
            };
            self.keyed_as(els, &ids)
        })
    }

    /// A version in keyed form with the identities `ids` (by position).
    fn keyed_as(&mut self, elements: &[J], ids: &[String]) -> Vec<J> {
        let tokens: Vec<String> = ids.iter().map(|id| self.token(id)).collect();
        elements
            .iter()
            .zip(&tokens)
            .map(|(el, token)| {
                let mut el = el.clone();
                tree::rewrite_references(&mut el, "__id__", &mut |target| {
                    let token = match keys::index_of(target, tokens.len()) {
                        Some(t) => tokens[t].as_str(),
                        None => "",
                    };
                    Some(J::Obj(vec![(REF.to_string(), J::string(token))]))
                });
                if let J::Obj(members) = &mut el {
                    members.insert(0, (KEY.to_string(), J::string(token)));
                }
                el
            })
            .collect()
    }
}

/// A place in the keyed form (`/[__key__=o5]/_string`) as a place in the result: the
/// object by its position, the path cut before a reference list's element; the root when
/// the object is not in the result.
fn in_result(path: &Path, positions: &SeededMap<String, usize>) -> Path {
    let mut out = Path::root();
    for (i, seg) in path.0.iter().enumerate() {
        match seg {
            Segment::Id { key, value } if i == 0 && key == KEY => match positions.get(value) {
                Some(&p) => out.push(Segment::Index(p)),
                None => break,
            },
            Segment::Id { key, .. } if key == REF => break,
            seg => out.push(seg.clone()),
        }
    }
    out
}

/// `value` printed in the layout of `ours` (its indent unit, line ends and final newline).
fn in_style_of(ours: &str, value: &J) -> String {
    let newline = if ours.contains("\r\n") { "\r\n" } else { "\n" };
    let indent = ours
        .split('\n')
        .nth(1)
        .map(|line| {
            let width = line.len() - line.trim_start_matches([' ', '\t']).len();
            &line[..width]
        })
        .filter(|unit| !unit.is_empty())
        .unwrap_or("  ");
    let mut text = value.pretty(indent, newline);
    if ours.ends_with('\n') {
        text.push_str(newline);
    }
    text
}
