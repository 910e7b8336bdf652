//! The merged keyed form made whole again and laid out as a Cocos array: references to
//! objects the merge dropped restored from the sides (or dropped from reference lists),
//! `_parent`/`_children` and `node`/`_components` made true both ways, objects the root
//! no longer reaches dropped, and every reference renumbered to its target's position.

use crate::hashing::{SeededMap, SeededSet};
use sjson::{Path, Segment};

use super::tree::{references, rewrite_references, J};
use super::{KEY, REF};
use crate::{Conflict, ConflictKind, Side};

/// The merged graph, laid out.
pub(crate) struct Rebuilt {
    /// The array's elements, references as `{"__id__": n}`.
    pub elements: Vec<J>,
    /// Each kept object's position, by token.
    pub positions: SeededMap<String, usize>,
    /// The objects restored because the result referenced them.
    pub repairs: Vec<Conflict>,
}

/// Lays out `merged` (keyed elements) as a Cocos array; `sources` are the keyed versions
/// to restore referenced objects from, the side taken first; `side` is that side. With
/// `editor_order`, the objects are laid out as the editor writes them ([`preorder`]);
/// otherwise in the merge's order.
pub(crate) fn rebuild(
    merged: Vec<J>,
    sources: [&[J]; 3],
    side: Side,
    editor_order: bool,
) -> Rebuilt {
    let mut graph = Graph::new(merged);
    let repairs = graph.restore(sources, side);
    graph.drop_dangling();
    graph.link_both_ways("_parent", "_children", Some("cc.SceneAsset"));
    graph.link_both_ways("node", "_components", None);
    graph.keep_reachable();
    if editor_order {
        graph.in_preorder();
    }
    graph.renumbered(repairs)
}

/// Keyed elements by token.
struct Graph {
    tokens: Vec<String>,
    elements: Vec<J>,
    at: SeededMap<String, usize>,
}

/// The token a keyed reference names.
fn target(reference: &J) -> Option<&str> {
    reference.as_str()
}

/// The tokens an element references, with the member path to each.
fn refs_of(el: &J) -> Vec<(String, String)> {
    let mut refs = Vec::new();
    references(el, REF, &mut refs);
    refs.into_iter()
        .filter_map(|(path, t)| Some((path, target(t)?.to_string())))
        .collect()
}

/// The place of object `token` in the keyed form (`/[__key__=o5]`), or of its member at
/// `member` (a dotted member path, `_components.0`: one key per step).
fn keyed_place(token: &str, member: Option<&str>) -> Path {
    let mut path = Path(vec![Segment::Id {
        key: KEY.to_string(),
        value: token.to_string(),
    }]);
    if let Some(member) = member {
        path.0
            .extend(member.split('.').map(|k| Segment::Key(k.to_string())));
    }
    path
}

/// A keyed reference to `token`.
fn reference(token: &str) -> J {
    J::Obj(vec![(REF.to_string(), J::string(token))])
}

impl Graph {
    fn new(merged: Vec<J>) -> Graph {
        let mut graph = Graph {
            tokens: Vec::new(),
            elements: Vec::new(),
            at: SeededMap::default(),
        };
        for el in merged {
            graph.add(el);
        }
        graph
    }

    /// Adds a keyed element (its key taken off); a second element of one token is dropped.
    fn add(&mut self, mut el: J) -> bool {
        let token = match &mut el {
            J::Obj(members) => match members.iter().position(|(k, _)| k == KEY) {
                Some(i) => members.remove(i).1.as_str().unwrap_or("").to_string(),
                None => String::new(),
            },
            _ => String::new(),
        };
        if token.is_empty() || self.at.contains_key(&token) {
            return false;
        }
        self.at.insert(token.clone(), self.elements.len());
        self.tokens.push(token);
        self.elements.push(el);
        true
    }

    /// Restores every object a kept object references (other than as a child, whose
    /// deletion stands) from the first source that has it, with what it references in turn.
    fn restore(&mut self, sources: [&[J]; 3], side: Side) -> Vec<Conflict> {
        let find = |token: &str| {
            sources.iter().find_map(|els| {
                els.iter()
                    .find(|el| el.get(KEY).and_then(J::as_str) == Some(token))
            })
        };
        let mut repairs = Vec::new();
        let mut i = 0;
        while i < self.elements.len() {
            for (path, token) in refs_of(&self.elements[i]) {
                if self.at.contains_key(&token) || path.starts_with("_children") {
                    continue;
                }
                let Some(found) = find(&token) else { continue };
                if self.add(found.clone()) {
                    repairs.push(Conflict {
                        path: keyed_place(&token, None),
                        kind: ConflictKind::DanglingReference,
                        base: None,
                        ours: None,
                        theirs: None,
                        taken: side,
                        object: found.str_member("_name").map(str::to_string),
                        referrer: Some(keyed_place(&self.tokens[i], Some(&path))),
                    });
                }
            }
            i += 1;
        }
        repairs
    }

    /// References to objects not in the graph: dropped from lists, `null` elsewhere.
    fn drop_dangling(&mut self) {
        let at = &self.at;
        for el in &mut self.elements {
            rewrite_references(el, REF, &mut |t| {
                let token = target(t)?;
                at.contains_key(token).then(|| reference(token))
            });
        }
    }

    /// The token `el`'s member `key` references, if it is a reference.
    fn link(el: &J, key: &str) -> Option<String> {
        Some(target(el.get(key)?.reference(REF)?)?.to_string())
    }

