use proptest::prelude::*;
use sjson::{Dialect, Document};

use super::*;

fn names(doc: &Document) -> Names<'_> {
    let o = crate::MergeOptions::default();
    Names::new(vec![doc.root()], &o.id_keys, &o.natural_keys)
}

#[test]
fn keyed_elements_by_name_and_short_id() {
    let doc = Document::parse(
        "entities = [\n\t{ id = \"6f1c2a40-1f43-4c8e-9a57-0d1e2f3a4b03\" name = \"lamp_01\" light = { intensity = 1 } }\n\t{ id = e2 }\n]\n",
        Dialect::Sjson,
    )
    .unwrap();
    let n = names(&doc);
    assert_eq!(
        n.pointer("/entities/[id=6f1c2a40-1f43-4c8e-9a57-0d1e2f3a4b03]/light/intensity"),
        "entities[lamp_01 #6f1c…4b03].light.intensity"
    );
    assert_eq!(n.pointer("/entities/[id=e2]"), "entities[#e2]");
    assert_eq!(n.pointer("/entities/1/id"), "entities[1].id");
    assert_eq!(n.pointer(""), "(root)");
    // An element no document holds keeps its short id.
    assert_eq!(n.pointer("/entities/[id=gone]/x"), "entities[#gone].x");
}

#[test]
fn a_shared_abbreviation_keeps_more_characters() {
    let doc = Document::parse(
        "a = [ { id = \"aaaa-0000-0000-zzzz\" } { id = \"aaaa-1111-1111-zzzz\" } { id = \"bbbb-1111-1111-yyyy\" } ]",
        Dialect::Sjson,
    )
    .unwrap();
    let n = names(&doc);
    assert_eq!(
        n.pointer("/a/[id=aaaa-0000-0000-zzzz]"),
        "a[#aaaa-0…0-zzzz]"
    );
    assert_eq!(n.pointer("/a/[id=bbbb-1111-1111-yyyy]"), "a[#bbbb…yyyy]");
}

#[test]
fn ids_that_share_every_abbreviation_are_shown_whole() {
    let doc = Document::parse(
        "a = [ { id = \"00000000-aaaa-0000-00000000\" } { id = \"00000000-bbbb-0000-00000000\" } ]",
        Dialect::Sjson,
    )
    .unwrap();
    let n = names(&doc);
    assert_eq!(
        n.pointer("/a/[id=00000000-aaaa-0000-00000000]"),
        "a[#00000000-aaaa-0000-00000000]"
    );
}

#[test]
fn number_and_string_ids_are_named_apart() {
    let doc = Document::parse(
        "{\"a\": [{\"id\": 5, \"name\": \"five\"}, {\"id\": \"5\", \"name\": \"text\"}]}",
        Dialect::Json,
    )
    .unwrap();
    let n = names(&doc);
    assert_eq!(n.pointer("/a/[id=5]"), "a[five #5]");
    assert_eq!(n.pointer("/a/[id=\"5\"]"), "a[text #\"5\"]");
}

proptest! {
    /// The short ids of distinct ids in one document are distinct.
    #[test]
    fn short_ids_are_unique_in_the_file(ids in proptest::collection::hash_set("[ab]{1,3}-[ab]{10,14}-[ab]{1,3}", 1..12)) {
        let ids: Vec<String> = ids.into_iter().collect();
        let text = format!(
            "a = [ {} ]",
            ids.iter().map(|i| format!("{{ id = \"{i}\" }}")).collect::<Vec<_>>().join(" ")
        );
        let doc = Document::parse(&text, Dialect::Sjson).unwrap();
        let n = names(&doc);
        let shorts: std::collections::HashSet<String> = ids.iter().map(|i| n.short_id(i)).collect();
        prop_assert_eq!(shorts.len(), ids.len());
    }
}

proptest! {
    /// A number id and a string id of the same digits never share a path.
    #[test]
    fn number_and_string_ids_never_share_a_path(n in 0u32..1_000_000) {
        let text = format!("{{\"a\": [{{\"id\": {n}}}, {{\"id\": \"{n}\"}}]}}");
        let doc = Document::parse(&text, Dialect::Json).unwrap();
        let ids: Vec<String> = doc.root().get("a").unwrap().children()
            .map(|el| crate::id::id_display(&crate::id::id_text(el.get("id").unwrap()).unwrap()))
            .collect();
        prop_assert_ne!(&ids[0], &ids[1]);
        prop_assert_eq!(&ids[0], &n.to_string());
    }
}

