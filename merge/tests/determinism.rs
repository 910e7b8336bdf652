//! No order in a merge's output comes from iterating a hash table. The merge crate's
//! tables hash under a seed drawn anew for every table and every process
//! (`merge/src/hashing.rs`), so a merge run again iterates its tables in other orders:
//! each case below is merged several times in this process and once in two other
//! processes, and every run must give the same text, conflicts, names and violations.

use std::path::{Path, PathBuf};
use std::process::Command;

use levelgen::edits::MergeInputs;
use levelgen::Rng;
use merge::{merge, Inputs, MergeOptions, Policy};
use proptest::prelude::*;
use sjson::Dialect;

use crate::common;
use crate::laws::model::{print_doc, Style};
use crate::laws::world::{script, world, Owner, World};

/// One merge: a name for failures, the dialect, base, ours and theirs, the policy.
struct Case {
    name: String,
    dialect: Dialect,
    texts: [String; 3],
    policy: Policy,
}

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data")
}

/// The directories under `dir` (sorted), each a case of `base.*`, `ours.*`, `theirs.*`.
fn case_dirs(dir: &Path) -> Vec<Case> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("meta.json").exists() || p.join("expected.json").exists())
        .collect();
    dirs.sort();
    dirs.iter().filter_map(|d| case_in(d)).collect()
}

fn case_in(dir: &Path) -> Option<Case> {
    let (ext, dialect) = match dir.join("base.sjson").exists() {
        true => ("sjson", Dialect::Sjson),
        false => ("json", Dialect::Json),
    };
    let read = |side: &str| std::fs::read_to_string(dir.join(format!("{side}.{ext}"))).ok();
    Some(Case {
        name: dir.display().to_string(),
        dialect,
        texts: [read("base")?, read("ours")?, read("theirs")?],
        policy: Policy::Theirs,
    })
}

/// An object whose order of members is decided by where theirs' new members go: theirs
/// adds members after members that ours deleted (each goes after the member before it
/// that ours kept), enough members (more than a dozen) that they are found by hash.
fn anchors_ours_deleted() -> Case {
    let member = |k: usize, v: &str| format!("  \"k{k:02}\": {v}");
    let object = |members: Vec<String>| format!("{{\n{}\n}}\n", members.join(",\n"));
    let base: Vec<String> = (0..24).map(|k| member(k, "1")).collect();
    // Ours deletes every third member, theirs adds two members after each of them.
    let ours = (0..24)
        .filter(|k| k % 3 != 0)
        .map(|k| member(k, "1"))
        .collect();
    let mut theirs = Vec::new();
    for k in 0..24 {
        theirs.push(member(k, "1"));
        if k % 3 == 0 {
            theirs.push(format!("  \"new{k:02}a\": {k}"));
            theirs.push(format!("  \"new{k:02}b\": {k}"));
        }
    }
    Case {
        name: "theirs' members after members ours deleted".into(),
        dialect: Dialect::Json,
        texts: [object(base), object(ours), object(theirs)],
        policy: Policy::Theirs,
    }
}

/// A generated level of `n` entities: moves, adds, deletes and true conflicts.
fn level(n: usize, seed: u64) -> Case {
    let inputs = MergeInputs::generate(n, seed, 10);
    Case {
        name: format!("generated level of {n} entities, seed {seed}"),
        dialect: Dialect::Sjson,
        texts: [
            inputs.base.to_sjson(),
            inputs.apply(&inputs.ours_edits).to_sjson(),
            inputs.apply(&inputs.theirs_edits).to_sjson(),
        ],
        policy: Policy::Theirs,
    }
}

/// Random documents both sides edit anywhere (the merge laws' generator, no owners):
/// moves, wraps, reorders, deletions and true conflicts.
fn overlapping(seed: u64, json: bool, policy: Policy) -> Case {
    let mut rng = Rng::new(seed);
    let w = world(&mut rng);
    let style = Style::random(&mut rng, json);
    let mut n = 1000;
    let free = World {
        top: w
            .top
            .iter()
            .map(|(k, _)| (k.clone(), Owner::Ours))
            .collect(),
        entities: w
            .entities
            .iter()
            .map(|(k, _)| (k.clone(), Owner::Ours))
            .collect(),
        passes: w
            .passes
            .iter()
            .map(|(k, _)| (k.clone(), Owner::Ours))
            .collect(),
        ..w.clone()
    };
    let (mut ours, mut theirs) = (w.doc.clone(), w.doc.clone());
    script(&mut rng, &free, Owner::Ours, true, &mut ours, &mut n);
    script(&mut rng, &free, Owner::Ours, true, &mut theirs, &mut n);
    Case {
        name: format!("overlapping edits, seed {seed}, json {json}, {policy:?}"),
        dialect: style.dialect(),
        texts: [&w.doc, &ours, &theirs].map(|d| print_doc(d, &style)),
        policy,
    }
}

