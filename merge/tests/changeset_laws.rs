//! Property tests of the change-set laws (docs/design.md "Change sets and apply") on
//! generated levels:
//!
//! - `apply(diff(A, B), A) == B` as data, and A's bytes wherever a value did not change;
//! - `apply(diff(A, B), A2) == merge-file(A2, A, B)` for A2 = A with other edits;
//! - applying an empty change set changes nothing;
//! - two appended change sets apply like their composition;
//! - the JSON Patch of `diff(A, B)` applied to A (RFC 6902) gives B, with A's bytes
//!   wherever a value did not change.

use crate::common;

use merge::changeset::{apply_change_set, change_set, parse_change_set, read_ops, Applied};
use merge::diff::{diff, DiffOptions};
use merge::patch::{apply_patch, json_equal};
use merge::{merge, Inputs, MergeOptions};
use proptest::prelude::*;
use sjson::{Dialect, Document};

#[derive(Debug, Clone, PartialEq)]
struct Entity {
    id: u32,
    name: String,
    pos: [i32; 3],
    tint: Option<String>,
    tags: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
struct Level {
    entities: Vec<Entity>,
    fog: i32,
}

impl Entity {
    fn new(id: u32, seed: i32) -> Entity {
        Entity {
            id,
            name: format!("n{}", seed.rem_euclid(7)),
            pos: [seed, seed / 2, -seed],
            tint: (seed % 3 == 0).then(|| "white".to_string()),
            tags: (0..seed.rem_euclid(3)).map(|t| format!("t{t}")).collect(),
        }
    }

