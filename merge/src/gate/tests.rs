use sjson::{Dialect, Document};

use super::*;
use crate::{merge, Inputs, MergeOptions, Policy};

fn js(base: &str, ours: &str, theirs: &str) -> crate::Merged {
    merge(
        Inputs::texts(base, ours, theirs, Dialect::Json),
        &MergeOptions::default(),
    )
    .unwrap()
}

#[test]
fn a_duplicate_every_input_kept_out_of_is_a_violation() {
    let keys = vec!["id".to_string()];
    let rules = Rules {
        id_keys_lower: &keys,
        format: Format::Generic,
        ids_known_unique: false,
    };
    let doc = |t: &str| Document::parse(t, Dialect::Json).unwrap();
    let result = doc(r#"{"a":[{"id":1},{"id":1}],"t":["x","y","x"]}"#);
    let clean = doc(r#"{"a":[{"id":1}],"t":["x","y"]}"#);
    let found = check(&result, |_| Some(&clean), &rules);
    assert_eq!(found.len(), 2, "{found:?}");
    let id = "/a: id 1 twice in the result (unique in base, ours and theirs)";
    assert!(found.iter().any(|v| v.to_string() == id), "{found:?}");
    assert!(
        found.iter().any(|v| matches!(v,
        GateViolation::DuplicateElement { array, element } if array == "/t" && element == "\"x\""))
    );
    // An input that held the duplicate already: not the merge's doing.
    let dirty = doc(r#"{"a":[{"id":1},{"id":1}],"t":["x","x"]}"#);
    let inputs = [&clean, &dirty, &clean];
    assert!(check(&result, |v| Some(inputs[v.index()]), &rules).is_empty());
    // An input the gate cannot read: nothing reported.
    assert!(check(&result, |v| (v != Version::Ours).then_some(&clean), &rules).is_empty());
    // Numbers are no set: a vector may hold one number twice.
    let v = doc(r#"{"p":[0,0,1]}"#);
    assert!(check(&v, |_| Some(&clean), &rules).is_empty());
    // Violations name their array by keys and ids, `*` for an element without one.
    let result = doc(r#"{"u":[{"id":"a","p":[{"id":1},{"id":1}]},{"q":{"t":["x","x","y"]}}]}"#);
    let clean = doc(r#"{"u":[{"id":"a","p":[{"id":1}]},{"q":{"t":["x","y"]}}]}"#);
    let mut found: Vec<String> = check(&result, |_| Some(&clean), &rules)
        .iter()
        .map(|v| v.path().to_string())
        .collect();
    found.sort();
    assert_eq!(found, ["/u/*/q/t", "/u/[id=a]/p"]);
}

#[test]
fn both_sides_adding_one_string_at_two_places_keeps_it_once_or_fails() {
    let out = js(
        r#"{"t":["a","b","c"]}"#,
        r#"{"t":["x","a","b","c"]}"#,
        r#"{"t":["a","b","c","x"]}"#,
    );
    let dup = out
        .violations
        .iter()
        .any(|v| matches!(v, GateViolation::DuplicateElement { .. }));
    let data: serde_json::Value = serde_json::from_str(out.text()).unwrap();
    let xs = data["t"].as_array().unwrap().iter().filter(|v| *v == "x");
    let xs = xs.count();
    assert!(
        xs == 1 || (dup && out.failed(Policy::Theirs)),
        "{} {:?}",
        out.text(),
        out.violations
    );
    assert!(xs == 2 || !dup, "{}", out.text());
}

#[test]
fn a_clean_merge_has_no_violation_and_does_not_fail() {
    let out = js(
        r#"{"a":[{"id":1,"v":1}]}"#,
        r#"{"a":[{"id":1,"v":2}]}"#,
        r#"{"a":[{"id":1,"v":1},{"id":2}]}"#,
    );
    assert!(out.violations.is_empty());
    assert!(!out.failed(Policy::Theirs));
}

#[test]
fn a_large_result_is_gated_alike_on_one_thread_and_on_two() {
    // From a mebibyte on, the gate looks at the result beside the coherence pass: what it
    // finds is what the one-thread merge finds, whether the result is clean or not.
    let filler: String = (0..40_000)
        .map(|i| format!(r#"{{"id":"f{i}","v":[1,2,3]}},"#))
        .collect();
    let large = |t: &str| format!(r#"{{"f":[{filler}{{"id":"last"}}],{}"#, &t[1..]);
    let cases = [
        (
            r#"{"t":["a","b","c"]}"#,
            r#"{"t":["x","a","b","c"]}"#,
            r#"{"t":["a","b","c","x"]}"#,
        ),
        (
            r#"{"a":[{"id":1,"v":1}]}"#,
            r#"{"a":[{"id":1,"v":2}]}"#,
            r#"{"a":[{"id":1,"v":1},{"id":2}]}"#,
        ),
    ];
    for (b, o, t) in cases {
        let (b, o, t) = (large(b), large(o), large(t));
        assert!(b.len() > 1 << 20);
        let merged = |threads| {
            let options = MergeOptions {
                threads,
                ..MergeOptions::default()
            };
            merge(Inputs::texts(&b, &o, &t, Dialect::Json), &options).unwrap()
        };
        let (one, two) = (merged(crate::Threads::One), merged(crate::Threads::Auto));
        assert_eq!(one.text(), two.text());
        assert_eq!(one.violations, two.violations);
        assert_eq!(
            one.violations.is_empty(),
            b.contains(r#""a":"#),
            "{:?}",
            one.violations
        );
        assert_eq!(one.failed(Policy::Theirs), two.failed(Policy::Theirs));
    }
}
