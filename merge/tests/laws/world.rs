//! Random documents with owners (who may edit what), and random edit scripts.

use levelgen::Rng;

use super::model::J;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Owner {
    Ours,
    Theirs,
    Nobody,
}

pub(crate) const ID_KEYS: [&str; 5] = ["id", "Id", "guid", "_id", "UUID"];

/// A base document and who may edit what.
#[derive(Clone, Debug)]
pub(crate) struct World {
    pub(crate) doc: J,
    /// Top-level keys (other than `entities`, `passes`, `shared`) and their owners.
    pub(crate) top: Vec<(String, Owner)>,
    /// Entity ids (as their J value) and owners; `Nobody`: shared, props split by name.
    pub(crate) entities: Vec<(J, Owner)>,
    /// Pass names and owners.
    pub(crate) passes: Vec<(String, Owner)>,
    pub(crate) id_key: &'static str,
    pub(crate) int_ids: bool,
}

/// Properties of a shared entity that each side may edit.
pub(crate) const OURS_PROPS: [&str; 2] = ["tint", "name"];
pub(crate) const THEIRS_PROPS: [&str; 2] = ["pos", "scale"];

pub(crate) fn scalar(rng: &mut Rng, n: &mut u32) -> J {
    *n += 1;
    match rng.index(9) {
        0 => J::Null,
        1 => J::Bool(rng.one_in(2)),
        2 => J::Num(format!("{}", *n as i64 * 7 - 40)),
        3 => J::Num(
            rng.pick(&["1.5", "-0.25", "1E-05", "3.0", "0.1", "2e3"])
                .to_string()
                + "",
        ),
        4 => J::Str(format!("s{n}")),
        5 => J::Str(format!("with \"quotes\" // and {n}")),
        6 => J::Str(format!("é ü {n}\ttab\nline")),
        7 => J::Num(format!("{}.{}", n, rng.index(100))),
        _ => J::Str(format!("v{n}")),
    }
}

/// A fresh scalar that differs from every value generated before.
pub(crate) fn fresh_scalar(rng: &mut Rng, n: &mut u32) -> J {
    *n += 1;
    match rng.index(3) {
        0 => J::Num(format!("{}", 100_000 + *n)),
        1 => J::Str(format!("fresh {n}")),
        _ => J::Num(format!("{}.5", 100_000 + *n)),
    }
}

pub(crate) fn tuple(rng: &mut Rng, len: usize) -> J {
    J::Arr(
        (0..len)
            .map(|_| J::Num(format!("{}.{}", rng.index(20) as i64 - 10, rng.index(10))))
            .collect(),
    )
}

pub(crate) fn value(rng: &mut Rng, n: &mut u32, depth: usize) -> J {
    match rng.index(if depth > 1 { 3 } else { 6 }) {
        0..=1 => scalar(rng, n),
        2 => {
            let len = 2 + rng.index(3);
            tuple(rng, len)
        }
        3 => J::Arr((0..rng.index(5)).map(|_| scalar(rng, n)).collect()),
        _ => J::Obj(
            (0..rng.index(4))
                .map(|i| (format!("k{i}"), value(rng, n, depth + 1)))
                .collect(),
        ),
    }
}

pub(crate) fn owner(rng: &mut Rng) -> Owner {
    *rng.pick(&[Owner::Ours, Owner::Theirs, Owner::Nobody])
}

pub(crate) fn entity(rng: &mut Rng, id: J, id_key: &str, n: &mut u32) -> J {
    let mut m = vec![
        (id_key.to_string(), id),
        ("name".into(), J::Str(format!("entity {n}"))),
        ("pos".into(), tuple(rng, 3)),
    ];
    *n += 1;
    if rng.one_in(2) {
        m.push((
            "tint".into(),
            J::Str(rng.pick(&["white", "red"]).to_string()),
        ));
    }
    if rng.one_in(2) {
        m.push(("scale".into(), J::Num("1.0".into())));
    }
    if rng.one_in(3) {
        m.push(("props".into(), value(rng, n, 1)));
    }
    J::Obj(m)
}

