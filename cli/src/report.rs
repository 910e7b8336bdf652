//! Diagnostics for people: `path:line:col: reason` followed by the offending line.

use sjson::ParseError;

/// The widest source excerpt shown under a diagnostic, in characters.
const EXCERPT_WIDTH: usize = 100;

/// The part of `line` around 1-based character column `col` that fits the excerpt
/// width, with `…` where it was cut, and the caret column within the excerpt.
pub fn excerpt(line: &str, col: usize) -> (String, usize) {
    let chars: Vec<char> = line.chars().collect();
    if chars.len() <= EXCERPT_WIDTH {
        return (line.to_string(), col);
    }
    let at = col.saturating_sub(1).min(chars.len());
    let start = at.saturating_sub(EXCERPT_WIDTH / 2);
    let end = (start + EXCERPT_WIDTH).min(chars.len());
    let mut out = String::new();
    let mut caret = at - start + 1;
    if start > 0 {
        out.push('…');
        caret += 1;
    }
    out.extend(&chars[start..end]);
    if end < chars.len() {
        out.push('…');
    }
    (out, caret)
}

/// Formats a parse error in `text` of the file `path` with its source line and a caret.
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

/// Prints `message` to stderr prefixed with `assetvc: error: `.
pub fn error(message: impl std::fmt::Display) {
    eprintln!("assetvc: error: {message}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_are_cut_around_the_column() {
        let line = "[".repeat(10_000);
        let (ex, caret) = excerpt(&line, 5_000);
        assert!(ex.chars().count() <= EXCERPT_WIDTH + 2);
        assert_eq!(ex.chars().nth(caret - 1), Some('['));
        assert_eq!(excerpt("short", 3), ("short".to_string(), 3));
    }
}