    /// Makes `up` (a child's reference to its owner) and `down` (the owner's list of its
    /// children) agree: the child's own `up` decides; a list keeps only the children whose
    /// `up` names its owner (or that have no `up`), and lists every child that names it,
    /// once. Owners of type `exempt` keep their lists as they are.
    fn link_both_ways(&mut self, up: &str, down: &str, exempt: Option<&str>) {
        let owner: Vec<Option<String>> =
            self.elements.iter().map(|el| Graph::link(el, up)).collect();
        let has_up: Vec<bool> = self
            .elements
            .iter()
            .map(|el| el.get(up).is_some())
            .collect();
        let mut listed: SeededSet<(usize, usize)> = SeededSet::default();
        for (o, el) in self.elements.iter_mut().enumerate() {
            if exempt.is_some() && el.str_member("__type__") == exempt {
                continue;
            }
            let own = &self.tokens[o];
            let Some(J::Arr(items)) = el.get_mut(down) else {
                continue;
            };
            let mut seen = SeededSet::default();
            items.retain(|item| {
                let Some(c) = item
                    .reference(REF)
                    .and_then(target)
                    .and_then(|t| self.at.get(t))
                else {
                    return true;
                };
                let keep = (!has_up[*c] || owner[*c].as_deref() == Some(own)) && seen.insert(*c);
                if keep {
                    listed.insert((o, *c));
                }
                keep
            });
        }
        for (c, o) in owner.iter().enumerate() {
            let Some(&o) = o.as_ref().and_then(|t| self.at.get(t)) else {
                continue;
            };
            if listed.contains(&(o, c)) {
                continue;
            }
            let el = &mut self.elements[o];
            if exempt.is_some() && el.str_member("__type__") == exempt {
                continue;
            }
            if let Some(J::Arr(items)) = el.get_mut(down) {
                items.push(reference(&self.tokens[c]));
            }
        }
    }

    /// Drops the objects the root (the first element) no longer reaches, and the
    /// references to them.
    fn keep_reachable(&mut self) {
        if self.elements.is_empty() {
            return;
        }
        let mut reached = vec![false; self.elements.len()];
        let mut stack = vec![0];
        while let Some(i) = stack.pop() {
            if std::mem::replace(&mut reached[i], true) {
                continue;
            }
            for (_, token) in refs_of(&self.elements[i]) {
                if let Some(&t) = self.at.get(&token) {
                    stack.push(t);
                }
            }
        }
        if reached.iter().all(|&r| r) {
            return;
        }
        let old = std::mem::take(&mut self.elements);
        let tokens = std::mem::take(&mut self.tokens);
        self.at.clear();
        for ((el, token), keep) in old.into_iter().zip(tokens).zip(reached) {
            if keep {
                self.at.insert(token.clone(), self.elements.len());
                self.tokens.push(token);
                self.elements.push(el);
            }
        }
        self.drop_dangling();
    }

    /// The elements' references as positions (those in range).
    fn adjacency(&self) -> Vec<Vec<usize>> {
        self.elements
            .iter()
            .map(|el| {
                refs_of(el)
                    .into_iter()
                    .filter_map(|(_, t)| self.at.get(&t).copied())
                    .collect()
            })
            .collect()
    }

    /// Lays the elements out in [`preorder`] from the root (all of them are reached).
    fn in_preorder(&mut self) {
        let order = preorder(&self.adjacency());
        if order.len() != self.elements.len() {
            return;
        }
        let mut slots: Vec<Option<(J, String)>> = std::mem::take(&mut self.elements)
            .into_iter()
            .zip(std::mem::take(&mut self.tokens))
            .map(Some)
            .collect();
        self.at.clear();
        for i in order {
            if let Some((el, token)) = slots[i].take() {
                self.at.insert(token.clone(), self.elements.len());
                self.tokens.push(token);
                self.elements.push(el);
            }
        }
    }

    /// The elements with every reference as `{"__id__": position}`.
    fn renumbered(mut self, mut repairs: Vec<Conflict>) -> Rebuilt {
        let at = &self.at;
        for el in &mut self.elements {
            rewrite_references(el, REF, &mut |t| {
                let p = at.get(target(t)?)?;
                Some(J::Obj(vec![("__id__".to_string(), J::Num(p.to_string()))]))
            });
        }
        for repair in &mut repairs {
            repair.path = super::in_result(&repair.path, at);
            if let Some(referrer) = &mut repair.referrer {
                *referrer = super::in_result(referrer, at);
            }
        }
        Rebuilt {
            positions: self.at,
            elements: self.elements,
            repairs,
        }
    }
}

/// The order the editor writes a graph in: each object when it is first met in a walk
/// from the root (element 0) that follows each object's references in member order,
/// depth first. Objects the walk does not reach are left out.
pub(crate) fn preorder(adjacency: &[Vec<usize>]) -> Vec<usize> {
    let mut order = Vec::with_capacity(adjacency.len());
    if adjacency.is_empty() {
        return order;
    }
    let mut seen = vec![false; adjacency.len()];
    seen[0] = true;
    order.push(0);
    // (object, how many of its references are followed)
    let mut stack = vec![(0usize, 0usize)];
    while let Some(top) = stack.last_mut() {
        let (i, next) = *top;
        let Some(&t) = adjacency[i].get(next) else {
            stack.pop();
            continue;
        };
        top.1 += 1;
        if t < adjacency.len() && !seen[t] {
            seen[t] = true;
            order.push(t);
            stack.push((t, 0));
        }
    }
    order
}
