//! Identities of a Cocos graph's objects, the same in every version of the document: a
//! stable id where the object has one (`_id` of nodes and components, `fileId` of prefab
//! infos, a node's or component's prefab info's `fileId`), else the path from an object
//! with an identity (`<parent>/ch:<name>` for a child node, `<node>/co:<type>` for a
//! component, `<object>/<member>` otherwise), found by a walk from the root in
//! document order. Every object of a version has exactly one identity.

use std::collections::VecDeque;

use crate::hashing::{SeededMap, SeededSet};

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
    let mut taken: SeededSet<String> = ids.iter().flatten().cloned().collect();
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
                let name = unique(
                    &mut taken,
                    format!("{parent}/{}", step(&path, &elements[t])),
                );
                ids[t] = Some(name);
            }
            queue.push_back(t);
        }
    }
    // Objects no walk reaches: by their content.
    let mut out = Vec::with_capacity(elements.len());
    for (el, id) in elements.iter().zip(ids) {
        out.push(id.unwrap_or_else(|| unique(&mut taken, format!("orphan:{}", el.compact()))));
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

/// `name`, or `name#2`, `name#3`, … : the first not yet taken (then taken).
fn unique(taken: &mut SeededSet<String>, name: String) -> String {
    if taken.insert(name.clone()) {
        return name;
    }
    let mut n = 2;
    loop {
        let candidate = format!("{name}#{n}");
        if taken.insert(candidate.clone()) {
            return candidate;
        }
        n += 1;
    }
}
