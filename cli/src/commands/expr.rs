//! `assetvc expr`: compile and run an expression.

use clap::Args;
use std::io::Write as _;

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

/// Runs `assetvc expr`; returns the exit status (0 ok, 2 bad input: message `expr:1:COL: reason` on stderr).
///
/// Variables are declared in the order of `--var`; a malformed `--var` or a
/// bad variable name is reported as `expr: --var ...` (exit 2). Exit 1 if
/// stdout cannot be written.
pub fn run(args: &ExprArgs) -> i32 {
    let mut names = Vec::with_capacity(args.vars.len());
    let mut values = Vec::with_capacity(args.vars.len());
    for var in &args.vars {
        let Some((name, text)) = var.split_once('=') else {
            eprintln!("expr: --var '{var}': expected NAME=VALUE");
            return 2;
        };
        let Ok(value) = text.trim().parse::<f32>() else {
            eprintln!("expr: --var '{var}': '{text}' is not a number");
            return 2;
        };
        names.push(name);
        values.push(value);
    }
    let source = args.expression.as_str();
    let program = match expr::compile(source, &names) {
        Ok(program) => program,
        Err(error) => return report(source, &error),
    };
    let value = match program.run(&values, &mut expr::Stack::new()) {
        Ok(value) => value,
        Err(error) => return report(source, &error),
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
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Ok(()) => 0,
        Err(error) => {
            eprintln!("expr: cannot write output: {error}");
            1
        }
    }
}

/// Prints `error` in `source` to stderr; returns exit status 2.
fn report(source: &str, error: &expr::Error) -> i32 {
    use expr::ErrorKind as K;
    match &error.kind {
        K::InvalidVariableName(_)
        | K::ReservedVariableName(_)
        | K::DuplicateVariable(_)
        | K::TooManyVariables { .. } => eprintln!("expr: --var: {}", error.kind),
        kind => eprintln!("expr:1:{}: {kind}", column(source, error.position)),
    }
    2
}

/// The 1-based character column of byte `position` in `source`.
fn column(source: &str, position: usize) -> usize {
    source
        .char_indices()
        .take_while(|&(i, _)| i < position)
        .count()
        + 1
}
