//! Diagnostics for people: `path:line:col: reason` followed by the offending line.

use hooks::problem::excerpt;
use sjson::ParseError;

/// Formats a parse error in `text` of the file `path` with its source line (cut around
/// the column when long) and a caret.
pub fn parse_error(path: &str, text: &str, e: &ParseError) -> String {
    let (line, col) = excerpt(sjson::source_line(text, e.offset), e.col);
    let caret: String = line
        .chars()
        .take(col.saturating_sub(1))
        .map(|c| if c == '\t' { '\t' } else { ' ' })
        .collect();
    format!(
        "{path}:{}:{}: {}\n    {line}\n    {caret}^",
        e.line, e.col, e.kind
    )
}

/// Prints `message` to stderr prefixed with `assetvc: error: `, escaped for the terminal
/// ([`safe`]): for the failure `main` reports ([`crate::exit::failure`]) and for the errors
/// a command reports as it goes on (one file of many).
pub fn error(message: impl std::fmt::Display) {
    eprintln!("assetvc: error: {}", safe(&message.to_string()));
}

/// Text from a repository (file names, keys, values, messages) made safe for a terminal:
/// control characters shown as `\u{1b}`-style escapes (the one function for it,
/// [`sjson::string::terminal_safe`]).
/// For text that may span lines (a message, a parse error with its caret); anything
/// shown inside one line goes through [`safe_line`].
pub fn safe(text: &str) -> std::borrow::Cow<'_, str> {
    sjson::string::terminal_safe(text)
}

/// Text from a repository shown within one line (a file name, an object name, an id, a
/// key; a whole `who`, sync, merge or apply line) made safe: as [`safe`], and line feeds
/// escaped too, so data cannot end the line and forge the next one
/// ([`sjson::string::terminal_safe_line`]).
pub fn safe_line(text: &str) -> std::borrow::Cow<'_, str> {
    sjson::string::terminal_safe_line(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_errors_show_the_line_and_a_caret() {
        let text = "a = 1\nb = {\n";
        let e = sjson::Document::parse(text, sjson::Dialect::Sjson).unwrap_err();
        assert_eq!(
            parse_error("x.sjson", text, &e),
            "x.sjson:3:1: expected key, found end of file\n    \n    ^"
        );
    }
}
