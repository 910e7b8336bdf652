//! Properties of the page over random levels and edits: one card per changed object,
//! one mark per placed object, every mark's link names a card, and no name can inject
//! markup.

use merge::diff::{diff, DiffOptions};
use proptest::prelude::*;
use review::{diff_section, render, ObjectKeys, Page};

#[derive(Debug, Clone)]
struct Obj {
    id: u32,
    name: String,
    pos: (i32, i32),
}

fn level(objects: &[Obj]) -> String {
    let mut s = String::from("entities = [\n");
    for o in objects {
        s.push_str(&format!(
            "\t{{ id = \"obj-{:04}\" name = {} pos = [{} {} 0] }}\n",
            o.id,
            serde_json::to_string(&o.name).unwrap(),
            o.pos.0,
            o.pos.1
        ));
    }
    s.push_str("]\n");
    s
}

/// What happens to an object: kept, moved, renamed or deleted.
#[derive(Debug, Clone, Copy)]
enum Edit {
    Keep,
    Move(i32),
    Rename,
    Delete,
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        3 => Just(Edit::Keep),
        1 => (1..50i32).prop_map(Edit::Move),
        1 => Just(Edit::Rename),
        1 => Just(Edit::Delete),
    ]
}

fn objects() -> impl Strategy<Value = Vec<Obj>> {
    prop::collection::vec(("[a-z<>&\"' /]{0,12}", -500..500i32, -500..500i32), 1..40).prop_map(
        |v| {
            v.into_iter()
                .enumerate()
                .map(|(i, (name, x, y))| Obj {
                    id: i as u32,
                    name,
                    pos: (x, y),
                })
                .collect()
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn cards_marks_and_links_agree(
        old in objects(),
        edits in prop::collection::vec(edit(), 40),
        added in 0..5usize,
    ) {
        let mut new = Vec::new();
        let mut changed = 0;
        for (o, e) in old.iter().zip(edits.iter().cycle()) {
            match e {
                Edit::Keep => new.push(o.clone()),
                Edit::Move(d) => {
                    new.push(Obj { pos: (o.pos.0 + d, o.pos.1), ..o.clone() });
                    changed += 1;
                }
                Edit::Rename => {
                    new.push(Obj { name: format!("{}<x>", o.name), ..o.clone() });
                    changed += 1;
                }
                Edit::Delete => changed += 1,
            }
        }
        for i in 0..added {
            new.push(Obj { id: 1000 + i as u32, name: format!("new</script>{i}"), pos: (i as i32, 0) });
        }
        changed += added;
        let (a, b) = (level(&old), level(&new));
        let da = sjson::Document::parse(&a, sjson::Dialect::Sjson).unwrap();
        let db = sjson::Document::parse(&b, sjson::Dialect::Sjson).unwrap();
        let d = diff(da.root(), db.root(), &DiffOptions::default());
        let section = diff_section("l.level", "modified", Some(da.root()), Some(db.root()), &d.changes, &ObjectKeys::default());
        prop_assert_eq!(section.cards.len(), changed);
        // Every object of either version is placed once: the new ones and the deleted ones.
        prop_assert_eq!(section.objects.len(), new.len() + old.len() - old.iter().filter(|o| new.iter().any(|n| n.id == o.id)).count());
        let cards = section.cards.len();
        let placed = section.objects.len();
        let html = render(&Page { title: "t".into(), subtitle: String::new(), files: vec![section] });
        prop_assert_eq!(html.matches("<article class=\"card ").count(), cards);
        prop_assert_eq!(html.matches("<use class=\"mk ").count(), placed);
        prop_assert_eq!(html.matches("data-card=\"").count(), cards);
        for part in html.split("data-card=\"").skip(1) {
            let anchor = &part[..part.find('"').unwrap()];
            prop_assert!(html.contains(&format!("id=\"{anchor}\"")), "no card {}", anchor);
        }
        // Names are text: the page's own script is its only one, and no `<x>` got through.
        prop_assert_eq!(html.matches("<script").count(), 1);
        prop_assert!(!html.contains("<x>"));
    }
}
