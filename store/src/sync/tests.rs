//! Unit tests of the sync module's pure parts: ref names, durations, objects of a diff.

use proptest::prelude::*;
use sjson::{Dialect, Document};

use super::who::objects_of;
use super::*;
use crate::treemerge::{AssetRules, PathRules};

#[test]
fn emails_become_ref_components() {
    assert_eq!(
        ref_component("alice@example.com").as_deref(),
        Some("alice@example.com")
    );
    assert_eq!(ref_component("Bob Smith").as_deref(), Some("Bob%20Smith"));
    assert_eq!(ref_component("bob/smith").as_deref(), Some("bob%2Fsmith"));
    assert_eq!(ref_component("a@{b}").as_deref(), Some("a@%7Bb%7D"));
    assert_eq!(ref_component("  ").as_deref(), Some("%20%20"));
    assert_eq!(ref_component("").as_deref(), None);
    assert_eq!(ref_component("@").as_deref(), Some("%40"));
    assert_eq!(ref_component(&"x".repeat(300)), None);
}

#[test]
fn names_that_git_would_fold_stay_distinct_users() {
    let alice = ref_component("alice").unwrap();
    for other in [
        "alice.lock",
        ".alice",
        "alice.",
        " alice",
        "alice ",
        "alice..lock",
        "Alice",
        "alice%",
    ] {
        let c = ref_component(other).unwrap();
        assert_ne!(c, alice, "{other}");
        assert_eq!(user_of_component(&c).as_deref(), Some(other));
    }
    assert_ne!(ref_component("bob smith"), ref_component("bob/smith"));
    assert_ne!(ref_component("böb"), ref_component("bøb"));
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
    assert_eq!(secs("15min"), Some(900));
    assert_eq!(secs("15 minutes"), Some(900));
    assert_eq!(secs("1h 30m"), Some(5400));
    assert_eq!(secs(" 900 "), Some(900));
    assert_eq!(secs("15 parsecs"), None);
    assert_eq!(secs("m"), None);
    assert_eq!(secs("-1"), None);
    assert_eq!(secs(""), None);
    assert_eq!(secs("99999999999999999999"), None);
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
    assert_eq!(objects[1].label(), "crate #e1");
}

proptest! {
    /// Any text is a duration or not, without a panic; a count with a unit is that many
    /// seconds, minutes or hours, and bare digits are seconds.
    #[test]
    fn durations_read_counts_and_units(
        text in "\\PC{0,12}",
        n in 0u32..1_000_000,
        unit in prop::sample::select(vec![("", 1u64), ("s", 1), ("m", 60), ("min", 60), ("h", 3600)]),
    ) {
        let _ = parse_duration(&text);
        let written = format!("{n}{}", unit.0);
        prop_assert_eq!(parse_duration(&written).map(|d| d.as_secs()), Some(u64::from(n) * unit.1));
    }

    /// Whatever the user name, the WIP ref built from it is a valid ref name that names
    /// that user as its owner.
    #[test]
    fn any_user_gives_a_valid_wip_ref(user in "\\PC{0,24}") {
        if let Some(c) = ref_component(&user) {
            let name = wip_ref(&c, "main");
            prop_assert!(gix::refs::FullName::try_from(name.as_str()).is_ok(), "{name}");
            prop_assert_eq!(wip_owner(&name), Some(c.as_str()));
            prop_assert_eq!(user_of_component(&c), Some(user.clone()));
        }
    }

    /// Two different names never map to one ref component.
    #[test]
    fn the_mapping_is_injective(a in "[a-c. /%@{}lockö]{0,8}", b in "[a-c. /%@{}lock]{0,8}") {
        if a != b {
            prop_assert!(ref_component(&a).is_none() || ref_component(&a) != ref_component(&b));
        }
    }
}

/// Scratch repositories for the record-and-bring tests.
mod scratch {
    pub(crate) use crate::test_git::git;

    /// `k0 = v0` … one line per key.
    pub fn level(values: &[u32]) -> String {
        values
            .iter()
            .enumerate()
            .map(|(i, v)| format!("k{i} = {v}\n"))
            .collect()
    }
}

