//! Tests of the whole pipeline.

mod errors;
mod prop;
mod unit;

use crate::{compile, Error, Program, Stack};

/// Compiles `source` over `vars`, panicking on errors.
fn program(source: &str, vars: &[&str]) -> Program {
    match compile(source, vars) {
        Ok(p) => p,
        Err(e) => panic!("{source:?} failed: {e}"),
    }
}

/// Evaluates `source` with the given variables.
fn eval(source: &str, vars: &[(&str, f32)]) -> f32 {
    let names: Vec<&str> = vars.iter().map(|v| v.0).collect();
    let values: Vec<f32> = vars.iter().map(|v| v.1).collect();
    program(source, &names)
        .run(&values, &mut Stack::new())
        .unwrap()
}

/// The RPN text of `source` over `vars`.
fn rpn(source: &str, vars: &[&str]) -> String {
    program(source, vars).rpn()
}

/// The compile error of `source` over `vars`.
fn error(source: &str, vars: &[&str]) -> Error {
    match compile(source, vars) {
        Ok(p) => panic!("{source:?} compiled to {}", p.rpn()),
        Err(e) => e,
    }
}

/// Whether `a` and `b` are the same bits, or both NaN.
fn same(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}
