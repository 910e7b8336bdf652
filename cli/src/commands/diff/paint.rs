//! ANSI colors for diff output.

use std::io::IsTerminal;

use merge::diff::{Change, DiffLine};
use merge::naming::Names;

/// ANSI colors, on only when writing to a terminal and `NO_COLOR` is not set.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Paint {
    on: bool,
}

impl Paint {
    /// Colors if stdout is a terminal and `NO_COLOR` is unset or empty.
    pub(crate) fn stdout() -> Paint {
        Paint {
            on: std::io::stdout().is_terminal() && !no_color(),
        }
    }

    pub(super) fn for_git() -> Paint {
        // git pipes an external diff's output into its pager (which shows colors).
        let pager = std::env::var_os("GIT_PAGER_IN_USE").is_some_and(|v| v == "true" || v == "1");
        Paint {
            on: (std::io::stdout().is_terminal() || pager) && !no_color(),
        }
    }

    fn wrap(self, code: &str, s: &str) -> String {
        if self.on {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }

    pub(crate) fn bold(self, s: &str) -> String {
        self.wrap("1", s)
    }
    pub(crate) fn red(self, s: &str) -> String {
        self.wrap("31", s)
    }
    pub(crate) fn green(self, s: &str) -> String {
        self.wrap("32", s)
    }
    pub(crate) fn yellow(self, s: &str) -> String {
        self.wrap("33", s)
    }
    pub(crate) fn cyan(self, s: &str) -> String {
        self.wrap("36", s)
    }
    pub(crate) fn dim(self, s: &str) -> String {
        self.wrap("2", s)
    }

    /// A change's line, objects named by `names`, colored by its kind.
    pub(crate) fn change(self, c: &Change<'_>, names: &Names<'_>) -> String {
        let text = c.text_named(names);
        match c {
            Change::Added { .. } => self.green(&text),
            Change::Removed { .. } => self.red(&text),
            Change::Moved { .. } => self.cyan(&text),
            Change::Changed { .. } => text,
        }
    }

    /// A line of a line diff, colored like git's.
    pub(crate) fn line(self, l: &DiffLine) -> String {
        let text = l.text();
        match l {
            DiffLine::Hunk(_) => self.cyan(&text),
            DiffLine::Same(_) => text,
            DiffLine::Removed(_) => self.red(&text),
            DiffLine::Added(_) => self.green(&text),
        }
    }
}

fn no_color() -> bool {
    std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
}
