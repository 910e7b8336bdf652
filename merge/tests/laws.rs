//! Property tests of the merge laws (DESIGN.md "Merge semantics", "Laws"): random
//! documents, random edit scripts for each side, printed in random SJSON/JSON styles.
//!
//! - merge(b, x, b) = x byte for byte; merge(b, b, x) = x; merge(b, x, x) = x;
//! - with the two sides editing disjoint parts (every part of the base has an owner),
//!   the merge is clean and holds every edit of both sides, no id appears twice in a
//!   keyed array, and the order of keyed elements is the reordering side's;
//! - when theirs changes one scalar, the result is ours' text with that one lexeme
//!   replaced;
//! - the result always parses (checked by `merge_texts`) and merging never panics.

mod common;

use common::{equal_unordered, parse};
use levelgen::Rng;
use merge::{merge_texts, MergeOptions, MergeOutcome};
use proptest::prelude::*;
use sjson::{Dialect, Document, Kind, Value};

// ---------------------------------------------------------------------------------------
// A tiny document model and a printer with random styles.

#[derive(Clone, Debug, PartialEq)]
enum J {
    Null,
    Bool(bool),
    Num(String),
    Str(String),
    Arr(Vec<J>),
    Obj(Vec<(String, J)>),
}

impl J {
    fn get(&self, k: &str) -> Option<&J> {
        match self {
            J::Obj(m) => m.iter().find(|(x, _)| x == k).map(|(_, v)| v),
            _ => None,
        }
    }

    fn get_mut(&mut self, k: &str) -> Option<&mut J> {
        match self {
            J::Obj(m) => m.iter_mut().find(|(x, _)| x == k).map(|(_, v)| v),
            _ => None,
        }
    }

    fn members(&mut self) -> &mut Vec<(String, J)> {
        match self {
            J::Obj(m) => m,
            _ => panic!("not an object"),
        }
    }

    fn elements(&mut self) -> &mut Vec<J> {
        match self {
            J::Arr(a) => a,
            _ => panic!("not an array"),
        }
    }

    /// Sets `k` (in place if present, else appended after `after`, else at the end).
    fn set(&mut self, k: &str, v: J, after: Option<&str>) {
        let m = self.members();
        if let Some(slot) = m.iter_mut().find(|(x, _)| x == k) {
            slot.1 = v;
            return;
        }
        let at = after
            .and_then(|a| m.iter().position(|(x, _)| x == a))
            .map_or(m.len(), |i| i + 1);
        m.insert(at, (k.to_string(), v));
    }

    fn remove(&mut self, k: &str) {
        self.members().retain(|(x, _)| x != k);
    }

    fn is_scalar(&self) -> bool {
        !matches!(self, J::Arr(_) | J::Obj(_))
    }
}

#[derive(Clone, Debug)]
struct Style {
    json: bool,
    indent: &'static str,
    sep: &'static str,
    commas: bool,
    braces: bool,
    inline: bool,
    comments: bool,
    nl: &'static str,
}

impl Style {
    fn random(rng: &mut Rng, json: bool) -> Style {
        Style {
            json,
            indent: rng.pick::<&str>(&["\t", "  ", "    "]),
            sep: if json {
                rng.pick::<&str>(&[": ", ":"])
            } else {
                rng.pick::<&str>(&[" = ", " : ", "=", ": "])
            },
            commas: !json && rng.one_in(3),
            braces: json || rng.one_in(4),
            inline: rng.one_in(2),
            comments: !json && rng.one_in(2),
            nl: if rng.one_in(6) { "\r\n" } else { "\n" },
        }
    }

    fn dialect(&self) -> Dialect {
        if self.json {
            Dialect::Json
        } else {
            Dialect::Sjson
        }
    }
}

