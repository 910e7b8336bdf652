//! The stack VM.

use crate::error::{Error, ErrorKind};
use crate::ops::{self, opcode, BinOp, Kind, DATA_BITS, DATA_MASK};

/// A reusable evaluation stack, so hot loops run without allocating.
///
/// A run grows it to the program's [`max_stack`](crate::Program::max_stack)
/// if it is smaller (the only allocation a run makes); reuse one `Stack`
/// across runs to allocate once.
#[derive(Debug, Clone, Default)]
pub struct Stack {
    slots: Vec<f32>,
}

impl Stack {
    /// Creates an empty stack; the first run sizes it.
    pub fn new() -> Self {
        Stack { slots: Vec::new() }
    }

    /// Creates a stack with room for `capacity` values.
    pub fn with_capacity(capacity: usize) -> Self {
        Stack {
            slots: vec![0.0; capacity],
        }
    }

    /// How many values the stack holds without growing.
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }

    /// Grows the stack to at least `size` values; returns exactly `size` slots.
    pub(crate) fn slots(&mut self, size: usize) -> &mut [f32] {
        if self.slots.len() < size {
            self.slots.resize(size, 0.0);
        }
        let len = self.slots.len();
        &mut self.slots[..size.min(len)]
    }
}

/// The error `kind` at the instruction before `rest` in `code`.
#[cold]
fn fault(code: &[u32], rest: &[u32], kind: ErrorKind) -> Error {
    Error::new((code.len() - rest.len()).saturating_sub(1), kind)
}

/// Runs `code` with variable values `vars` on `slots`; returns the top of the stack.
///
/// The top of the stack lives in a local; `slots[0]` receives the undefined
/// value below the first push, so a program of stack depth `d` uses `d` slots.
/// Every access is bounds-checked (an error, never a panic): validated code
/// never fails them, and for any other code the result is an error or some value.
#[inline]
pub(crate) fn exec(code: &[u32], vars: &[f32], slots: &mut [f32]) -> Result<f32, Error> {
    let mut sp = 0usize;
    let mut top = 0.0f32;
    let mut it = code.iter();
    macro_rules! push {
        ($value:expr) => {{
            let value = $value;
            match slots.get_mut(sp) {
                Some(slot) => *slot = top,
                None => return Err(fault(code, it.as_slice(), ErrorKind::StackOverflow)),
            }
            sp += 1;
            top = value;
        }};
    }
    macro_rules! pop {
        () => {{
            sp = sp.wrapping_sub(1);
            match slots.get(sp) {
                Some(&value) => value,
                None => return Err(fault(code, it.as_slice(), ErrorKind::StackUnderflow)),
            }
        }};
    }
    macro_rules! binary {
        ($op:expr) => {{
            let a = pop!();
            top = BinOp::apply($op, a, top);
        }};
    }
    while let Some(&w) = it.next() {
        let data = w & DATA_MASK;
        match (w >> DATA_BITS) as u8 {
            opcode::PUSH_CONST => match it.next() {
                Some(&bits) => push!(f32::from_bits(bits)),
                None => {
                    let kind = ErrorKind::InvalidBytecode("PUSH_CONST without its value");
                    return Err(fault(code, it.as_slice(), kind));
                }
            },
            opcode::LOAD_VAR => match vars.get(data as usize) {
                Some(&value) => push!(value),
                None => {
                    let kind = ErrorKind::InvalidBytecode("variable index out of range");
                    return Err(fault(code, it.as_slice(), kind));
                }
            },
            opcode::NEG => top = -top,
            opcode::ADD => binary!(BinOp::Add),
            opcode::SUB => binary!(BinOp::Sub),
            opcode::MUL => binary!(BinOp::Mul),
            opcode::DIV => binary!(BinOp::Div),
            opcode::POW => binary!(BinOp::Pow),
            opcode::CALL => match ops::function(data).map(|f| f.kind) {
                Some(Kind::F1(f)) => top = f(top),
                Some(Kind::F2(f)) => {
                    let a = pop!();
                    top = f(a, top);
                }
                Some(Kind::F3(f)) => {
                    let b = pop!();
                    let a = pop!();
                    top = f(a, b, top);
                }
                None => {
                    let kind = ErrorKind::InvalidBytecode("unknown function id");
                    return Err(fault(code, it.as_slice(), kind));
                }
            },
            _ => {
                let kind = ErrorKind::InvalidBytecode("unknown opcode");
                return Err(fault(code, it.as_slice(), kind));
            }
        }
    }
    if sp == 0 {
        return Err(Error::new(code.len(), ErrorKind::StackUnderflow));
    }
    Ok(top)
}
