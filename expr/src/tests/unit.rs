//! Unit tests per rule: syntax, precedence, functions, folding, running.

use super::{eval, program, rpn, same};
use crate::{compile, functions, ErrorKind, Program, Stack};

#[test]
fn seed_example() {
    let source = "sin(t) + 0.1 * cos(10 * t)";
    let p = program(source, &["t"]);
    assert_eq!(p.rpn(), "t sin 0.1 10 t * cos * +");
    let t = 0.5f32;
    let expected = t.sin() + 0.1 * (10.0 * t).cos();
    let value = p.run(&[t], &mut Stack::new()).unwrap();
    assert_eq!(value.to_bits(), expected.to_bits());
    assert_eq!(p.constant(), None);
    assert_eq!(p.max_stack(), 4);
    assert_eq!(
        p.disassemble(),
        "0000  LOAD_VAR 0 (t)\n\
         0001  CALL 0 (sin)\n\
         0002  PUSH_CONST 0.1\n\
         0004  PUSH_CONST 10\n\
         0006  LOAD_VAR 0 (t)\n\
         0007  MUL\n\
         0008  CALL 1 (cos)\n\
         0009  MUL\n\
         0010  ADD\n"
    );
}

#[test]
fn word_encoding() {
    let p = program("sin(t) * -x + 1.5", &["x", "t"]);
    assert_eq!(
        p.words(),
        &[
            0x0200_0001,
            0x0900_0000,
            0x0200_0000,
            0x0300_0000,
            0x0600_0000,
            0x0100_0000,
            1.5f32.to_bits(),
            0x0400_0000,
        ]
    );
}

#[test]
fn precedence() {
    assert_eq!(rpn("1 + 2 * 3", &[]), "1 2 3 * +");
    assert_eq!(eval("1 + 2 * 3", &[]), 7.0);
    assert_eq!(rpn("1 * 2 + 3", &[]), "1 2 * 3 +");
    assert_eq!(rpn("(1 + 2) * 3", &[]), "1 2 + 3 *");
    assert_eq!(eval("(1 + 2) * 3", &[]), 9.0);
    assert_eq!(rpn("a + b / c - d", &["a", "b", "c", "d"]), "a b c / + d -");
    assert_eq!(rpn("a * b ^ c", &["a", "b", "c"]), "a b c ^ *");
    assert_eq!(rpn("a ^ b * c", &["a", "b", "c"]), "a b ^ c *");
    assert_eq!(eval("2 * 3 ^ 2", &[]), 18.0);
    assert_eq!(eval("10 - 2 * 3 + 8 / 4", &[]), 6.0);
}

#[test]
fn associativity() {
    assert_eq!(rpn("1 - 2 - 3", &[]), "1 2 - 3 -");
    assert_eq!(eval("1 - 2 - 3", &[]), -4.0);
    assert_eq!(rpn("8 / 4 / 2", &[]), "8 4 / 2 /");
    assert_eq!(eval("8 / 4 / 2", &[]), 1.0);
    assert_eq!(eval("1 - (2 - 3)", &[]), 2.0);
    assert_eq!(rpn("2 ^ 3 ^ 2", &[]), "2 3 2 ^ ^");
    assert_eq!(eval("2 ^ 3 ^ 2", &[]), 512.0);
    assert_eq!(eval("(2 ^ 3) ^ 2", &[]), 64.0);
}

#[test]
fn unary_minus() {
    assert_eq!(rpn("-x^2", &["x"]), "x 2 ^ neg");
    assert_eq!(eval("-x^2", &[("x", 3.0)]), -9.0);
    assert_eq!(eval("(-x)^2", &[("x", 3.0)]), 9.0);
    assert_eq!(rpn("2^-1", &[]), "2 1 neg ^");
    assert_eq!(eval("2^-1", &[]), 0.5);
    assert_eq!(eval("2^-x", &[("x", 2.0)]), 0.25);
    assert_eq!(rpn("2^-x*3", &["x"]), "2 x neg ^ 3 *");
    assert_eq!(rpn("2^-1^2", &[]), "2 1 2 ^ neg ^");
    assert_eq!(rpn("--x", &["x"]), "x neg neg");
    assert_eq!(eval("--x", &[("x", 3.0)]), 3.0);
    assert_eq!(rpn("-(2)", &[]), "2 neg");
    assert_eq!(eval("-(2)", &[]), -2.0);
    assert_eq!(rpn("-2 * 3", &[]), "2 neg 3 *");
    assert_eq!(rpn("a * -b", &["a", "b"]), "a b neg *");
    assert_eq!(rpn("a - -b", &["a", "b"]), "a b neg -");
    assert_eq!(rpn("-a - b", &["a", "b"]), "a neg b -");
    assert_eq!(eval("2 * -3 ^ 2", &[]), -18.0);
    assert_eq!(eval("-sin(x)", &[("x", 1.0)]), -(1.0f32.sin()));
    assert_eq!(
        eval("x^-2^-1", &[("x", 4.0)]),
        4.0f32.powf(-(2.0f32.powf(-1.0)))
    );
}

