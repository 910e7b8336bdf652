//! Arrays of objects without ids (a material's shader `connections`): one side deletes
//! element i, the other edits element j, for every pair of the first ten connections of
//! a real material (90 pairs each way). The result is base without i, with j's edit:
//! the deleted element never comes back and the edit is never lost, however alike the
//! neighbours are (connections share their source).

use merge::{merge, Inputs, MergeOptions};
use serde_json::Value;
use sjson::Dialect;

/// MIT (tests/data/licences/MIT.txt; source in tests/data/corpus/MANIFEST.tsv).
const MATERIAL: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/data/corpus/dalokraff__Disc-of-Tzeentch/materials/eye_emissive_3p.material"
));

/// The material with connection `i` deleted.
fn deleted(i: usize) -> String {
    edit_connection(i, |_| String::new())
}

/// The material with connection `j`'s destination connector renamed.
fn edited(j: usize) -> String {
    edit_connection(j, |element| {
        element.replacen("connector_id = \"", "connector_id = \"edited-", 1)
    })
}

/// The text with the `n`th element of `connections` (found by its lines: a `\t\t{` to
/// its `\t\t}`) replaced by `f` of its text.
fn edit_connection(n: usize, f: impl Fn(&str) -> String) -> String {
    let start = MATERIAL.find("connections = [\n").unwrap();
    let mut at = start;
    for _ in 0..n {
        at += MATERIAL[at..].find("\n\t\t}\n").unwrap() + 1;
    }
    let open = at + MATERIAL[at..].find("\t\t{\n").unwrap();
    let close = open + MATERIAL[open..].find("\n\t\t}\n").unwrap() + "\n\t\t}\n".len();
    format!(
        "{}{}{}",
        &MATERIAL[..open],
        f(&MATERIAL[open..close]),
        &MATERIAL[close..]
    )
}

fn connections(text: &str) -> Vec<Value> {
    let doc = sjson::Document::parse(text, Dialect::Sjson).unwrap();
    let shader = doc.root().get("shader").unwrap();
    let json = merge::compact_json(shader.get("connections").unwrap());
    serde_json::from_str::<Vec<Value>>(&json).unwrap()
}

#[test]
fn deleting_one_connection_and_editing_another_keeps_both_changes() {
    let mut wrong = Vec::new();
    let opts = MergeOptions::default();
    for i in 0..10 {
        for j in (0..10).filter(|&j| j != i) {
            // The expected result: j edited, then i deleted (both as data).
            let mut want = connections(&edited(j));
            want.remove(i);
            for (ours, theirs, who) in [
                (deleted(i), edited(j), "ours deletes"),
                (edited(j), deleted(i), "theirs deletes"),
            ] {
                let out = merge(
                    Inputs::texts(MATERIAL, &ours, &theirs, Dialect::Sjson),
                    &opts,
                )
                .unwrap();
                if connections(out.text()) != want || !out.conflicts.is_empty() {
                    wrong.push(format!(
                        "{who} {i}, the other edits {j}: {:?}",
                        out.conflicts
                    ));
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of 180 wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}
