use proptest::prelude::*;
use sjson::Dialect;

use super::*;

fn doc(text: &str) -> Document {
    Document::parse(text, Dialect::Sjson).unwrap()
}

#[test]
fn pointers_parse_with_ids_and_escapes() {
    assert_eq!(
        parse("/entities/[id=e1]/a~1b"),
        vec![
            Segment::Key("entities".into()),
            Segment::Id {
                key: "id".into(),
                value: "e1".into()
            },
            Segment::Key("a/b".into())
        ]
    );
    assert!(parse("").is_empty());
}

#[test]
fn number_steps_name_array_elements_and_object_members() {
    let d = doc("a = [10 20]\nb = { 1 = \"one\" }\nc = [{ id = 7 x = 1 }]\n");
    let at = |p: &str| find(d.root(), &parse(p)).map(|(i, v)| (i, v.text().to_string()));
    assert_eq!(at("/a/1"), Some((1, "20".into())));
    assert_eq!(at("/a/2"), None);
    assert_eq!(at("/b/1"), Some((0, "\"one\"".into())));
    assert_eq!(at("/c/[id=7]/x"), Some((1, "1".into())));
    assert_eq!(at("/c/[id=8]/x"), None);
    assert_eq!(at("/a/1/x"), None);
}

#[test]
fn an_edit_changes_only_the_node_it_names() {
    let d = doc("// keep\nentities = [\n\t{ id = \"e1\" x = 1 }\n\t{ id = \"e2\" x = 2 }\n]\n");
    let other = doc("entities = [ { id = \"e2\" x = 7 } ]");
    let segs = parse("/entities/[id=e2]/x");
    let out = put(d.root(), &segs, find(other.root(), &segs)).unwrap();
    assert_eq!(
        sjson::print(&d, &out),
        "// keep\nentities = [\n\t{ id = \"e1\" x = 1 }\n\t{ id = \"e2\" x = 7 }\n]\n"
    );
    let gone = put(d.root(), &segs, None).unwrap();
    assert_eq!(
        sjson::print(&d, &gone),
        "// keep\nentities = [\n\t{ id = \"e1\" x = 1 }\n\t{ id = \"e2\" }\n]\n"
    );
    assert!(put(d.root(), &parse("/missing/x"), None).is_none());
    assert!(put(d.root(), &[], None).is_none());
}

#[test]
fn objects_on_the_way_are_named_from_the_first_version_that_has_them() {
    let ours = doc("e = [{ id = \"a1\" x = 1 }]\n");
    let theirs = doc("e = [{ id = \"a1\" name = \"crate\" x = 2 }]\n");
    let paths = vec![parse("/e/[id=a1]/x"), parse("/e/[id=b2]/x")];
    let all = objects(&paths, &[&ours, &theirs], &["name".to_string()]);
    let shown: Vec<String> = all.iter().map(Object::shown).collect();
    assert_eq!(shown, ["crate #a1", "#b2"]);
}

#[test]
fn objects_are_picked_by_id_prefix_or_unique_name() {
    let o = |id: &str, name: Option<&str>| Object {
        key: "id".into(),
        id: id.into(),
        name: name.map(String::from),
    };
    let all = vec![
        o("6f1c2a", Some("lamp")),
        o("6f9d00", Some("lamp")),
        o("a1", Some("crate")),
    ];
    assert_eq!(pick(&all, "6f1").unwrap().id, "6f1c2a");
    assert_eq!(pick(&all, "crate").unwrap().id, "a1");
    assert_eq!(pick(&all, "6f").unwrap_err().len(), 2);
    assert_eq!(pick(&all, "lamp").unwrap_err().len(), 2);
    assert!(pick(&all, "zz").unwrap_err().is_empty());
}

proptest! {
    /// Taking a value from another version at one pointer changes exactly that line
    /// of the file: every other byte stays.
    #[test]
    fn an_edit_rewrites_only_its_own_line(
        values in prop::collection::vec(0u32..1000, 1..8),
        pick in 0usize..8,
        new in 0u32..1000,
    ) {
        let pick = pick % values.len();
        let text: String = values
            .iter()
            .enumerate()
            .map(|(i, v)| format!("k{i} = {v}\n"))
            .collect();
        let d = doc(&text);
        let other = doc(&format!("k{pick} = {new}\n"));
        let segs = vec![Segment::Key(format!("k{pick}"))];
        let out = put(d.root(), &segs, find(other.root(), &segs)).unwrap();
        let want: String = values
            .iter()
            .enumerate()
            .map(|(i, v)| format!("k{i} = {}\n", if i == pick { new } else { *v }))
            .collect();
        prop_assert_eq!(sjson::print(&d, &out), want);
    }

    /// Whatever the path, putting a value there and reading it back finds that value
    /// (or the path names no place), and removing it leaves nothing there; never a panic.
    #[test]
    fn what_is_put_is_found_there(
        ids in prop::collection::vec(0u8..6, 0..5),
        step in prop::sample::select(vec!["[id=1]", "[id=3]", "0", "2", "x"]),
        leaf in prop::sample::select(vec!["a", "b", "0"]),
        new in 0u32..100,
    ) {
        let objects: String = ids.iter().map(|i| format!("{{ id = {i} a = 1 }} ")).collect();
        let d = doc(&format!("e = [ {objects}]\n"));
        let segs = parse(&format!("/e/{step}/{leaf}"));
        let source = doc(&format!("v = {new}\n"));
        let value = find(source.root(), &parse("/v"));
        if let Some(out) = put(d.root(), &segs, value) {
            let after = doc(&sjson::print(&d, &out));
            let found = find(after.root(), &segs).map(|(_, v)| v.text().to_string());
            prop_assert_eq!(found, Some(new.to_string()));
        }
        if let Some(out) = put(d.root(), &segs, None) {
            let after = doc(&sjson::print(&d, &out));
            prop_assert!(find(after.root(), &segs).is_none());
        }
    }
}