#[test]
fn numbers_render_as_written() {
    assert_eq!(
        rpn("1.50e+2 + .5 - 1. * 007 + 1E-3", &[]),
        "1.50e+2 .5 + 1. 007 * - 1E-3 +"
    );
    assert_eq!(eval("1.50e+2", &[]), 150.0);
    assert_eq!(eval(".5", &[]), 0.5);
    assert_eq!(eval("1.", &[]), 1.0);
    assert_eq!(eval("1e-3", &[]), 0.001);
    assert_eq!(eval("3.4028235e38", &[]), f32::MAX);
    assert_eq!(eval("1e-50", &[]), 0.0);
}

#[test]
fn whitespace_and_names() {
    assert_eq!(eval(" \t1+\n2\r", &[]), 3.0);
    assert_eq!(eval("_a1 * B_", &[("_a1", 2.0), ("B_", 4.0)]), 8.0);
    assert_eq!(rpn("pi + tau + e", &[]), "pi tau + e +");
    assert_eq!(eval("e", &[]), std::f32::consts::E);
    assert_eq!(
        eval("tau / pi", &[]),
        std::f32::consts::TAU / std::f32::consts::PI
    );
}

#[test]
fn function_calls() {
    assert_eq!(rpn("max(1 + 2, 3 * x)", &["x"]), "1 2 + 3 x * max");
    assert_eq!(
        rpn("clamp(min(a, b), -1, 1)", &["a", "b"]),
        "a b min 1 neg 1 clamp"
    );
    assert_eq!(eval("atan2(1, -1)", &[]), 1.0f32.atan2(-1.0));
    assert_eq!(eval("lerp(2, 4, x)", &[("x", 0.25)]), 2.5);
    assert_eq!(eval("((sin((x))))", &[("x", 1.0)]), 1.0f32.sin());
}

/// The reference value of every function, independent of `ops`.
fn reference(name: &str, a: f32, b: f32, c: f32) -> f32 {
    match name {
        "sin" => a.sin(),
        "cos" => a.cos(),
        "tan" => a.tan(),
        "asin" => a.asin(),
        "acos" => a.acos(),
        "atan" => a.atan(),
        "sinh" => a.sinh(),
        "cosh" => a.cosh(),
        "tanh" => a.tanh(),
        "sqrt" => a.sqrt(),
        "abs" => a.abs(),
        "floor" => a.floor(),
        "ceil" => a.ceil(),
        "round" => a.round(),
        "trunc" => a.trunc(),
        "fract" => a - a.floor(),
        "sign" => match a {
            _ if a > 0.0 => 1.0,
            _ if a < 0.0 => -1.0,
            _ => a,
        },
        "exp" => a.exp(),
        "exp2" => a.exp2(),
        "log" => a.ln(),
        "log2" => a.log2(),
        "log10" => a.log10(),
        "atan2" => a.atan2(b),
        "min" => a.min(b),
        "max" => a.max(b),
        "pow" => a.powf(b),
        "hypot" => a.hypot(b),
        "step" => {
            if b < a {
                0.0
            } else {
                1.0
            }
        }
        "clamp" => a.max(b).min(c),
        "lerp" => a + (b - a) * c,
        "smoothstep" => {
            let t = reference("clamp", (c - a) / (b - a), 0.0, 1.0);
            t * t * (3.0 - 2.0 * t)
        }
        _ => panic!("no reference for {name}"),
    }
}

