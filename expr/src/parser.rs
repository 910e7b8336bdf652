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
    let mut yard = Yard {
        source,
        variables,
        out: Vec::with_capacity(tokens.len()),
        ops: Vec::new(),
        depth: 0,
        expect_operand: true,
    };
    let mut i = 0;
    while let Some(token) = tokens.get(i) {
        i += 1;
        match token.tok {
            Tok::Number(value) => yard.number(token, value)?,
            Tok::Ident => {
                let paren = tokens.get(i).filter(|t| t.tok == Tok::LParen);
                yard.name(token, paren)?;
                i += usize::from(paren.is_some()); // the call's `(`
            }
            Tok::Minus if yard.expect_operand => yard.ops.push(Op::Neg),
            Tok::Plus => yard.binary(token, BinOp::Add)?,
            Tok::Minus => yard.binary(token, BinOp::Sub)?,
            Tok::Star => yard.binary(token, BinOp::Mul)?,
            Tok::Slash => yard.binary(token, BinOp::Div)?,
            Tok::Caret => yard.binary(token, BinOp::Pow)?,
            Tok::LParen => {
                yard.operand_expected(token)?;
                yard.open_paren(token.start, None)?;
            }
            Tok::Comma => yard.comma(token)?,
            Tok::RParen => yard.close_paren(token)?,
        }
    }
    yard.finish(tokens.is_empty())
}

/// The state of the shunting yard: the output so far and the operator stack.
struct Yard<'s, 'v> {
    source: &'s str,
    variables: &'v HashMap<&'v str, u32>,
    out: Vec<Rpn>,
    ops: Vec<Op>,
    /// Open parentheses.
    depth: usize,
    /// Whether the next token must start an operand.
    expect_operand: bool,
}

impl Yard<'_, '_> {
    /// The error for `token` where it stands.
    fn unexpected(&self, token: &Token) -> Error {
        Error::new(
            token.start,
            ErrorKind::UnexpectedToken(token.text(self.source).to_string()),
        )
    }

    /// Refuses `token` unless an operand may start here.
    fn operand_expected(&self, token: &Token) -> Result<(), Error> {
        if self.expect_operand {
            Ok(())
        } else {
            Err(self.unexpected(token))
        }
    }

    /// Refuses `token` unless an operand has just ended here.
    fn operator_expected(&self, token: &Token) -> Result<(), Error> {
        if self.expect_operand {
            Err(self.unexpected(token))
        } else {
            Ok(())
        }
    }

    /// Pushes a `(` at `pos` (opening `call`, if any), enforcing the nesting limit.
    fn open_paren(&mut self, pos: usize, call: Option<Call>) -> Result<(), Error> {
        if self.depth >= MAX_DEPTH {
            return Err(Error::new(pos, ErrorKind::TooDeep { limit: MAX_DEPTH }));
        }
        self.depth += 1;
        self.ops.push(Op::Paren { pos, call });
        Ok(())
    }

    /// Moves operators to the output until the innermost `(` (left on the stack).
    fn pop_to_paren(&mut self) {
        while let Some(&top) = self.ops.last() {
            match top {
                Op::Neg => self.out.push(Rpn::Neg),
                Op::Bin(b) => self.out.push(Rpn::Bin(b)),
                Op::Paren { .. } => return,
            }
            self.ops.pop();
        }
    }

    fn number(&mut self, token: &Token, value: f32) -> Result<(), Error> {
        self.operand_expected(token)?;
        self.out.push(Rpn::Number {
            value,
            start: token.start,
            end: token.end,
        });
        self.expect_operand = false;
        Ok(())
    }

