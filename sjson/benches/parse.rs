//! Parse throughput on a generated 100k-entity level (about 20 MB), as SJSON and as JSON,
//! beside serde_json building a `serde_json::Value` from the same JSON.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use sjson::{Dialect, Document};

fn parse(c: &mut Criterion) {
    let level = levelgen::Level::random(100_000, 7);
    let sjson_text = level.to_sjson();
    let json_text = level.to_json();
    let mut g = c.benchmark_group("parse_100k_entities");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(json_text.len() as u64));
    g.bench_function("serde_json_value", |b| {
        b.iter(|| serde_json::from_str::<serde_json::Value>(&json_text).unwrap())
    });
    g.bench_function("sjson_json_dialect", |b| {
        b.iter(|| Document::parse(json_text.as_str(), Dialect::Json).unwrap())
    });
    g.throughput(Throughput::Bytes(sjson_text.len() as u64));
    g.bench_function("sjson_sjson_dialect", |b| {
        b.iter(|| Document::parse(sjson_text.as_str(), Dialect::Sjson).unwrap())
    });
    g.finish();
}

criterion_group!(benches, parse);
criterion_main!(benches);
