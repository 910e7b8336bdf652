//! A problem found in a file: `path:line:col: reason`, with the offending source line.

use sjson::string::terminal_safe;
use std::fmt;

use serde::Serialize;

/// Which check found a problem.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Check {
    /// An asset does not parse.
    Parse,
    /// A text file holds a conflict marker.
    ConflictMarker,
    /// Two elements of a keyed array share an id.
    DuplicateId,
    /// An array of objects lacks ids (`check.require_ids`).
    MissingId,
    /// A Lua script does not parse.
    Lua,
    /// An expression-valued property does not compile.
    Expression,
    /// An external checker from git config failed or timed out.
    External,
    /// An `assetvc.toml` is invalid.
    Config,
    /// The file or blob cannot be read.
    Read,
    /// A check crashed; the file is rejected to be safe.
    Internal,
    /// A tree holds a path that git refuses to check out (`git fsck` flags it).
    UnsafePath,
    /// A resource reference names a file that is not in the tree.
    Resource,
    /// An object of an asset repeats a key (a warning: JSON readers keep the last).
    DuplicateKey,
}

/// How serious a problem is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Severity {
    /// The file fails the checks: a commit, a push and `check` are refused for it.
    #[default]
    Error,
    /// Worth a look, never a reason to refuse: printed as `path:line:col: warning: reason`.
    Warning,
}

/// The widest source excerpt kept with a problem, in characters.
const EXCERPT_WIDTH: usize = 100;

/// One problem in one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// The file (a path in the repository or on disk).
    pub path: String,
    /// 1-based line; 0 when the problem concerns the whole file.
    pub line: usize,
    /// 1-based column in characters; 0 when unknown.
    pub col: usize,
    /// The check that found it.
    pub check: Check,
    /// Whether it blocks (an error) or is only printed (a warning).
    pub severity: Severity,
    /// What is wrong (may span lines for an external checker's output).
    pub reason: String,
    /// The offending source line (cut around the column when long), or empty.
    pub source_line: String,
    /// The 1-based column of the problem within `source_line` (0: no caret).
    #[serde(skip)]
    pub caret: usize,
}

impl Problem {
    /// A problem about the whole file.
    pub fn whole_file(path: &str, check: Check, reason: impl Into<String>) -> Problem {
        Problem {
            path: path.to_string(),
            line: 0,
            col: 0,
            check,
            severity: Severity::Error,
            reason: reason.into(),
            source_line: String::new(),
            caret: 0,
        }
    }

    /// The same problem as a warning: printed, never blocking.
    pub fn warning(self) -> Problem {
        Problem {
            severity: Severity::Warning,
            ..self
        }
    }

    /// Whether the problem blocks a commit, a push or `check` (an error, not a warning).
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// A problem at byte `offset` of `text`; line, column and excerpt are computed.
    pub fn at(
        path: &str,
        text: &str,
        offset: usize,
        check: Check,
        reason: impl Into<String>,
    ) -> Problem {
        let (line, col) = sjson::line_col(text, offset);
        let (source_line, caret) = excerpt(sjson::source_line(text, offset), col);
        Problem {
            path: path.to_string(),
            line,
            col,
            check,
            severity: Severity::Error,
            reason: reason.into(),
            source_line,
            caret,
        }
    }

    /// The report for people: `path:line:col: reason`, then the source line and a caret.
    pub fn render(&self) -> String {
        let mut out = self.to_string();
        if !self.source_line.is_empty() {
            let source_line = terminal_safe(&self.source_line);
            out.push_str("\n    ");
            out.push_str(&source_line);
            if self.caret > 0 {
                let before: String = self.source_line.chars().take(self.caret - 1).collect();
                out.push_str("\n    ");
                out.push_str(&caret_pad(&before));
                out.push('^');
            }
        }
        out
    }
}