fn is_plain(k: &str) -> bool {
    let mut cs = k.chars();
    cs.next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && cs.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn quote(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

fn key_hash(k: &str) -> u32 {
    k.bytes()
        .fold(7u32, |h, b| h.wrapping_mul(31).wrapping_add(b as u32))
}

fn print_doc(root: &J, st: &Style) -> String {
    let mut out = String::new();
    if st.braces {
        print_value(root, st, 0, &mut out);
        out.push_str(st.nl);
    } else {
        let J::Obj(m) = root else { panic!() };
        for (k, v) in m {
            print_member(k, v, st, 0, &mut out);
            out.push_str(st.nl);
        }
    }
    out
}

fn print_member(k: &str, v: &J, st: &Style, depth: usize, out: &mut String) {
    let pad = st.indent.repeat(depth);
    if st.comments && key_hash(k) & 3 == 0 {
        out.push_str(&format!(
            "// about {}{}{pad}",
            k.replace(['\n', '\r'], " "),
            st.nl
        ));
    }
    if !st.json && is_plain(k) {
        out.push_str(k);
    } else {
        quote(k, out);
    }
    out.push_str(st.sep);
    print_value(v, st, depth, out);
}

fn print_value(v: &J, st: &Style, depth: usize, out: &mut String) {
    let pad = st.indent.repeat(depth + 1);
    let close_pad = st.indent.repeat(depth);
    let item_sep = if st.json || st.commas { ", " } else { " " };
    match v {
        J::Null => out.push_str("null"),
        J::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        J::Num(n) => out.push_str(n),
        J::Str(s) => quote(s, out),
        J::Arr(a) if a.is_empty() => out.push_str("[]"),
        J::Obj(m) if m.is_empty() => out.push_str("{}"),
        J::Arr(a) if a.len() <= 16 && a.iter().all(|e| matches!(e, J::Num(_))) => {
            out.push('[');
            for (i, e) in a.iter().enumerate() {
                if i > 0 {
                    out.push_str(item_sep);
                }
                print_value(e, st, depth, out);
            }
            out.push(']');
        }
        J::Obj(m) if st.inline && m.len() <= 3 && m.iter().all(|(_, v)| v.is_scalar()) => {
            out.push_str(if st.json { "{" } else { "{ " });
            for (i, (k, v)) in m.iter().enumerate() {
                if i > 0 {
                    out.push_str(item_sep);
                }
                if !st.json && is_plain(k) {
                    out.push_str(k);
                } else {
                    quote(k, out);
                }
                out.push_str(st.sep);
                print_value(v, st, depth, out);
            }
            out.push_str(if st.json { "}" } else { " }" });
        }
        J::Arr(a) => {
            out.push('[');
            for (i, e) in a.iter().enumerate() {
                out.push_str(st.nl);
                out.push_str(&pad);
                print_value(e, st, depth + 1, out);
                if st.json && i + 1 < a.len() || st.commas {
                    out.push(',');
                }
            }
            out.push_str(st.nl);
            out.push_str(&close_pad);
            out.push(']');
        }
        J::Obj(m) => {
            out.push('{');
            for (i, (k, v)) in m.iter().enumerate() {
                out.push_str(st.nl);
                out.push_str(&pad);
                print_member(k, v, st, depth + 1, out);
                if st.json && i + 1 < m.len() || st.commas {
                    out.push(',');
                }
            }
            out.push_str(st.nl);
            out.push_str(&close_pad);
            out.push('}');
        }
    }
}

// ---------------------------------------------------------------------------------------
// Random documents with owners, and edit scripts.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Owner {
    Ours,
    Theirs,
    Nobody,
}

const ID_KEYS: [&str; 5] = ["id", "Id", "guid", "_id", "UUID"];

/// A base document and who may edit what.
#[derive(Clone, Debug)]
struct World {
    doc: J,
    /// Top-level keys (other than `entities`, `passes`, `shared`) and their owners.
    top: Vec<(String, Owner)>,
    /// Entity ids (as their J value) and owners; `Nobody`: shared, props split by name.
    entities: Vec<(J, Owner)>,
    /// Pass names and owners.
    passes: Vec<(String, Owner)>,
    id_key: &'static str,
    int_ids: bool,
}

/// Properties of a shared entity that each side may edit.
const OURS_PROPS: [&str; 2] = ["tint", "name"];
const THEIRS_PROPS: [&str; 2] = ["pos", "scale"];

fn scalar(rng: &mut Rng, n: &mut u32) -> J {
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
fn fresh_scalar(rng: &mut Rng, n: &mut u32) -> J {
    *n += 1;
    match rng.index(3) {
        0 => J::Num(format!("{}", 100_000 + *n)),
        1 => J::Str(format!("fresh {n}")),
        _ => J::Num(format!("{}.5", 100_000 + *n)),
    }
}

fn tuple(rng: &mut Rng, len: usize) -> J {
    J::Arr(
        (0..len)
            .map(|_| J::Num(format!("{}.{}", rng.index(20) as i64 - 10, rng.index(10))))
            .collect(),
    )
}

fn value(rng: &mut Rng, n: &mut u32, depth: usize) -> J {
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

fn owner(rng: &mut Rng) -> Owner {
    *rng.pick(&[Owner::Ours, Owner::Theirs, Owner::Nobody])
}

fn entity(rng: &mut Rng, id: J, id_key: &str, n: &mut u32) -> J {
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

fn world(rng: &mut Rng) -> World {
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
enum Op {
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
fn entity_mut<'d>(doc: &'d mut J, id: &J, id_key: &str) -> Option<&'d mut J> {
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
fn shared_mut(doc: &mut J) -> &mut J {
    if doc.get("shared").is_some() {
        doc.get_mut("shared").unwrap()
    } else {
        doc.get_mut("wrapper").unwrap().get_mut("shared").unwrap()
    }
}

fn id_of<'j>(e: &'j J, id_key: &str) -> &'j J {
    e.get(id_key).expect("entity id")
}

fn name_of(e: &J) -> &J {
    e.get("name").expect("pass name")
}

fn apply(doc: &mut J, op: &Op, id_key: &str) {
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
fn script(
    rng: &mut Rng,
    w: &World,
    side: Owner,
    reorder: bool,
    doc: &mut J,
    n: &mut u32,
) -> Vec<Op> {
    let tag = if side == Owner::Ours { "o" } else { "t" };
    let mine = |o: Owner| o == side;
    let mut ops = Vec::new();
    // The reordering side also moves things: shared entities into the group, the
    // shared object into a wrapper (and then leaves it alone, so that it stays
    // recognisable as the same object).
    let mut wrapped = false;
    if reorder {
        for (id, o) in &w.entities {
            if *o == Owner::Nobody && rng.one_in(3) {
                ops.push(Op::Reparent(id.clone()));
            }
        }
        if rng.one_in(3) {
            ops.push(Op::Wrap);
            wrapped = true;
        }
        for op in &ops {
            apply(doc, op, w.id_key);
        }
    }
    for step in 0..rng.index(7) {
        let op = match rng.index(13) {
            0 | 1 => {
                let keys: Vec<_> = w
                    .top
                    .iter()
                    .filter(|(k, o)| mine(*o) && doc.get(k).is_some())
                    .collect();
                if keys.is_empty() {
                    continue;
                }
                let (k, _) = rng.pick(&keys);
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
                Op::SetTop(k.clone(), v)
            }
            2 => {
                let keys: Vec<_> = w
                    .top
                    .iter()
                    .filter(|(k, o)| mine(*o) && doc.get(k).is_some())
                    .collect();
                if keys.is_empty() {
                    continue;
                }
                Op::DelTop(rng.pick(&keys).0.clone())
            }
            3 => {
                let J::Obj(m) = &*doc else { unreachable!() };
                let after =
                    (!m.is_empty() && !rng.one_in(4)).then(|| m[rng.index(m.len())].0.clone());
                Op::AddTop(format!("{tag}_new{step}_{n}"), value(rng, n, 0), after)
            }
            4 if !wrapped => {
                // Shared object: ours owns even members, theirs odd ones, and its own.
                let J::Obj(m) = doc.get("shared").unwrap() else {
                    unreachable!()
                };
                let keys: Vec<_> = m
                    .iter()
                    .map(|(k, _)| k.clone())
                    .filter(|k| match k.strip_prefix('m') {
                        Some(i) => {
                            i.parse::<usize>().unwrap() % 2 == (side == Owner::Theirs) as usize
                        }
                        None => k.starts_with(tag),
                    })
                    .collect();
                match (keys.is_empty(), rng.index(3)) {
                    (false, 0) => Op::DelShared(rng.pick(&keys).clone()),
                    (false, 1) => Op::SetShared(rng.pick(&keys).clone(), fresh_scalar(rng, n)),
                    _ => Op::SetShared(format!("{tag}_m{step}_{n}"), value(rng, n, 1)),
                }
            }
            5 | 6 => {
                // A property of an entity this side owns, or of a shared one.
                let els = doc.get("entities").unwrap();
                let J::Arr(els) = els else { unreachable!() };
                let cands: Vec<J> = els
                    .iter()
                    .map(|e| id_of(e, w.id_key).clone())
                    .filter(|id| {
                        w.entities
                            .iter()
                            .find(|(x, _)| x == id)
                            .is_none_or(|(_, o)| mine(*o) || *o == Owner::Nobody)
                    })
                    .collect();
                if cands.is_empty() {
                    continue;
                }
                let id = rng.pick(&cands).clone();
                let owned = w
                    .entities
                    .iter()
                    .find(|(x, _)| *x == id)
                    .is_none_or(|(_, o)| mine(*o));
                let props: &[&str] = match (owned, side) {
                    (true, _) => &["tint", "name", "pos", "scale", "props", "extra"],
                    (false, Owner::Ours) => &OURS_PROPS,
                    (false, _) => &THEIRS_PROPS,
                };
                let p = rng.pick(props).to_string();
                if rng.one_in(4) {
                    Op::EntDel(id, p)
                } else if p == "pos" {
                    Op::EntSet(id, p, tuple(rng, 3))
                } else {
                    Op::EntSet(id, p, fresh_scalar(rng, n))
                }
            }
            7 => {
                let J::Arr(els) = doc.get("entities").unwrap() else {
                    unreachable!()
                };
                let after = (!els.is_empty() && !rng.one_in(4))
                    .then(|| id_of(&els[rng.index(els.len())], w.id_key).clone());
                *n += 1;
                let id = if w.int_ids {
                    J::Num(format!(
                        "{}{}",
                        if side == Owner::Ours { 1000 } else { 2000 },
                        n
                    ))
                } else {
                    J::Str(format!("{tag}{n}"))
                };
                Op::EntAdd(entity(rng, id, w.id_key, n), after)
            }
            8 => {
                let owned: Vec<J> = w
                    .entities
                    .iter()
                    .filter(|(_, o)| mine(*o))
                    .map(|(id, _)| id.clone())
                    .collect();
                if owned.is_empty() {
                    continue;
                }
                Op::EntRemove(rng.pick(&owned).clone())
            }
            9 if reorder => {
                let J::Arr(els) = doc.get("entities").unwrap() else {
                    unreachable!()
                };
                if els.len() < 2 {
                    continue;
                }
                let id = id_of(&els[rng.index(els.len())], w.id_key).clone();
                let after = (!rng.one_in(3))
                    .then(|| id_of(&els[rng.index(els.len())], w.id_key).clone())
                    .filter(|a| *a != id);
                Op::EntMove(id, after)
            }
            10 | 11 => {
                let Some(J::Arr(els)) = doc.get("passes") else {
                    continue;
                };
                let owned: Vec<String> = w
                    .passes
                    .iter()
                    .filter(|(name, o)| {
                        mine(*o) && els.iter().any(|e| *name_of(e) == J::Str(name.clone()))
                    })
                    .map(|(name, _)| name.clone())
                    .collect();
                match (owned.is_empty(), rng.index(3)) {
                    (false, 0) => Op::PassRemove(rng.pick(&owned).clone()),
                    (false, _) => Op::PassSet(
                        rng.pick(&owned).clone(),
                        rng.pick(&["sort", "layer", "extra"]).to_string(),
                        fresh_scalar(rng, n),
                    ),
                    (true, _) => continue,
                }
            }
            12 => {
                let Some(J::Arr(els)) = doc.get("passes") else {
                    continue;
                };
                let after = (!els.is_empty() && !rng.one_in(4)).then(|| {
                    let J::Str(s) = name_of(&els[rng.index(els.len())]) else {
                        unreachable!()
                    };
                    s.clone()
                });
                *n += 1;
                let e = J::Obj(vec![
                    ("name".into(), J::Str(format!("{tag}pass{n}"))),
                    ("sort".into(), J::Num(format!("{n}"))),
                ]);
                Op::PassAdd(e, after)
            }
            _ => continue,
        };
        apply(doc, &op, w.id_key);
        ops.push(op);
    }
    ops
}

// ---------------------------------------------------------------------------------------
// Checks.

fn opts() -> MergeOptions {
    MergeOptions::default()
}

fn run(dialect: Dialect, b: &str, o: &str, t: &str) -> MergeOutcome {
    merge_texts(b, o, t, dialect, &opts()).unwrap_or_else(|e| {
        panic!("merge failed: {e}\n--- base:\n{b}\n--- ours:\n{o}\n--- theirs:\n{t}")
    })
}

/// Value equality with keyed arrays (all objects with the id key) and named arrays
/// compared as sets, object key order ignored.
fn canon(v: Value<'_>, id_key: &str) -> String {
    match v.kind() {
        Kind::Object => {
            let mut ms: Vec<String> = v
                .members()
                .map(|(k, c)| format!("{k:?}:{}", canon(c, id_key)))
                .collect();
            ms.sort();
            format!("{{{}}}", ms.join(","))
        }
        Kind::Array => {
            let mut es: Vec<String> = v.children().map(|c| canon(c, id_key)).collect();
            let keyed = !v.is_empty()
                && v.children()
                    .all(|c| c.get(id_key).is_some() || c.get("name").is_some());
            if keyed {
                es.sort();
            }
            format!("[{}]", es.join(","))
        }
        Kind::Number => format!("{:?}", v.as_number().unwrap().as_f64()),
        Kind::String => format!("{:?}", v.as_str().unwrap()),
        _ => v.text().to_string(),
    }
}

fn ids_of(v: Value<'_>, key: &str) -> Vec<String> {
    v.children()
        .filter_map(|c| c.get(key))
        .map(|id| canon(id, key))
        .collect()
}

/// No keyed array anywhere in `v` holds an id (or a pass name) twice.
fn assert_no_duplicate_ids(v: Value<'_>, id_key: &str, text: &str) {
    if v.kind() == Kind::Array {
        for key in [id_key, "name"] {
            let ids = ids_of(v, key);
            let mut sorted = ids.clone();
            sorted.sort();
            sorted.dedup();
            assert_eq!(
                sorted.len(),
                ids.len(),
                "duplicate {key} in {ids:?}\n{text}"
            );
        }
    }
    for c in v.children() {
        assert_no_duplicate_ids(c, id_key, text);
    }
}

struct Case {
    w: World,
    style: Style,
    base: String,
    ours: String,
    theirs: String,
    expected: J,
    reorderer: Owner,
}

fn case(seed: u64, json: bool) -> Case {
    let mut rng = Rng::new(seed);
    let w = world(&mut rng);
    let style = Style::random(&mut rng, json);
    let reorderer = owner(&mut rng);
    let mut n = 1000;
    let mut ours = w.doc.clone();
    let ours_ops = script(
        &mut rng,
        &w,
        Owner::Ours,
        reorderer == Owner::Ours,
        &mut ours,
        &mut n,
    );
    let mut theirs = w.doc.clone();
    let theirs_ops = script(
        &mut rng,
        &w,
        Owner::Theirs,
        reorderer == Owner::Theirs,
        &mut theirs,
        &mut n,
    );
    let mut expected = w.doc.clone();
    for op in ours_ops.iter().chain(&theirs_ops) {
        apply(&mut expected, op, w.id_key);
    }
    // Theirs is sometimes written by another tool, in another style.
    let theirs_style = if rng.one_in(4) {
        Style::random(&mut rng, json)
    } else {
        style.clone()
    };
    Case {
        base: print_doc(&w.doc, &style),
        ours: print_doc(&ours, &style),
        theirs: print_doc(&theirs, &theirs_style),
        w,
        style,
        expected,
        reorderer,
    }
}

fn check_laws(c: &Case) {
    let d = c.style.dialect();
    for x in [&c.ours, &c.theirs] {
        let out = run(d, &c.base, x, &c.base);
        assert_eq!(&out.text, x, "merge(b, x, b) != x\n--- base:\n{}", c.base);
        assert!(out.conflicts.is_empty());
        let out = run(d, &c.base, &c.base, x);
        let (got, want) = (parse(d, &out.text), parse(d, x));
        assert!(
            got.root().same_value(&want.root()),
            "merge(b, b, x) != x\n--- base:\n{}\n--- x:\n{x}\n--- got:\n{}",
            c.base,
            out.text
        );
        assert!(out.conflicts.is_empty());
        let out = run(d, &c.base, x, x);
        assert_eq!(&out.text, x, "merge(b, x, x) != x");
        assert!(out.conflicts.is_empty());
    }
}

fn check_disjoint(c: &Case) {
    let d = c.style.dialect();
    let out = run(d, &c.base, &c.ours, &c.theirs);
    let ctx = || {
        format!(
            "\n--- base:\n{}\n--- ours:\n{}\n--- theirs:\n{}\n--- merged:\n{}\n--- conflicts: {:#?}",
            c.base, c.ours, c.theirs, out.text, out.conflicts
        )
    };
    assert!(
        out.conflicts.is_empty(),
        "disjoint edits conflicted{}",
        ctx()
    );
    let got = parse(d, &out.text);
    let want_text = print_doc(&c.expected, &c.style);
    let want = parse(d, &want_text);
    assert_eq!(
        canon(got.root(), c.w.id_key),
        canon(want.root(), c.w.id_key),
        "a one-side edit is missing{}\n--- expected:\n{want_text}",
        ctx()
    );
    assert_no_duplicate_ids(got.root(), c.w.id_key, &out.text);
    // Keyed order: the base's elements in the reordering side's order.
    let order = |doc: &Document| -> Vec<String> {
        doc.root()
            .get("entities")
            .map(|e| ids_of(e, c.w.id_key))
            .unwrap_or_default()
    };
    let (b, o, t) = (parse(d, &c.base), parse(d, &c.ours), parse(d, &c.theirs));
    let common: Vec<String> = order(&b)
        .into_iter()
        .filter(|id| order(&o).contains(id) && order(&t).contains(id))
        .collect();
    let filtered = |doc: &Document| -> Vec<String> {
        order(doc)
            .into_iter()
            .filter(|id| common.contains(id))
            .collect()
    };
    let reference = match c.reorderer {
        Owner::Ours => filtered(&o),
        Owner::Theirs => filtered(&t),
        Owner::Nobody => filtered(&b),
    };
    assert_eq!(filtered(&got), reference, "keyed order{}", ctx());
    // Merging is symmetric in value for disjoint edits.
    let swapped = run(d, &c.base, &c.theirs, &c.ours);
    assert!(
        swapped.conflicts.is_empty(),
        "swapped sides conflicted{}",
        ctx()
    );
    assert_eq!(
        canon(parse(d, &swapped.text).root(), c.w.id_key),
        canon(want.root(), c.w.id_key),
        "swapped sides{}",
        ctx()
    );
}

/// Theirs changes one scalar that ours did not touch: the result is ours' text with
/// that lexeme replaced, byte for byte.
fn check_one_scalar(seed: u64, json: bool) {
    let mut rng = Rng::new(seed ^ 0x5555);
    let c = case(seed, json);
    let d = c.style.dialect();
    let ours = parse(d, &c.ours);
    let base = parse(d, &c.base);
    // Scalars theirs may change: in entities ours left alone (not owned by ours), or
    // top-level scalars ours does not own.
    let mut targets: Vec<(Vec<String>, Option<String>)> = Vec::new();
    if let Some(els) = base.root().get("entities") {
        for e in els.children() {
            let id = canon(e.get(c.w.id_key).unwrap(), c.w.id_key);
            let owner = c.w.entities.iter().find(|(x, _)| {
                canon(
                    parse(
                        d,
                        &print_doc(&J::Obj(vec![("x".into(), x.clone())]), &c.style),
                    )
                    .root()
                    .get("x")
                    .unwrap(),
                    c.w.id_key,
                ) == id
            });
            if owner.is_some_and(|(_, o)| *o == Owner::Ours) {
                continue;
            }
            for p in THEIRS_PROPS {
                if e.get(p).is_some_and(|v| !v.is_container()) {
                    targets.push((vec!["entities".into(), p.into()], Some(id.clone())));
                }
            }
        }
    }
    for (k, o) in &c.w.top {
        if *o != Owner::Ours && base.root().get(k).is_some_and(|v| !v.is_container()) {
            targets.push((vec![k.clone()], None));
        }
    }
    if targets.is_empty() {
        return;
    }
    let (path, id) = rng.pick(&targets).clone();
    // Theirs: the base with that one scalar changed (printed by the same printer).
    let mut n = 5000;
    let new = fresh_scalar(&mut rng, &mut n);
    let mut theirs = c.w.doc.clone();
    match &id {
        Some(id) => {
            let els = theirs.get_mut("entities").unwrap().elements();
            let e = els
                .iter_mut()
                .find(|e| {
                    let one = print_doc(
                        &J::Obj(vec![("x".into(), id_of(e, c.w.id_key).clone())]),
                        &c.style,
                    );
                    canon(parse(d, &one).root().get("x").unwrap(), c.w.id_key) == *id
                })
                .unwrap();
            e.set(&path[1], new.clone(), None);
        }
        None => theirs.set(&path[0], new.clone(), None),
    }
    let theirs_text = print_doc(&theirs, &c.style);
    // Where the scalar is in ours (if ours still has it).
    let find = |doc: &Document| -> Option<std::ops::Range<usize>> {
        let root = doc.root();
        match &id {
            Some(id) => {
                let e = root.get("entities")?.children().find(|e| {
                    e.get(c.w.id_key)
                        .is_some_and(|x| canon(x, c.w.id_key) == *id)
                })?;
                Some(e.get(&path[1])?.span())
            }
            None => Some(root.get(&path[0])?.span()),
        }
    };
    let Some(span) = find(&ours) else { return };
    let mut lexeme = String::new();
    print_value(&new, &c.style, 0, &mut lexeme);
    let expected = format!("{}{}{}", &c.ours[..span.start], lexeme, &c.ours[span.end..]);
    let out = run(d, &c.base, &c.ours, &theirs_text);
    assert_eq!(
        out.text, expected,
        "not ours' bytes with one lexeme replaced\n--- base:\n{}\n--- ours:\n{}\n--- theirs:\n{}",
        c.base, c.ours, theirs_text
    );
    assert!(out.conflicts.is_empty());
}

/// 192 cases, or `PROPTEST_CASES` for a longer run.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(192)
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: cases(),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn identity_laws(seed in any::<u64>(), json in proptest::bool::weighted(0.3)) {
        check_laws(&case(seed, json));
    }

    #[test]
    fn disjoint_edits_all_arrive(seed in any::<u64>(), json in proptest::bool::weighted(0.3)) {
        check_disjoint(&case(seed, json));
    }

    #[test]
    fn one_scalar_edit_keeps_ours_bytes(seed in any::<u64>(), json in proptest::bool::weighted(0.3)) {
        check_one_scalar(seed, json);
    }

    /// Both sides edit anything (no owners): the merge never fails, the result parses,
    /// ids stay unique, and with policy `ours`/`theirs` it is ours/theirs where the
    /// other side did nothing.
    #[test]
    fn overlapping_edits_never_break(seed in any::<u64>(), json in proptest::bool::weighted(0.3)) {
        let mut rng = Rng::new(seed);
        let w = world(&mut rng);
        let style = Style::random(&mut rng, json);
        let mut n = 1000;
        let free = World {
            top: w.top.iter().map(|(k, _)| (k.clone(), Owner::Ours)).collect(),
            entities: w.entities.iter().map(|(k, _)| (k.clone(), Owner::Ours)).collect(),
            passes: w.passes.iter().map(|(k, _)| (k.clone(), Owner::Ours)).collect(),
            ..w.clone()
        };
        let mut ours = w.doc.clone();
        script(&mut rng, &free, Owner::Ours, true, &mut ours, &mut n);
        let mut theirs = w.doc.clone();
        script(&mut rng, &free, Owner::Ours, true, &mut theirs, &mut n);
        let (b, o, t) = (print_doc(&w.doc, &style), print_doc(&ours, &style), print_doc(&theirs, &style));
        let d = style.dialect();
        for policy in [merge::Policy::Theirs, merge::Policy::Ours, merge::Policy::Fail] {
            let opts = MergeOptions { policy, ..MergeOptions::default() };
            let out = merge_texts(&b, &o, &t, d, &opts).unwrap_or_else(|e| {
                panic!("{e}\n--- base:\n{b}\n--- ours:\n{o}\n--- theirs:\n{t}")
            });
            let got = parse(d, &out.text);
            assert_no_duplicate_ids(got.root(), w.id_key, &out.text);
            prop_assert_eq!(out.failed(policy), policy == merge::Policy::Fail && !out.conflicts.is_empty());
            for c in &out.conflicts {
                prop_assert_eq!(c.taken, if policy == merge::Policy::Ours { merge::Side::Ours } else { merge::Side::Theirs });
                prop_assert!(c.path.is_empty() || c.path.starts_with('/'));
            }
        }
        // Merging the result with itself changes nothing.
        let out = run(d, &b, &o, &t);
        let again = run(d, &b, &out.text, &out.text);
        prop_assert_eq!(&again.text, &out.text);
        let _ = equal_unordered(parse(d, &out.text).root(), parse(d, &out.text).root());
    }
}

/// Ours renames an empty member of `shared` (deletes `m0 = {}`, adds `o_m4_1000 = {}`)
/// while theirs wraps `shared` into `wrapper`: the rename follows theirs' move, and no
/// conflict is reported (a soak run's failure).
#[test]
fn a_rename_inside_a_subtree_the_other_side_wrapped_arrives() {
    check_disjoint(&case(1466134002639990278, true));
}
