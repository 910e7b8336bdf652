//! The format invariants of the gate: what a Cocos Creator graph, a Tiled map and an LDtk
//! project must keep to load in their editors. Each is reported by its kind, not by the
//! place where it first breaks (array positions differ between versions), so that an
//! invariant one input already broke is told apart from one the merge broke.

use sjson::{Document, Kind, Value};

use super::{FormatInvariant, GateViolation};
use crate::game::Game;
use crate::profile::Format;

/// The format's own invariants that `doc` breaks.
pub(crate) fn invariants(format: Format, doc: &Document) -> Vec<GateViolation> {
    match format {
        Format::Cocos2 | Format::Cocos3 => cocos(doc),
        Format::Tiled | Format::Ldtk => maps(doc),
        Format::Stingray | Format::GDevelop | Format::Json | Format::Generic => Vec::new(),
    }
}

fn violation(at: &str, broken: FormatInvariant) -> GateViolation {
    GateViolation::Format {
        at: at.to_string(),
        broken,
    }
}

/// `{"__id__": n}`'s `n`.
fn index(v: Value<'_>) -> Option<usize> {
    if v.kind() != Kind::Object || v.len() != 1 {
        return None;
    }
    let n = v.get("__id__")?;
    n.text().parse().ok()
}

fn references(v: Value<'_>, out: &mut Vec<usize>) {
    match v.kind() {
        Kind::Object => match index(v) {
            Some(n) => out.push(n),
            None if v.get("__id__").is_some() => out.push(usize::MAX),
            None => v.children().for_each(|c| references(c, out)),
        },
        Kind::Array => v.children().for_each(|c| references(c, out)),
        _ => {}
    }
}

fn indexes<'d>(el: Value<'d>, key: &str) -> impl Iterator<Item = usize> + 'd {
    el.get(key)
        .filter(|l| l.kind() == Kind::Array)
        .into_iter()
        .flat_map(|l| l.children().filter_map(index))
}

/// A Cocos Creator graph: every `__id__` in range, `_children`/`_parent` and
/// `_components`/`node` agreeing both ways, every object referenced.
fn cocos(doc: &Document) -> Vec<GateViolation> {
    let root = doc.root();
    if root.kind() != Kind::Array {
        return Vec::new();
    }
    let elements: Vec<Value<'_>> = root.children().collect();
    let n = elements.len();
    let (mut out_of_range, mut parents, mut components) = (false, false, false);
    let mut referenced = vec![false; n];
    for (i, el) in elements.iter().enumerate() {
        let mut refs = Vec::new();
        references(*el, &mut refs);
        for t in refs {
            match referenced.get_mut(t) {
                Some(seen) => *seen = true,
                None => out_of_range = true,
            }
        }
        let points_back = |c: usize, key: &str| elements[c].get(key).and_then(index) == Some(i);
        parents |= indexes(*el, "_children").any(|c| c < n && !points_back(c, "_parent"));
        components |= indexes(*el, "_components").any(|c| c < n && !points_back(c, "node"));
        if let Some(p) = el.get("_parent").and_then(index).filter(|&p| p < n) {
            parents |= !indexes(elements[p], "_children").any(|c| c == i);
        }
    }
    let mut found = Vec::new();
    if out_of_range {
        found.push(violation("/", FormatInvariant::ReferenceInRange));
    }
    if parents {
        found.push(violation("/", FormatInvariant::ChildrenAndParent));
    }
    if components {
        found.push(violation("/", FormatInvariant::ComponentsAndNode));
    }
    if referenced.iter().skip(1).any(|seen| !seen) {
        found.push(violation("/", FormatInvariant::Referenced));
    }
    found
}

/// A Tiled map or an LDtk project: ids unique and below their counters, grids of exactly
/// width x height cells.
fn maps(doc: &Document) -> Vec<GateViolation> {
    let Some(game) = Game::of(doc) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    if !crate::counters::ids_coherent(doc) {
        found.push(violation("/", FormatInvariant::IdsBelowCounters));
    }
    for grid in crate::grid::grids(game, doc) {
        if !grid.is_whole() {
            found.push(violation(
                &grid.pointer.to_string(),
                FormatInvariant::GridLength,
            ));
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use sjson::{Dialect, Document};

    fn doc(text: &str) -> Document {
        Document::parse(text, Dialect::Json).unwrap()
    }

    #[test]
    fn a_whole_cocos_graph_keeps_every_invariant() {
        let ok = r#"[{"__type__":"cc.SceneAsset","scene":{"__id__":1}},
            {"__type__":"cc.Scene","_parent":null,"_children":[{"__id__":2}],"_components":[]},
            {"__type__":"cc.Node","_parent":{"__id__":1},"_children":[],"_components":[{"__id__":3}]},
            {"__type__":"cc.Label","node":{"__id__":2}}]"#;
        assert!(invariants(Format::Cocos2, &doc(ok)).is_empty());
    }

    #[test]
    fn each_broken_cocos_invariant_is_named() {
        let broken = r#"[{"__type__":"cc.SceneAsset","scene":{"__id__":1}},
            {"__type__":"cc.Scene","_parent":null,"_children":[{"__id__":2},{"__id__":9}],"_components":[]},
            {"__type__":"cc.Node","_parent":null,"_children":[],"_components":[{"__id__":3}]},
            {"__type__":"cc.Label","node":{"__id__":1}},
            {"__type__":"cc.Node","_parent":null}]"#;
        let found: Vec<String> = invariants(Format::Cocos3, &doc(broken))
            .iter()
            .map(|v| v.to_string())
            .collect();
        for want in [
            "past the end",
            "_parent disagree",
            "node disagree",
            "nothing references",
        ] {
            assert!(found.iter().any(|f| f.contains(want)), "{want}: {found:?}");
        }
    }

    #[test]
    fn a_tiled_grid_of_the_wrong_length_and_an_id_at_its_counter_are_named() {
        let map = r#"{"tiledversion":"1.4.3","width":2,"height":2,"nextlayerid":2,"nextobjectid":1,
            "layers":[{"id":2,"type":"tilelayer","width":2,"height":2,"data":[1,2,3]}]}"#;
        let found: Vec<String> = invariants(Format::Tiled, &doc(map))
            .iter()
            .map(|v| v.to_string())
            .collect();
        assert!(found.iter().any(|f| f.contains("counter")), "{found:?}");
        assert!(
            found.iter().any(|f| f.contains("width x height")),
            "{found:?}"
        );
    }
}