    /// A name: a variable or a constant, or a function called with the `(` that follows
    /// (`paren`, then taken).
    fn name(&mut self, token: &Token, paren: Option<&Token>) -> Result<(), Error> {
        self.operand_expected(token)?;
        let pos = token.start;
        let name = token.text(self.source);
        let var = self.variables.get(name).copied();
        let constant = ops::find_constant(name);
        let func = ops::find_function(name);
        let name_err = |kind: fn(String) -> ErrorKind| Error::new(pos, kind(name.to_string()));
        if let Some(paren) = paren {
            let Some(func) = func else {
                return Err(name_err(if var.is_some() || constant.is_some() {
                    ErrorKind::NotAFunction
                } else {
                    ErrorKind::UnknownName
                }));
            };
            let call = Call {
                func,
                name_pos: pos,
                commas: 0,
            };
            // Still expecting the first argument.
            return self.open_paren(paren.start, Some(call));
        }
        let item = match (var, constant) {
            (Some(index), _) => Rpn::Var(index),
            (None, Some(index)) => Rpn::Const(index),
            (None, None) if func.is_some() => return Err(name_err(ErrorKind::MissingCall)),
            (None, None) => return Err(name_err(ErrorKind::UnknownName)),
        };
        self.out.push(item);
        self.expect_operand = false;
        Ok(())
    }

    /// A binary operator: the operators it binds less tightly than go to the output.
    fn binary(&mut self, token: &Token, op: BinOp) -> Result<(), Error> {
        self.operator_expected(token)?;
        let prec = precedence(op);
        let right_assoc = op == BinOp::Pow;
        while let Some(&top) = self.ops.last() {
            let (item, top_prec) = match top {
                Op::Neg => (Rpn::Neg, NEG_PREC),
                Op::Bin(b) => (Rpn::Bin(b), precedence(b)),
                Op::Paren { .. } => break,
            };
            if top_prec > prec || (top_prec == prec && !right_assoc) {
                self.out.push(item);
                self.ops.pop();
            } else {
                break;
            }
        }
        self.ops.push(Op::Bin(op));
        self.expect_operand = true;
        Ok(())
    }

    /// A `,` between the arguments of a call.
    fn comma(&mut self, token: &Token) -> Result<(), Error> {
        self.operator_expected(token)?;
        self.pop_to_paren();
        match self.ops.last_mut() {
            Some(Op::Paren {
                call: Some(call), ..
            }) => call.commas += 1,
            _ => return Err(self.unexpected(token)),
        }
        self.expect_operand = true;
        Ok(())
    }

    /// A `)`: closes a grouping, or a call (checking its number of arguments).
    fn close_paren(&mut self, token: &Token) -> Result<(), Error> {
        let pos = token.start;
        if self.expect_operand {
            // `f()` is a call with no arguments; anything else is an error.
            return Err(match self.ops.last() {
                Some(Op::Paren {
                    call: Some(call), ..
                }) if call.commas == 0 => arity_error(call, 0),
                _ if !self.ops.iter().any(|op| matches!(op, Op::Paren { .. })) => {
                    Error::new(pos, ErrorKind::UnbalancedParen)
                }
                _ => self.unexpected(token),
            });
        }
        self.pop_to_paren();
        let Some(Op::Paren { call, .. }) = self.ops.pop() else {
            return Err(Error::new(pos, ErrorKind::UnbalancedParen));
        };
        self.depth = self.depth.saturating_sub(1);
        if let Some(call) = call {
            let found = call.commas + 1;
            if ops::function(call.func).is_none_or(|f| f.arity() != found) {
                return Err(arity_error(&call, found));
            }
            self.out.push(Rpn::Call(call.func));
        }
        Ok(())
    }

    /// The end of the input: the operators left go to the output.
    fn finish(mut self, no_tokens: bool) -> Result<Vec<Rpn>, Error> {
        if self.expect_operand {
            return Err(if no_tokens {
                Error::new(0, ErrorKind::EmptyInput)
            } else {
                Error::new(self.source.len(), ErrorKind::UnexpectedEnd)
            });
        }
        while let Some(op) = self.ops.pop() {
            match op {
                Op::Neg => self.out.push(Rpn::Neg),
                Op::Bin(b) => self.out.push(Rpn::Bin(b)),
                Op::Paren { pos, .. } => return Err(Error::new(pos, ErrorKind::UnbalancedParen)),
            }
        }
        Ok(self.out)
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
