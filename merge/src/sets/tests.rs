use sjson::Dialect;

use crate::{merge, Inputs, MergeOptions};

fn sj(base: &str, ours: &str, theirs: &str) -> crate::Merged {
    merge(
        Inputs::texts(base, ours, theirs, Dialect::Sjson),
        &MergeOptions::default(),
    )
    .unwrap()
}

#[test]
fn both_sides_inserting_at_one_place_keep_both_sorted() {
    let out = sj(
        "tags = [\"a\" \"d\"]\n",
        "tags = [\"a\" \"b\" \"d\"]\n",
        "tags = [\"a\" \"c\" \"d\"]\n",
    );
    assert_eq!(out.text(), "tags = [\"a\" \"b\" \"c\" \"d\"]\n");
    assert!(
        out.conflicts.is_empty() && out.violations.is_empty(),
        "{:?}",
        out.conflicts
    );
}

#[test]
fn both_sides_inserting_one_element_at_two_places_keep_it_once() {
    let out = sj(
        "tags = [\"b\" \"d\"]\n",
        "tags = [\"a\" \"b\" \"d\"]\n",
        "tags = [\"a\" \"b\" \"d\" \"e\"]\n",
    );
    assert_eq!(out.text(), "tags = [\"a\" \"b\" \"d\" \"e\"]\n");
    assert!(out.conflicts.is_empty(), "{:?}", out.conflicts);
}

#[test]
fn deletions_are_honoured_and_an_unchanged_entry_both_resorted_comes_out_once() {
    // Both re-sorted (a registry regenerated): base was not sorted, both sides are.
    let out = sj(
        "names = [\"c\" \"a\" \"b\"]\n",
        "names = [\"a\" \"b\" \"c\" \"d\"]\n",
        "names = [\"a\" \"c\"]\n",
    );
    let names = |text: &str| {
        let d = sjson::Document::parse(text, Dialect::Sjson).unwrap();
        let n: Vec<String> = d
            .root()
            .get("names")
            .unwrap()
            .children()
            .map(|c| c.as_str().unwrap().into_owned())
            .collect();
        n
    };
    assert_eq!(names(out.text()), ["a", "c", "d"], "{}", out.text());
    assert!(out.conflicts.is_empty(), "{:?}", out.conflicts);
    // Sorted in all three: theirs' deletion of b is honoured, ours' d kept.
    let out = sj(
        "names = [\"a\" \"b\" \"c\"]\n",
        "names = [\"a\" \"b\" \"c\" \"d\"]\n",
        "names = [\"a\" \"c\"]\n",
    );
    assert_eq!(names(out.text()), ["a", "c", "d"]);
}

#[test]
fn colliding_hashes_lose_no_deletion_or_insertion() {
    let (base, ours, theirs) = (
        "tags = [\"a\" \"b\" \"d\"]\n",
        "tags = [\"a\" \"b\" \"c\" \"d\"]\n",
        "tags = [\"a\" \"d\" \"e\"]\n",
    );
    let out = crate::pairing::tests::colliding(|| sj(base, ours, theirs));
    assert_eq!(out.text(), "tags = [\"a\" \"c\" \"d\" \"e\"]\n");
    assert_eq!(sj(base, ours, theirs).text(), out.text());
}

#[test]
fn number_vectors_are_not_sets() {
    let out = sj("p = [0 1 2]\n", "p = [0 1 5]\n", "p = [0 3 2]\n");
    assert_ne!(out.text(), "p = [0 3 5]\n");
}

#[test]
fn a_declared_set_merges_as_a_set_in_any_order() {
    let doc = |tags: &str| format!(r#"{{"jsonVersion":"1","iid":"w","tags":[{tags}]}}"#);
    let opts = MergeOptions::default();
    let out = merge(
        Inputs::texts(
            doc(r#""z","a""#),
            doc(r#""q","z","a""#),
            doc(r#""z","a","q""#),
            Dialect::Json,
        ),
        &opts,
    )
    .unwrap();
    let v: serde_json::Value = serde_json::from_str(out.text()).unwrap();
    assert_eq!(
        v["tags"],
        serde_json::json!(["q", "z", "a"]),
        "{}",
        out.text()
    );
}
