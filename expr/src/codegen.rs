//! Bytecode generation with constant folding.

use crate::ops::{self, opcode, word, BinOp, CONSTANTS};
use crate::parser::Rpn;

/// Emits bytecode for well-formed `rpn`, folding every operator and function
/// whose arguments are all constants into a single `PUSH_CONST`.
///
/// Folding computes with the same functions as the VM, so results match bit
/// for bit. Malformed `rpn` yields bytecode that fails validation.
pub(crate) fn generate(rpn: &[Rpn]) -> Vec<u32> {
    let mut gen = Gen {
        code: Vec::with_capacity(rpn.len() * 2),
        known: Vec::new(),
    };
    for item in rpn {
        match *item {
            Rpn::Number { value, .. } => gen.push_const(value),
            Rpn::Const(i) => gen.push_const(CONSTANTS.get(i).map_or(f32::NAN, |c| c.1)),
            Rpn::Var(index) => {
                gen.code.push(word(opcode::LOAD_VAR, index));
                gen.known.push(None);
            }
            Rpn::Neg => gen.apply(1, word(opcode::NEG, 0), |args| match args {
                &[x] => Some(-x),
                _ => None,
            }),
            Rpn::Bin(op) => gen.apply(2, word(op.opcode(), 0), |args| match args {
                &[a, b] => Some(BinOp::apply(op, a, b)),
                _ => None,
            }),
            Rpn::Call(id) => {
                let arity = ops::function(id).map_or(0, |f| f.arity());
                gen.apply(arity, word(opcode::CALL, id), |args| {
                    ops::function(id).and_then(|f| f.apply(args))
                });
            }
        }
    }
    gen.code
}

/// The generator's state.
struct Gen {
    code: Vec<u32>,
    /// The compile-time stack: the value of each entry that is a constant.
    ///
    /// A constant entry is always exactly the 2-word `PUSH_CONST` that made
    /// it, and the entries on top are the last code emitted, so the last `n`
    /// constant entries are the last `2 * n` words.
    known: Vec<Option<f32>>,
}

impl Gen {
    /// Emits a push of `value`.
    fn push_const(&mut self, value: f32) {
        self.code.push(word(opcode::PUSH_CONST, 0));
        self.code.push(value.to_bits());
        self.known.push(Some(value));
    }

    /// Emits `instruction`, which pops `arity` entries and pushes one, or
    /// folds it with `fold` if those entries are all constants.
    fn apply(&mut self, arity: usize, instruction: u32, fold: impl Fn(&[f32]) -> Option<f32>) {
        let base = self.known.len().saturating_sub(arity);
        let mut args = [0.0f32; 3];
        let all_known = (1..=args.len()).contains(&arity)
            && self.known.len() >= arity
            && self.known.get(base..).is_some_and(|top| {
                top.iter()
                    .zip(args.iter_mut())
                    .all(|(k, a)| k.map(|v| *a = v).is_some())
            });
        if let Some(value) = args.get(..arity).filter(|_| all_known).and_then(fold) {
            self.code
                .truncate(self.code.len().saturating_sub(2 * arity));
            self.known.truncate(base);
            self.push_const(value);
            return;
        }
        self.code.push(instruction);
        self.known.truncate(base);
        self.known.push(None);
    }
}
