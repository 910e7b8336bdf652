//! Per-evaluation cost of `expr` against `fasteval` and `evalexpr`.
//!
//! Each library compiles each expression once with its own precompile API;
//! an iteration evaluates it over 1M variable sets (`t` varies, `x` is fixed),
//! so the reported time per iteration in ms equals ns per evaluation.

use criterion::{black_box, criterion_group, criterion_main, Criterion, SamplingMode, Throughput};
use evalexpr::{ContextWithMutableVariables, HashMapContext, Node, Value};
use fasteval::{Compiler, Evaler, Instruction, Slab};
use std::time::Duration;

/// Variable sets per iteration.
const ROWS: usize = 1_000_000;
/// The fixed value of `x`.
const X: f32 = 0.75;

/// The seed expression.
const SEED: &str = "sin(t) + 0.1 * cos(10 * t)";
/// An expression with 20 binary operators over `t` and `x`.
const TWENTY: &str = "(t * 1.5 + x) * (t - 3.0) / (t * t + 4.0) - x * t * 0.5 \
                      + (t - x) / (x + 1.0) - 0.25 * x + (t + 1.0) * (x - 2.0)";

/// The value of `t` in row `i`.
fn t_at(i: usize) -> f32 {
    i as f32 * 1e-5 - 5.0
}

/// An expression compiled by fasteval.
struct Fasteval {
    slab: Slab,
    compiled: Instruction,
}

impl Fasteval {
    fn new(source: &str) -> Self {
        let mut slab = Slab::new();
        let parsed = fasteval::Parser::new()
            .parse(source, &mut slab.ps)
            .expect("fasteval parses");
        let compiled = parsed.from(&slab.ps).compile(&slab.ps, &mut slab.cs);
        Fasteval { slab, compiled }
    }

    fn eval(&self, t: f64, x: f64) -> f64 {
        let mut vars = |name: &str, _args: Vec<f64>| match name {
            "t" => Some(t),
            "x" => Some(x),
            _ => None,
        };
        self.compiled
            .eval(&self.slab, &mut vars)
            .expect("fasteval evaluates")
    }
}

/// An expression compiled by evalexpr, with its context.
struct Evalexpr {
    tree: Node,
    context: HashMapContext,
}

impl Evalexpr {
    fn new(source: &str) -> Self {
        // evalexpr names its math functions `math::sin` and so on.
        let source = source
            .replace("sin(", "math::sin(")
            .replace("cos(", "math::cos(");
        let tree = evalexpr::build_operator_tree(&source).expect("evalexpr parses");
        Evalexpr {
            tree,
            context: HashMapContext::new(),
        }
    }

    fn eval(&mut self, t: f64, x: f64) -> f64 {
        self.context
            .set_value("t".into(), Value::Float(t))
            .expect("set t");
        self.context
            .set_value("x".into(), Value::Float(x))
            .expect("set x");
        self.tree
            .eval_float_with_context(&self.context)
            .expect("evalexpr evaluates to a float")
    }
}

/// Asserts that the three libraries agree on `source` at a few points.
fn check(program: &expr::Program, fast: &Fasteval, slow: &mut Evalexpr) {
    let mut stack = expr::Stack::new();
    for t in [-5.0f32, -0.3, 0.0, 0.5, 1.7, 4.9] {
        let ours = program.run(&[t, X], &mut stack).expect("expr runs");
        let theirs = [fast.eval(t.into(), X.into()), slow.eval(t.into(), X.into())];
        for other in theirs {
            let tolerance = 1e-5 * other.abs().max(1.0);
            assert!(
                (f64::from(ours) - other).abs() < tolerance,
                "t={t}: expr {ours} vs {other}"
            );
        }
    }
}

fn bench(c: &mut Criterion) {
    let ts: Vec<f32> = (0..ROWS).map(t_at).collect();
    let ts64: Vec<f64> = ts.iter().map(|&t| f64::from(t)).collect();
    let rows: Vec<f32> = ts.iter().flat_map(|&t| [t, X]).collect();
    let x64 = f64::from(X);

    for (name, source) in [("seed", SEED), ("twenty_ops", TWENTY)] {
        // Both expressions are compiled over `t` and `x` (the seed ignores `x`).
        let program = expr::compile(source, &["t", "x"]).expect("expr compiles");
        let fast = Fasteval::new(source);
        let mut slow = Evalexpr::new(source);
        check(&program, &fast, &mut slow);

        let mut group = c.benchmark_group(name);
        group.throughput(Throughput::Elements(ROWS as u64));
        group.sample_size(10);
        group.sampling_mode(SamplingMode::Flat);

        let mut stack = expr::Stack::new();
        let mut out = vec![0.0f32; ROWS];
        group.bench_function("expr_run_batch", |b| {
            b.iter(|| {
                program
                    .run_batch(black_box(&rows), &mut out, &mut stack)
                    .expect("runs");
                black_box(&out);
            })
        });
        group.bench_function("expr_run", |b| {
            b.iter(|| {
                for (row, value) in black_box(&rows).chunks_exact(2).zip(out.iter_mut()) {
                    *value = program.run(row, &mut stack).expect("runs");
                }
                black_box(&out);
            })
        });
        let mut out64 = vec![0.0f64; ROWS];
        group.bench_function("fasteval", |b| {
            b.iter(|| {
                for (&t, value) in black_box(&ts64).iter().zip(out64.iter_mut()) {
                    *value = fast.eval(t, x64);
                }
                black_box(&out64);
            })
        });
        group.bench_function("evalexpr", |b| {
            b.iter(|| {
                for (&t, value) in black_box(&ts64).iter().zip(out64.iter_mut()) {
                    *value = slow.eval(t, x64);
                }
                black_box(&out64);
            })
        });
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = bench
}
criterion_main!(benches);
