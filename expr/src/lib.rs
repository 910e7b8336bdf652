//! The tiny expression language that game artists write into assets.
//!
//! One-line `f32` expressions such as `sin(t) + 0.1 * cos(10 * t)`:
//!
//! - numbers: `1`, `2.5`, `.5`, `1.`, `1e-3` (a literal that overflows `f32` is an error);
//! - variables declared by the caller, constants `pi`, `tau`, `e`;
//! - functions with fixed arities (see [`functions`]);
//! - `+ - * /`, unary minus, `^` and parentheses. Precedence, lowest first:
//!   binary `+ -` (left associative), `* /` (left), unary minus, `^` (right).
//!   So `-x^2` is `-(x^2)`, `2^3^2` is `2^9`, and a minus right after `^`
//!   negates the exponent: `2^-1` is `0.5`.
//!
//! Variable names are `[A-Za-z_][A-Za-z0-9_]*`, distinct, and may not be the
//! name of a function or constant: such a variable list is a compile error,
//! so a name in an expression always means one thing.
//!
//! [`compile`] tokenizes, converts to RPN with a shunting-yard, emits
//! bytecode (see [`opcode`]) and folds constant subexpressions; a
//! [`Program`] runs on a reusable [`Stack`] without allocating.
//!
//! ```
//! let program = expr::compile("sin(t) + 0.1 * cos(10 * t)", &["t"]).unwrap();
//! assert_eq!(program.rpn(), "t sin 0.1 10 t * cos * +");
//! let mut stack = expr::Stack::new();
//! let value = program.run(&[0.5], &mut stack).unwrap();
//! assert_eq!(value, 0.5f32.sin() + 0.1 * (10.0 * 0.5f32).cos());
//! ```

#![warn(missing_docs)]
#![forbid(unsafe_code)]

mod codegen;
mod error;
mod lexer;
mod ops;
mod parser;
mod program;
mod vm;

#[cfg(test)]
mod tests;

pub use error::{Error, ErrorKind};
pub use ops::opcode;
pub use program::Program;
pub use vm::Stack;

use std::collections::HashMap;

/// The maximum source length in bytes.
pub const MAX_SOURCE_LEN: usize = 1 << 16;
/// The maximum nesting depth of parentheses (function calls included).
pub const MAX_DEPTH: usize = 256;
/// The maximum number of declared variables.
pub const MAX_VARIABLES: usize = 1 << 16;
/// The maximum number of bytecode words a program may have.
pub const MAX_WORDS: usize = 1 << 20;

/// Compiles `source` over `variables` (a run takes their values in this order).
///
/// Errors carry the byte position in `source`; errors in `variables` have position 0.
pub fn compile(source: &str, variables: &[&str]) -> Result<Program, Error> {
    let names = check_variables(variables)?;
    if source.len() > MAX_SOURCE_LEN {
        let kind = ErrorKind::TooLong {
            limit: MAX_SOURCE_LEN,
        };
        return Err(Error::new(MAX_SOURCE_LEN, kind));
    }
    let tokens = lexer::tokenize(source)?;
    let rpn = parser::to_rpn(source, &tokens, &names)?;
    let words = codegen::generate(&rpn);
    Program::build(words, variables, parser::render(&rpn, source, variables))
}

/// The built-in functions as `(name, arity)`, in function-id order.
pub fn functions() -> impl Iterator<Item = (&'static str, usize)> {
    ops::FUNCS.iter().map(|f| (f.name, f.arity()))
}

/// The named constants as `(name, value)`.
pub fn constants() -> impl Iterator<Item = (&'static str, f32)> {
    ops::CONSTANTS.iter().copied()
}

/// Checks a variable list; returns each name's index.
pub(crate) fn check_variables<'a>(variables: &[&'a str]) -> Result<HashMap<&'a str, u32>, Error> {
    if variables.len() > MAX_VARIABLES {
        let kind = ErrorKind::TooManyVariables {
            limit: MAX_VARIABLES,
        };
        return Err(Error::new(0, kind));
    }
    let mut names = HashMap::with_capacity(variables.len());
    for (index, &name) in (0u32..).zip(variables) {
        let kind = if !lexer::is_identifier(name) {
            ErrorKind::InvalidVariableName
        } else if ops::find_function(name).is_some() || ops::find_constant(name).is_some() {
            ErrorKind::ReservedVariableName
        } else if names.insert(name, index).is_some() {
            ErrorKind::DuplicateVariable
        } else {
            continue;
        };
        return Err(Error::new(0, kind(name.to_string())));
    }
    Ok(names)
}
