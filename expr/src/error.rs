//! Errors of compiling and running expressions.

use std::fmt;

/// An error with the byte position where it was found and what went wrong.
///
/// `position` is a byte offset into the source for compile errors, the word
/// offset into the bytecode for bytecode and stack errors, and 0 for errors in
/// the variable list or the number of values passed to a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// Byte offset into the source (see the type's documentation for the other cases).
    pub position: usize,
    /// What went wrong.
    pub kind: ErrorKind,
}

/// What went wrong; `Display` gives the reason without the position.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The source is empty or only whitespace.
    EmptyInput,
    /// A character that starts no token.
    UnexpectedChar(char),
    /// A malformed number literal, or one that overflows `f32` to infinity.
    InvalidNumber(String),
    /// A name that is no declared variable, constant or function.
    UnknownName(String),
    /// A variable or constant followed by `(`.
    NotAFunction(String),
    /// A function name not followed by `(`.
    MissingCall(String),
    /// A function called with the wrong number of arguments.
    WrongArity {
        /// The function's name.
        name: String,
        /// How many arguments it takes.
        expected: usize,
        /// How many it was given.
        found: usize,
    },
    /// A `(` without its `)`, or a `)` without its `(`.
    UnbalancedParen,
    /// A token where it cannot stand (the token's text), e.g. trailing garbage.
    UnexpectedToken(String),
    /// The source ends where an operand is needed.
    UnexpectedEnd,
    /// Parentheses nested deeper than the limit.
    TooDeep {
        /// The maximum nesting depth.
        limit: usize,
    },
    /// A source longer than the limit, in bytes.
    TooLong {
        /// The maximum source length in bytes.
        limit: usize,
    },
    /// A declared variable name that is not `[A-Za-z_][A-Za-z0-9_]*`.
    InvalidVariableName(String),
    /// A declared variable named like a function or constant.
    ReservedVariableName(String),
    /// A variable declared twice.
    DuplicateVariable(String),
    /// More declared variables than the limit.
    TooManyVariables {
        /// The maximum number of variables.
        limit: usize,
    },
    /// Bytecode given to `Program::from_words` that does not validate.
    InvalidBytecode(&'static str),
    /// The VM stack would grow past its size (cannot happen for validated programs).
    StackOverflow,
    /// An instruction found too few operands (cannot happen for validated programs).
    StackUnderflow,
    /// A run was given the wrong number of variable values.
    WrongVariableCount {
        /// How many values the program needs.
        expected: usize,
        /// How many were given.
        found: usize,
    },
}

impl Error {
    /// Creates an error of `kind` at `position`.
    pub fn new(position: usize, kind: ErrorKind) -> Self {
        Error { position, kind }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.position, self.kind)
    }
}

impl std::error::Error for Error {}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::EmptyInput => f.write_str("empty expression"),
            ErrorKind::UnexpectedChar(c) => write!(f, "unexpected character {c:?}"),
            ErrorKind::InvalidNumber(text) => write!(f, "invalid number '{text}'"),
            ErrorKind::UnknownName(name) => write!(f, "unknown name '{name}'"),
            ErrorKind::NotAFunction(name) => write!(f, "'{name}' is not a function"),
            ErrorKind::MissingCall(name) => {
                write!(f, "function '{name}' needs arguments in parentheses")
            }
            ErrorKind::WrongArity {
                name,
                expected,
                found,
            } => {
                let s = if *expected == 1 { "" } else { "s" };
                write!(f, "'{name}' takes {expected} argument{s}, found {found}")
            }
            ErrorKind::UnbalancedParen => f.write_str("unbalanced parenthesis"),
            ErrorKind::UnexpectedToken(text) => write!(f, "unexpected '{text}'"),
            ErrorKind::UnexpectedEnd => f.write_str("unexpected end of expression"),
            ErrorKind::TooDeep { limit } => {
                write!(f, "parentheses nested deeper than {limit} levels")
            }
            ErrorKind::TooLong { limit } => write!(f, "expression longer than {limit} bytes"),
            ErrorKind::InvalidVariableName(name) => {
                write!(f, "invalid variable name '{name}'")
            }
            ErrorKind::ReservedVariableName(name) => {
                write!(f, "variable '{name}' is named like a function or constant")
            }
            ErrorKind::DuplicateVariable(name) => write!(f, "variable '{name}' declared twice"),
            ErrorKind::TooManyVariables { limit } => {
                write!(f, "more than {limit} variables")
            }
            ErrorKind::InvalidBytecode(reason) => write!(f, "invalid bytecode: {reason}"),
            ErrorKind::StackOverflow => f.write_str("stack overflow"),
            ErrorKind::StackUnderflow => f.write_str("stack underflow"),
            ErrorKind::WrongVariableCount { expected, found } => {
                write!(f, "expected {expected} variable values, found {found}")
            }
        }
    }
}