/// Every case: the sample cases, the real merges, the Cocos merge, generated levels and
/// random documents.
fn cases() -> Vec<Case> {
    let mut cases = case_dirs(&data().join("cases"));
    cases.extend(case_dirs(&data().join("real-cases")));
    cases.extend(case_dirs(&data().join("cocos")));
    assert!(
        cases.len() >= 12,
        "the cases under tests/data: {}",
        cases.len()
    );
    cases.push(anchors_ours_deleted());
    cases.extend([200, 2_000].map(|n| level(n, 7)));
    for seed in 0..24 {
        let policy = [Policy::Theirs, Policy::Ours][seed as usize % 2];
        cases.push(overlapping(seed, seed % 3 == 0, policy));
    }
    cases
}

/// Everything a caller reads of a merge, as one text.
fn outcome(case: &Case) -> String {
    let [b, o, t] = &case.texts;
    let options = MergeOptions {
        policy: case.policy,
        ..MergeOptions::default()
    };
    match merge(Inputs::texts(b, o, t, case.dialect), &options) {
        Ok(m) => format!(
            "{}\n{:?}\n{:?}\n{:?}\n{:?}\n",
            m.text(),
            m.conflicts,
            m.names,
            m.referrers,
            m.violations
        ),
        Err(e) => format!("error: {e}\n"),
    }
}

/// Every case's outcome, in order, each after its name.
fn outcomes() -> String {
    cases()
        .iter()
        .map(|c| format!("== {}\n{}", c.name, outcome(c)))
        .collect()
}

#[test]
fn every_case_merges_alike_again_in_one_process() {
    for case in cases() {
        let first = outcome(&case);
        for _ in 0..3 {
            assert_eq!(outcome(&case), first, "{}", case.name);
        }
    }
}

/// Where a child process writes its outcomes ([`outcomes_for_another_process`]).
const OUT: &str = "ASSETVC_DETERMINISM_OUT";

#[test]
fn every_case_merges_alike_in_other_processes() {
    let mine = outcomes();
    let dir = std::env::temp_dir().join(format!("assetvc-determinism-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for run in 0..2 {
        let file = dir.join(format!("outcomes-{run}"));
        let child = Command::new(std::env::current_exe().unwrap())
            .args(["determinism::outcomes_for_another_process", "--exact"])
            .args(["--ignored", "--test-threads=1", "--quiet"])
            .env(OUT, &file)
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&child.stdout);
        assert!(child.status.success(), "the child test failed:\n{said}");
        let theirs = std::fs::read_to_string(&file).unwrap();
        if let Some((a, b)) = mine
            .split("== ")
            .zip(theirs.split("== "))
            .find(|(a, b)| a != b)
        {
            panic!("another process merged differently:\n--- here:\n{a}\n--- there:\n{b}");
        }
        assert_eq!(mine.len(), theirs.len());
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Run by [`every_case_merges_alike_in_other_processes`] in a process of its own: writes
/// the outcomes to the file `ASSETVC_DETERMINISM_OUT` names.
#[test]
#[ignore = "run by every_case_merges_alike_in_other_processes"]
fn outcomes_for_another_process() {
    let file = std::env::var_os(OUT).expect("ASSETVC_DETERMINISM_OUT names the output file");
    std::fs::write(file, outcomes()).unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: common::proptest_cases(64),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Random documents both sides edit: merged twice, alike.
    #[test]
    fn random_merges_are_alike_twice(seed in any::<u64>(), json in proptest::bool::weighted(0.3), ours in any::<bool>()) {
        let policy = if ours { Policy::Ours } else { Policy::Theirs };
        let case = overlapping(seed, json, policy);
        prop_assert_eq!(outcome(&case), outcome(&case), "{}", case.name);
    }
}
