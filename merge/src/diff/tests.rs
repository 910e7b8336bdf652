//! Tests of the diff: change texts, JSON Patch application, moves, summaries.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use sjson::{Dialect, Document, Kind, NumberValue};

use super::*;

fn doc(text: &str) -> Document {
    Document::parse(text, Dialect::Sjson).unwrap_or_else(|e| panic!("{text:?}: {e}"))
}

fn texts(old: &str, new: &str) -> Vec<String> {
    let (a, b) = (doc(old), doc(new));
    let d = diff(a.root(), b.root(), &DiffOptions::default());
    check_patch(&a, &b, &d);
    d.changes.iter().map(Change::text).collect()
}

/// A JSON value for applying patches: objects unordered, numbers by exact value.
#[derive(Debug, Clone, PartialEq)]
enum J {
    Null,
    Bool(bool),
    Num(NumberValue),
    Str(String),
    Arr(Vec<J>),
    Obj(BTreeMap<String, J>),
}

fn j(v: Value<'_>) -> J {
    match v.kind() {
        Kind::Null => J::Null,
        Kind::Bool => J::Bool(v.as_bool().unwrap()),
        Kind::Number => J::Num(v.as_number().unwrap()),
        Kind::String => J::Str(v.as_str().unwrap().into_owned()),
        Kind::Array => J::Arr(v.children().map(j).collect()),
        Kind::Object => J::Obj(v.members().map(|(k, c)| (k.into_owned(), j(c))).collect()),
    }
}

/// Parses an RFC 6901 pointer (the root is `""`).
fn tokens(p: &Path) -> Vec<String> {
    let s = p.to_string();
    if s.is_empty() {
        return Vec::new();
    }
    assert!(s.starts_with('/'), "{s}");
    s[1..]
        .split('/')
        .map(|t| t.replace("~1", "/").replace("~0", "~"))
        .collect()
}

fn parent<'t>(root: &'t mut J, toks: &[String]) -> &'t mut J {
    let mut cur = root;
    for t in toks {
        cur = match cur {
            J::Arr(a) => {
                let i: usize = t.parse().unwrap_or_else(|_| panic!("index {t}"));
                assert!(i < a.len(), "index {i} out of bounds ({})", a.len());
                &mut a[i]
            }
            J::Obj(o) => o.get_mut(t).unwrap_or_else(|| panic!("no member {t}")),
            other => panic!("cannot step into {other:?} with {t}"),
        };
    }
    cur
}

fn remove(root: &mut J, toks: &[String]) -> J {
    let (last, up) = toks.split_last().expect("cannot remove the root");
    match parent(root, up) {
        J::Arr(a) => {
            let i: usize = last.parse().unwrap();
            assert!(i < a.len(), "remove index {i} out of bounds ({})", a.len());
            a.remove(i)
        }
        J::Obj(o) => o
            .remove(last)
            .unwrap_or_else(|| panic!("remove: no member {last}")),
        other => panic!("remove from {other:?}"),
    }
}

fn add(root: &mut J, toks: &[String], v: J) {
    let Some((last, up)) = toks.split_last() else {
        *root = v;
        return;
    };
    match parent(root, up) {
        J::Arr(a) => {
            let i = if last == "-" {
                a.len()
            } else {
                last.parse().unwrap()
            };
            assert!(i <= a.len(), "add index {i} out of bounds ({})", a.len());
            a.insert(i, v);
        }
        J::Obj(o) => {
            o.insert(last.clone(), v);
        }
        other => panic!("add into {other:?}"),
    }
}

