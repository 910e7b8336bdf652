//! Every error kind with its position.

use super::{error, program};
use crate::{
    compile, vm, Error, ErrorKind, Program, Stack, MAX_DEPTH, MAX_SOURCE_LEN, MAX_VARIABLES,
};

/// Asserts that `source` over `vars` fails with `kind` at `position`.
fn fails(source: &str, vars: &[&str], position: usize, kind: ErrorKind) {
    assert_eq!(error(source, vars), Error { position, kind }, "{source:?}");
}

/// `ErrorKind::UnexpectedToken` of `text`.
fn unexpected(text: &str) -> ErrorKind {
    ErrorKind::UnexpectedToken(text.to_string())
}

#[test]
fn empty_input() {
    fails("", &[], 0, ErrorKind::EmptyInput);
    fails(" \t ", &[], 0, ErrorKind::EmptyInput);
}

#[test]
fn unexpected_char() {
    fails("1 + $", &[], 4, ErrorKind::UnexpectedChar('$'));
    fails("x + é", &["x"], 4, ErrorKind::UnexpectedChar('é'));
    fails("1 % 2", &[], 2, ErrorKind::UnexpectedChar('%'));
}

#[test]
fn invalid_number() {
    let invalid = |s: &str| ErrorKind::InvalidNumber(s.to_string());
    fails("1e", &[], 0, invalid("1e"));
    fails("2 * 1e+", &[], 4, invalid("1e+"));
    fails("x + .", &["x"], 4, invalid("."));
    fails(".e5", &[], 0, invalid("."));
    fails("1e39", &[], 0, invalid("1e39"));
    fails("1 + 4e38", &[], 4, invalid("4e38"));
}

#[test]
fn unknown_name() {
    fails("t + foo", &["t"], 4, ErrorKind::UnknownName("foo".into()));
    fails("foo(1)", &[], 0, ErrorKind::UnknownName("foo".into()));
    fails("sin(T)", &["t"], 4, ErrorKind::UnknownName("T".into()));
    fails("PI", &[], 0, ErrorKind::UnknownName("PI".into()));
}

#[test]
fn not_a_function_and_missing_call() {
    fails("2 * t(1)", &["t"], 4, ErrorKind::NotAFunction("t".into()));
    fails("pi(2)", &[], 0, ErrorKind::NotAFunction("pi".into()));
    fails("sin + 1", &[], 0, ErrorKind::MissingCall("sin".into()));
    fails("1 + cos", &[], 4, ErrorKind::MissingCall("cos".into()));
}

#[test]
fn wrong_arity() {
    let arity = |name: &str, expected, found| ErrorKind::WrongArity {
        name: name.into(),
        expected,
        found,
    };
    fails("1 + min(1)", &[], 4, arity("min", 2, 1));
    fails("sin()", &[], 0, arity("sin", 1, 0));
    fails("sin(1, 2)", &[], 0, arity("sin", 1, 2));
    fails("x * clamp(x, 2)", &["x"], 4, arity("clamp", 3, 2));
    fails("max(1, sin(1, 2))", &[], 7, arity("sin", 1, 2));
}

#[test]
fn unbalanced_paren() {
    fails("(1 + 2", &[], 0, ErrorKind::UnbalancedParen);
    fails("1 + 2)", &[], 5, ErrorKind::UnbalancedParen);
    fails("sin(1", &[], 3, ErrorKind::UnbalancedParen);
    fails("((1)", &[], 0, ErrorKind::UnbalancedParen);
    fails(")", &[], 0, ErrorKind::UnbalancedParen);
    fails("-)", &[], 1, ErrorKind::UnbalancedParen);
}

#[test]
fn unexpected_token() {
    fails("1 2", &[], 2, unexpected("2"));
    fails("x y", &["x", "y"], 2, unexpected("y"));
    fails("1 + * 2", &[], 4, unexpected("*"));
    fails("+1", &[], 0, unexpected("+"));
    fails("(1, 2)", &[], 2, unexpected(","));
    fails("1, 2", &[], 1, unexpected(","));
    fails("min(1,)", &[], 6, unexpected(")"));
    fails("min(,1)", &[], 4, unexpected(","));
    fails("()", &[], 1, unexpected(")"));
    fails("2(3)", &[], 1, unexpected("("));
    fails("1.2.3", &[], 3, unexpected(".3"));
    fails("2x", &["x"], 1, unexpected("x"));
    fails("(1 + 2) 3", &[], 8, unexpected("3"));
    fails("1 + (2 -)", &[], 8, unexpected(")"));
}