proptest! {
    /// A short id is the same whether it is checked by a scan of the ids (the first
    /// ones asked for) or by the counts of every abbreviation (after many); an id held
    /// twice counts once.
    #[test]
    fn scanned_and_counted_short_ids_agree(
        ids in proptest::collection::vec("[ab]{1,5}-[ab…]{8,12}-[ab]{1,5}", 1..16),
        twice in any::<prop::sample::Index>(),
    ) {
        let mut held = ids.clone();
        held.push(twice.get(&ids).clone());
        let text = format!(
            "a = [ {} ]",
            held.iter().map(|i| format!("{{ id = \"{i}\" }}")).collect::<Vec<_>>().join(" ")
        );
        let doc = Document::parse(&text, Dialect::Sjson).unwrap();
        let scanning = names(&doc);
        let counting = names(&doc);
        for _ in 0..SCANS_BEFORE_COUNTING {
            counting.short_id("warm-up");
        }
        for id in &ids {
            prop_assert_eq!(scanning.short_id(id), counting.short_id(id), "{}", id);
        }
    }
}

#[test]
fn a_text_ending_with_another_has_its_last_bytes_under_its_mask() {
    let ids = [
        "6f1c2a40-1f43-4c8e-9a57-0d1e2f3a4b03",
        "e1",
        "",
        "é4b03",
        "abcdefgh",
    ];
    let tails = [
        "4b03", "a4b03", "b03", "1", "", "e1", "é4b03", "bcdefgh", "abcdefgh",
    ];
    for id in ids {
        let (end, _) = last_bytes(id);
        for tail in tails {
            let (want, mask) = last_bytes(tail);
            if id.ends_with(tail) {
                assert_eq!(end & mask, want, "{id:?} ends with {tail:?}");
            }
        }
    }
    // Different last bytes tell ids apart before their text is read.
    assert_ne!(last_bytes("x4b03").0, last_bytes("x4b04").0);
    assert_eq!(last_bytes(""), (0, 0));
}

#[test]
fn conflicts_are_named_by_path_and_a_repair_by_its_object_and_referrer() {
    let doc = Document::parse(
        "entities = [{ id = \"6f1c2a40-1f43-4c8e-9a57-0d1e2f3a4b03\" name = lamp_01 v = 1 }\n\t{ id = \"8b9d0000-1111-2222-3333-444455556666\" name = switch_02 target = x }]\n",
        Dialect::Sjson,
    )
    .unwrap();
    let conflict = |kind, referrer: Option<&str>| crate::Conflict {
        path: sjson::Path::parse("/entities/[id=6f1c2a40-1f43-4c8e-9a57-0d1e2f3a4b03]/v").unwrap(),
        kind,
        base: None,
        ours: None,
        theirs: None,
        taken: crate::Side::Theirs,
        object: None,
        referrer: referrer.map(|r| sjson::Path::parse(r).unwrap()),
    };
    let referrer = "/entities/[id=8b9d0000-1111-2222-3333-444455556666]/target";
    let list = [
        conflict(crate::ConflictKind::BothModified, None),
        conflict(crate::ConflictKind::DanglingReference, Some(referrer)),
    ];
    let named = names(&doc).conflicts(&list);
    assert_eq!(named[0].place, "entities[lamp_01 #6f1c…4b03].v");
    assert_eq!(
        named[0].line,
        "entities[lamp_01 #6f1c…4b03].v: both modified, took theirs"
    );
    // A repair: its object and its referrer named like any other place.
    assert_eq!(named[1].place, named[0].place);
    assert_eq!(
        named[1].line,
        "entities[lamp_01 #6f1c…4b03].v: referenced object restored (referenced by \
         entities[switch_02 #8b9d…6666].target), from theirs"
    );
    // Without the documents: short ids, never a raw pointer or a whole uuid.
    let bare = list[1].line_at(Some("entities[lamp_01 #6f1c…4b03].v"));
    assert_eq!(
        bare,
        "entities[lamp_01 #6f1c…4b03].v: referenced object restored (referenced by \
         entities[#8b9d…6666].target), from theirs"
    );
    assert_eq!(
        names(&doc).place(&list[1]).as_deref(),
        Some(named[1].place.as_str())
    );
}

proptest! {
    #[test]
    fn a_repair_line_never_shows_a_whole_long_id(
        id in "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
        key in "[a-z]{1,6}",
        junk in ".{0,30}",
    ) {
        // Any text as a referrer never panics; a keyed one shows its id shortened.
        let _ = bare_pointer(&junk);
        let referrer = sjson::Path::parse(&format!("/{key}/[id={id}]/{key}")).unwrap();
        let c = crate::Conflict {
            path: referrer.clone(),
            kind: crate::ConflictKind::Orphan,
            base: None,
            ours: None,
            theirs: None,
            taken: crate::Side::Ours,
            object: None,
            referrer: Some(referrer),
        };
        let line = c.line_at(Some("x"));
        prop_assert!(!line.contains(&id), "{}", line);
        prop_assert!(!line.contains("[id="), "{}", line);
    }
}

#[test]
fn an_object_is_named_by_its_own_name_without_the_documents() {
    assert_eq!(
        object_pointer("/entities/[id=e1]", Some("crate")),
        "entities[crate #e1]"
    );
    assert_eq!(object_pointer("/entities/[id=e1]", None), "entities[#e1]");
    assert_eq!(
        object_pointer("/a/[id=6f1c2a40-1f43-4c8e-9a57-0d1e2f3a4b03]", Some("lamp")),
        "a[lamp #6f1c…4b03]"
    );
    assert_eq!(object_pointer("/settings", Some("x")), "settings");
    assert_eq!(object_pointer("", None), "(root)");
    assert_eq!(bare_pointer("/light/intensity"), "light.intensity");
}

