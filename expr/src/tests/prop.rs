//! Property tests: random expression trees against a recursive evaluator,
//! and no panics on arbitrary sources or bytecode.

use super::same;
use crate::{compile, functions, Error, ErrorKind, Program, Stack};
use proptest::prelude::*;

/// The declared variables of generated expressions.
const VARS: [&str; 3] = ["t", "x", "y_1"];
/// Names that are never declared.
const UNKNOWN: [&str; 2] = ["foo", "u"];
/// The constants as written and their values.
const CONSTS: [(&str, f32); 3] = [
    ("pi", std::f32::consts::PI),
    ("tau", std::f32::consts::TAU),
    ("e", std::f32::consts::E),
];

/// A binary operator of the tree.
#[derive(Debug, Clone, Copy)]
enum B {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
}

/// An expression tree.
#[derive(Debug, Clone)]
enum Node {
    /// A literal as written.
    Num(String),
    Var(usize),
    Unknown(usize),
    Const(usize),
    Neg(Box<Node>),
    Bin(B, Box<Node>, Box<Node>),
    /// A call by function index; the argument count may be wrong.
    Call(usize, Vec<Node>),
}

/// The reference value of function `name`, written independently of the crate.
fn call(name: &str, a: &[f32]) -> f32 {
    let arg = |i: usize| a.get(i).copied().unwrap_or(f32::NAN);
    let (x, y, z) = (arg(0), arg(1), arg(2));
    match name {
        "sin" => x.sin(),
        "cos" => x.cos(),
        "tan" => x.tan(),
        "asin" => x.asin(),
        "acos" => x.acos(),
        "atan" => x.atan(),
        "sinh" => x.sinh(),
        "cosh" => x.cosh(),
        "tanh" => x.tanh(),
        "sqrt" => x.sqrt(),
        "abs" => x.abs(),
        "floor" => x.floor(),
        "ceil" => x.ceil(),
        "round" => x.round(),
        "trunc" => x.trunc(),
        "fract" => x - x.floor(),
        "sign" if x > 0.0 => 1.0,
        "sign" if x < 0.0 => -1.0,
        "sign" => x,
        "exp" => x.exp(),
        "exp2" => x.exp2(),
        "log" => x.ln(),
        "log2" => x.log2(),
        "log10" => x.log10(),
        "atan2" => x.atan2(y),
        "min" => x.min(y),
        "max" => x.max(y),
        "pow" => x.powf(y),
        "hypot" => x.hypot(y),
        "step" if y < x => 0.0,
        "step" => 1.0,
        "clamp" => x.max(y).min(z),
        "lerp" => x + (y - x) * z,
        "smoothstep" => {
            let t = call("clamp", &[(z - x) / (y - x), 0.0, 1.0]);
            t * t * (3.0 - 2.0 * t)
        }
        _ => panic!("no reference for {name}"),
    }
}

/// The recursive reference evaluator.
fn eval(node: &Node, vars: &[f32]) -> f32 {
    match node {
        Node::Num(text) => text.parse().unwrap(),
        Node::Var(i) => vars[*i],
        Node::Unknown(_) => f32::NAN,
        Node::Const(i) => CONSTS[*i].1,
        Node::Neg(x) => -eval(x, vars),
        Node::Bin(op, a, b) => {
            let (a, b) = (eval(a, vars), eval(b, vars));
            match op {
                B::Add => a + b,
                B::Sub => a - b,
                B::Mul => a * b,
                B::Div => a / b,
                B::Pow => a.powf(b),
            }
        }
        Node::Call(f, args) => {
            let values: Vec<f32> = args.iter().map(|a| eval(a, vars)).collect();
            call(functions().nth(*f).unwrap().0, &values)
        }
    }
}

/// Whether the tree reads any variable.
fn has_vars(node: &Node) -> bool {
    match node {
        Node::Var(_) | Node::Unknown(_) => true,
        Node::Num(_) | Node::Const(_) => false,
        Node::Neg(x) => has_vars(x),
        Node::Bin(_, a, b) => has_vars(a) || has_vars(b),
        Node::Call(_, args) => args.iter().any(has_vars),
    }
}

/// Binding strength: `+ -` 1, `* /` 2, unary minus 3, `^` 4, atoms 5.
fn prec(node: &Node) -> u8 {
    match node {
        Node::Bin(B::Add | B::Sub, ..) => 1,
        Node::Bin(B::Mul | B::Div, ..) => 2,
        Node::Neg(_) => 3,
        Node::Bin(B::Pow, ..) => 4,
        _ => 5,
    }
}

