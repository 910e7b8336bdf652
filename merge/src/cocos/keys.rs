//! Identities of a Cocos graph's objects, the same in every version of the document: a
//! stable id where the object has one (`_id` of nodes and components, `fileId` of prefab
//! infos, a node's or component's prefab info's `fileId`), else the path from an object
//! with an identity (`<parent>/ch:<name>` for a child node, `<node>/co:<type>` for a
//! component, `<object>/<member>` otherwise), found by a walk from the root in
//! document order. Every object of a version has exactly one identity.

use std::collections::VecDeque;

use crate::hashing::{SeededMap, SeededSet, UniqueNames};

use super::tree::{references, J};

/// The identity of each element of `elements` (by position).
pub(crate) fn identities(elements: &[J]) -> Vec<String> {
    identities_with(elements, &SeededMap::default())
}

/// [`identities`], the objects of `forced` (positions without an id of their own) known
/// by the identity it gives them.
pub(crate) fn identities_with(elements: &[J], forced: &SeededMap<usize, String>) -> Vec<String> {
    let mut ids: Vec<Option<String>> = own_identities(elements);
    for (&i, id) in forced {
        if let Some(slot @ None) = ids.get_mut(i) {
            *slot = Some(id.clone());
        }
    }
    let mut taken = UniqueNames::new(ids.iter().flatten().cloned(), |name, n| {
        format!("{name}#{n}")
    });
    let mut queue: VecDeque<usize> = VecDeque::new();
    if !elements.is_empty() {
        queue.push_back(0);
    }
    let mut seen = vec![false; elements.len()];
    while let Some(i) = queue.pop_front() {
        if std::mem::replace(&mut seen[i], true) {
            continue;
        }
        let mut refs = Vec::new();
        references(&elements[i], "__id__", &mut refs);
        for (path, target) in refs {
            let Some(t) = index_of(target, elements.len()) else {
                continue;
            };
            if ids[t].is_none() {
                let parent = ids[i].clone().unwrap_or_default();
                let name = taken.unique(format!("{parent}/{}", step(&path, &elements[t])));
                ids[t] = Some(name);
            }
            queue.push_back(t);
        }
    }
    // Objects no walk reaches: by their content.
    let mut out = Vec::with_capacity(elements.len());
    for (el, id) in elements.iter().zip(ids) {
        out.push(id.unwrap_or_else(|| taken.unique(format!("orphan:{}", el.compact()))));
    }
    out
}

/// The position a reference's target names, when in range.
pub(crate) fn index_of(target: &J, len: usize) -> Option<usize> {
    match target {
        J::Num(n) => n.parse::<usize>().ok().filter(|&i| i < len),
        _ => None,
    }
}

/// The identities objects hold themselves; one held by two objects is no one's.
fn own_identities(elements: &[J]) -> Vec<Option<String>> {
    let file_id = |el: &J| {
        let ty = el.str_member("__type__").unwrap_or("");
        el.str_member("fileId").map(|f| format!("file:{ty}:{f}"))
    };
    let mut ids: Vec<Option<String>> = elements
        .iter()
        .enumerate()
        .map(|(i, el)| {
            if i == 0 {
                return Some("root".to_string());
            }
            if let Some(id) = el.str_member("_id") {
                return Some(format!("id:{id}"));
            }
            file_id(el)
        })
        .collect();
    // A node or component without an id of its own: by its prefab info's.
    for (i, el) in elements.iter().enumerate() {
        if ids[i].is_some() {
            continue;
        }
        let info = ["_prefab", "__prefab"]
            .iter()
            .filter_map(|k| el.get(k)?.reference("__id__"))
            .find_map(|t| index_of(t, elements.len()));
        if let Some(id) = info.and_then(|p| file_id(&elements[p])) {
            ids[i] = Some(format!("via:{id}"));
        }
    }
    let mut count: SeededMap<&str, usize> = SeededMap::default();
    for id in ids.iter().flatten() {
        *count.entry(id).or_default() += 1;
    }
    let shared: SeededSet<String> = count
        .into_iter()
        .filter(|&(_, n)| n > 1)
        .map(|(id, _)| id.to_string())
        .collect();
    for id in ids.iter_mut() {
        if id.as_ref().is_some_and(|x| shared.contains(x)) {
            *id = None;
        }
    }
    ids
}

/// The step from a referrer to an object it names through member path `path`.
fn step(path: &str, target: &J) -> String {
    let field = path.split('.').next().unwrap_or("");
    match field {
        "_children" => format!("ch:{}", target.str_member("_name").unwrap_or("")),
        "_components" => format!("co:{}", target.str_member("__type__").unwrap_or("")),
        _ => path.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value as Jv};
    use sjson::{Dialect, Document};

    use super::super::merge_cocos;
    use super::*;

    #[test]
    fn suffixes_resume_where_they_stopped_and_skip_taken_names() {
        let mut taken = UniqueNames::new(["x".to_string(), "x#3".to_string()], |name, n| {
            format!("{name}#{n}")
        });
        let got: Vec<String> = (0..3).map(|_| taken.unique("x".into())).collect();
        assert_eq!(got, ["x#2", "x#4", "x#5"]);
        assert_eq!(taken.unique("y".into()), "y");
        assert_eq!(taken.unique("x#2".into()), "x#2#2");
    }

    /// A scene of `n` unnamed nodes, the `active`-th inactive, the `dim`-th dimmed.
    fn identical_nodes(n: usize, active: usize, dim: usize) -> Jv {
        let children: Vec<Jv> = (0..n).map(|i| json!({ "__id__": i + 2 })).collect();
        let mut els = vec![
            json!({"__type__": "cc.SceneAsset", "scene": {"__id__": 1}}),
            json!({"__type__": "cc.Scene", "_parent": null, "_children": children,
                   "_components": []}),
        ];
        els.extend((0..n).map(|i| {
            json!({"__type__": "cc.Node", "_name": "", "_parent": {"__id__": 1},
                   "_children": [], "_components": [], "_active": i != active,
                   "_opacity": if i == dim { 9 } else { 255 }})
        }));
        Jv::Array(els)
    }

    #[test]
    fn twenty_thousand_identical_nodes_merge() {
        const N: usize = 20_000;
        let doc = |v: Jv| Document::parse(v.to_string(), Dialect::Json).unwrap();
        let (base, ours, theirs) = (
            doc(identical_nodes(N, N, N)),
            doc(identical_nodes(N, 5, N)),
            doc(identical_nodes(N, N, N - 1)),
        );
        let out = merge_cocos(&base, &ours, &theirs, &crate::MergeOptions::default()).unwrap();
        assert!(out.conflicts.is_empty(), "{:?}", out.conflicts);
        let merged: Jv = serde_json::from_str(&out.text).unwrap();
        assert_eq!(merged, identical_nodes(N, 5, N - 1));
        let ids: SeededSet<String> = crate::naming::cocos::objects(ours.root())
            .into_iter()
            .map(|o| o.id)
            .collect();
        assert_eq!(ids.len(), N + 2);
    }
}
