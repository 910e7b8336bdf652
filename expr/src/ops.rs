//! The operations: opcodes, built-in functions and constants.
//!
//! Constant folding and the VM both call the functions here, so a folded
//! value is bit-for-bit the value the VM would compute.

/// Opcodes: the upper 8 bits of an instruction word; the lower 24 bits are its data.
///
/// `PUSH_CONST` is followed by one extra word holding the `f32` bits. The data
/// of `LOAD_VAR` is the variable's index, that of `CALL` the function id (its
/// index in [`functions`](crate::functions)); every other data is 0.
pub mod opcode {
    /// Pushes the `f32` whose bits are the next word.
    pub const PUSH_CONST: u8 = 0x01;
    /// Pushes the variable whose index is the data.
    pub const LOAD_VAR: u8 = 0x02;
    /// Negates the top of the stack.
    pub const NEG: u8 = 0x03;
    /// Pops `b`, `a`; pushes `a + b`.
    pub const ADD: u8 = 0x04;
    /// Pops `b`, `a`; pushes `a - b`.
    pub const SUB: u8 = 0x05;
    /// Pops `b`, `a`; pushes `a * b`.
    pub const MUL: u8 = 0x06;
    /// Pops `b`, `a`; pushes `a / b`.
    pub const DIV: u8 = 0x07;
    /// Pops `b`, `a`; pushes `a.powf(b)`.
    pub const POW: u8 = 0x08;
    /// Pops the function's arguments (last on top); pushes its result.
    pub const CALL: u8 = 0x09;
}

/// Bits of the data field of an instruction word.
pub(crate) const DATA_BITS: u32 = 24;
/// Mask of the data field of an instruction word.
pub(crate) const DATA_MASK: u32 = (1 << DATA_BITS) - 1;

/// Builds an instruction word.
pub(crate) fn word(op: u8, data: u32) -> u32 {
    (u32::from(op) << DATA_BITS) | (data & DATA_MASK)
}

/// A binary operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
}

impl BinOp {
    /// The operator as written in source and RPN.
    pub(crate) fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Pow => "^",
        }
    }

    /// The opcode of the operator.
    pub(crate) fn opcode(self) -> u8 {
        match self {
            BinOp::Add => opcode::ADD,
            BinOp::Sub => opcode::SUB,
            BinOp::Mul => opcode::MUL,
            BinOp::Div => opcode::DIV,
            BinOp::Pow => opcode::POW,
        }
    }

    /// Applies the operator.
    #[inline(always)]
    pub(crate) fn apply(self, a: f32, b: f32) -> f32 {
        match self {
            BinOp::Add => a + b,
            BinOp::Sub => a - b,
            BinOp::Mul => a * b,
            BinOp::Div => a / b,
            BinOp::Pow => a.powf(b),
        }
    }
}

/// How a built-in function computes its value.
#[derive(Clone, Copy)]
pub(crate) enum Kind {
    F1(fn(f32) -> f32),
    F2(fn(f32, f32) -> f32),
    F3(fn(f32, f32, f32) -> f32),
}

/// A built-in function.
#[derive(Clone, Copy)]
pub(crate) struct Func {
    pub(crate) name: &'static str,
    pub(crate) kind: Kind,
}

impl Func {
    /// The number of arguments.
    pub(crate) fn arity(&self) -> usize {
        match self.kind {
            Kind::F1(_) => 1,
            Kind::F2(_) => 2,
            Kind::F3(_) => 3,
        }
    }

    /// Applies the function to `args` (of length `arity`; `None` otherwise).
    pub(crate) fn apply(&self, args: &[f32]) -> Option<f32> {
        match (self.kind, args) {
            (Kind::F1(f), &[x]) => Some(f(x)),
            (Kind::F2(f), &[a, b]) => Some(f(a, b)),
            (Kind::F3(f), &[a, b, c]) => Some(f(a, b, c)),
            _ => None,
        }
    }
}

