//! A compiled program: validated bytecode plus what is needed to run and show it.

use crate::error::{Error, ErrorKind};
use crate::ops::{self, opcode, DATA_BITS, DATA_MASK};
use crate::vm::{self, Stack};
use crate::{check_variables, MAX_WORDS};
use std::fmt::Write as _;

/// A compiled expression: validated bytecode, its variables and its RPN text.
#[derive(Debug, Clone)]
pub struct Program {
    words: Vec<u32>,
    variables: Vec<String>,
    max_stack: usize,
    constant: Option<f32>,
    rpn: String,
}

/// One decoded instruction: its offset, opcode, data and constant (for `PUSH_CONST`).
struct Instr {
    offset: usize,
    op: u8,
    data: u32,
    value: f32,
}

/// Decodes `words`, stopping at the first incomplete `PUSH_CONST`.
fn decode(words: &[u32]) -> impl Iterator<Item = Result<Instr, Error>> + '_ {
    let mut offset = 0;
    std::iter::from_fn(move || {
        let w = *words.get(offset)?;
        let op = (w >> DATA_BITS) as u8;
        let data = w & DATA_MASK;
        let at = offset;
        offset += 1;
        let mut value = 0.0;
        if op == opcode::PUSH_CONST {
            match words.get(offset) {
                Some(&bits) => value = f32::from_bits(bits),
                None => {
                    let kind = ErrorKind::InvalidBytecode("PUSH_CONST without its value");
                    return Some(Err(Error::new(at, kind)));
                }
            }
            offset += 1;
        }
        Some(Ok(Instr {
            offset: at,
            op,
            data,
            value,
        }))
    })
}

/// Checks that `words` is a program over `n_vars` variables that leaves exactly
/// one value on the stack; returns its maximum stack depth.
fn validate(words: &[u32], n_vars: usize) -> Result<usize, Error> {
    let invalid =
        |at: usize, reason: &'static str| Error::new(at, ErrorKind::InvalidBytecode(reason));
    if words.is_empty() {
        return Err(invalid(0, "empty program"));
    }
    if words.len() > MAX_WORDS {
        return Err(invalid(0, "program too long"));
    }
    let mut depth = 0usize;
    let mut max = 0usize;
    for instr in decode(words) {
        let Instr {
            offset, op, data, ..
        } = instr?;
        let pops = match op {
            opcode::PUSH_CONST => 0,
            opcode::LOAD_VAR if (data as usize) < n_vars => 0,
            opcode::LOAD_VAR => return Err(invalid(offset, "variable index out of range")),
            opcode::NEG => 1,
            opcode::ADD | opcode::SUB | opcode::MUL | opcode::DIV | opcode::POW => 2,
            opcode::CALL => match ops::function(data) {
                Some(f) => f.arity(),
                None => return Err(invalid(offset, "unknown function id")),
            },
            _ => return Err(invalid(offset, "unknown opcode")),
        };
        if data != 0 && !matches!(op, opcode::LOAD_VAR | opcode::CALL) {
            return Err(invalid(offset, "nonzero data"));
        }
        depth = depth
            .checked_sub(pops)
            .ok_or(Error::new(offset, ErrorKind::StackUnderflow))?
            + 1;
        max = max.max(depth);
    }
    if depth != 1 {
        return Err(invalid(words.len(), "program must leave exactly one value"));
    }
    Ok(max)
}

impl Program {
    /// Validates `words` and builds the program (`rpn` is its RPN text).
    pub(crate) fn build(
        words: Vec<u32>,
        variables: &[&str],
        rpn: String,
    ) -> Result<Program, Error> {
        let max_stack = validate(&words, variables.len())?;
        let constant = match words.as_slice() {
            &[w, bits] if w >> DATA_BITS == u32::from(opcode::PUSH_CONST) => {
                Some(f32::from_bits(bits))
            }
            _ => None,
        };
        Ok(Program {
            words,
            variables: variables.iter().map(|v| v.to_string()).collect(),
            max_stack,
            constant,
            rpn,
        })
    }

