//! `assetvc expr`: compile and run an expression.

use std::io::Write as _;

use clap::Args;

use crate::exit::{Error, Outcome};

/// Arguments of `assetvc expr`.
#[derive(Debug, Args)]
pub struct ExprArgs {
    /// The expression (may start with `-`).
    #[arg(allow_hyphen_values = true)]
    pub expression: String,
    /// A variable's value, NAME=VALUE; repeatable.
    #[arg(long = "var", value_name = "NAME=VALUE")]
    pub vars: Vec<String>,
    /// Print the RPN form first.
    #[arg(long)]
    pub rpn: bool,
    /// Print the disassembled bytecode first.
    #[arg(long)]
    pub bytecode: bool,
}

/// Runs `assetvc expr` (exit 0 ok, 2 bad input: message `expr:1:COL: reason` on stderr).
///
/// Variables are declared in the order of `--var`; a malformed `--var` or a
/// bad variable name is reported as `expr: --var ...` (exit 2). Exit 2 if
/// stdout cannot be written (other than closed by its reader: exit 0).
pub fn run(args: &ExprArgs) -> crate::exit::Result<Outcome> {
    let mut names = Vec::with_capacity(args.vars.len());
    let mut values = Vec::with_capacity(args.vars.len());
    for var in &args.vars {
        let Some((name, text)) = var.split_once('=') else {
            let message = format!("expr: --var '{var}': expected NAME=VALUE");
            return Err(Error::BadInput(message));
        };
        let Ok(value) = text.trim().parse::<f32>() else {
            let message = format!("expr: --var '{var}': '{text}' is not a number");
            return Err(Error::BadInput(message));
        };
        names.push(name);
        values.push(value);
    }
    let source = args.expression.as_str();
    let program = match expr::compile(source, &names) {
        Ok(program) => program,
        Err(error) => return Err(failure(source, &error)),
    };
    let value = match program.run(&values, &mut expr::Stack::new()) {
        Ok(value) => value,
        Err(error) => return Err(failure(source, &error)),
    };
    let mut text = String::new();
    if args.rpn {
        text.push_str(&program.rpn());
        text.push('\n');
    }
    if args.bytecode {
        text.push_str(&program.disassemble());
    }
    text.push_str(&format!("{value}\n"));
    let mut stdout = crate::output::stdout();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Ok(()) => Ok(Outcome::Done),
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => Err(error.into()),
        Err(source) => Err(Error::Output {
            command: "expr",
            source,
        }),
    }
}

/// The failure for `error` in `source`: its message and exit status 2.
fn failure(source: &str, error: &expr::Error) -> Error {
    use expr::ErrorKind as K;
    let message = match &error.kind {
        K::InvalidVariableName(_)
        | K::ReservedVariableName(_)
        | K::DuplicateVariable(_)
        | K::TooManyVariables { .. } => format!("expr: --var: {}", error.kind),
        kind => format!("expr:1:{}: {kind}", column(source, error.position)),
    };
    Error::BadInput(message)
}

/// The 1-based character column of byte `position` in `source`.
fn column(source: &str, position: usize) -> usize {
    source
        .char_indices()
        .take_while(|&(i, _)| i < position)
        .count()
        + 1
}