#[test]
fn every_function_runs_and_folds() {
    let inputs = [
        [0.3, 0.7, 0.5],
        [-1.25, 2.0, 0.75],
        [2.5, -0.5, 1.0],
        [0.0, 0.0, 0.0],
        [-0.0, 1.0, -3.0],
        [f32::NAN, 1.0, 2.0],
    ];
    let mut stack = Stack::new();
    for (name, arity) in functions() {
        let params = ["a", "b", "c"];
        let source = format!("{name}({})", params[..arity].join(", "));
        let p = program(&source, &params[..arity]);
        assert_eq!(p.rpn(), format!("{} {name}", params[..arity].join(" ")));
        for args in inputs {
            let expected = reference(name, args[0], args[1], args[2]);
            let value = p.run(&args[..arity], &mut stack).unwrap();
            assert!(
                same(value, expected),
                "{source} at {args:?}: {value} != {expected}"
            );
            let literals: Vec<String> = args[..arity]
                .iter()
                .map(|v| {
                    if v.is_nan() {
                        "(0/0)".to_string()
                    } else {
                        format!("({v:?})")
                    }
                })
                .collect();
            let folded = program(&format!("{name}({})", literals.join(",")), &[]);
            let constant = folded.constant().unwrap();
            assert!(
                same(constant, expected),
                "{name} folded at {args:?}: {constant} != {expected}"
            );
        }
    }
}

#[test]
fn function_semantics() {
    assert_eq!(eval("fract(-1.25)", &[]), 0.75);
    assert_eq!(eval("sign(-3)", &[]), -1.0);
    assert_eq!(eval("sign(0)", &[]), 0.0);
    assert_eq!(eval("clamp(5, 0, 1)", &[]), 1.0);
    assert_eq!(eval("clamp(-5, 0, 1)", &[]), 0.0);
    assert_eq!(eval("clamp(0.5, 1, 0)", &[]), 0.0);
    assert!(eval("clamp(x, 0, 1)", &[("x", f32::NAN)]) == 0.0);
    assert_eq!(eval("step(0.5, 0.5)", &[]), 1.0);
    assert_eq!(eval("step(0.5, 0.4)", &[]), 0.0);
    assert_eq!(eval("smoothstep(0, 1, 0.5)", &[]), 0.5);
    assert_eq!(eval("smoothstep(0, 1, 2)", &[]), 1.0);
    assert_eq!(eval("min(1, 2) + max(1, 2)", &[]), 3.0);
    assert_eq!(eval("log(1) + exp(0)", &[]), 1.0);
    assert_eq!(eval("pow(2, 10)", &[]), 1024.0);
}

#[test]
fn arity_errors_for_every_function() {
    for (name, arity) in functions() {
        for found in [0, arity - 1, arity + 1] {
            if found == arity {
                continue;
            }
            let args = vec!["1"; found].join(", ");
            let source = format!("2 * {name}({args})");
            let e = compile(&source, &[]).unwrap_err();
            let kind = ErrorKind::WrongArity {
                name: name.to_string(),
                expected: arity,
                found,
            };
            assert_eq!((e.position, e.kind), (4, kind), "{source}");
        }
    }
}

#[test]
fn constant_folding() {
    let p = program("2*pi", &[]);
    assert_eq!(p.rpn(), "2 pi *");
    assert_eq!(
        p.words(),
        &[0x0100_0000, (2.0 * std::f32::consts::PI).to_bits()]
    );
    assert_eq!(p.constant(), Some(2.0 * std::f32::consts::PI));
    assert_eq!(p.max_stack(), 1);
    assert_eq!(
        p.disassemble(),
        format!("0000  PUSH_CONST {}\n", 2.0 * std::f32::consts::PI)
    );

    // Left associative: (t * 2) * 3 has no constant subexpression.
    let p = program("t*2*3", &["t"]);
    assert_eq!(p.words().len(), 7);
    assert_eq!(p.constant(), None);
    let p = program("t*(2*3)", &["t"]);
    assert_eq!(
        p.disassemble(),
        "0000  LOAD_VAR 0 (t)\n0001  PUSH_CONST 6\n0003  MUL\n"
    );

    let p = program("sin(0)+t", &["t"]);
    assert_eq!(p.rpn(), "0 sin t +");
    assert_eq!(
        p.disassemble(),
        "0000  PUSH_CONST 0\n0002  LOAD_VAR 0 (t)\n0003  ADD\n"
    );

    let p = program("-(2)", &[]);
    assert_eq!(p.constant(), Some(-2.0));
    let p = program("clamp(x, -1, 2^-1)", &["x"]);
    assert_eq!(p.words().len(), 6);
    assert_eq!(p.run(&[7.0], &mut Stack::new()), Ok(0.5));
    let p = program("lerp(1, 2, 0.5) * x + max(sqrt(4), 1)", &["x"]);
    assert_eq!(p.words().len(), 7);
    assert_eq!(p.run(&[2.0], &mut Stack::new()), Ok(5.0));
    // Unused variables do not stop folding.
    assert_eq!(program("1/0", &["x"]).constant(), Some(f32::INFINITY));
    assert!(program("0/0", &[]).constant().unwrap().is_nan());
}