/// A small RFC 6902 applier (add, remove, replace, move).
fn apply(root: &mut J, patch: &[PatchOp<'_>]) {
    for op in patch {
        let toks = tokens(op.path());
        match op {
            PatchOp::Add { value, .. } => add(root, &toks, j(*value)),
            PatchOp::Remove { .. } => {
                remove(root, &toks);
            }
            PatchOp::Replace { value, .. } => *parent(root, &toks) = j(*value),
            PatchOp::Move { from, .. } => {
                let v = remove(root, &tokens(from));
                add(root, &toks, v);
            }
        }
    }
}

fn check_patch(a: &Document, b: &Document, d: &Diff<'_>) {
    let mut v = j(a.root());
    apply(&mut v, &d.patch);
    assert_eq!(
        v,
        j(b.root()),
        "patch does not give the new value:\n{}\nold: {}\nnew: {}",
        d.patch_json(),
        a.text(),
        b.text()
    );
}

const LEVEL: &str = r#"
entities = [
	{ id = "e1" name = "crate" position = [0 0 0] }
	{ id = "e2" name = "barrel" position = [5 0 0] }
	{ id = "f341" name = "lamp" unit = "units/lamp" position = [0 0 0] light = { intensity = 4.5 } }
]
fog = 0.1
"#;

#[test]
fn equal_values_have_no_changes() {
    assert!(texts(LEVEL, LEVEL).is_empty());
    // Formatting and key order are not changes.
    assert!(texts("a = 1.0 b = [1 2]", "{\n\tb = [1, 2]\n\t\"a\": 1\n}").is_empty());
}

#[test]
fn each_change_kind() {
    assert_eq!(texts("a = 1", "a = 2"), ["a: 1 → 2"]);
    assert_eq!(texts("a = 1", "a = 1 b = \"x\""), ["+ b: \"x\""]);
    assert_eq!(texts("a = 1 b = {c = true}", "a = 1"), ["- b: {c = true}"]);
    assert_eq!(
        texts("a = {b = {c = null}}", "a = {b = {c = 0}}"),
        ["a.b.c: null → 0"]
    );
    assert_eq!(texts("a = 1", "a = [1]"), ["a: 1 → [1]"]);
    assert_eq!(texts("\"x.y\" = 1", "\"x.y\" = 2"), ["[\"x.y\"]: 1 → 2"]);
}

#[test]
fn keyed_arrays_diff_by_id() {
    let new = LEVEL
        .replace(
            "\t{ id = \"e2\" name = \"barrel\" position = [5 0 0] }\n",
            "",
        )
        .replace(
            "unit = \"units/lamp\" position = [0 0 0]",
            "unit = \"units/lamp\" position = [1 0 0]",
        )
        .replace(
            "]\nfog",
            "\t{ id = \"e3\" name = \"torch\" unit = \"units/torch\" }\n]\nfog",
        )
        .replace("intensity = 4.5", "intensity = 6");
    assert_eq!(
        texts(LEVEL, &new),
        [
            "- entities[id=e2]: {name = \"barrel\", position = [5 0 0]}",
            "entities[id=f341].position: [0 0 0] → [1 0 0]",
            "entities[id=f341].light.intensity: 4.5 → 6",
            "+ entities[id=e3]: {name = \"torch\", unit = \"units/torch\"}",
        ]
    );
    // The changes record paths as JSON Pointers with ids.
    let (a, b) = (doc(LEVEL), doc(&new));
    let d = diff(a.root(), b.root(), &DiffOptions::default());
    assert_eq!(
        d.changes[1].to_json(),
        r#"{"change":"changed","path":"/entities/[id=f341]/position","old":[0,0,0],"new":[1,0,0]}"#
    );
    // The patch uses indices valid after the removal of e2.
    assert_eq!(
        d.patch_json(),
        "[\n  {\"op\":\"remove\",\"path\":\"/entities/1\"},\n  \
         {\"op\":\"add\",\"path\":\"/entities/2\",\"value\":{\"id\":\"e3\",\"name\":\"torch\",\"unit\":\"units/torch\"}},\n  \
         {\"op\":\"replace\",\"path\":\"/entities/1/position\",\"value\":[1,0,0]},\n  \
         {\"op\":\"replace\",\"path\":\"/entities/1/light/intensity\",\"value\":6}\n]"
    );
}

#[test]
fn numeric_ids_and_id_key_case() {
    assert_eq!(
        texts(
            "a = [{ID = 1 v = 1} {ID = 2 v = 2}]",
            "a = [{ID = 2 v = 3} {ID = 1 v = 1}]"
        ),
        ["~ a[ID=2]: moved from index 1 to 0", "a[ID=2].v: 2 → 3"]
    );
    // Duplicate ids: not keyed, a sequence.
    assert_eq!(
        texts(
            "a = [{id = 1 v = 1} {id = 1 v = 2}]",
            "a = [{id = 1 v = 1} {id = 1 v = 3}]"
        ),
        ["a[1].v: 2 → 3"]
    );
}

#[test]
fn reorders_are_moves() {
    assert_eq!(
        texts(
            "a = [{id = a} {id = b} {id = c} {id = d}]",
            "a = [{id = b} {id = c} {id = d} {id = a}]"
        ),
        ["~ a[id=a]: moved from index 0 to 3"]
    );
}

#[test]
fn objects_moved_between_keyed_arrays() {
    let old =
        "entities = [{id = e1 name = a} {id = e2 name = b}]\ngroups = [{id = g1 children = []}]";
    let new =
        "entities = [{id = e1 name = a}]\ngroups = [{id = g1 children = [{id = e2 name = c}]}]";
    assert_eq!(
        texts(old, new),
        [
            "~ groups[id=g1].children[id=e2]: moved from entities[id=e2]",
            "groups[id=g1].children[id=e2].name: \"b\" → \"c\"",
        ]
    );
}

#[test]
fn tuples_are_one_value() {
    assert_eq!(
        texts("p = [0 0 0]", "p = [1 0 0]"),
        ["p: [0 0 0] → [1 0 0]"]
    );
    assert_eq!(texts("p = [0 0]", "p = [0 0 1]"), ["p: [0 0] → [0 0 1]"]);
    // Longer than atomic_max: a sequence.
    let long: Vec<String> = (0..20).map(|i| i.to_string()).collect();
    let mut changed = long.clone();
    changed[7] = "70".into();
    assert_eq!(
        texts(
            &format!("p = [{}]", long.join(" ")),
            &format!("p = [{}]", changed.join(" "))
        ),
        ["p[7]: 7 → 70"]
    );
}

#[test]
fn sequences_diff_by_value() {
    assert_eq!(
        texts("t = [a b c d]", "t = [a x c d e]"),
        ["t[1]: \"b\" → \"x\"", "+ t[4]: \"e\""]
    );
    assert_eq!(
        texts("t = [a b c d]", "t = [a d]"),
        ["- t[1]: \"b\"", "- t[2]: \"c\""]
    );
    assert_eq!(
        texts("t = [x a b]", "t = [a b y z]"),
        ["- t[0]: \"x\"", "+ t[2]: \"y\"", "+ t[3]: \"z\""]
    );
    // Unkeyed objects in a replaced run are compared member by member.
    assert_eq!(
        texts(
            "actors = [{name = a mass = 1} {name = b mass = 2}]",
            "actors = [{name = a mass = 1} {name = b mass = 3}]"
        ),
        ["actors[1].mass: 2 → 3"]
    );
}

#[test]
fn summaries_are_short() {
    let d = doc(
        "o = { id = x name = \"gate\" unit = \"units/architecture/gate\" position = [0.0 24.0 0.0] rotation = [0 0 0 1] scale = [1 1 1] }\n\
         s = \"a very long string that goes on and on and on and on and on and on\"\n\
         l = [{a = 1} {a = 2} 3]",
    );
    let r = d.root();
    assert_eq!(
        summary(r.get("o").unwrap()),
        "{name = \"gate\", unit = \"units/architecture/gate\", …}"
    );
    assert_eq!(
        summary(r.get("s").unwrap()),
        "\"a very long string that goes on and on and on a…\""
    );
    assert_eq!(summary(r.get("l").unwrap()), "[… 3 items]");
    assert_eq!(path_text(&Path::root()), "(root)");
}

#[test]
fn json_patch_for_roots_and_escapes() {
    let a = Document::parse("[1, {\"a/b\": 1, \"m~n\": 2}]", Dialect::Json).unwrap();
    let b = Document::parse("[{\"a/b\": 2}, 1]", Dialect::Json).unwrap();
    let d = diff(a.root(), b.root(), &DiffOptions::default());
    check_patch(&a, &b, &d);
    let c = Document::parse("\"x\"", Dialect::Json).unwrap();
    let d = diff(a.root(), c.root(), &DiffOptions::default());
    assert_eq!(
        d.patch_json(),
        "[\n  {\"op\":\"replace\",\"path\":\"\",\"value\":\"x\"}\n]"
    );
    check_patch(&a, &c, &d);
    let e = Document::parse("[1, {\"a/b\": 1, \"m~n\": 3}]", Dialect::Json).unwrap();
    let d = diff(a.root(), e.root(), &DiffOptions::default());
    assert_eq!(
        d.patch_json(),
        "[\n  {\"op\":\"replace\",\"path\":\"/1/m~0n\",\"value\":3}\n]"
    );
}

/// A deterministic pseudo-random generator for the randomized test.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n.max(1)
    }
}