fn sjson_only(path: &str) -> Option<Dialect> {
    path.ends_with(".sjson").then_some(Dialect::Sjson)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, ..ProptestConfig::default() })]

    /// Recording touches nothing; bringing the upstream in moves HEAD and the index to it
    /// and leaves in the worktree every uncommitted edit and every upstream change, the
    /// policy (theirs) deciding where both changed a key.
    #[test]
    fn record_and_bring_keep_every_edit(
        upstream in proptest::collection::vec(proptest::option::of(1u32..9), 6),
        local in proptest::collection::vec(proptest::option::of(10u32..19), 6),
    ) {
        use scratch::{git, level};
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let base = vec![0u32; 6];
        git(dir, &["init", "-q", "-b", "main"]);
        std::fs::write(dir.join("l.sjson"), level(&base)).unwrap();
        git(dir, &["add", "."]);
        git(dir, &["commit", "-qm", "base"]);
        let head = git(dir, &["rev-parse", "HEAD"]);
        let theirs: Vec<u32> = base.iter().zip(&upstream).map(|(b, u)| u.unwrap_or(*b)).collect();
        git(dir, &["checkout", "-q", "-b", "up"]);
        std::fs::write(dir.join("l.sjson"), level(&theirs)).unwrap();
        git(dir, &["commit", "-qam", "up", "--allow-empty"]);
        git(dir, &["checkout", "-q", "main"]);
        let ours: Vec<u32> = base.iter().zip(&local).map(|(b, l)| l.unwrap_or(*b)).collect();
        let typed = level(&ours);
        std::fs::write(dir.join("l.sjson"), &typed).unwrap();

        let repo = crate::Repo::discover(dir).unwrap();
        let wip = repo.record_wip(&sjson_only, Some("refs/assetvc/wip/t/main"), "t").unwrap();
        prop_assert_eq!(git(dir, &["rev-parse", "HEAD"]), head.clone());
        prop_assert_eq!(git(dir, &["diff", "--cached", "--name-only"]), "");
        prop_assert_eq!(std::fs::read_to_string(dir.join("l.sjson")).unwrap(), typed.clone());
        prop_assert_eq!(git(dir, &["show", "refs/assetvc/wip/t/main:l.sjson"]), typed);
        prop_assert_eq!(wip.is_clean(), ours == base);

        let up = repo.resolve_commit("up").unwrap();
        let rules = AssetRules::new(|p: &str| sjson_only(p).map(|dialect| PathRules { dialect, profile: None }), Default::default());
        let brought = repo.bring_upstream("main", &wip, up, "up", &rules).unwrap();
        // The person at the keyboard wins: a value changed locally stays, the upstream's
        // changes come in everywhere else; every true conflict is pending.
        let expected: Vec<u32> = (0..6)
            .map(|i| if local[i].is_some() { ours[i] } else { theirs[i] })
            .collect();
        let conflicts = (0..6).filter(|&i| local[i].is_some() && upstream[i].is_some()).count();
        // The upstream is always one commit ahead (possibly an empty one): a fast-forward.
        prop_assert!(matches!(brought, Brought::Merged { .. }), "{:?}", brought);
        prop_assert_eq!(brought.pending(), conflicts);
        prop_assert_eq!(git(dir, &["rev-parse", "HEAD"]), git(dir, &["rev-parse", "up"]));
        prop_assert_eq!(git(dir, &["diff", "--cached", "--name-only"]), "");
        prop_assert_eq!(std::fs::read_to_string(dir.join("l.sjson")).unwrap(), level(&expected));
        let dirty = git(dir, &["status", "--porcelain"]);
        prop_assert_eq!(dirty.is_empty(), expected == theirs, "{}", dirty);
    }
}

#[test]
fn objects_of_a_large_wip_are_named_by_their_index() {
    // 20,000 objects changed (the array is indexed once: #30 item 8), each named.
    let n = 20_000;
    let level = |x: u32| {
        let mut s = String::from("entities = [\n");
        for i in 0..n {
            s.push_str(&format!("\t{{ id = \"e{i}\" name = \"n{i}\" x = {x} }}\n"));
        }
        s.push_str("]\n");
        Document::parse(&s, Dialect::Sjson).unwrap()
    };
    let objects = objects_of("l.sjson", &level(0), &level(1), &Default::default());
    assert_eq!(objects.len(), n);
    assert!(objects
        .iter()
        .all(|o| o.name.as_deref() == Some(&format!("n{}", &o.id.as_deref().unwrap()[1..]))));
}