#[test]
fn max_stack_depth() {
    assert_eq!(program("a + b * c", &["a", "b", "c"]).max_stack(), 3);
    assert_eq!(program("a * b + c", &["a", "b", "c"]).max_stack(), 2);
    assert_eq!(program("clamp(a, b, c)", &["a", "b", "c"]).max_stack(), 3);
    assert_eq!(
        program("a + (b + (c + 1))", &["a", "b", "c"]).max_stack(),
        4
    );
    assert_eq!(
        program("a + (b + (c + (1 + 2)))", &["a", "b", "c"]).max_stack(),
        4
    );
}

#[test]
fn stack_reuse_and_sizes() {
    let p = program("a + (b + (c + 1))", &["a", "b", "c"]);
    let mut small = Stack::with_capacity(1);
    assert_eq!(p.run(&[1.0, 2.0, 3.0], &mut small), Ok(7.0));
    assert_eq!(small.capacity(), 4);
    let mut big = Stack::with_capacity(100);
    assert_eq!(p.run(&[1.0, 2.0, 3.0], &mut big), Ok(7.0));
    assert_eq!(big.capacity(), 100);
    let q = program("a * 2", &["a"]);
    assert_eq!(q.run(&[4.0], &mut big), Ok(8.0));
    assert_eq!(Stack::default().capacity(), 0);
}

#[test]
fn run_batch() {
    let p = program("a * 10 + b", &["a", "b"]);
    let rows = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
    let mut out = [0.0; 3];
    let mut stack = Stack::new();
    p.run_batch(&rows, &mut out, &mut stack).unwrap();
    assert_eq!(out, [12.0, 34.0, 56.0]);

    let e = p.run_batch(&rows[..5], &mut out, &mut stack).unwrap_err();
    assert_eq!(
        e.kind,
        ErrorKind::WrongVariableCount {
            expected: 6,
            found: 5
        }
    );

    let c = program("2 * 3", &[]);
    c.run_batch(&[], &mut out, &mut stack).unwrap();
    assert_eq!(out, [6.0; 3]);
    assert!(c.run_batch(&[1.0], &mut out, &mut stack).is_err());

    // A program with no variables that is not folded still fills `out`.
    let raw = Program::from_words(&[0x0100_0000, 2.0f32.to_bits(), 0x0300_0000], &[]).unwrap();
    assert_eq!(raw.constant(), None);
    raw.run_batch(&[], &mut out, &mut stack).unwrap();
    assert_eq!(out, [-2.0; 3]);
    p.run_batch(&[], &mut [], &mut stack).unwrap();
}

#[test]
fn from_words_round_trip() {
    let p = program("clamp(sin(t) * x ^ 2, -1, lerp(t, x, 0.5))", &["t", "x"]);
    let q = Program::from_words(p.words(), &["t", "x"]).unwrap();
    assert_eq!(q.words(), p.words());
    assert_eq!(q.max_stack(), p.max_stack());
    assert_eq!(q.rpn(), "t sin x 2 ^ * -1 t x 0.5 lerp clamp");
    assert_eq!(q.disassemble(), p.disassemble());
    let mut stack = Stack::new();
    for t in [-2.0, 0.0, 0.3, 5.0] {
        assert_eq!(p.run(&[t, 0.7], &mut stack), q.run(&[t, 0.7], &mut stack));
    }
    let c = Program::from_words(program("2*pi", &[]).words(), &[]).unwrap();
    assert_eq!(c.constant(), Some(2.0 * std::f32::consts::PI));
    assert_eq!(p.variables(), ["t", "x"]);
}

#[test]
fn function_list() {
    let names: Vec<_> = functions().map(|f| f.0).collect();
    for required in [
        "sin",
        "cos",
        "tan",
        "asin",
        "acos",
        "atan",
        "atan2",
        "sqrt",
        "abs",
        "floor",
        "ceil",
        "min",
        "max",
        "pow",
        "clamp",
        "lerp",
        "step",
        "smoothstep",
        "exp",
        "log",
        "fract",
        "sign",
    ] {
        assert!(names.contains(&required), "{required}");
    }
    assert_eq!(functions().find(|f| f.0 == "clamp"), Some(("clamp", 3)));
    assert_eq!(crate::constants().count(), 3);
}
