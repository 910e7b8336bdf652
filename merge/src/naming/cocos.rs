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

/// Every element of the Cocos array `root` named as [`object_name`] names it (`None`:
/// it has no name), in one walk of the document: naming each element on its own scans
/// the document once per element.
pub fn object_names(root: Value<'_>) -> Vec<Option<String>> {
    let elements: Vec<Value<'_>> = root.children().collect();
    let len = elements.len();
    // Each element's first referrer in document order, and the reference.
    let mut first: Vec<Option<(usize, Value<'_>)>> = vec![None; len];
    for (i, el) in elements.iter().enumerate() {
        for d in el.descendants() {
            if let Some(t) = ref_index(d, len) {
                if t != i && first[t].is_none() {
                    first[t] = Some((i, d));
                }
            }
        }
    }
    let mut memo: Vec<Option<Option<String>>> = vec![None; len];
    (0..len)
        .map(|i| named(&elements, &first, &mut memo, i, 0))
        .collect()
}

/// [`name_at`] with the referrers found once ([`object_names`]) and the names memoised.
fn named(
    elements: &[Value<'_>],
    first: &[Option<(usize, Value<'_>)>],
    memo: &mut [Option<Option<String>>],
    index: usize,
    depth: usize,
) -> Option<String> {
    if let Some(known) = &memo[index] {
        return known.clone();
    }
    if depth > MAX_REFERRERS {
        return None;
    }
    let el = elements[index];
    let name = if el.get("_children").is_some() || el.get("_parent").is_some() {
        node_path(elements, index)
    } else if let Some(node) = el.get("node").and_then(|n| ref_index(n, elements.len())) {
        let ty = el
            .get("__type__")
            .and_then(|t| t.as_str())
            .unwrap_or_default();
        node_path(elements, node).map(|path| format!("{path}<{ty}>"))
    } else {
        first[index].and_then(|(r, d)| {
            let referrer = named(elements, first, memo, r, depth + 1)?;
            Some(format!("{referrer}.{}", member_path(elements[r], d)))
        })
    };
    memo[index] = Some(name.clone());
    name
}

/// One object of a Cocos graph as the object commands know it ([`objects`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphObject {
    /// Its position in the array.
    pub index: usize,
    /// Its id in the file: its own `_id`, else its prefab info's `fileId`, else its name
    /// (`Canvas/Menu/Start`, a second object of that name `Canvas/Menu/Start[2]`), else
    /// its `__type__`; unique in the file.
    pub id: String,
    /// Whether `id` is the object's own `_id` (its place is then `/[_id=…]`).
    pub own_id: bool,
    /// Its name for people ([`object_name`]).
    pub name: Option<String>,
}

/// Every object of the Cocos array `root`, in document order, each with an id unique in
/// the file that stays the same while the object is renumbered ([`GraphObject::id`]).
pub fn objects(root: Value<'_>) -> Vec<GraphObject> {
    let elements: Vec<Value<'_>> = root.children().collect();
    let names = object_names(root);
    fn text(v: Option<Value<'_>>) -> Option<String> {
        v.and_then(|v| v.as_str().map(|s| s.into_owned()))
            .filter(|s| !s.is_empty())
    }
    // The ids objects hold: their own `_id`, else (a node or component of a prefab) the
    // `fileId` of their prefab info.
    let held: Vec<Option<(String, bool)>> = elements
        .iter()
        .map(|el| {
            if let Some(id) = text(el.get("_id")) {
                return Some((id, true));
            }
            ["_prefab", "__prefab"]
                .iter()
                .filter_map(|k| ref_index(el.get(k)?, elements.len()))
                .find_map(|p| text(elements[p].get("fileId")))
                .map(|id| (id, false))
        })
        .collect();
    let mut count: crate::hashing::SeededMap<&str, usize> = Default::default();
    for (id, _) in held.iter().flatten() {
        *count.entry(id.as_str()).or_default() += 1;
    }
    // An id two objects hold is neither's.
    let held: Vec<Option<(String, bool)>> = held
        .iter()
        .map(|h| h.clone().filter(|(id, _)| count[id.as_str()] == 1))
        .collect();
    let mut taken = crate::hashing::UniqueNames::new(
        held.iter().flatten().map(|(id, _)| id.clone()),
        |name, n| format!("{name}[{n}]"),
    );
    let mut out = Vec::with_capacity(elements.len());
    for (index, (el, (held, name))) in elements.iter().zip(held.into_iter().zip(names)).enumerate()
    {
        // The scene itself has the empty path, and the asset (first) is only the object
        // its prefab infos point back at: no name.
        let asset = index == 0
            && matches!(
                text(el.get("__type__")).as_deref(),
                Some("cc.SceneAsset" | "cc.Prefab")
            );
        let name = name.filter(|n| !n.is_empty() && !asset);
        let (id, own_id) = held.unwrap_or_else(|| {
            let base = name
                .clone()
                .or_else(|| text(el.get("__type__")))
                .unwrap_or_else(|| "object".to_string());
            (taken.unique(base), false)
        });
        out.push(GraphObject {
            index,
            id,
            own_id,
            name,
        });
    }
    out
}