#[test]
fn unexpected_end() {
    fails("1 +", &[], 3, ErrorKind::UnexpectedEnd);
    fails("-", &[], 1, ErrorKind::UnexpectedEnd);
    fails("sin(", &[], 4, ErrorKind::UnexpectedEnd);
    fails("2 ^ ", &[], 4, ErrorKind::UnexpectedEnd);
}

#[test]
fn too_deep() {
    let nested = |n: usize| format!("{}x{}", "(".repeat(n), ")".repeat(n));
    let p = program(&nested(MAX_DEPTH), &["x"]);
    assert_eq!(p.run(&[2.0], &mut Stack::new()), Ok(2.0));
    fails(
        &nested(MAX_DEPTH + 1),
        &["x"],
        MAX_DEPTH,
        ErrorKind::TooDeep { limit: MAX_DEPTH },
    );
    let calls = format!(
        "{}x{}",
        "sin(".repeat(MAX_DEPTH + 1),
        ")".repeat(MAX_DEPTH + 1)
    );
    fails(
        &calls,
        &["x"],
        4 * MAX_DEPTH + 3,
        ErrorKind::TooDeep { limit: MAX_DEPTH },
    );
}

#[test]
fn too_long_and_long_inputs() {
    let long = format!("x{}", "+x".repeat((MAX_SOURCE_LEN - 1) / 2));
    assert!(long.len() <= MAX_SOURCE_LEN);
    let p = program(&long, &["x"]);
    assert_eq!(p.max_stack(), 2);
    assert_eq!(
        p.run(&[1.0], &mut Stack::new()),
        Ok(long.len().div_ceil(2) as f32)
    );
    let limit = MAX_SOURCE_LEN;
    fails(
        &format!("{long}+x+x"),
        &["x"],
        limit,
        ErrorKind::TooLong { limit },
    );

    // Deep right-nested operators and unary chains need no recursion.
    let right = format!("{}x", "x^".repeat(20_000));
    assert_eq!(program(&right, &["x"]).max_stack(), 20_001);
    let negs = format!("{}x", "-".repeat(60_000));
    assert_eq!(eval_one(&negs, 3.0), 3.0);
}

/// Evaluates `source` over `x`.
fn eval_one(source: &str, x: f32) -> f32 {
    program(source, &["x"])
        .run(&[x], &mut Stack::new())
        .unwrap()
}

#[test]
fn variable_list_errors() {
    let bad = |vars: &[&str], kind: ErrorKind| {
        assert_eq!(compile("1", vars).unwrap_err(), Error::new(0, kind.clone()));
        assert_eq!(
            Program::from_words(&[0x0100_0000, 0], vars)
                .unwrap_err()
                .kind,
            kind
        );
    };
    bad(&["1x"], ErrorKind::InvalidVariableName("1x".into()));
    bad(&[""], ErrorKind::InvalidVariableName("".into()));
    bad(&["a-b"], ErrorKind::InvalidVariableName("a-b".into()));
    bad(&["sin"], ErrorKind::ReservedVariableName("sin".into()));
    bad(&["t", "pi"], ErrorKind::ReservedVariableName("pi".into()));
    bad(&["e"], ErrorKind::ReservedVariableName("e".into()));
    bad(&["t", "x", "t"], ErrorKind::DuplicateVariable("t".into()));
    let names: Vec<String> = (0..=MAX_VARIABLES).map(|i| format!("v{i}")).collect();
    let many: Vec<&str> = names.iter().map(String::as_str).collect();
    bad(
        &many,
        ErrorKind::TooManyVariables {
            limit: MAX_VARIABLES,
        },
    );
    let p = program("v65535 - v0", &many[..MAX_VARIABLES]);
    assert_eq!(
        p.disassemble(),
        "0000  LOAD_VAR 65535 (v65535)\n0001  LOAD_VAR 0 (v0)\n0002  SUB\n"
    );
}

#[test]
fn wrong_variable_count() {
    let p = program("a + b", &["a", "b"]);
    let e = p.run(&[1.0], &mut Stack::new()).unwrap_err();
    assert_eq!(
        e,
        Error::new(
            0,
            ErrorKind::WrongVariableCount {
                expected: 2,
                found: 1
            }
        )
    );
    assert_eq!(e.to_string(), "0: expected 2 variable values, found 1");
    let c = program("1", &["a"]);
    assert!(c.run(&[], &mut Stack::new()).is_err());
}