fn random_entities(rng: &mut Lcg, ids: &[usize]) -> String {
    let mut s = String::from("[");
    for id in ids {
        let _ = write!(
            s,
            " {{ id = \"e{id}\" v = {} tags = [{}] }}",
            rng.next(3),
            (0..rng.next(4))
                .map(|_| format!("t{}", rng.next(3)))
                .collect::<Vec<_>>()
                .join(" ")
        );
    }
    s.push_str(" ]");
    s
}

#[test]
fn random_patches_apply_sequentially() {
    let mut rng = Lcg(7);
    for round in 0..2000 {
        let n = rng.next(16);
        let old_ids: Vec<usize> = (0..n).collect();
        // Remove some, shuffle some, add some.
        let mut new_ids: Vec<usize> = old_ids
            .iter()
            .copied()
            .filter(|_| rng.next(4) != 0)
            .collect();
        for _ in 0..rng.next(4) {
            if new_ids.len() > 1 {
                let (x, y) = (rng.next(new_ids.len()), rng.next(new_ids.len()));
                let v = new_ids.remove(x);
                new_ids.insert(y, v);
            }
        }
        for k in 0..rng.next(3) {
            let at = rng.next(new_ids.len() + 1);
            new_ids.insert(at, 100 + k);
        }
        let old = format!(
            "e = {}\ns = [{}]",
            random_entities(&mut rng, &old_ids),
            (0..rng.next(6))
                .map(|_| rng.next(4).to_string())
                .collect::<Vec<_>>()
                .join(" ")
        );
        let new = format!(
            "e = {}\ns = [{}]",
            random_entities(&mut rng, &new_ids),
            (0..rng.next(6))
                .map(|_| rng.next(4).to_string())
                .collect::<Vec<_>>()
                .join(" ")
        );
        let (a, b) = (doc(&old), doc(&new));
        let opts = DiffOptions {
            atomic_max: 2,
            ..DiffOptions::default()
        };
        let d = diff(a.root(), b.root(), &opts);
        check_patch(&a, &b, &d);
        // With a reordered array replaced whole, the patch still gives the new value.
        let whole = diff_within(a.root(), b.root(), &opts, 0);
        check_patch(&a, &b, &whole);
        assert_eq!(whole.changes.len(), d.changes.len());
        // Reverse direction too.
        let r = diff(b.root(), a.root(), &opts);
        check_patch(&b, &a, &r);
        assert_eq!(
            d.is_empty(),
            a.root().same_value(&b.root()),
            "round {round}"
        );
    }
}
