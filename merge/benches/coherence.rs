//! The cost of the coherence pass on the 100,000-entity merge (about 20 MB): the
//! structural merge as before (parse the three versions, merge, check that the result
//! parses) beside the same with the coherence pass ([`merge::merge`]), on the generated
//! level as it is (ids, names and unit paths: every string is looked up, nothing refers)
//! and with a `parent` reference in every entity (edits then leave references to deleted
//! entities that the pass repairs or finds dangling in a side already). `pass` times the
//! coherence pass alone (`coherence::repair` on the structural result, which is built
//! outside the timing): on a busy machine it measures the pass more steadily than the
//! difference of the other two.
//! Run: `cargo bench -p assetvc-merge --bench coherence`.

use std::collections::HashMap;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use merge::{coherence, merge, structural, Inputs, MergeOptions};
use sjson::{Dialect, Document, ParseOptions};

const ENTITIES: usize = 100_000;

/// The three versions as SJSON texts.
fn inputs() -> [String; 3] {
    let inputs = levelgen::edits::MergeInputs::generate(ENTITIES, 42, 10);
    [
        inputs.base.to_sjson(),
        inputs.apply(&inputs.ours_edits).to_sjson(),
        inputs.apply(&inputs.theirs_edits).to_sjson(),
    ]
}

/// Gives every entity a `parent`: the entity before it in base.
fn with_parents(texts: &[String; 3]) -> [String; 3] {
    let ids = |t: &str| -> Vec<String> {
        t.lines()
            .filter_map(|l| l.strip_prefix("\t\tid = \""))
            .map(|s| s.trim_end_matches('"').to_string())
            .collect()
    };
    let base_ids = ids(&texts[0]);
    let parent: HashMap<&str, &str> = base_ids
        .windows(2)
        .map(|w| (w[1].as_str(), w[0].as_str()))
        .collect();
    texts.clone().map(|t| {
        let mut out = String::with_capacity(t.len() + t.len() / 8);
        for line in t.lines() {
            out.push_str(line);
            out.push('\n');
            if let Some(id) = line.strip_prefix("\t\tid = \"") {
                if let Some(p) = parent.get(id.trim_end_matches('"')) {
                    out.push_str(&format!("\t\tparent = \"{p}\"\n"));
                }
            }
        }
        out
    })
}

fn parse(t: &str) -> Document {
    Document::parse(t, Dialect::Sjson).unwrap()
}

fn bench(c: &mut Criterion) {
    let opts = MergeOptions::default();
    let plain = inputs();
    let parents = with_parents(&plain);
    let mut g = c.benchmark_group("merge_100k_entities");
    g.sample_size(10);
    for (name, [b, o, t]) in [("plain", &plain), ("parents", &parents)] {
        g.bench_function(format!("{name}/structural"), |bench| {
            bench.iter(|| {
                let (b, o, t) = (parse(b), parse(o), parse(t));
                let out = structural(&b, &o, &t, &opts);
                Document::parse_with(out.text, ParseOptions::new(Dialect::Sjson)).unwrap()
            })
        });
        g.bench_function(format!("{name}/coherent"), |bench| {
            bench.iter(|| {
                let (b, o, t) = (parse(b), parse(o), parse(t));
                merge(Inputs::documents(&b, &o, &t), &opts).unwrap()
            })
        });
        g.bench_function(format!("{name}/pass"), |bench| {
            bench.iter_batched(
                || {
                    let (b, o, t) = (parse(b), parse(o), parse(t));
                    let out = structural(&b, &o, &t, &opts);
                    let merged =
                        Document::parse_with(out.text, ParseOptions::new(Dialect::Sjson)).unwrap();
                    (b, o, t, merged)
                },
                |(b, o, t, merged)| {
                    let repaired = coherence::repair(&b, &o, &t, merged, &opts).unwrap();
                    // Dropped after the timing.
                    (b, o, t, repaired)
                },
                BatchSize::PerIteration,
            )
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
