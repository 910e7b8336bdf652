//! The shunting-yard parser: tokens to reverse Polish notation.
//!
//! Precedence, lowest first: binary `+ -` (left), `* /` (left), unary minus,
//! `^` (right). A unary minus right after `^` belongs to the exponent, so
//! `-x^2` is `-(x^2)` and `2^-1` is `2^(-1)`.

use crate::error::{Error, ErrorKind};
use crate::lexer::{Tok, Token};
use crate::ops::{self, BinOp, CONSTANTS};
use crate::MAX_DEPTH;
use std::collections::HashMap;

/// One token of the reverse Polish form.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Rpn {
    /// A number literal: its value and byte span in the source.
    Number {
        value: f32,
        start: usize,
        end: usize,
    },
    /// A variable by index.
    Var(u32),
    /// A named constant by index into [`CONSTANTS`].
    Const(usize),
    /// Unary minus.
    Neg,
    /// A binary operator.
    Bin(BinOp),
    /// A function call by function id.
    Call(u32),
}

/// An open function call on the operator stack.
#[derive(Debug, Clone, Copy)]
struct Call {
    func: u32,
    name_pos: usize,
    /// Commas seen so far at this call's level.
    commas: usize,
}

/// An entry of the operator stack.
#[derive(Debug, Clone, Copy)]
enum Op {
    Neg,
    Bin(BinOp),
    /// `(` at `pos`, of a function call or plain grouping.
    Paren {
        pos: usize,
        call: Option<Call>,
    },
}

/// Binding strength of unary minus.
const NEG_PREC: u8 = 3;

/// Binding strength of a binary operator.
fn precedence(op: BinOp) -> u8 {
    match op {
        BinOp::Add | BinOp::Sub => 1,
        BinOp::Mul | BinOp::Div => 2,
        BinOp::Pow => 4,
    }
}

/// Converts `tokens` of `source` to reverse Polish notation, resolving names
/// against `variables` (name to index), the constants and the functions.
pub(crate) fn to_rpn(
    source: &str,
    tokens: &[Token],
    variables: &HashMap<&str, u32>,
) -> Result<Vec<Rpn>, Error> {
    let mut out = Vec::with_capacity(tokens.len());
    let mut ops: Vec<Op> = Vec::new();
    let mut depth = 0usize;
    let mut expect_operand = true;
    let mut i = 0;
    while let Some(token) = tokens.get(i) {
        i += 1;
        let pos = token.start;
        let unexpected = || {
            Error::new(
                pos,
                ErrorKind::UnexpectedToken(token.text(source).to_string()),
            )
        };
        match token.tok {
            Tok::Number(value) => {
                if !expect_operand {
                    return Err(unexpected());
                }
                out.push(Rpn::Number {
                    value,
                    start: token.start,
                    end: token.end,
                });
                expect_operand = false;
            }
            Tok::Ident => {
                if !expect_operand {
                    return Err(unexpected());
                }
                let name = token.text(source);
                let called = tokens.get(i).is_some_and(|t| t.tok == Tok::LParen);
                let var = variables.get(name).copied();
                let constant = ops::find_constant(name);
                let func = ops::find_function(name);
                let name_err =
                    |kind: fn(String) -> ErrorKind| Error::new(pos, kind(name.to_string()));
                if called {
                    let Some(func) = func else {
                        return Err(name_err(if var.is_some() || constant.is_some() {
                            ErrorKind::NotAFunction
                        } else {
                            ErrorKind::UnknownName
                        }));
                    };
                    let paren_pos = tokens.get(i).map_or(pos, |t| t.start);
                    i += 1;
                    open_paren(&mut ops, &mut depth, paren_pos)?;
                    if let Some(Op::Paren { call, .. }) = ops.last_mut() {
                        *call = Some(Call {
                            func,
                            name_pos: pos,
                            commas: 0,
                        });
                    }
                    // Still expecting the first argument.
                } else {
                    if let Some(index) = var {
                        out.push(Rpn::Var(index));
                    } else if let Some(index) = constant {
                        out.push(Rpn::Const(index));
                    } else if func.is_some() {
                        return Err(name_err(ErrorKind::MissingCall));
                    } else {
                        return Err(name_err(ErrorKind::UnknownName));
                    }
                    expect_operand = false;
                }
            }
            Tok::Minus if expect_operand => ops.push(Op::Neg),
            Tok::Plus | Tok::Minus | Tok::Star | Tok::Slash | Tok::Caret => {
                if expect_operand {
                    return Err(unexpected());
                }
                let op = match token.tok {
                    Tok::Plus => BinOp::Add,
                    Tok::Minus => BinOp::Sub,
                    Tok::Star => BinOp::Mul,
                    Tok::Slash => BinOp::Div,
                    _ => BinOp::Pow,
                };
                let prec = precedence(op);
                let right_assoc = op == BinOp::Pow;
                while let Some(&top) = ops.last() {
                    let (item, top_prec) = match top {
                        Op::Neg => (Rpn::Neg, NEG_PREC),
                        Op::Bin(b) => (Rpn::Bin(b), precedence(b)),
                        Op::Paren { .. } => break,
                    };
                    if top_prec > prec || (top_prec == prec && !right_assoc) {
                        out.push(item);
                        ops.pop();
                    } else {
                        break;
                    }
                }
                ops.push(Op::Bin(op));
                expect_operand = true;
            }
            Tok::LParen => {
                if !expect_operand {
                    return Err(unexpected());
                }
                open_paren(&mut ops, &mut depth, pos)?;
            }
            Tok::Comma => {
                if expect_operand {
                    return Err(unexpected());
                }
                pop_to_paren(&mut ops, &mut out);
                match ops.last_mut() {
                    Some(Op::Paren {
                        call: Some(call), ..
                    }) => call.commas += 1,
                    _ => return Err(unexpected()),
                }
                expect_operand = true;
            }
            Tok::RParen => {
                if expect_operand {
                    // `f()` is a call with no arguments; anything else is an error.
                    return Err(match ops.last() {
                        Some(Op::Paren {
                            call: Some(call), ..
                        }) if call.commas == 0 => arity_error(call, 0),
                        _ if !ops.iter().any(|op| matches!(op, Op::Paren { .. })) => {
                            Error::new(pos, ErrorKind::UnbalancedParen)
                        }
                        _ => unexpected(),
                    });
                }
                pop_to_paren(&mut ops, &mut out);
                let Some(Op::Paren { call, .. }) = ops.pop() else {
                    return Err(Error::new(pos, ErrorKind::UnbalancedParen));
                };
                depth = depth.saturating_sub(1);
                if let Some(call) = call {
                    let found = call.commas + 1;
                    if ops::function(call.func).is_none_or(|f| f.arity() != found) {
                        return Err(arity_error(&call, found));
                    }
                    out.push(Rpn::Call(call.func));
                }
            }
        }
    }
    if expect_operand {
        return Err(if tokens.is_empty() {
            Error::new(0, ErrorKind::EmptyInput)
        } else {
            Error::new(source.len(), ErrorKind::UnexpectedEnd)
        });
    }
    while let Some(op) = ops.pop() {
        match op {
            Op::Neg => out.push(Rpn::Neg),
            Op::Bin(b) => out.push(Rpn::Bin(b)),
            Op::Paren { pos, .. } => return Err(Error::new(pos, ErrorKind::UnbalancedParen)),
        }
    }
    Ok(out)
}

