//! Diagnostics for people: `path:line:col: reason` followed by the offending line.

use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};
use hooks::problem::excerpt;
use sjson::ParseError;

/// Formats a parse error in `text` of the file `path`: the first line is always
/// `path:line:col: reason` (what people and tests grep for), then the source line (cut
/// around the column when long) with a caret under the column ([`caret_block`]).
pub fn parse_error(path: &str, text: &str, e: &ParseError) -> String {
    format!(
        "{path}:{}:{}: {}\n{}",
        e.line,
        e.col,
        e.kind,
        caret_block(sjson::source_line(text, e.offset), e.line, e.col)
    )
}

/// `line` (number `number`) under a gutter, with a caret at 1-based character column
/// `col`, drawn by `annotate-snippets`: it places the caret by display width, so wide
/// characters (CJK, emoji: two terminal columns each) and tabs before the column do not
/// shift it. The line is cut around the column first when long ([`excerpt`]) and escaped
/// for the terminal ([`safe_line`]) before the caret is placed, so an escape written in
/// its place counts for its own width.
pub fn caret_block(line: &str, number: usize, col: usize) -> String {
    let (line, col) = excerpt(line, col);
    let at = line
        .char_indices()
        .nth(col.saturating_sub(1))
        .map_or(line.len(), |(i, _)| i);
    let (before, from) = line.split_at(at);
    let (before, from) = (safe_line(before), safe_line(from));
    let start = before.len();
    // The caret's character (none at the end of the line), on char boundaries.
    let end = start + from.chars().next().map_or(0, char::len_utf8);
    let source = format!("{before}{from}");
    let report = [Group::with_level(Level::ERROR).element(
        Snippet::source(&source)
            .line_start(number)
            .fold(false)
            .annotation(AnnotationKind::Primary.span(start..end)),
    )];
    Renderer::plain().render(&report)
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
    use proptest::prelude::*;

    #[test]
    fn parse_errors_show_the_line_and_a_caret() {
        let text = "a = 1\nb = {\n";
        let e = sjson::Document::parse(text, sjson::Dialect::Sjson).unwrap_err();
        assert_eq!(
            parse_error("x.sjson", text, &e),
            "x.sjson:3:1: expected key, found end of file\n  |\n3 |\n  | ^"
        );
    }

    /// Localisation files hold CJK text and emoji, two terminal columns each: the caret
    /// stands under the offending character, not one column left per wide character.
    #[test]
    fn the_caret_counts_wide_characters_twice() {
        let text = "{\n  \"title\": \"敵の城 🏰\" \"x\"\n}\n";
        let e = sjson::Document::parse(text, sjson::Dialect::Json).unwrap_err();
        let shown = parse_error("zh.json", text, &e);
        let mut lines = shown.lines();
        assert_eq!(
            lines.next(),
            Some(format!("zh.json:2:20: {}", e.kind).as_str())
        );
        assert_eq!(
            lines.collect::<Vec<_>>(),
            [
                "  |",
                "2 |   \"title\": \"敵の城 🏰\" \"x\"",
                "  |                        ^",
            ]
        );
    }

    #[test]
    fn the_caret_follows_tabs_and_escapes() {
        assert_eq!(caret_block("\tab", 1, 3), "  |\n1 |     ab\n  |      ^");
        // ESC shows as `\u{1b}` (six columns): the caret stands after it.
        assert_eq!(
            caret_block("\u{1b}x", 7, 2),
            "  |\n7 | \\u{1b}x\n  |       ^"
        );
    }

    #[test]
    fn long_lines_are_cut_around_the_column() {
        let line = format!("{}!{}", "a".repeat(300), "b".repeat(300));
        let shown = caret_block(&line, 1, 301);
        let source = shown.lines().nth(1).unwrap_or_default();
        assert!(
            source.starts_with("1 | …a") && source.ends_with("b…"),
            "{shown}"
        );
        let caret = shown.lines().nth(2).unwrap_or_default();
        assert_eq!(source.chars().nth(caret.len() - 1), Some('!'), "{shown}");
    }

    proptest! {
        /// Any line and column (past the end too) gives a caret, without a panic.
        #[test]
        fn any_line_gets_a_caret(line in "\\PC{0,150}", col in 0usize..200) {
            let shown = caret_block(&line, 1, col);
            prop_assert!(shown.ends_with('^'), "{}", shown);
        }
    }
}
