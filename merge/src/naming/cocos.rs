//! Cocos objects named for people: a node by its path from the scene
//! (`Canvas/Menu/StartButton`), a component by its node's path and its type
//! (`Canvas/Menu/StartButton<cc.Label>`), anything else by the object that references it
//! first and the member (`Canvas/Menu/StartButton<cc.Button>.clickEvents.0`).

use sjson::{Kind, Value};

/// The deepest a node path is followed (a cycle of `_parent`s ends there).
const MAX_DEPTH: usize = 256;
/// The most referrers followed to name an object that is neither node nor component (each
/// step scans the document; a cycle of references ends there).
const MAX_REFERRERS: usize = 8;

/// Whether `root` is a Cocos Creator object graph's ([`crate::cocos::is_cocos`]).
pub fn is_graph(root: sjson::Value<'_>) -> bool {
    if root.kind() != Kind::Array || root.is_empty() {
        return false;
    }
    let typed = |v: sjson::Value<'_>| {
        v.kind() == Kind::Object && v.get("__type__").is_some_and(|t| t.kind() == Kind::String)
    };
    if !root.children().all(typed) {
        return false;
    }
    let first = root
        .children()
        .next()
        .and_then(|v| v.get("__type__")?.as_str());
    if matches!(first.as_deref(), Some("cc.SceneAsset" | "cc.Prefab")) {
        return true;
    }
    root.descendants().any(|v| {
        v.kind() == Kind::Object
            && v.len() == 1
            && v.get("__id__").is_some_and(|n| n.kind() == Kind::Number)
    })
}

/// The name of the element at `index` of the Cocos array `root`, when it has one.
pub fn object_name(root: Value<'_>, index: usize) -> Option<String> {
    let elements: Vec<Value<'_>> = root.children().collect();
    name_at(&elements, index, 0)
}

fn name_at(elements: &[Value<'_>], index: usize, depth: usize) -> Option<String> {
    let el = *elements.get(index)?;
    if depth > MAX_REFERRERS {
        return None;
    }
    if el.get("_children").is_some() || el.get("_parent").is_some() {
        return node_path(elements, index);
    }
    if let Some(node) = el.get("node").and_then(|n| ref_index(n, elements.len())) {
        let ty = el
            .get("__type__")
            .and_then(|t| t.as_str())
            .unwrap_or_default();
        return Some(format!("{}<{ty}>", node_path(elements, node)?));
    }
    // Anything else: by its first referrer.
    for (i, other) in elements.iter().enumerate() {
        for d in other.descendants() {
            if ref_index(d, elements.len()) == Some(index) && i != index {
                let member = member_path(*other, d);
                return Some(format!("{}.{member}", name_at(elements, i, depth + 1)?));
            }
        }
    }
    None
}

/// The path of names from the scene down to the node at `index`.
fn node_path(elements: &[Value<'_>], index: usize) -> Option<String> {
    let mut names = Vec::new();
    let mut at = index;
    for _ in 0..MAX_DEPTH {
        let el = elements[at];
        let parent = el.get("_parent").and_then(|p| ref_index(p, elements.len()));
        let ty = el.get("__type__").and_then(|t| t.as_str());
        // The scene itself is not named in paths.
        if parent.is_none() && !names.is_empty() && ty.as_deref() == Some("cc.Scene") {
            break;
        }
        let name = el.get("_name").and_then(|n| n.as_str()).unwrap_or_default();
        names.push(name.into_owned());
        match parent {
            Some(p) => at = p,
            None => break,
        }
    }
    names.reverse();
    Some(names.join("/"))
}

/// The position `{"__id__": n}` names, when in range.
fn ref_index(v: Value<'_>, len: usize) -> Option<usize> {
    if v.kind() != Kind::Object || v.len() != 1 {
        return None;
    }
    let n = v.get("__id__")?.as_number_lexeme()?.parse::<usize>().ok()?;
    (n < len).then_some(n)
}

/// The member path from `container` down to its descendant `d` (`clickEvents.0`).
fn member_path(container: Value<'_>, d: Value<'_>) -> String {
    let mut steps = Vec::new();
    let mut at = container;
    'down: loop {
        for (i, child) in at.children().enumerate() {
            if child.id() == d.id() || child.contains(d.id()) {
                steps.push(
                    child
                        .key()
                        .map_or_else(|| i.to_string(), |k| k.into_owned()),
                );
                if child.id() == d.id() {
                    break 'down;
                }
                at = child;
                continue 'down;
            }
        }
        break;
    }
    steps.join(".")
}