pub(crate) fn world(rng: &mut Rng) -> World {
    let mut n = 0;
    let mut top = Vec::new();
    let mut doc = J::Obj(Vec::new());
    let weird = ["odd key", "a/b~c", "ключ", "x.y"];
    for i in 0..rng.index(6) {
        let k = if rng.one_in(6) {
            rng.pick(&weird).to_string()
        } else {
            format!("p{i}")
        };
        if doc.get(&k).is_some() {
            continue;
        }
        doc.set(&k, value(rng, &mut n, 0), None);
        top.push((k, owner(rng)));
    }
    for i in 0..rng.index(3) {
        let k = format!("seq{i}");
        let len = rng.index(6);
        doc.set(
            &k,
            J::Arr((0..len).map(|_| scalar(rng, &mut n)).collect()),
            None,
        );
        top.push((k, owner(rng)));
    }
    let id_key = *rng.pick(&ID_KEYS);
    let int_ids = rng.one_in(3);
    let mut entities = Vec::new();
    let mut els = Vec::new();
    for i in 0..rng.index(9) {
        let id = if int_ids {
            J::Num(format!("{}", i + 1))
        } else {
            J::Str(format!("e{i}"))
        };
        els.push(entity(rng, id.clone(), id_key, &mut n));
        entities.push((id, owner(rng)));
    }
    doc.set("entities", J::Arr(els), None);
    let mut passes = Vec::new();
    let mut ps = Vec::new();
    for i in 0..rng.index(5) {
        let name = format!("pass{i}");
        ps.push(J::Obj(vec![
            ("name".into(), J::Str(name.clone())),
            ("sort".into(), J::Num(format!("{i}"))),
            ("layer".into(), J::Str("opaque".into())),
        ]));
        passes.push((name, owner(rng)));
    }
    if !ps.is_empty() || rng.one_in(2) {
        doc.set("passes", J::Arr(ps), None);
    }
    doc.set(
        "group",
        J::Obj(vec![
            ("label".into(), J::Str("group".into())),
            ("members".into(), J::Arr(Vec::new())),
        ]),
        None,
    );
    let shared: Vec<(String, J)> = (0..rng.index(5))
        .map(|i| (format!("m{i}"), value(rng, &mut n, 1)))
        .collect();
    doc.set("shared", J::Obj(shared), None);
    // Shuffle the top-level keys a little.
    let m = doc.members();
    for _ in 0..rng.index(3) {
        let (i, j) = (rng.index(m.len()), rng.index(m.len()));
        m.swap(i, j);
    }
    World {
        doc,
        top,
        entities,
        passes,
        id_key,
        int_ids,
    }
}

/// One edit, named by keys, ids and names so it applies to any version holding them.
#[derive(Clone, Debug)]
pub(crate) enum Op {
    SetTop(String, J),
    AddTop(String, J, Option<String>),
    DelTop(String),
    SetShared(String, J),
    DelShared(String),
    EntSet(J, String, J),
    EntDel(J, String),
    EntAdd(J, Option<J>),
    EntRemove(J),
    EntMove(J, Option<J>),
    PassSet(String, String, J),
    PassAdd(J, Option<String>),
    PassRemove(String),
    /// Moves an entity from `entities` to `group.members`.
    Reparent(J),
    /// Moves `shared` to `wrapper.shared`.
    Wrap,
}

/// The entity with `id`, in `entities` or `group.members`.
pub(crate) fn entity_mut<'d>(doc: &'d mut J, id: &J, id_key: &str) -> Option<&'d mut J> {
    let in_entities = doc
        .get("entities")
        .is_some_and(|a| matches!(a, J::Arr(a) if a.iter().any(|e| id_of(e, id_key) == id)));
    let els = if in_entities {
        doc.get_mut("entities")?.elements()
    } else {
        doc.get_mut("group")?.get_mut("members")?.elements()
    };
    els.iter_mut().find(|e| id_of(e, id_key) == id)
}

/// `shared`, at the root or wrapped.
pub(crate) fn shared_mut(doc: &mut J) -> &mut J {
    if doc.get("shared").is_some() {
        doc.get_mut("shared").unwrap()
    } else {
        doc.get_mut("wrapper").unwrap().get_mut("shared").unwrap()
    }
}

pub(crate) fn id_of<'j>(e: &'j J, id_key: &str) -> &'j J {
    e.get(id_key).expect("entity id")
}

pub(crate) fn name_of(e: &J) -> &J {
    e.get("name").expect("pass name")
}

