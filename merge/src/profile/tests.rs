use sjson::{Dialect, Document};

use super::*;
use crate::{merge, Inputs, MergeOptions};

fn json(text: &str) -> Document {
    Document::parse(text, Dialect::Json).unwrap()
}

#[test]
fn content_marks_each_engine() {
    let cases = [
        (
            r#"{"jsonVersion":"1.5.3","iid":"a","levels":[]}"#,
            Format::Ldtk,
        ),
        (r#"{"tiledversion":"1.10","layers":[]}"#, Format::Tiled),
        (
            r#"{"gdVersion":{"major":4},"layouts":[]}"#,
            Format::GDevelop,
        ),
        (
            r#"[{"__type__":"cc.SceneAsset","_name":""}]"#,
            Format::Cocos2,
        ),
        (
            r#"[{"__type__":"cc.Prefab"},{"__type__":"cc.Node","_lpos":{}}]"#,
            Format::Cocos3,
        ),
        (r#"{"iid":"a","levels":[]}"#, Format::Json),
        (r#"[1, 2]"#, Format::Json),
    ];
    for (text, want) in cases {
        assert_eq!(Profile::by_content(&json(text)).format, want, "{text}");
    }
    let sjson = Document::parse("a = 1", Dialect::Sjson).unwrap();
    assert_eq!(Profile::by_content(&sjson).format, Format::Stingray);
}

#[test]
fn configuration_then_extension_then_content_decide() {
    let doc = json(r#"{"tiledversion":"1.10"}"#);
    let p = Profile::choose(Some((Format::Ldtk, "*.map")), Some("a/b.map"), &doc);
    assert_eq!(p.format, Format::Ldtk);
    assert_eq!(p.reason, Reason::Configured("*.map".into()));
    let p = Profile::choose(None, Some("maps/level.LDTKL"), &doc);
    assert_eq!(
        (p.format, p.reason),
        (Format::Ldtk, Reason::Extension("LDTKL".into()))
    );
    let p = Profile::choose(None, Some("maps/level.json"), &doc);
    assert_eq!(p.format, Format::Tiled);
    assert!(matches!(p.reason, Reason::Content(_)));
}

#[test]
fn names_parse_back_and_aliases_are_read() {
    for f in Format::ALL {
        assert_eq!(f.name().parse::<Format>(), Ok(f));
    }
    assert_eq!("cocos".parse::<Format>(), Ok(Format::Cocos2));
    let e = "unreal".parse::<Format>().unwrap_err();
    assert!(e.contains("stingray"), "{e}");
}

#[test]
fn explain_names_what_the_format_knows() {
    let doc = json(r#"{"jsonVersion":"1","iid":"x"}"#);
    let text = Profile::choose(None, Some("w.ldtk"), &doc).explain(&["id".into()]);
    assert!(text.contains("format: ldtk"), "{text}");
    assert!(text.contains("chosen by: extension .ldtk"), "{text}");
    assert!(text.contains("id keys: iid, uid, id"), "{text}");
    assert!(text.contains("realEditorValues[].id"), "{text}");
    assert!(text.contains("nextUid"), "{text}");
}

/// LDtk's `realEditorValues[].id` is a variant tag ("V_String"), repeated and no
/// identity: both sides' edits of the values merge by position, not by "id".
#[test]
fn ldtk_variant_tags_are_not_identities() {
    let doc = |a: &str, b: &str| {
        format!(
            r#"{{"jsonVersion":"1.5.3","iid":"w","realEditorValues":[{{"id":"V_String","params":["{a}"]}},{{"id":"V_String","params":["{b}"]}}]}}"#
        )
    };
    let (base, ours, theirs) = (doc("a", "b"), doc("A", "b"), doc("a", "B"));
    let out = merge(
        Inputs::texts(&base, &ours, &theirs, Dialect::Json),
        &MergeOptions::default(),
    )
    .unwrap();
    assert_eq!(out.text(), doc("A", "B"));
    assert!(out.conflicts.is_empty(), "{:?}", out.conflicts);
}

/// One value whose variant one side changed and whose parameter the other edited stays
/// one value: by "id" it would be a deletion plus an insertion, and come out twice.
#[test]
fn a_changed_ldtk_variant_is_the_same_value() {
    let doc = |tag: &str, p: &str| {
        format!(
            r#"{{"jsonVersion":"1.5.3","iid":"w","realEditorValues":[{{"id":"{tag}","params":[{p}]}}]}}"#
        )
    };
    let (base, ours, theirs) = (doc("V_Int", "1"), doc("V_Float", "1.5"), doc("V_Int", "2"));
    let out = merge(
        Inputs::texts(&base, &ours, &theirs, Dialect::Json),
        &MergeOptions::default(),
    )
    .unwrap();
    let merged = json(out.text());
    let values = merged.root().get("realEditorValues").unwrap();
    assert_eq!(values.len(), 1, "{}", out.text());
    // As plain JSON, "id" is an identity: the same edits give two values.
    let plain = |s: &str| s.replace(r#""jsonVersion":"1.5.3","#, "");
    let out = merge(
        Inputs::texts(plain(&base), plain(&ours), plain(&theirs), Dialect::Json),
        &MergeOptions::default(),
    )
    .unwrap();
    assert_eq!(
        json(out.text())
            .root()
            .get("realEditorValues")
            .unwrap()
            .len(),
        2,
        "{}",
        out.text()
    );
}
