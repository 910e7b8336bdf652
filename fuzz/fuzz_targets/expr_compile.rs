//! Compiles any UTF-8 input over variables `t` and `x` and runs what compiles.
//!
//! Besides "no panic", it checks the invariants a compiled program promises:
//! it runs without error, its bytecode round-trips through
//! `Program::from_words` to the same value, and a folded constant is the value.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(source) = std::str::from_utf8(data) else {
        return;
    };
    let variables = ["t", "x"];
    let Ok(program) = expr::compile(source, &variables) else {
        return;
    };
    let mut stack = expr::Stack::new();
    let values = [0.5f32, -2.0];
    let value = program
        .run(&values, &mut stack)
        .expect("a compiled program runs");
    let same = |a: f32, b: f32| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
    if let Some(constant) = program.constant() {
        assert!(same(constant, value));
    }
    let raw = expr::Program::from_words(program.words(), &variables)
        .expect("compiled bytecode validates");
    assert_eq!(raw.max_stack(), program.max_stack());
    assert!(same(raw.run(&values, &mut stack).expect("runs"), value));
    let mut out = [0.0f32; 2];
    program
        .run_batch(&[0.5, -2.0, 0.5, -2.0], &mut out, &mut stack)
        .expect("batch runs");
    assert!(same(out[0], value) && same(out[1], value));
    let _ = (program.rpn(), program.disassemble());
});
