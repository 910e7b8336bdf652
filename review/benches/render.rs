//! The review page of a 100,000-entity level with thousands of changes: diff to page.
//!
//! `cargo bench -p assetvc-review --bench render` (BENCHMARKS.md has the figures).

use criterion::{criterion_group, criterion_main, Criterion};
use levelgen::edits::{Edit, MergeInputs};
use merge::diff::{diff, DiffOptions};
use review::{diff_section, render, ObjectKeys, Page};

/// The base level and theirs' side of the merge inputs (moves, adds, deletes: ~1% of
/// the entities), as SJSON.
fn levels(n: usize) -> (String, String, usize) {
    let inputs = MergeInputs::generate(n, 7, n / 100);
    let old = inputs.base.to_sjson();
    let mut new_level = inputs.base.clone();
    let mut edits = inputs.theirs_edits.clone();
    edits.extend(inputs.ours_edits.iter().cloned());
    let count = edits.len();
    for e in &edits {
        match e {
            Edit::Move(id, p) => {
                if let Some(x) = new_level.entities.iter_mut().find(|x| &x.id == id) {
                    x.pos = *p;
                }
            }
            Edit::Add(after, entity) => {
                let i = new_level
                    .entities
                    .iter()
                    .position(|x| &x.id == after)
                    .map_or(0, |i| i + 1);
                new_level.entities.insert(i, entity.clone());
            }
            Edit::Delete(id) => new_level.entities.retain(|x| &x.id != id),
        }
    }
    (old, new_level.to_sjson(), count)
}

fn bench(c: &mut Criterion) {
    let (old, new, edits) = levels(100_000);
    let a = sjson::Document::parse(&old, sjson::Dialect::Sjson).expect("old level parses");
    let b = sjson::Document::parse(&new, sjson::Dialect::Sjson).expect("new level parses");
    let options = DiffOptions::default();
    let keys = ObjectKeys::default();
    let d = diff(a.root(), b.root(), &options);
    let page = Page {
        title: "bench".into(),
        subtitle: String::new(),
        files: vec![diff_section(
            "l.level",
            "modified",
            Some(a.root()),
            Some(b.root()),
            &d.changes,
            &keys,
        )],
    };
    let html = render(&page);
    eprintln!(
        "100,000 entities, {edits} edits, {} changes, {} cards: page {:.2} MB",
        d.changes.len(),
        page.files[0].cards.len(),
        html.len() as f64 / 1e6
    );
    let mut g = c.benchmark_group("review_100k");
    g.sample_size(10);
    g.bench_function("diff (peer)", |bench| {
        bench.iter(|| diff(a.root(), b.root(), &options).changes.len())
    });
    g.bench_function("section + page", |bench| {
        bench.iter(|| {
            let s = diff_section(
                "l.level",
                "modified",
                Some(a.root()),
                Some(b.root()),
                &d.changes,
                &keys,
            );
            render(&Page {
                title: "bench".into(),
                subtitle: String::new(),
                files: vec![s],
            })
            .len()
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