/// Prints a tree with the fewest parentheses the grammar needs, recording
/// each error the compiler should find and the byte where it finds it.
struct Printer {
    out: String,
    spaced: bool,
    /// (byte where the compiler detects it, error).
    errors: Vec<(usize, Error)>,
}

impl Printer {
    fn print(&mut self, node: &Node) {
        match node {
            Node::Num(text) => self.out.push_str(text),
            Node::Var(i) => self.out.push_str(VARS[*i]),
            Node::Unknown(i) => {
                let kind = ErrorKind::UnknownName(UNKNOWN[*i].to_string());
                self.errors
                    .push((self.out.len(), Error::new(self.out.len(), kind)));
                self.out.push_str(UNKNOWN[*i]);
            }
            Node::Const(i) => self.out.push_str(CONSTS[*i].0),
            Node::Neg(x) => {
                self.out.push('-');
                self.child(x, prec(x) < 3);
            }
            Node::Bin(op, a, b) => {
                let p = prec(node);
                let right_assoc = matches!(op, B::Pow);
                self.child(a, prec(a) < p || (prec(a) == p && right_assoc));
                let symbol = match op {
                    B::Add => "+",
                    B::Sub => "-",
                    B::Mul => "*",
                    B::Div => "/",
                    B::Pow => "^",
                };
                if self.spaced {
                    self.out.push(' ');
                }
                self.out.push_str(symbol);
                if self.spaced {
                    self.out.push(' ');
                }
                // A minus right after `^` negates the whole exponent: `2^-x`.
                let neg_exponent = right_assoc && matches!(**b, Node::Neg(_));
                self.child(
                    b,
                    !neg_exponent && (prec(b) < p || (prec(b) == p && !right_assoc)),
                );
            }
            Node::Call(f, args) => {
                let (name, arity) = functions().nth(*f).unwrap();
                let name_pos = self.out.len();
                self.out.push_str(name);
                self.out.push('(');
                for (i, arg) in args.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(if self.spaced { ", " } else { "," });
                    }
                    self.print(arg);
                }
                if args.len() != arity {
                    let kind = ErrorKind::WrongArity {
                        name: name.to_string(),
                        expected: arity,
                        found: args.len(),
                    };
                    self.errors
                        .push((self.out.len(), Error::new(name_pos, kind)));
                }
                self.out.push(')');
            }
        }
    }

    fn child(&mut self, node: &Node, parens: bool) {
        if parens {
            self.out.push('(');
        }
        self.print(node);
        if parens {
            self.out.push(')');
        }
    }
}

/// Prints `node`; returns the source and the error the compiler should report.
fn print(node: &Node, spaced: bool) -> (String, Option<Error>) {
    let mut p = Printer {
        out: String::new(),
        spaced,
        errors: Vec::new(),
    };
    p.print(node);
    let first = p.errors.into_iter().min_by_key(|e| e.0).map(|e| e.1);
    (p.out, first)
}

/// Number literals in every accepted form.
fn literal() -> impl Strategy<Value = String> {
    prop_oneof![
        (0u32..1000).prop_map(|n| n.to_string()),
        (0u32..100, 0u32..1000).prop_map(|(a, b)| format!("{a}.{b}")),
        (0u32..1000).prop_map(|b| format!(".{b}")),
        (0u32..10).prop_map(|a| format!("{a}.")),
        (1u32..10, -6i32..6, any::<bool>()).prop_map(|(a, e, big)| {
            let mark = if big { "E" } else { "e" };
            format!("{a}{mark}{e}")
        }),
        (1u32..100, 0u32..5).prop_map(|(a, e)| format!("{a}.5e+{e}")),
    ]
}