/// Pushes a `(` at `pos`, enforcing the nesting limit.
fn open_paren(ops: &mut Vec<Op>, depth: &mut usize, pos: usize) -> Result<(), Error> {
    if *depth >= MAX_DEPTH {
        return Err(Error::new(pos, ErrorKind::TooDeep { limit: MAX_DEPTH }));
    }
    *depth += 1;
    ops.push(Op::Paren { pos, call: None });
    Ok(())
}

/// Moves operators to the output until the innermost `(` (left on the stack).
fn pop_to_paren(ops: &mut Vec<Op>, out: &mut Vec<Rpn>) {
    while let Some(&top) = ops.last() {
        match top {
            Op::Neg => out.push(Rpn::Neg),
            Op::Bin(b) => out.push(Rpn::Bin(b)),
            Op::Paren { .. } => return,
        }
        ops.pop();
    }
}

/// The arity error of `call` given `found` arguments.
fn arity_error(call: &Call, found: usize) -> Error {
    let (name, expected) = ops::function(call.func).map_or(("?", 0), |f| (f.name, f.arity()));
    Error::new(
        call.name_pos,
        ErrorKind::WrongArity {
            name: name.to_string(),
            expected,
            found,
        },
    )
}

/// Renders `rpn` as space-separated text: numbers as written in `source`,
/// unary minus as `neg`, names as is.
pub(crate) fn render(rpn: &[Rpn], source: &str, variables: &[&str]) -> String {
    let mut text = String::new();
    for (n, item) in rpn.iter().enumerate() {
        if n > 0 {
            text.push(' ');
        }
        let part = match *item {
            Rpn::Number { start, end, .. } => source.get(start..end).unwrap_or("?"),
            Rpn::Var(i) => usize::try_from(i)
                .ok()
                .and_then(|i| variables.get(i))
                .copied()
                .unwrap_or("?"),
            Rpn::Const(i) => CONSTANTS.get(i).map_or("?", |c| c.0),
            Rpn::Neg => "neg",
            Rpn::Bin(op) => op.symbol(),
            Rpn::Call(id) => ops::function(id).map_or("?", |f| f.name),
        };
        text.push_str(part);
    }
    text
}
