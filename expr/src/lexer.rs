//! The tokenizer.

use crate::error::{Error, ErrorKind};

/// What a token is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Tok {
    /// A number literal with its value.
    Number(f32),
    /// `[A-Za-z_][A-Za-z0-9_]*`.
    Ident,
    Plus,
    Minus,
    Star,
    Slash,
    Caret,
    LParen,
    RParen,
    Comma,
}

/// A token and its byte span in the source.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Token {
    pub(crate) tok: Tok,
    pub(crate) start: usize,
    pub(crate) end: usize,
}

impl Token {
    /// The token's text.
    pub(crate) fn text<'a>(&self, source: &'a str) -> &'a str {
        source.get(self.start..self.end).unwrap_or("")
    }
}

/// Whether `b` may start an identifier.
pub(crate) fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

/// Whether `b` may continue an identifier.
pub(crate) fn is_ident_continue(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Whether `name` is `[A-Za-z_][A-Za-z0-9_]*`.
pub(crate) fn is_identifier(name: &str) -> bool {
    let bytes = name.as_bytes();
    match bytes.split_first() {
        Some((&first, rest)) => is_ident_start(first) && rest.iter().all(|&b| is_ident_continue(b)),
        None => false,
    }
}

/// Splits `source` into tokens.
pub(crate) fn tokenize(source: &str) -> Result<Vec<Token>, Error> {
    let bytes = source.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let start = i;
        let tok = match b {
            b' ' | b'\t' | b'\n' | b'\r' => {
                i += 1;
                continue;
            }
            b'0'..=b'9' | b'.' => {
                let (end, value) = number(source, start)?;
                i = end;
                Tok::Number(value)
            }
            _ if is_ident_start(b) => {
                i += 1;
                while bytes.get(i).is_some_and(|&c| is_ident_continue(c)) {
                    i += 1;
                }
                Tok::Ident
            }
            _ => {
                let tok = match b {
                    b'+' => Tok::Plus,
                    b'-' => Tok::Minus,
                    b'*' => Tok::Star,
                    b'/' => Tok::Slash,
                    b'^' => Tok::Caret,
                    b'(' => Tok::LParen,
                    b')' => Tok::RParen,
                    b',' => Tok::Comma,
                    _ => {
                        let c = source
                            .get(start..)
                            .and_then(|s| s.chars().next())
                            .unwrap_or(char::REPLACEMENT_CHARACTER);
                        return Err(Error::new(start, ErrorKind::UnexpectedChar(c)));
                    }
                };
                i += 1;
                tok
            }
        };
        tokens.push(Token { tok, start, end: i });
    }
    Ok(tokens)
}

/// Counts the ASCII digits of `bytes` from `i`; returns the index after them.
fn digits(bytes: &[u8], mut i: usize) -> usize {
    while bytes.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    i
}

/// Lexes the number starting at `start`: `D+ [. D*] [e [+-] D+]` or `. D+ [e [+-] D+]`.
///
/// Returns its end and value; a literal that overflows to infinity is invalid.
fn number(source: &str, start: usize) -> Result<(usize, f32), Error> {
    let bytes = source.as_bytes();
    let int_end = digits(bytes, start);
    let mut end = int_end;
    let mut mantissa_digits = int_end - start;
    if bytes.get(end) == Some(&b'.') {
        let frac_end = digits(bytes, end + 1);
        mantissa_digits += frac_end - (end + 1);
        end = frac_end;
    }
    let mut valid = mantissa_digits > 0;
    if valid && matches!(bytes.get(end), Some(b'e' | b'E')) {
        end += 1;
        if matches!(bytes.get(end), Some(b'+' | b'-')) {
            end += 1;
        }
        let exp_end = digits(bytes, end);
        valid = exp_end > end;
        end = exp_end;
    }
    let text = source.get(start..end).unwrap_or("");
    let invalid = || Error::new(start, ErrorKind::InvalidNumber(text.to_string()));
    if !valid {
        return Err(invalid());
    }
    match text.parse::<f32>() {
        Ok(value) if value.is_finite() => Ok((end, value)),
        _ => Err(invalid()),
    }
}
