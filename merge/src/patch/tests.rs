//! The examples of RFC 6902 (appendix A) and cases in the spirit of the json-patch test
//! suite (github.com/json-patch/json-patch-tests).

use sjson::{Dialect, Document};

use super::*;

fn run(doc: &str, patch: &str) -> Result<String, PatchError> {
    let d = Document::parse(doc, Dialect::Json).unwrap();
    let p = Document::parse(patch, Dialect::Json).unwrap();
    apply_patch(&d, &p, &MergeOptions::default())
}

/// Applies and compares as JSON values (object member order ignored).
fn ok(doc: &str, patch: &str, expected: &str) {
    let out = run(doc, patch).unwrap_or_else(|e| panic!("{patch}: {e}"));
    let got = Document::parse(&out, Dialect::Json).unwrap();
    let want = Document::parse(expected, Dialect::Json).unwrap();
    assert!(
        json_equal(got.root(), want.root()),
        "{patch}: got {out}, expected {expected}"
    );
}

fn err(doc: &str, patch: &str) -> PatchError {
    match run(doc, patch) {
        Ok(out) => panic!("{patch} applied to {doc}: {out}"),
        Err(e) => e,
    }
}

#[test]
fn rfc6902_appendix_a() {
    ok(
        r#"{"foo":"bar"}"#,
        r#"[{"op":"add","path":"/baz","value":"qux"}]"#,
        r#"{"baz":"qux","foo":"bar"}"#,
    );
    ok(
        r#"{"foo":["bar","baz"]}"#,
        r#"[{"op":"add","path":"/foo/1","value":"qux"}]"#,
        r#"{"foo":["bar","qux","baz"]}"#,
    );
    ok(
        r#"{"baz":"qux","foo":"bar"}"#,
        r#"[{"op":"remove","path":"/baz"}]"#,
        r#"{"foo":"bar"}"#,
    );
    ok(
        r#"{"foo":["bar","qux","baz"]}"#,
        r#"[{"op":"remove","path":"/foo/1"}]"#,
        r#"{"foo":["bar","baz"]}"#,
    );
    ok(
        r#"{"baz":"qux","foo":"bar"}"#,
        r#"[{"op":"replace","path":"/baz","value":"boo"}]"#,
        r#"{"baz":"boo","foo":"bar"}"#,
    );
    ok(
        r#"{"foo":{"bar":"baz","waldo":"fred"},"qux":{"corge":"grault"}}"#,
        r#"[{"op":"move","from":"/foo/waldo","path":"/qux/thud"}]"#,
        r#"{"foo":{"bar":"baz"},"qux":{"corge":"grault","thud":"fred"}}"#,
    );
    ok(
        r#"{"foo":["all","grass","cows","eat"]}"#,
        r#"[{"op":"move","from":"/foo/1","path":"/foo/3"}]"#,
        r#"{"foo":["all","cows","eat","grass"]}"#,
    );
    ok(
        r#"{"baz":"qux","foo":["a",2,"c"]}"#,
        r#"[{"op":"test","path":"/baz","value":"qux"},{"op":"test","path":"/foo/1","value":2}]"#,
        r#"{"baz":"qux","foo":["a",2,"c"]}"#,
    );
    err(
        r#"{"baz":"qux"}"#,
        r#"[{"op":"test","path":"/baz","value":"bar"}]"#,
    );
    ok(
        r#"{"foo":"bar"}"#,
        r#"[{"op":"add","path":"/child","value":{"grandchild":{}}}]"#,
        r#"{"foo":"bar","child":{"grandchild":{}}}"#,
    );
    ok(
        r#"{"foo":"bar"}"#,
        r#"[{"op":"add","path":"/baz","value":"qux","xyz":123}]"#,
        r#"{"foo":"bar","baz":"qux"}"#,
    );
    let e = err(
        r#"{"foo":"bar"}"#,
        r#"[{"op":"add","path":"/baz/bat","value":"qux"}]"#,
    );
    assert_eq!((e.index, e.op.as_deref()), (Some(0), Some("add")));
    ok(
        r#"{"/":9,"~1":10}"#,
        r#"[{"op":"test","path":"/~01","value":10}]"#,
        r#"{"/":9,"~1":10}"#,
    );
    err(
        r#"{"/":9,"~1":10}"#,
        r#"[{"op":"test","path":"/~01","value":"10"}]"#,
    );
    ok(
        r#"{"foo":["bar"]}"#,
        r#"[{"op":"add","path":"/foo/-","value":["abc","def"]}]"#,
        r#"{"foo":["bar",["abc","def"]]}"#,
    );
}