    /// One line, Stingray style.
    fn line(&self) -> String {
        let mut s = format!(
            "\t{{ id = \"e{}\" name = \"{}\" pos = [{} {} {}]",
            self.id, self.name, self.pos[0], self.pos[1], self.pos[2]
        );
        if let Some(t) = &self.tint {
            s.push_str(&format!(" tint = \"{t}\""));
        }
        let tags: Vec<String> = self.tags.iter().map(|t| format!("\"{t}\"")).collect();
        s.push_str(&format!(" tags = [{}] }}\n", tags.join(" ")));
        s
    }
}

impl Level {
    fn text(&self) -> String {
        let mut s = String::from("// generated level\nentities = [\n");
        for e in &self.entities {
            s.push_str(&e.line());
        }
        s.push_str(&format!("]\nsettings = {{\n\tfog = {}\n}}\n", self.fog));
        s
    }
}

/// An edit: (kind, which entity, a value).
type Edit = (u8, usize, i32);

/// Applies `edits` to the entities `mine` allows (by their index in the original level);
/// new entities get ids from `next_id`.
fn edit(
    level: &Level,
    edits: &[Edit],
    mine: impl Fn(usize) -> bool,
    mut next_id: u32,
    fog: bool,
) -> Level {
    let mut out = level.clone();
    let original: Vec<u32> = level.entities.iter().map(|e| e.id).collect();
    for &(kind, which, v) in edits {
        let n = original.len();
        if n == 0 && kind % 7 != 5 {
            continue;
        }
        let k = which % n.max(1);
        if !mine(k) && kind % 7 != 5 && kind % 7 != 6 {
            continue;
        }
        let target = original.get(k).copied();
        let at = target.and_then(|id| out.entities.iter().position(|e| e.id == id));
        match (kind % 7, at) {
            (0, Some(i)) => out.entities[i].pos[(v.rem_euclid(3)) as usize] = v,
            (1, Some(i)) => out.entities[i].name = format!("r{v}"),
            (2, Some(i)) => {
                let t = &mut out.entities[i].tint;
                *t = if t.is_some() {
                    None
                } else {
                    Some(format!("c{v}"))
                };
            }
            (3, Some(i)) => out.entities[i].tags.push(format!("x{v}")),
            (4, Some(i)) => {
                out.entities.remove(i);
            }
            (5, _) => {
                let place = which % (out.entities.len() + 1);
                out.entities.insert(place, Entity::new(next_id, v));
                next_id += 1;
            }
            (6, _) if fog => out.fog = v,
            _ => {}
        }
    }
    out
}

fn level() -> impl Strategy<Value = Level> {
    (prop::collection::vec(-50i32..50, 0..10), -5i32..5).prop_map(|(seeds, fog)| Level {
        entities: seeds
            .iter()
            .enumerate()
            .map(|(i, &s)| Entity::new(i as u32, s))
            .collect(),
        fog,
    })
}

fn edits() -> impl Strategy<Value = Vec<Edit>> {
    prop::collection::vec((0u8..7, 0usize..20, -60i32..60), 0..8)
}

fn parse(text: &str) -> Document {
    Document::parse(text, Dialect::Sjson).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// `diff --format changes` of a → b, as text.
fn changes(a: &str, b: &str) -> String {
    let (a, b) = (parse(a), parse(b));
    let opts = DiffOptions::default();
    let d = diff(a.root(), b.root(), &opts);
    change_set(Some(a.root()), Some(b.root()), &d, &opts)
        .iter()
        .map(|o| format!("{}\n", o.to_json()))
        .collect()
}

fn apply(set: &str, target: &str) -> Applied {
    let lines = parse_change_set(set).unwrap_or_else(|e| panic!("{e}\n{set}"));
    let ops = read_ops(&lines).unwrap_or_else(|e| panic!("{e}\n{set}"));
    apply_change_set(&parse(target), &ops, &MergeOptions::default()).unwrap()
}

fn same_data(a: &str, b: &str) -> bool {
    json_equal(parse(a).root(), parse(b).root())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::proptest_cases(200)))]

    #[test]
    fn applying_the_diff_gives_the_new_version(a in level(), e in edits()) {
        let b = edit(&a, &e, |_| true, 1000, true);
        let (at, bt) = (a.text(), b.text());
        let set = changes(&at, &bt);
        let out = apply(&set, &at);
        prop_assert!(out.conflicts.is_empty(), "{:?}", out.conflicts);
        prop_assert!(same_data(out.text(), &bt), "{set}\n{}\nexpected\n{bt}", out.text());
        // A's bytes wherever a value did not change: unchanged entities keep their line.
        for ent in a.entities.iter().filter(|x| b.entities.contains(x)) {
            prop_assert!(out.text().contains(&ent.line()), "{}\n{}", ent.line(), out.text());
        }
        prop_assert!(out.text().starts_with("// generated level\nentities = [\n"));
    }

    #[test]
    fn applying_the_diff_elsewhere_is_merge_file(
        a in level(), eb in edits(), e2 in edits()
    ) {
        // B edits the even entities and the settings, A2 the odd ones; both create.
        // (A2 destroys nothing: an object created next to one the target destroyed
        // lands after its predecessor, where merge-file may put the target's own
        // insertions there first.)
        let e2: Vec<Edit> = e2.into_iter().filter(|e| e.0 % 7 != 4).collect();
        let b = edit(&a, &eb, |k| k % 2 == 0, 1000, true);
        let a2 = edit(&a, &e2, |k| k % 2 == 1, 2000, false);
        let (at, bt, a2t) = (a.text(), b.text(), a2.text());
        let set = changes(&at, &bt);
        let out = apply(&set, &a2t);
        let merged = merge(Inputs::texts(&at, &a2t, &bt, Dialect::Sjson), &MergeOptions::default()).unwrap();
        prop_assert!(merged.conflicts.is_empty());
        prop_assert!(out.conflicts.is_empty(), "{:?}", out.conflicts);
        prop_assert!(
            same_data(out.text(), merged.text()),
            "{set}\napplied to\n{a2t}\ngives\n{}\nmerge-file gives\n{}", out.text(), merged.text()
        );
    }

    #[test]
    fn an_empty_change_set_changes_nothing(a in level(), e in edits()) {
        let at = edit(&a, &e, |_| true, 1000, true).text();
        prop_assert_eq!(changes(&at, &at), "");
        prop_assert_eq!(apply("", &at).into_text(), at.clone());
        prop_assert_eq!(apply("\n\n", &at).into_text(), at);
    }

    #[test]
    fn appended_change_sets_apply_like_their_composition(
        a in level(), e1 in edits(), e2 in edits()
    ) {
        let b = edit(&a, &e1, |_| true, 1000, true);
        let c = edit(&b, &e2, |_| true, 2000, true);
        let (at, bt, ct) = (a.text(), b.text(), c.text());
        let set = changes(&at, &bt) + &changes(&bt, &ct);
        let out = apply(&set, &at);
        prop_assert!(same_data(out.text(), &ct), "{set}\n{}\nexpected\n{ct}", out.text());
    }

    #[test]
    fn the_json_patch_of_a_diff_gives_the_new_version(a in level(), e in edits()) {
        let b = edit(&a, &e, |_| true, 1000, true);
        let (at, bt) = (a.text(), b.text());
        let (ad, bd) = (parse(&at), parse(&bt));
        let d = diff(ad.root(), bd.root(), &DiffOptions::default());
        let patch = Document::parse(d.patch_json(), Dialect::Json).unwrap();
        let out = apply_patch(&ad, &patch, &MergeOptions::default()).unwrap();
        prop_assert!(same_data(&out, &bt), "{}\n{out}\nexpected\n{bt}", d.patch_json());
        for ent in a.entities.iter().filter(|x| b.entities.contains(x)) {
            prop_assert!(out.contains(&ent.line()), "{}\n{out}", ent.line());
        }
    }
}