/// GLSL `fract`: `x - floor(x)`, in `[0, 1)` also for negative `x`.
fn fract(x: f32) -> f32 {
    x - x.floor()
}

/// 1 for positive, -1 for negative, `x` itself for ±0 and NaN.
fn sign(x: f32) -> f32 {
    if x > 0.0 {
        1.0
    } else if x < 0.0 {
        -1.0
    } else {
        x
    }
}

/// `x.powf(y)` as a two-argument function pointer.
fn pow(x: f32, y: f32) -> f32 {
    x.powf(y)
}

/// GLSL `step`: 0 if `x < edge`, else 1.
fn step(edge: f32, x: f32) -> f32 {
    if x < edge {
        0.0
    } else {
        1.0
    }
}

/// GLSL `clamp`: `min(max(x, lo), hi)`; never panics, unlike `f32::clamp`.
fn clamp(x: f32, lo: f32, hi: f32) -> f32 {
    x.max(lo).min(hi)
}

/// `a + (b - a) * t`.
fn lerp(a: f32, b: f32, t: f32) -> f32 {
    a + (b - a) * t
}

/// GLSL `smoothstep`: Hermite interpolation of `x` between `e0` and `e1`.
fn smoothstep(e0: f32, e1: f32, x: f32) -> f32 {
    let t = clamp((x - e0) / (e1 - e0), 0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// A one-argument function.
const fn f1(name: &'static str, f: fn(f32) -> f32) -> Func {
    Func {
        name,
        kind: Kind::F1(f),
    }
}

/// A two-argument function.
const fn f2(name: &'static str, f: fn(f32, f32) -> f32) -> Func {
    Func {
        name,
        kind: Kind::F2(f),
    }
}

/// A three-argument function.
const fn f3(name: &'static str, f: fn(f32, f32, f32) -> f32) -> Func {
    Func {
        name,
        kind: Kind::F3(f),
    }
}

/// The built-in functions; a function's id is its index here.
pub(crate) const FUNCS: &[Func] = &[
    f1("sin", f32::sin),
    f1("cos", f32::cos),
    f1("tan", f32::tan),
    f1("asin", f32::asin),
    f1("acos", f32::acos),
    f1("atan", f32::atan),
    f1("sinh", f32::sinh),
    f1("cosh", f32::cosh),
    f1("tanh", f32::tanh),
    f1("sqrt", f32::sqrt),
    f1("abs", f32::abs),
    f1("floor", f32::floor),
    f1("ceil", f32::ceil),
    f1("round", f32::round),
    f1("trunc", f32::trunc),
    f1("fract", fract),
    f1("sign", sign),
    f1("exp", f32::exp),
    f1("exp2", f32::exp2),
    f1("log", f32::ln),
    f1("log2", f32::log2),
    f1("log10", f32::log10),
    f2("atan2", f32::atan2),
    f2("min", f32::min),
    f2("max", f32::max),
    f2("pow", pow),
    f2("hypot", f32::hypot),
    f2("step", step),
    f3("clamp", clamp),
    f3("lerp", lerp),
    f3("smoothstep", smoothstep),
];

/// The named constants.
pub(crate) const CONSTANTS: &[(&str, f32)] = &[
    ("pi", std::f32::consts::PI),
    ("tau", std::f32::consts::TAU),
    ("e", std::f32::consts::E),
];

/// The id of the function called `name`.
pub(crate) fn find_function(name: &str) -> Option<u32> {
    FUNCS
        .iter()
        .position(|f| f.name == name)
        .and_then(|i| u32::try_from(i).ok())
}

/// The function with id `id`.
pub(crate) fn function(id: u32) -> Option<&'static Func> {
    FUNCS.get(usize::try_from(id).ok()?)
}

/// The index of the constant called `name` in [`CONSTANTS`].
pub(crate) fn find_constant(name: &str) -> Option<usize> {
    CONSTANTS.iter().position(|(n, _)| *n == name)
}