#[test]
fn json_patch_test_suite_cases() {
    // Roots that are not objects; replacing and adding the whole document.
    ok("[]", r#"[{"op":"add","path":"/-","value":1}]"#, "[1]");
    ok(
        "[1,2]",
        r#"[{"op":"add","path":"/0","value":0}]"#,
        "[0,1,2]",
    );
    ok(
        "[1,2]",
        r#"[{"op":"add","path":"/2","value":3}]"#,
        "[1,2,3]",
    );
    err("[1,2]", r#"[{"op":"add","path":"/3","value":3}]"#);
    err("[1,2]", r#"[{"op":"add","path":"/01","value":3}]"#);
    err("[1,2]", r#"[{"op":"remove","path":"/-"}]"#);
    ok(
        "\"s\"",
        r#"[{"op":"replace","path":"","value":{"a":1}}]"#,
        r#"{"a":1}"#,
    );
    ok("{}", r#"[{"op":"add","path":"","value":[1]}]"#, "[1]");
    ok(
        r#"{"":1}"#,
        r#"[{"op":"replace","path":"/","value":2}]"#,
        r#"{"":2}"#,
    );
    // test: numbers by value, objects ignoring member order, arrays in order.
    ok(
        r#"{"n":1}"#,
        r#"[{"op":"test","path":"/n","value":1.0}]"#,
        r#"{"n":1}"#,
    );
    ok(
        r#"{"o":{"a":1,"b":[1,2]}}"#,
        r#"[{"op":"test","path":"/o","value":{"b":[1,2],"a":1e0}}]"#,
        r#"{"o":{"a":1,"b":[1,2]}}"#,
    );
    err(
        r#"{"a":[1,2]}"#,
        r#"[{"op":"test","path":"/a","value":[2,1]}]"#,
    );
    err(
        r#"{"a":null}"#,
        r#"[{"op":"test","path":"/a","value":false}]"#,
    );
    // copy and move.
    ok(
        r#"{"a":{"b":1}}"#,
        r#"[{"op":"copy","from":"/a","path":"/c"}]"#,
        r#"{"a":{"b":1},"c":{"b":1}}"#,
    );
    ok(
        r#"{"a":1}"#,
        r#"[{"op":"move","from":"/a","path":"/a"}]"#,
        r#"{"a":1}"#,
    );
    err(
        r#"{"a":{"b":1}}"#,
        r#"[{"op":"move","from":"/a","path":"/a/b/c"}]"#,
    );
    err(r#"{"a":1}"#, r#"[{"op":"copy","from":"/x","path":"/c"}]"#);
    // replace and remove need the target.
    err(r#"{"a":1}"#, r#"[{"op":"replace","path":"/b","value":1}]"#);
    err(r#"{"a":1}"#, r#"[{"op":"remove","path":"/b"}]"#);
    // A path into a number.
    let e = err(r#"{"a":1}"#, r#"[{"op":"add","path":"/a/b","value":1}]"#);
    assert!(e.reason.contains("is a number"), "{e}");
    // Malformed operations.
    let e = err("{}", r#"[{"op":"frob","path":"/a"}]"#);
    assert!(e.reason.contains("unknown op"), "{e}");
    let e = err("{}", r#"[{"op":"add","value":1}]"#);
    assert!(e.reason.contains("missing \"path\""), "{e}");
    err("{}", r#"[{"op":"add","path":"/a"}]"#);
    err("{}", r#"[{"op":"move","path":"/a"}]"#);
    err("{}", r#"[{"path":"/a","value":1}]"#);
    err("{}", r#"[{"op":"add","path":"a","value":1}]"#);
    err("{}", r#"[{"op":"add","path":"/a~2","value":1}]"#);
    err("{}", r#"{"op":"add","path":"/a","value":1}"#);
    err("{}", r#"[1]"#);
}

#[test]
fn all_or_nothing_and_the_target_style_is_kept() {
    // The second operation fails: an error, whatever the first did.
    let e = err(
        r#"{"a":1}"#,
        r#"[{"op":"add","path":"/b","value":2},{"op":"remove","path":"/zz"}]"#,
    );
    assert_eq!((e.index, e.op.as_deref()), (Some(1), Some("remove")));
    assert_eq!(e.to_string(), "operation 1 (remove): /zz: no such member");
    // SJSON: untouched text kept.
    let d = Document::parse(
        "// level\na = 1.50 // keep\nb = { c = [1 2 3] }\n",
        Dialect::Sjson,
    )
    .unwrap();
    let p = Document::parse(
        r#"[{"op":"replace","path":"/b/c/1","value":7}]"#,
        Dialect::Json,
    )
    .unwrap();
    let out = apply_patch(&d, &p, &MergeOptions::default()).unwrap();
    assert_eq!(out, "// level\na = 1.50 // keep\nb = { c = [1 7 3] }\n");
    // An SJSON root stays an object.
    let p = Document::parse(r#"[{"op":"replace","path":"","value":[1]}]"#, Dialect::Json).unwrap();
    assert!(apply_patch(&d, &p, &MergeOptions::default()).is_err());
}

/// Forty copies of the document into itself would reach gigabytes: refused once the
/// copies pass the size limit, naming the operation, before the memory is spent.
#[test]
fn doubling_copies_stop_at_the_size_limit() {
    let d = Document::parse(r#"{"a":"0123456789"}"#, Dialect::Json).unwrap();
    let ops: Vec<String> = (0..40)
        .map(|_| r#"{"op":"copy","from":"/a","path":"/a/0"}"#.to_string())
        .collect();
    // Each copy puts /a inside an array of itself: wrap first so the copies nest.
    let patch = format!(
        r#"[{{"op":"replace","path":"/a","value":["x"]}},{}]"#,
        ops.join(",")
    );
    let p = Document::parse(&patch, Dialect::Json).unwrap();
    let limits = PatchLimits {
        max_operations: 100,
        max_size: 1 << 20,
    };
    let e = apply_patch_within(&d, &p, &MergeOptions::default(), &limits).unwrap_err();
    assert_eq!(e.op.as_deref(), Some("copy"), "{e}");
    let index = e.index.unwrap();
    // 2^k elements pass a megabyte after about 17 doublings (strings of 3 bytes each).
    assert!((15..25).contains(&index), "{e}");
    assert!(e.reason.contains("--max-size"), "{e}");
    // The default limit stops it too (16 MiB at least), without running out of memory.
    assert!(apply_patch(&d, &p, &MergeOptions::default()).is_err());
    // Within a larger operations limit and a small enough patch, it applies.
    let few = format!(
        r#"[{{"op":"replace","path":"/a","value":["x"]}},{}]"#,
        ops[..4].join(",")
    );
    let p = Document::parse(&few, Dialect::Json).unwrap();
    assert!(apply_patch_within(&d, &p, &MergeOptions::default(), &limits).is_ok());
}

#[test]
fn more_operations_than_the_limit_are_refused() {
    let d = Document::parse(r#"{}"#, Dialect::Json).unwrap();
    let p = Document::parse(
        r#"[{"op":"add","path":"/a","value":1},{"op":"add","path":"/b","value":2}]"#,
        Dialect::Json,
    )
    .unwrap();
    let limits = PatchLimits {
        max_operations: 1,
        max_size: 1 << 20,
    };
    let e = apply_patch_within(&d, &p, &MergeOptions::default(), &limits).unwrap_err();
    assert_eq!(e.index, None);
    assert!(e.reason.contains("2 operations") && e.reason.contains("--max-operations"));
    let limits = PatchLimits {
        max_operations: 2,
        ..limits
    };
    assert!(apply_patch_within(&d, &p, &MergeOptions::default(), &limits).is_ok());
}

/// Many keys added to one object: each `add` finds its key in constant time (this took
/// 20 s for 80 000 when every add scanned the object); a test of the result, not a timing.
#[test]
fn many_adds_to_one_object_all_land_in_order() {
    let d = Document::parse(r#"{"k0":0}"#, Dialect::Json).unwrap();
    let ops: Vec<String> = (1..5000)
        .map(|i| format!(r#"{{"op":"add","path":"/k{i}","value":{i}}}"#))
        .chain(
            (0..5000)
                .step_by(2)
                .map(|i| format!(r#"{{"op":"remove","path":"/k{i}"}}"#)),
        )
        .collect();
    let p = Document::parse(format!("[{}]", ops.join(",")), Dialect::Json).unwrap();
    let out = apply_patch(&d, &p, &MergeOptions::default()).unwrap();
    let got = Document::parse(&out, Dialect::Json).unwrap();
    let keys: Vec<String> = got.root().members().map(|(k, _)| k.into_owned()).collect();
    let want: Vec<String> = (1..5000).step_by(2).map(|i| format!("k{i}")).collect();
    assert_eq!(keys, want);
}

mod laws {
    use super::super::limits::Budget;
    use super::super::*;
    use proptest::prelude::*;
    use sjson::{Dialect, Document};

    fn json() -> impl Strategy<Value = String> {
        let leaf = prop_oneof![
            Just("null".to_string()),
            Just("true".to_string()),
            (0u8..20).prop_map(|n| n.to_string()),
            "[a-c]{0,3}".prop_map(|s| format!("\"{s}\"")),
        ];
        leaf.prop_recursive(4, 24, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4)
                    .prop_map(|v| format!("[{}]", v.join(","))),
                proptest::collection::vec(("[a-c]", inner), 0..4).prop_map(|v| {
                    let m: Vec<String> = v.iter().map(|(k, x)| format!("\"{k}\":{x}")).collect();
                    format!("{{{}}}", m.join(","))
                }),
            ]
        })
    }

    fn pointer() -> impl Strategy<Value = String> {
        proptest::collection::vec(prop_oneof!["[a-c]", "[0-2]", Just("-".to_string())], 0..3)
            .prop_map(|t| t.iter().map(|t| format!("/{t}")).collect())
    }

    fn op() -> impl Strategy<Value = String> {
        (0u8..6, pointer(), pointer(), json()).prop_map(|(k, path, from, value)| match k {
            0 => format!(r#"{{"op":"add","path":"{path}","value":{value}}}"#),
            1 => format!(r#"{{"op":"remove","path":"{path}"}}"#),
            2 => format!(r#"{{"op":"replace","path":"{path}","value":{value}}}"#),
            3 => format!(r#"{{"op":"move","from":"{from}","path":"{path}"}}"#),
            4 => format!(r#"{{"op":"copy","from":"{from}","path":"{path}"}}"#),
            _ => format!(r#"{{"op":"test","path":"{path}","value":{value}}}"#),
        })
    }

    proptest! {
        /// Whatever the document, the patch and the limits, applying never panics: it
        /// gives a document that parses, or an error; and the size the limits count
        /// follows the document's exact size through every operation that applies.
        #[test]
        fn apply_never_panics_and_counts_sizes_exactly(
            doc in json(),
            ops in proptest::collection::vec(op(), 0..12),
            max_size in 0usize..400,
            max_operations in 0usize..14,
        ) {
            let d = Document::parse(&doc, Dialect::Json).unwrap();
            let p = Document::parse(format!("[{}]", ops.join(",")), Dialect::Json).unwrap();
            let limits = PatchLimits { max_operations, max_size };
            if let Ok(out) = apply_patch_within(&d, &p, &MergeOptions::default(), &limits) {
                prop_assert!(Document::parse(&out, Dialect::Json).is_ok(), "{}", out);
            }
            let mut j = Json::from_value(d.root());
            let mut budget = Budget::new(&PatchLimits::for_input(0), j.size());
            for op in read_patch(&p).unwrap() {
                if apply_op_within(&mut j, &op.op, &mut budget).is_err() {
                    break;
                }
                prop_assert_eq!(budget.size(), j.size());
            }
        }
    }
}

#[test]
fn replace_keeps_the_member_where_it_is() {
    // A member in the middle of its object stays there, in JSON and in SJSON.
    let out = run(
        r#"{"a": 1, "b": 2, "c": 3}"#,
        r#"[{"op":"replace","path":"/b","value":20}]"#,
    )
    .unwrap();
    assert_eq!(out, r#"{"a": 1, "b": 20, "c": 3}"#);
    let d = Document::parse(
        "entity = {\n\tname = \"barrel\"\n\ttint = [1 0 0]\n\tmass = 2\n}\n",
        Dialect::Sjson,
    )
    .unwrap();
    let p = Document::parse(
        r#"[{"op":"replace","path":"/entity/tint","value":[0,1,0]}]"#,
        Dialect::Json,
    )
    .unwrap();
    let out = apply_patch(&d, &p, &MergeOptions::default()).unwrap();
    assert_eq!(
        out,
        "entity = {\n\tname = \"barrel\"\n\ttint = [0 1 0]\n\tmass = 2\n}\n"
    );
}

proptest::proptest! {
    #[test]
    fn replace_never_reorders_an_object(n in 1usize..8, pick in 0usize..8, v in 0i64..1000) {
        let keys: Vec<String> = (0..n).map(|i| format!("k{i}")).collect();
        let members: Vec<String> = keys.iter().map(|k| format!("\"{k}\": 0")).collect();
        let doc = format!("{{{}}}", members.join(", "));
        let key = &keys[pick % n];
        let patch = format!(r#"[{{"op":"replace","path":"/{key}","value":{v}}}]"#);
        let out = run(&doc, &patch).unwrap();
        let got = Document::parse(&out, Dialect::Json).unwrap();
        let order: Vec<String> = got.root().members().map(|(k, _)| k.to_string()).collect();
        proptest::prop_assert_eq!(order, keys);
    }
}
