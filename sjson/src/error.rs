//! Parse errors with line, column and a short reason.

use std::fmt;

/// Why a document failed to parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ErrorKind {
    /// The text does not follow the grammar; the payload says what was expected.
    #[error("{0}")]
    Syntax(String),
    /// A key appears twice in one object: a warning ([`crate::Document::duplicate_keys`]),
    /// as parsers keep both members.
    #[error("duplicate key \"{0}\"")]
    DuplicateKey(String),
    /// Containers nest deeper than the configured limit.
    #[error("nesting deeper than {0} levels")]
    TooDeep(usize),
    /// The bytes are not UTF-8.
    #[error("invalid UTF-8")]
    InvalidUtf8,
    /// A `\u` escape names a lone surrogate.
    #[error("invalid unicode escape")]
    InvalidEscape,
    /// The document is larger than 4 GiB.
    #[error("document larger than 4 GiB")]
    TooLarge,
}

/// A parse error at a position of the source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// What went wrong.
    pub kind: ErrorKind,
    /// Byte offset into the source.
    pub offset: usize,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub col: usize,
}

impl ParseError {
    /// An error of `kind` at byte `offset` of `text`; line and column are computed.
    pub fn at(kind: ErrorKind, text: &str, offset: usize) -> Self {
        let (line, col) = line_col(text, offset);
        ParseError {
            kind,
            offset,
            line,
            col,
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.col, self.kind)
    }
}

impl std::error::Error for ParseError {}

/// The 1-based line and character column of byte `offset` in `text`.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text.as_bytes()[..offset];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    let col = text[line_start..offset].chars().count() + 1;
    (line, col)
}

/// The source line holding byte `offset`, without its line ending.
pub fn source_line(text: &str, offset: usize) -> &str {
    let offset = offset.min(text.len());
    let bytes = text.as_bytes();
    let start = bytes[..offset]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    let end = bytes[offset..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(text.len(), |p| offset + p);
    let line = &text[start..end];
    line.strip_suffix('\r').unwrap_or(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_characters() {
        let text = "a = 1\nbé = x\n";
        assert_eq!(line_col(text, 0), (1, 1));
        assert_eq!(line_col(text, 6), (2, 1));
        // 'é' is two bytes: offset 9 is the space after it, third character.
        assert_eq!(line_col(text, 9), (2, 3));
        assert_eq!(source_line(text, 9), "bé = x");
        assert_eq!(source_line("x\r\ny", 0), "x");
    }
}