pub(crate) fn apply(doc: &mut J, op: &Op, id_key: &str) {
    match op {
        Op::SetTop(k, v) => doc.set(k, v.clone(), None),
        Op::AddTop(k, v, after) => doc.set(k, v.clone(), after.as_deref()),
        Op::DelTop(k) => doc.remove(k),
        Op::SetShared(k, v) => shared_mut(doc).set(k, v.clone(), None),
        Op::DelShared(k) => shared_mut(doc).remove(k),
        Op::EntSet(id, p, v) => {
            if let Some(e) = entity_mut(doc, id, id_key) {
                e.set(p, v.clone(), None);
            }
        }
        Op::EntDel(id, p) => {
            if let Some(e) = entity_mut(doc, id, id_key) {
                e.remove(p);
            }
        }
        Op::Reparent(id) => {
            let els = doc.get_mut("entities").unwrap().elements();
            if let Some(i) = els.iter().position(|e| id_of(e, id_key) == id) {
                let e = els.remove(i);
                let members = doc.get_mut("group").unwrap().get_mut("members").unwrap();
                members.elements().push(e);
            }
        }
        Op::Wrap => {
            let shared = doc.get("shared").unwrap().clone();
            doc.remove("shared");
            doc.set("wrapper", J::Obj(vec![("shared".into(), shared)]), None);
        }
        Op::EntAdd(e, after) => {
            let els = doc.get_mut("entities").unwrap().elements();
            let at = after
                .as_ref()
                .and_then(|a| els.iter().position(|x| id_of(x, id_key) == a))
                .map_or(0, |i| i + 1);
            els.insert(at, e.clone());
        }
        Op::EntRemove(id) => {
            let els = doc.get_mut("entities").unwrap().elements();
            els.retain(|e| id_of(e, id_key) != id);
        }
        Op::EntMove(id, after) => {
            let els = doc.get_mut("entities").unwrap().elements();
            if let Some(i) = els.iter().position(|e| id_of(e, id_key) == id) {
                let e = els.remove(i);
                let at = after
                    .as_ref()
                    .and_then(|a| els.iter().position(|x| id_of(x, id_key) == a))
                    .map_or(0, |i| i + 1);
                els.insert(at, e);
            }
        }
        Op::PassSet(name, p, v) => {
            let els = doc.get_mut("passes").unwrap().elements();
            if let Some(e) = els.iter_mut().find(|e| *name_of(e) == J::Str(name.clone())) {
                e.set(p, v.clone(), None);
            }
        }
        Op::PassAdd(e, after) => {
            let els = doc.get_mut("passes").unwrap().elements();
            let at = after
                .as_ref()
                .and_then(|a| els.iter().position(|x| *name_of(x) == J::Str(a.clone())))
                .map_or(0, |i| i + 1);
            els.insert(at, e.clone());
        }
        Op::PassRemove(name) => {
            let els = doc.get_mut("passes").unwrap().elements();
            els.retain(|e| *name_of(e) != J::Str(name.clone()));
        }
    }
}

/// A random edit script for `side`, touching only what it owns (and its own new things);
/// applied to `doc` as it goes. `reorder`: whether this side may reorder entities.
pub(crate) fn script(
    rng: &mut Rng,
    w: &World,
    side: Owner,
    reorder: bool,
    doc: &mut J,
    n: &mut u32,
) -> Vec<Op> {
    let mut s = Scripter {
        w,
        side,
        tag: if side == Owner::Ours { "o" } else { "t" },
        wrapped: false,
    };
    let mut ops = Vec::new();
    // The reordering side also moves things: shared entities into the group, the
    // shared object into a wrapper (and then leaves it alone, so that it stays
    // recognisable as the same object).
    if reorder {
        for (id, o) in &w.entities {
            if *o == Owner::Nobody && rng.one_in(3) {
                ops.push(Op::Reparent(id.clone()));
            }
        }
        if rng.one_in(3) {
            ops.push(Op::Wrap);
            s.wrapped = true;
        }
        for op in &ops {
            apply(doc, op, w.id_key);
        }
    }
    for step in 0..rng.index(7) {
        let op = match rng.index(13) {
            0 | 1 => s.set_top(rng, doc, n),
            2 => s.del_top(rng, doc),
            3 => s.add_top(rng, doc, n, step),
            4 if !s.wrapped => s.edit_shared(rng, doc, n, step),
            5 | 6 => s.edit_entity(rng, doc, n),
            7 => s.add_entity(rng, doc, n),
            8 => s.remove_entity(rng),
            9 if reorder => s.move_entity(rng, doc),
            10 | 11 => s.edit_pass(rng, doc, n),
            12 => s.add_pass(rng, doc, n),
            _ => None,
        };
        let Some(op) = op else { continue };
        apply(doc, &op, w.id_key);
        ops.push(op);
    }
    ops
}

