//! Where the time of the 100,000-entity merge (about 20 MB of SJSON per version) goes,
//! phase by phase, in one process: parsing one version, the structural merge of three
//! parsed versions (move detection, merge, printing), parsing the merged text back (the
//! safety check, and the document the coherence pass reads) and the coherence pass.
//! `assetvc merge-file` does all of them (the three parses on two threads) plus reading
//! and writing the files. Run: `cargo bench -p assetvc-merge --bench merge_phases`.

use criterion::{criterion_group, criterion_main, Criterion};
use merge::{coherence, structural, MergeOptions};
use sjson::{Dialect, Document, ParseOptions};

const ENTITIES: usize = 100_000;

fn parse(t: &str) -> Document {
    Document::parse_with(t.to_string(), ParseOptions::new(Dialect::Sjson)).unwrap()
}

fn bench(c: &mut Criterion) {
    let inputs = levelgen::edits::MergeInputs::generate(ENTITIES, 42, 10);
    let texts = [
        inputs.base.to_sjson(),
        inputs.apply(&inputs.ours_edits).to_sjson(),
        inputs.apply(&inputs.theirs_edits).to_sjson(),
    ];
    let [b, o, t] = texts.each_ref().map(|t| parse(t));
    let opts = MergeOptions::default();
    let merged = structural(&b, &o, &t, &opts).text;
    let mut g = c.benchmark_group("merge_100k_phases");
    g.sample_size(10);
    g.bench_function("parse one version", |bench| bench.iter(|| parse(&texts[1])));
    g.bench_function("structural merge (moves, merge, print)", |bench| {
        bench.iter(|| structural(&b, &o, &t, &opts))
    });
    g.bench_function("parse the result", |bench| bench.iter(|| parse(&merged)));
    g.bench_function("parse the result + coherence pass", |bench| {
        bench.iter(|| coherence::repair(&b, &o, &t, parse(&merged), &opts).unwrap())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