/// The blanks that put a caret under the character after `before` (the start of a
/// source line) on a terminal: `before` as it is shown, escaped ([`terminal_safe`]: an
/// escape counts for its own width), each character as wide as it shows (two columns
/// for CJK and emoji, none for a combining mark; measured as annotate-snippets measures
/// the carets of parse errors), a tab kept as a tab.
pub fn caret_pad(before: &str) -> String {
    let mut pad = String::new();
    for c in terminal_safe(before).chars() {
        if c == '\t' {
            pad.push('\t');
        } else {
            let width = unicode_width::UnicodeWidthChar::width(c).unwrap_or(1);
            pad.extend(std::iter::repeat_n(' ', width));
        }
    }
    pad
}

impl fmt::Display for Problem {
    /// `path:line:col: reason` (`path: reason` for whole-file problems; `warning: `
    /// before a warning's reason); continuation lines of a multi-line reason are indented.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Paths, reasons and source lines come from repositories: escaped for terminals.
        let path = terminal_safe(&self.path);
        if self.line == 0 {
            write!(f, "{path}: ")?;
        } else {
            write!(f, "{path}:{}:{}: ", self.line, self.col.max(1))?;
        }
        if self.severity == Severity::Warning {
            f.write_str("warning: ")?;
        }
        for (i, line) in self.reason.lines().enumerate() {
            if i > 0 {
                f.write_str("\n    | ")?;
            }
            f.write_str(&terminal_safe(line))?;
        }
        Ok(())
    }
}

/// The part of `line` around 1-based character column `col` that fits the excerpt
/// width, with `…` where it was cut, and the caret column within the excerpt.
pub fn excerpt(line: &str, col: usize) -> (String, usize) {
    let count = line.chars().count();
    if count <= EXCERPT_WIDTH {
        return (line.to_string(), col);
    }
    let at = col.saturating_sub(1).min(count);
    let start = at.saturating_sub(EXCERPT_WIDTH / 2);
    let end = (start + EXCERPT_WIDTH).min(count);
    let mut out = String::new();
    let mut caret = at - start + 1;
    if start > 0 {
        out.push('…');
        caret += 1;
    }
    out.extend(line.chars().skip(start).take(end - start));
    if end < count {
        out.push('…');
    }
    (out, caret)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_location_line_and_caret() {
        let p = Problem::at(
            "a.level",
            "x = 1\n\ty = \n",
            10,
            Check::Parse,
            "expected a value",
        );
        assert_eq!((p.line, p.col), (2, 5));
        assert_eq!(p.to_string(), "a.level:2:5: expected a value");
        assert_eq!(
            p.render(),
            "a.level:2:5: expected a value\n    \ty = \n    \t   ^"
        );
        let w = Problem::whole_file("b.hlsl", Check::External, "failed:\nline 1\nline 2");
        assert_eq!(w.to_string(), "b.hlsl: failed:\n    | line 1\n    | line 2");
        assert!(w.is_error());
        let d = Problem::at(
            "l.json",
            "{\"a\": 1, \"a\": 2}",
            9,
            Check::DuplicateKey,
            "x",
        );
        let d = d.warning();
        assert!(!d.is_error());
        assert_eq!(d.to_string(), "l.json:1:10: warning: x");
    }

    #[test]
    fn the_caret_counts_wide_characters_and_escapes() {
        // CJK and emoji: two columns each; the caret stands under `x`.
        let p = Problem::at("l.json", "\"名前🙂\" x", 13, Check::Parse, "r");
        assert_eq!(p.caret, 7);
        assert_eq!(p.render().lines().last(), Some("             ^"));
        // ESC shows as `\u{1b}` (six columns): the caret stands after it.
        let p = Problem::at("l.json", "\u{1b}x", 1, Check::Parse, "r");
        assert_eq!(p.render().lines().nth(1), Some("    \\u{1b}x"));
        assert_eq!(p.render().lines().last(), Some("          ^"));
        assert_eq!(caret_pad("e\u{301}\t"), " \t");
    }

    #[test]
    fn long_lines_are_cut_around_the_column() {
        let line = "[".repeat(10_000);
        let (ex, caret) = excerpt(&line, 5_000);
        assert!(ex.chars().count() <= EXCERPT_WIDTH + 2);
        assert_eq!(ex.chars().nth(caret - 1), Some('['));
        assert_eq!(excerpt("short", 3), ("short".to_string(), 3));
    }
}