/// What a side's script may touch; each method draws one edit of a kind (`None`: none
/// possible here).
struct Scripter<'w> {
    w: &'w World,
    side: Owner,
    /// The side's prefix for new names.
    tag: &'static str,
    /// Whether `shared` was moved into the wrapper (then left alone).
    wrapped: bool,
}

impl Scripter<'_> {
    fn mine(&self, o: Owner) -> bool {
        o == self.side
    }

    /// The top-level keys this side owns that `doc` still has.
    fn own_top_keys(&self, doc: &J) -> Vec<&String> {
        self.w
            .top
            .iter()
            .filter(|(k, o)| self.mine(*o) && doc.get(k).is_some())
            .map(|(k, _)| k)
            .collect()
    }

    fn set_top(&self, rng: &mut Rng, doc: &J, n: &mut u32) -> Option<Op> {
        let keys = self.own_top_keys(doc);
        if keys.is_empty() {
            return None;
        }
        let k = *rng.pick(&keys);
        let v = match doc.get(k) {
            // Sequences and tuples: an element changed, inserted or removed.
            Some(J::Arr(a)) if !a.is_empty() && rng.one_in(2) => {
                let mut a = a.clone();
                let i = rng.index(a.len());
                match rng.index(3) {
                    0 => a[i] = fresh_scalar(rng, n),
                    1 => a.insert(i, fresh_scalar(rng, n)),
                    _ => {
                        a.remove(i);
                    }
                }
                J::Arr(a)
            }
            _ if rng.one_in(2) => fresh_scalar(rng, n),
            _ => value(rng, n, 0),
        };
        Some(Op::SetTop(k.clone(), v))
    }

    fn del_top(&self, rng: &mut Rng, doc: &J) -> Option<Op> {
        let keys = self.own_top_keys(doc);
        if keys.is_empty() {
            return None;
        }
        Some(Op::DelTop((*rng.pick(&keys)).clone()))
    }

    fn add_top(&self, rng: &mut Rng, doc: &J, n: &mut u32, step: usize) -> Option<Op> {
        let J::Obj(m) = doc else { unreachable!() };
        let after = (!m.is_empty() && !rng.one_in(4)).then(|| m[rng.index(m.len())].0.clone());
        let tag = self.tag;
        Some(Op::AddTop(
            format!("{tag}_new{step}_{n}"),
            value(rng, n, 0),
            after,
        ))
    }

    /// Shared object: ours owns even members, theirs odd ones, and its own.
    fn edit_shared(&self, rng: &mut Rng, doc: &J, n: &mut u32, step: usize) -> Option<Op> {
        let J::Obj(m) = doc.get("shared").unwrap() else {
            unreachable!()
        };
        let keys: Vec<_> = m
            .iter()
            .map(|(k, _)| k.clone())
            .filter(|k| match k.strip_prefix('m') {
                Some(i) => i.parse::<usize>().unwrap() % 2 == (self.side == Owner::Theirs) as usize,
                None => k.starts_with(self.tag),
            })
            .collect();
        let tag = self.tag;
        Some(match (keys.is_empty(), rng.index(3)) {
            (false, 0) => Op::DelShared(rng.pick(&keys).clone()),
            (false, 1) => Op::SetShared(rng.pick(&keys).clone(), fresh_scalar(rng, n)),
            _ => Op::SetShared(format!("{tag}_m{step}_{n}"), value(rng, n, 1)),
        })
    }

    /// A property of an entity this side owns, or of a shared one.
    fn edit_entity(&self, rng: &mut Rng, doc: &J, n: &mut u32) -> Option<Op> {
        let w = self.w;
        let els = doc.get("entities").unwrap();
        let J::Arr(els) = els else { unreachable!() };
        let cands: Vec<J> = els
            .iter()
            .map(|e| id_of(e, w.id_key).clone())
            .filter(|id| {
                w.entities
                    .iter()
                    .find(|(x, _)| x == id)
                    .is_none_or(|(_, o)| self.mine(*o) || *o == Owner::Nobody)
            })
            .collect();
        if cands.is_empty() {
            return None;
        }
        let id = rng.pick(&cands).clone();
        let owned = w
            .entities
            .iter()
            .find(|(x, _)| *x == id)
            .is_none_or(|(_, o)| self.mine(*o));
        let props: &[&str] = match (owned, self.side) {
            (true, _) => &["tint", "name", "pos", "scale", "props", "extra"],
            (false, Owner::Ours) => &OURS_PROPS,
            (false, _) => &THEIRS_PROPS,
        };
        let p = rng.pick(props).to_string();
        Some(if rng.one_in(4) {
            Op::EntDel(id, p)
        } else if p == "pos" {
            Op::EntSet(id, p, tuple(rng, 3))
        } else {
            Op::EntSet(id, p, fresh_scalar(rng, n))
        })
    }

    fn add_entity(&self, rng: &mut Rng, doc: &J, n: &mut u32) -> Option<Op> {
        let w = self.w;
        let J::Arr(els) = doc.get("entities").unwrap() else {
            unreachable!()
        };
        let after = (!els.is_empty() && !rng.one_in(4))
            .then(|| id_of(&els[rng.index(els.len())], w.id_key).clone());
        *n += 1;
        let id = if w.int_ids {
            J::Num(format!(
                "{}{}",
                if self.side == Owner::Ours { 1000 } else { 2000 },
                n
            ))
        } else {
            J::Str(format!("{}{n}", self.tag))
        };
        Some(Op::EntAdd(entity(rng, id, w.id_key, n), after))
    }

    fn remove_entity(&self, rng: &mut Rng) -> Option<Op> {
        let owned: Vec<J> = self
            .w
            .entities
            .iter()
            .filter(|(_, o)| self.mine(*o))
            .map(|(id, _)| id.clone())
            .collect();
        if owned.is_empty() {
            return None;
        }
        Some(Op::EntRemove(rng.pick(&owned).clone()))
    }

    fn move_entity(&self, rng: &mut Rng, doc: &J) -> Option<Op> {
        let id_key = self.w.id_key;
        let J::Arr(els) = doc.get("entities").unwrap() else {
            unreachable!()
        };
        if els.len() < 2 {
            return None;
        }
        let id = id_of(&els[rng.index(els.len())], id_key).clone();
        let after = (!rng.one_in(3))
            .then(|| id_of(&els[rng.index(els.len())], id_key).clone())
            .filter(|a| *a != id);
        Some(Op::EntMove(id, after))
    }

    fn edit_pass(&self, rng: &mut Rng, doc: &J, n: &mut u32) -> Option<Op> {
        let Some(J::Arr(els)) = doc.get("passes") else {
            return None;
        };
        let owned: Vec<String> = self
            .w
            .passes
            .iter()
            .filter(|(name, o)| {
                self.mine(*o) && els.iter().any(|e| *name_of(e) == J::Str(name.clone()))
            })
            .map(|(name, _)| name.clone())
            .collect();
        match (owned.is_empty(), rng.index(3)) {
            (false, 0) => Some(Op::PassRemove(rng.pick(&owned).clone())),
            (false, _) => Some(Op::PassSet(
                rng.pick(&owned).clone(),
                rng.pick(&["sort", "layer", "extra"]).to_string(),
                fresh_scalar(rng, n),
            )),
            (true, _) => None,
        }
    }

    fn add_pass(&self, rng: &mut Rng, doc: &J, n: &mut u32) -> Option<Op> {
        let Some(J::Arr(els)) = doc.get("passes") else {
            return None;
        };
        let after = (!els.is_empty() && !rng.one_in(4)).then(|| {
            let J::Str(s) = name_of(&els[rng.index(els.len())]) else {
                unreachable!()
            };
            s.clone()
        });
        *n += 1;
        let e = J::Obj(vec![
            ("name".into(), J::Str(format!("{}pass{n}", self.tag))),
            ("sort".into(), J::Num(format!("{n}"))),
        ]);
        Some(Op::PassAdd(e, after))
    }
}