    /// Builds a program from bytecode words (e.g. [`words`](Self::words) of a
    /// compiled program) over `variables`, validating it; its
    /// [`rpn`](Self::rpn) is rendered from the bytecode.
    pub fn from_words(words: &[u32], variables: &[&str]) -> Result<Program, Error> {
        check_variables(variables)?;
        validate(words, variables.len())?;
        let mut rpn = String::new();
        for instr in decode(words) {
            let instr = instr?;
            if !rpn.is_empty() {
                rpn.push(' ');
            }
            let name = match instr.op {
                opcode::PUSH_CONST => {
                    let _ = write!(rpn, "{}", instr.value);
                    continue;
                }
                opcode::LOAD_VAR => variables.get(instr.data as usize).copied(),
                opcode::NEG => Some("neg"),
                opcode::ADD => Some("+"),
                opcode::SUB => Some("-"),
                opcode::MUL => Some("*"),
                opcode::DIV => Some("/"),
                opcode::POW => Some("^"),
                _ => ops::function(instr.data).map(|f| f.name),
            };
            rpn.push_str(name.unwrap_or("?"));
        }
        Program::build(words.to_vec(), variables, rpn)
    }

    /// Evaluates the program with `values`, one per variable in declaration order.
    ///
    /// Allocates only if `stack` is smaller than [`max_stack`](Self::max_stack).
    /// Fails with `WrongVariableCount` if `values` has the wrong length.
    pub fn run(&self, values: &[f32], stack: &mut Stack) -> Result<f32, Error> {
        if values.len() != self.variables.len() {
            return Err(self.count_error(values.len()));
        }
        if let Some(value) = self.constant {
            return Ok(value);
        }
        vm::exec(&self.words, values, stack.slots(self.max_stack))
    }

    /// Evaluates the program once per row of `rows` (row-major, one value per
    /// variable per row) into the same index of `out`.
    ///
    /// `rows.len()` must be `out.len()` times the number of variables
    /// (`WrongVariableCount` otherwise); with no variables `rows` is empty and
    /// every element of `out` gets the value. Allocates as [`run`](Self::run) does.
    pub fn run_batch(&self, rows: &[f32], out: &mut [f32], stack: &mut Stack) -> Result<(), Error> {
        let n = self.variables.len();
        let expected = out.len().saturating_mul(n);
        if rows.len() != expected {
            return Err(Error::new(
                0,
                ErrorKind::WrongVariableCount {
                    expected,
                    found: rows.len(),
                },
            ));
        }
        if let Some(value) = self.constant {
            out.fill(value);
            return Ok(());
        }
        if n == 0 {
            let value = vm::exec(&self.words, &[], stack.slots(self.max_stack))?;
            out.fill(value);
            return Ok(());
        }
        let slots = stack.slots(self.max_stack);
        for (row, value) in rows.chunks_exact(n).zip(out.iter_mut()) {
            *value = vm::exec(&self.words, row, slots)?;
        }
        Ok(())
    }

    /// The value of a program that folded to one constant, so callers can skip the VM.
    pub fn constant(&self) -> Option<f32> {
        self.constant
    }

    /// The RPN text of the source before folding, e.g. `t sin 0.1 10 t * cos * +`.
    pub fn rpn(&self) -> String {
        self.rpn.clone()
    }

    /// The bytecode, one instruction per line: word offset, mnemonic, operand.
    pub fn disassemble(&self) -> String {
        let mut text = String::new();
        for instr in decode(&self.words) {
            let Ok(Instr {
                offset,
                op,
                data,
                value,
            }) = instr
            else {
                break;
            };
            let _ = write!(text, "{offset:04}  ");
            let _ = match op {
                opcode::PUSH_CONST => write!(text, "PUSH_CONST {value}"),
                opcode::LOAD_VAR => {
                    let name = self
                        .variables
                        .get(data as usize)
                        .map_or("?", String::as_str);
                    write!(text, "LOAD_VAR {data} ({name})")
                }
                opcode::CALL => {
                    let name = ops::function(data).map_or("?", |f| f.name);
                    write!(text, "CALL {data} ({name})")
                }
                opcode::NEG => write!(text, "NEG"),
                opcode::ADD => write!(text, "ADD"),
                opcode::SUB => write!(text, "SUB"),
                opcode::MUL => write!(text, "MUL"),
                opcode::DIV => write!(text, "DIV"),
                opcode::POW => write!(text, "POW"),
                _ => write!(text, "?? {op:#04x} {data}"),
            };
            text.push('\n');
        }
        text
    }

    /// The bytecode words: op in the upper 8 bits, data in the lower 24 (see [`opcode`](crate::opcode)).
    pub fn words(&self) -> &[u32] {
        &self.words
    }

    /// The maximum stack depth a run reaches.
    pub fn max_stack(&self) -> usize {
        self.max_stack
    }

    /// The declared variables, in order.
    pub fn variables(&self) -> &[String] {
        &self.variables
    }

    /// The `WrongVariableCount` error for `found` values.
    fn count_error(&self, found: usize) -> Error {
        Error::new(
            0,
            ErrorKind::WrongVariableCount {
                expected: self.variables.len(),
                found,
            },
        )
    }
}