/// Random trees, a few with unknown names or wrong argument counts.
fn tree(allow_errors: bool) -> impl Strategy<Value = Node> {
    let unknown_weight = if allow_errors { 1 } else { 0 };
    let leaf = prop_oneof![
        4 => literal().prop_map(Node::Num),
        4 => (0..VARS.len()).prop_map(Node::Var),
        1 => (0..CONSTS.len()).prop_map(Node::Const),
        unknown_weight => (0..UNKNOWN.len()).prop_map(Node::Unknown),
    ];
    let n_funcs = functions().count();
    leaf.prop_recursive(6, 48, 3, move |inner| {
        let ops = prop_oneof![Just(B::Add), Just(B::Sub), Just(B::Mul), Just(B::Div), Just(B::Pow)];
        let call = (0..n_funcs, 0u32..20, prop::collection::vec(inner.clone(), 0..=4)).prop_map(
            move |(f, dice, mut args)| {
                let arity = functions().nth(f).unwrap().1;
                let wrong = allow_errors && dice == 0;
                if !wrong {
                    while args.len() < arity {
                        args.push(Node::Num("1".to_string()));
                    }
                    args.truncate(arity);
                }
                Node::Call(f, args)
            },
        );
        prop_oneof![
            2 => inner.clone().prop_map(|x| Node::Neg(Box::new(x))),
            5 => (ops, inner.clone(), inner).prop_map(|(op, a, b)| Node::Bin(op, Box::new(a), Box::new(b))),
            2 => call,
        ]
    })
}

/// Variable values, with specials now and then.
fn values() -> impl Strategy<Value = Vec<f32>> {
    let value = prop_oneof![
        8 => -10.0f32..10.0,
        1 => Just(0.0f32),
        1 => Just(-0.0f32),
        1 => any::<f32>(),
    ];
    prop::collection::vec(value, VARS.len())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn vm_matches_recursive_evaluator(node in tree(false), vars in values(), spaced in any::<bool>()) {
        let (source, expected_error) = print(&node, spaced);
        prop_assert!(expected_error.is_none());
        let program = compile(&source, &VARS).map_err(|e| TestCaseError::fail(format!("{source}: {e}")))?;
        let expected = eval(&node, &vars);
        let value = program.run(&vars, &mut Stack::new()).unwrap();
        prop_assert!(same(value, expected), "{}: vm {} != reference {}", source, value, expected);
        prop_assert_eq!(program.constant().is_some(), !has_vars(&node));
        if let Some(constant) = program.constant() {
            prop_assert!(same(constant, expected));
        }
        // The bytecode round-trips and runs the same, also in batches.
        let raw = Program::from_words(program.words(), &VARS).unwrap();
        prop_assert!(same(raw.run(&vars, &mut Stack::new()).unwrap(), expected));
        let mut out = [0.0f32; 2];
        let rows: Vec<f32> = vars.iter().chain(&vars).copied().collect();
        program.run_batch(&rows, &mut out, &mut Stack::with_capacity(1)).unwrap();
        prop_assert!(same(out[0], expected) && same(out[1], expected));
    }

    #[test]
    fn errors_match_first_error_in_tree(node in tree(true), spaced in any::<bool>()) {
        let (source, expected_error) = print(&node, spaced);
        match (compile(&source, &VARS), expected_error) {
            (Ok(_), None) => {}
            (Err(e), Some(expected)) => prop_assert_eq!(e, expected, "{}", source),
            (result, expected) => {
                prop_assert!(false, "{}: got {:?}, expected {:?}", source, result.map(|p| p.rpn()), expected)
            }
        }
    }

    #[test]
    fn compile_never_panics_on_any_string(source in any::<String>()) {
        if let Ok(program) = compile(&source, &["t", "x"]) {
            prop_assert!(program.run(&[0.5, -1.0], &mut Stack::new()).is_ok());
        }
    }

    #[test]
    fn compile_never_panics_on_token_soup(source in "[0-9a-z_.eE+*/^(), -]{0,40}") {
        if let Ok(program) = compile(&source, &["t", "x", "e1"]) {
            prop_assert!(program.run(&[0.5, -1.0, 2.0], &mut Stack::new()).is_ok());
            prop_assert!(!program.rpn().is_empty());
            prop_assert!(!program.disassemble().is_empty());
        }
    }

    #[test]
    fn any_bytecode_validates_or_fails_cleanly(
        words in prop::collection::vec(
            prop_oneof![
                4 => (0u32..11, 0u32..40).prop_map(|(op, data)| (op << 24) | data),
                1 => any::<u32>(),
            ],
            0..24,
        ),
        vars in values(),
    ) {
        if let Ok(program) = Program::from_words(&words, &VARS) {
            // Validated bytecode never fails at run time.
            prop_assert!(program.run(&vars, &mut Stack::new()).is_ok());
            let _ = program.disassemble();
            let _ = program.rpn();
        }
        // The raw VM refuses broken bytecode without panicking.
        let mut slots = [0.0f32; 4];
        let _ = crate::vm::exec(&words, &vars, &mut slots);
    }
}
