//! A stable-Rust stand-in for the `merge3` fuzz target: documents made by splicing,
//! deleting and duplicating pieces of sample merge cases, merged whenever all three
//! parse. The merge must not panic, its result must parse, and the identity laws hold.

use crate::common;

use merge::{merge, Inputs, MergeOptions, Policy, Side};
use proptest::prelude::*;
use sjson::{Dialect, Document};

/// Sample documents (from the sample merge cases in tests/data/cases and the tests), SJSON and JSON.
const SEEDS: &[&str] = &[
    "units = [\n\t{\n\t\tid = \"u-17\"\n\t\tunit = \"units/props/barrel\"\n\t\tpos = [1.0 2.0 3.0]\n\t\ttint = \"white\"\n\t}\n\t{\n\t\tid = \"u-42\"\n\t\tpos = [1.0 2.0 3.0]\n\t}\n]\n",
    "units = [\n\t{\n\t\tid = \"u-17\"\n\t\tpos = [4.0 2.0 3.0]\n\t\ttint = \"red\"\n\t}\n\t{\n\t\tid = \"u-50\"\n\t\ttint = \"black\"\n\t}\n]\n",
    "// lighting\nambient = [0.1 0.1 0.1]\nfog = { density = 0.02, color = [0.5 0.5 0.6] }\n",
    "passes = [\n\t{\n\t\tlayer = \"opaque\"\n\t\tsort = 1\n\t}\n\t{\n\t\tlayer = \"alpha\"\n\t\tsort = 2\n\t}\n]\n",
    "weights = [0.5 0.25 0.25]\nl = [a b c d]\n",
    "{\n  \"lines\": [\n    {\n      \"id\": \"greeting\",\n      \"en\": \"Hello\",\n      \"fr\": \"Bonjour\"\n    }\n  ]\n}\n",
    "hello = {\n\ta = 1\n\tb = 2\n\tc = 3\n}\nz = 0\n",
    "container = {\n\thello = {\n\t\ta = 1\n\t\tb = 5\n\t\tc = 3\n\t}\n}\nz = 0\n",
    "a = [{id=1} {id=2 x=0 y=0}]\nb = []\nc = [{id=2 x=1}]\n",
    "{\r\n    a: 1,\r\n    b: \"\"\"raw // text\"\"\",\r\n    c: [ {name = \"n\" v = 1}, {name = \"m\"} ]\r\n}\r\n",
    "[1, {\"a\": [true, null, \"x\"]}, 3]",
    // Shapes behind bugs the merge3 fuzz target found.
    "w = [\"\"\"x\" 1]\nr = \"\"\"raw\"\"\"\n",
    "// l}\nambie =s/",
    "fog = { density = \"u-94\"color = [0.5 0.5 0.6] }\n",
];

/// Pieces spliced into documents: tokens that open, close, separate, comment.
const PIECES: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    " = ",
    ":",
    ",",
    "\n",
    "\r\n",
    "\t",
    " ",
    "// c\n",
    "/* b */",
    "id = 7 ",
    "\"id\": \"x\", ",
    "x = [1 2 3]\n",
    "{ id = 2 }",
    "name = \"n\" ",
    "null",
    "1.5",
    "\"s\"",
    "guid = 9 ",
    "\u{FEFF}",
    "é",
    "q = { id = 1 }\n",
];

/// A mutation of `text`: pieces inserted, stretches deleted or duplicated, at char
/// boundaries chosen by `choices`.
fn mutate(text: &str, choices: &[(u8, u16, u16)]) -> String {
    let mut s = text.to_string();
    for &(op, a, b) in choices {
        let bounds: Vec<usize> = s
            .char_indices()
            .map(|(i, _)| i)
            .chain(std::iter::once(s.len()))
            .collect();
        let at = bounds[a as usize % bounds.len()];
        let to = bounds[(a as usize + b as usize % 12) % bounds.len()].max(at);
        match op % 4 {
            0 => s.insert_str(at, PIECES[b as usize % PIECES.len()]),
            1 => s.replace_range(at..to, ""),
            2 => {
                let piece = s[at..to].to_string();
                s.insert_str(to, &piece);
            }
            _ => {
                let other = SEEDS[b as usize % SEEDS.len()];
                let cut = other.len() / 2;
                if other.is_char_boundary(cut) {
                    s.insert_str(at, &other[..cut]);
                }
            }
        }
    }
    s
}

fn check(dialect: Dialect, b: &str, o: &str, t: &str) {
    if [b, o, t]
        .iter()
        .any(|x| Document::parse(*x, dialect).is_err())
    {
        return;
    }
    for policy in [Policy::Theirs, Policy::Ours, Policy::Fail] {
        let opts = MergeOptions {
            policy,
            ..MergeOptions::default()
        };
        let out = merge(Inputs::texts(b, o, t, dialect), &opts).unwrap_or_else(|e| {
            panic!("{e}\n--- base:\n{b:?}\n--- ours:\n{o:?}\n--- theirs:\n{t:?}")
        });
        let side = if policy == Policy::Ours {
            Side::Ours
        } else {
            Side::Theirs
        };
        // Coherence repairs take the side that kept the object, not the policy's.
        assert!(out
            .conflicts
            .iter()
            .all(|c| c.taken == side || c.kind.is_repair()));
    }
    let opts = MergeOptions::default();
    for x in [o, t] {
        let out = merge(Inputs::texts(b, x, b, dialect), &opts).unwrap();
        assert_eq!(out.text(), x, "merge(b, x, b)\n--- base:\n{b:?}");
        let out = merge(Inputs::texts(b, x, x, dialect), &opts).unwrap();
        assert_eq!(out.text(), x, "merge(b, x, x)\n--- base:\n{b:?}");
        let out = merge(Inputs::texts(b, b, x, dialect), &opts).unwrap();
        let got = Document::parse(out.text(), dialect).unwrap();
        let want = Document::parse(x, dialect).unwrap();
        assert!(
            got.root().same_value(&want.root()),
            "merge(b, b, x)\n--- base:\n{b:?}\n--- x:\n{x:?}\n--- got:\n{:?}",
            out.text()
        );
    }
}

fn mutations() -> impl Strategy<Value = Vec<(u8, u16, u16)>> {
    proptest::collection::vec(any::<(u8, u16, u16)>(), 0..4)
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: common::proptest_cases(2000),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Three versions of one seed, each mutated a little (mostly parseable).
    #[test]
    fn mutated_versions_of_one_seed(
        seed in 0..SEEDS.len(),
        mb in mutations(),
        mo in mutations(),
        mt in mutations(),
        json in any::<bool>(),
    ) {
        let base = mutate(SEEDS[seed], &mb);
        let ours = mutate(&base, &mo);
        let theirs = mutate(&base, &mt);
        let dialect = if json { Dialect::Json } else { Dialect::Sjson };
        check(dialect, &base, &ours, &theirs);
    }

    /// Three unrelated seeds.
    #[test]
    fn unrelated_documents(
        b in 0..SEEDS.len(),
        o in 0..SEEDS.len(),
        t in 0..SEEDS.len(),
        mo in mutations(),
    ) {
        let ours = mutate(SEEDS[o], &mo);
        check(Dialect::Sjson, SEEDS[b], &ours, SEEDS[t]);
        check(Dialect::Json, SEEDS[b], &ours, SEEDS[t]);
    }
}
