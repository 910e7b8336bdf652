//! Standard output for every command. A write into a closed pipe (`assetvc … | head -1`)
//! fails with [`StdoutClosed`]; `main` ends such a run quietly with status 0, as ripgrep
//! does, instead of `println!`'s panic.

use std::io::{self, Write};

use crate::exit::Error;

/// `print!` through [`stdout`]: `?` propagates a closed pipe to `main`.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        write!($crate::output::stdout(), $($arg)*)?
    }};
}

/// `println!` through [`stdout`]: `?` propagates a closed pipe to `main`.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!($crate::output::stdout(), $($arg)*)?
    }};
}

/// The process's standard output, locked; a broken pipe becomes [`StdoutClosed`].
pub struct Stdout(io::StdoutLock<'static>);

/// Standard output for a command's results.
pub fn stdout() -> Stdout {
    Stdout(io::stdout().lock())
}

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf).map_err(closed)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush().map_err(closed)
    }
}

/// The reader of standard output went away (`| head`): not a failure of the command.
#[derive(Debug)]
pub struct StdoutClosed;

impl std::fmt::Display for StdoutClosed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("standard output closed")
    }
}

impl std::error::Error for StdoutClosed {}

/// `e` as [`StdoutClosed`] (kind `BrokenPipe`) when it is a broken pipe.
fn closed(e: io::Error) -> io::Error {
    if e.kind() == io::ErrorKind::BrokenPipe {
        io::Error::new(io::ErrorKind::BrokenPipe, StdoutClosed)
    } else {
        e
    }
}

/// Whether `e` (under its contexts) is a write into a closed standard output: an I/O
/// error that is [`StdoutClosed`].
pub fn is_closed(e: &Error) -> bool {
    match e {
        Error::Io { source, .. } | Error::Output { source, .. } => source
            .get_ref()
            .is_some_and(|inner| inner.is::<StdoutClosed>()),
        Error::Context { source, .. } => is_closed(source),
        // No other failure carries an I/O error of its own.
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exit::context::Wrap;
    use crate::exit::Context;

    #[test]
    fn only_a_closed_stdout_is_closed() {
        let pipe = io::Error::from(io::ErrorKind::BrokenPipe);
        assert!(!is_closed(&pipe.into()));
        let ours = closed(io::Error::from(io::ErrorKind::BrokenPipe));
        let writing = Err::<(), _>(ours).context("writing").unwrap_err();
        assert!(is_closed(&writing.wrap("merging".into())));
        let other = closed(io::Error::from(io::ErrorKind::PermissionDenied));
        assert!(!is_closed(&other.into()));
    }
}