#[test]
fn invalid_bytecode() {
    let invalid = |words: &[u32], position: usize, kind: ErrorKind| {
        let e = Program::from_words(words, &["x"]).unwrap_err();
        assert_eq!(e, Error { position, kind }, "{words:x?}");
    };
    let reason = ErrorKind::InvalidBytecode;
    let one = 1.0f32.to_bits();
    invalid(&[], 0, reason("empty program"));
    invalid(&[0x0100_0000], 0, reason("PUSH_CONST without its value"));
    invalid(&[0x0200_0001], 0, reason("variable index out of range"));
    invalid(
        &[0x0200_0000, 0x0900_ffff],
        1,
        reason("unknown function id"),
    );
    invalid(&[0x0200_0000, 0x0000_0000], 1, reason("unknown opcode"));
    invalid(&[0x0200_0000, 0xff00_0000], 1, reason("unknown opcode"));
    invalid(&[0x0200_0000, 0x0300_0001], 1, reason("nonzero data"));
    invalid(&[0x0100_0001, one], 0, reason("nonzero data"));
    invalid(
        &[0x0200_0000, 0x0200_0000],
        2,
        reason("program must leave exactly one value"),
    );
    invalid(&[0x0200_0000, 0x0400_0000], 1, ErrorKind::StackUnderflow);
    invalid(&[0x0300_0000], 0, ErrorKind::StackUnderflow);
    invalid(&[0x0200_0000, 0x0900_001c], 1, ErrorKind::StackUnderflow);
    let huge = vec![0x0200_0000; crate::MAX_WORDS + 1];
    invalid(&huge, 0, reason("program too long"));
}

#[test]
fn vm_checks_at_run_time() {
    // Validated programs never fail these checks; the raw VM still refuses
    // without panicking when they are broken.
    let add = program("x + x * x", &["x"]);
    let mut one = [0.0f32; 1];
    let e = vm::exec(add.words(), &[1.0], &mut one).unwrap_err();
    assert_eq!(e.kind, ErrorKind::StackOverflow);
    let mut slots = [0.0f32; 4];
    let e = vm::exec(&[0x0400_0000], &[], &mut slots).unwrap_err();
    assert_eq!(e, Error::new(0, ErrorKind::StackUnderflow));
    assert_eq!(
        vm::exec(&[], &[], &mut slots).unwrap_err().kind,
        ErrorKind::StackUnderflow
    );
    let e = vm::exec(&[0x0200_0003], &[1.0], &mut slots).unwrap_err();
    assert_eq!(
        e.kind,
        ErrorKind::InvalidBytecode("variable index out of range")
    );
    let e = vm::exec(&[0x0100_0000], &[], &mut slots).unwrap_err();
    assert_eq!(
        e,
        Error::new(
            0,
            ErrorKind::InvalidBytecode("PUSH_CONST without its value")
        )
    );
    let e = vm::exec(&[0x0200_0000, 0x0900_ffff], &[1.0], &mut slots).unwrap_err();
    assert_eq!(
        e,
        Error::new(1, ErrorKind::InvalidBytecode("unknown function id"))
    );
    let e = vm::exec(&[0x7700_0000], &[], &mut slots).unwrap_err();
    assert_eq!(e.kind, ErrorKind::InvalidBytecode("unknown opcode"));
}

#[test]
fn display() {
    let e = error("t + 0.5 * foo", &["t"]);
    assert_eq!(e.to_string(), "10: unknown name 'foo'");
    let cases = [
        ("", "0: empty expression"),
        ("1 $", "2: unexpected character '$'"),
        ("1e", "0: invalid number '1e'"),
        ("min(1)", "0: 'min' takes 2 arguments, found 1"),
        ("sin(1, 2)", "0: 'sin' takes 1 argument, found 2"),
        ("(1", "0: unbalanced parenthesis"),
        ("1 2", "2: unexpected '2'"),
        ("1 +", "3: unexpected end of expression"),
        ("sin", "0: function 'sin' needs arguments in parentheses"),
        ("pi(1)", "0: 'pi' is not a function"),
    ];
    for (source, text) in cases {
        assert_eq!(error(source, &[]).to_string(), text);
    }
    let deep = format!("{}1{}", "(".repeat(300), ")".repeat(300));
    assert_eq!(
        error(&deep, &[]).to_string(),
        "256: parentheses nested deeper than 256 levels"
    );
    assert_eq!(
        error("1", &["sin"]).to_string(),
        "0: variable 'sin' is named like a function or constant"
    );
    let boxed: Box<dyn std::error::Error> = Box::new(error("", &[]));
    assert_eq!(boxed.to_string(), "0: empty expression");
}