proptest! {
    #[test]
    fn an_object_pointer_never_panics_and_keeps_its_name(
        text in ".{0,30}",
        id in "[a-z0-9-]{1,40}",
        name in "[a-z_]{1,8}",
    ) {
        let _ = object_pointer(&text, Some(&name));
        let named = object_pointer(&format!("/x/[id={id}]"), Some(&name));
        prop_assert!(named.contains(&name), "{}", named);
    }
}

#[test]
fn an_object_label_is_its_name_and_short_id() {
    assert_eq!(object_label(Some("gate"), "6a7e0000"), "gate #6a7e0000");
    assert_eq!(
        object_label(Some("lamp"), "6f1c2a40-1f43-4c8e-9a57-0d1e2f3a4b03"),
        "lamp #6f1c2a40"
    );
    assert_eq!(object_label(None, "e1"), "#e1");
    assert_eq!(object_label(Some(""), "e1"), "#e1");
    assert_eq!(
        object_label(Some("a\nb\u{1b}[2J"), "e1"),
        "a\\u{a}b\\u{1b}[2J #e1"
    );
}

proptest! {
    #[test]
    fn an_object_label_is_one_safe_line_holding_the_short_id(
        name in proptest::option::of(".{0,12}"),
        id in ".{1,40}",
    ) {
        let label = object_label(name.as_deref(), &id);
        prop_assert!(!label.contains('\n') && !label.contains('\u{1b}'), "{:?}", label);
        let short = sjson::string::terminal_safe_line(short_id(&id)).into_owned();
        prop_assert!(label.ends_with(&format!("#{short}")), "{:?}", label);
    }
}

#[test]
fn cocos_objects_by_node_path_with_ids_that_outlive_a_renumbering() {
    let text = r#"[
        {"__type__": "cc.SceneAsset", "scene": {"__id__": 1}},
        {"__type__": "cc.Scene", "_parent": null, "_children": [{"__id__": 2}], "_id": "scene"},
        {"__type__": "cc.Node", "_name": "Canvas", "_parent": {"__id__": 1},
         "_children": [{"__id__": 3}, {"__id__": 4}, {"__id__": 8}], "_components": [{"__id__": 5}], "_id": "c"},
        {"__type__": "cc.Node", "_name": "Item", "_parent": {"__id__": 2}, "_children": [], "_id": "",
         "_prefab": {"__id__": 6}},
        {"__type__": "cc.Node", "_name": "Item", "_parent": {"__id__": 2}, "_children": [], "_id": ""},
        {"__type__": "cc.Button", "node": {"__id__": 2}, "clickEvents": [{"__id__": 7}], "_id": "b"},
        {"__type__": "cc.PrefabInfo", "fileId": "f1"},
        {"__type__": "cc.ClickEvent", "handler": "go"},
        {"__type__": "cc.Node", "_name": "Item", "_parent": {"__id__": 2}, "_children": []}
    ]"#;
    let doc = Document::parse(text, Dialect::Json).unwrap();
    let objects = crate::objects::keyed_objects(doc.root(), &[]);
    let got: Vec<(&str, Option<&str>, &str)> = objects
        .iter()
        .map(|o| (o.id.as_str(), o.name.as_deref(), o.pointer.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("cc.SceneAsset", None, "/0"),
            ("scene", None, "/[_id=scene]"),
            ("c", Some("Canvas"), "/[_id=c]"),
            ("f1", Some("Canvas/Item"), "/3"),
            ("Canvas/Item", Some("Canvas/Item"), "/4"),
            ("b", Some("Canvas<cc.Button>"), "/[_id=b]"),
            ("Canvas/Item._prefab", Some("Canvas/Item._prefab"), "/6"),
            (
                "Canvas<cc.Button>.clickEvents.0",
                Some("Canvas<cc.Button>.clickEvents.0"),
                "/7"
            ),
            ("Canvas/Item[2]", Some("Canvas/Item"), "/8"),
        ]
    );
    // One walk names every object as each is named alone.
    let all = cocos::object_names(doc.root());
    for (i, name) in all.iter().enumerate() {
        assert_eq!(*name, cocos::object_name(doc.root(), i), "{i}");
    }
    assert_eq!(
        object_label(Some("Canvas/Item"), "Canvas/Item[2]"),
        "Canvas/Item[2]"
    );
    assert_eq!(
        object_label(Some("Canvas/Item"), "Canvas/Item"),
        "Canvas/Item"
    );
    assert_eq!(object_label(Some("Canvas"), "c"), "Canvas #c");
    assert_eq!(
        object_label(Some("Canvas/Item"), "Canvas/Items"),
        "Canvas/Item #Canvas/Items"
    );
}
