//! Unit tests of the sync module's pure parts: ref names, durations, objects of a diff.

use proptest::prelude::*;
use sjson::{Dialect, Document};

use super::who::objects_of;
use super::*;

#[test]
fn emails_become_ref_components() {
    assert_eq!(
        ref_component("alice@example.com").as_deref(),
        Some("alice@example.com")
    );
    assert_eq!(ref_component("Bob Smith").as_deref(), Some("Bob-Smith"));
    assert_eq!(ref_component("..x..y.lock").as_deref(), Some("x.y"));
    assert_eq!(ref_component("a@{b}").as_deref(), Some("a@-b-"));
    assert_eq!(ref_component("  ").as_deref(), None);
    assert_eq!(ref_component("@").as_deref(), None);
}

#[test]
fn wip_owner_reads_the_user_of_a_wip_ref() {
    assert_eq!(wip_owner("refs/assetvc/wip/alice/main"), Some("alice"));
    assert_eq!(wip_owner("refs/assetvc/wip/alice/feature/x"), Some("alice"));
    assert_eq!(wip_owner("refs/assetvc/wip/alice"), None);
    assert_eq!(wip_owner("refs/heads/main"), None);
}

#[test]
fn durations_take_units() {
    let secs = |t: &str| parse_duration(t).map(|d| d.as_secs());
    assert_eq!(secs("900"), Some(900));
    assert_eq!(secs("90s"), Some(90));
    assert_eq!(secs("15m"), Some(900));
    assert_eq!(secs("2h"), Some(7200));
    assert_eq!(secs("15 minutes"), None);
    assert_eq!(secs("-1"), None);
    assert_eq!(secs(""), None);
}

#[test]
fn changes_are_grouped_by_object() {
    let old = Document::parse(
        "entities = [\n\t{ id = \"e1\" name = \"crate\" position = [0 0 0] tint = \"white\" }\n\t{ id = \"e2\" name = \"barrel\" }\n]\ngravity = 9.8\n",
        Dialect::Sjson,
    )
    .unwrap();
    let new = Document::parse(
        "entities = [\n\t{ id = \"e1\" name = \"crate\" position = [1 0 0] tint = \"blue\" }\n\t{ id = \"e3\" name = \"lamp\" }\n]\ngravity = 3\n",
        Dialect::Sjson,
    )
    .unwrap();
    let objects = objects_of("l.sjson", &old, &new, &Default::default());
    let summary: Vec<(String, Option<String>, &str, Vec<String>)> = objects
        .iter()
        .map(|o| {
            (
                o.pointer.clone(),
                o.name.clone(),
                o.change,
                o.properties.clone(),
            )
        })
        .collect();
    let expected: Vec<(String, Option<String>, &str, Vec<String>)> = vec![
        ("".into(), None, "changed", vec!["/gravity".into()]),
        (
            "/entities/[id=e1]".into(),
            Some("crate".into()),
            "changed",
            vec!["/position".into(), "/tint".into()],
        ),
        (
            "/entities/[id=e2]".into(),
            Some("barrel".into()),
            "removed",
            vec![],
        ),
        (
            "/entities/[id=e3]".into(),
            Some("lamp".into()),
            "added",
            vec![],
        ),
    ];
    assert_eq!(summary, expected);
    assert_eq!(objects[1].label(), "crate (e1)");
}

proptest! {
    /// Whatever the user name, the WIP ref built from it is a valid ref name that names
    /// that user as its owner.
    #[test]
    fn any_user_gives_a_valid_wip_ref(user in "\\PC{0,24}") {
        if let Some(c) = ref_component(&user) {
            let name = wip_ref(&c, "main");
            prop_assert!(gix::refs::FullName::try_from(name.as_str()).is_ok(), "{name}");
            prop_assert_eq!(wip_owner(&name), Some(c.as_str()));
            prop_assert_eq!(ref_component(&c), Some(c.clone()));
        }
    }
}
