//! The lexical rules both parsers share (`parse.rs`, the production scanner, and
//! `reference.rs`): where bare tokens, keys and numbers end, which escapes decode.

use crate::doc::Tag;
use crate::error::{ErrorKind, ParseError};
use crate::string::{self, Quoting};

/// Position of `needle` in `hay`.
#[inline]
pub(crate) fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(hay, needle)
}

/// Length of the bare token starting at `pos` of `b`: a run of bare bytes, stopping at a
/// comment (`//`, `/*`) or a byte-order mark.
#[inline]
pub(crate) fn bare_len(b: &[u8], pos: usize) -> usize {
    let mut i = pos;
    while let Some(&c) = b.get(i) {
        match BARE_CLASS[c as usize] {
            BARE => i += 1,
            STOP => break,
            // `/` or 0xEF: a comment or a byte-order mark ends the token.
            _ => {
                if c == b'/' && matches!(b.get(i + 1), Some(b'/' | b'*')) {
                    break;
                }
                if c == 0xEF && b[i..].starts_with("\u{FEFF}".as_bytes()) {
                    break;
                }
                i += 1;
            }
        }
    }
    i - pos
}

/// Whether byte `c` ends a bare token (white space, a quote, a separator or a bracket).
#[inline]
pub(crate) fn ends_bare(c: u8) -> bool {
    BARE_CLASS[c as usize] == STOP
}

/// A byte that continues a bare token ([`BARE_CLASS`]).
const BARE: u8 = 0;
/// A byte that ends one.
const STOP: u8 = 1;
/// A bare byte that may start what ends one: `/` (a comment) or 0xEF (a byte-order mark).
const LOOK: u8 = 2;

/// Each byte's class in a bare token: one load per byte where the scan compared each
/// byte against fifteen (the parser's most frequent loop on a level's numbers).
static BARE_CLASS: [u8; 256] = {
    let mut class = [BARE; 256];
    let mut c = 0;
    while c < 256 {
        if !is_bare_byte(c as u8) {
            class[c] = STOP;
        }
        c += 1;
    }
    class[b'/' as usize] = LOOK;
    class[0xEF] = LOOK;
    class
};

/// The end of the key lexeme of quoting `q` that starts at `start` of `b`, a key the
/// parser accepted: a bare token, a quoted string to its closing unescaped `"`, or a raw
/// string to its closing `"""`.
#[inline]
pub(crate) fn key_end(b: &[u8], start: usize, q: Quoting) -> usize {
    match q {
        Quoting::Bare => start + bare_len(b, start),
        Quoting::Raw => match find(&b[start + 3..], b"\"\"\"") {
            Some(end) => start + 3 + end + 3,
            None => b.len(),
        },
        Quoting::Quoted => {
            let mut i = start + 1;
            while i < b.len() {
                match b[i] {
                    b'"' => return i + 1,
                    b'\\' => i += 2,
                    _ => i += 1,
                }
            }
            b.len()
        }
    }
}

/// Whether byte `c` can continue a bare token (the `/` of a comment is checked apart). A
/// `;` ends it: it separates members like a comma (Vermintide's `.cfg`: `a = 5;` is the
/// number 5, not the text `5;`).
#[inline]
const fn is_bare_byte(c: u8) -> bool {
    !matches!(
        c,
        b' ' | b'\t' | b'\r' | b'\n' | b'"' | b'=' | b':' | b',' | b';' | b'{' | b'}' | b'[' | b']'
    )
}

/// Checks the `\u` escapes of a quoted lexeme decode (no lone surrogates).
pub(crate) fn check_escapes(text: &str, lexeme: &str, offset: usize) -> Result<(), ParseError> {
    if lexeme.contains("\\u") && string::decode(lexeme, Quoting::Quoted).is_none() {
        return Err(ParseError::at(ErrorKind::InvalidEscape, text, offset));
    }
    Ok(())
}

/// Classifies an SJSON bare token: a keyword, a number, or a bare string.
#[inline]
pub(crate) fn classify_bare(token: &[u8]) -> Tag {
    match token {
        b"true" => Tag::True,
        b"false" => Tag::False,
        b"null" => Tag::Null,
        _ if number_len(token) == token.len() => Tag::Number,
        _ => Tag::Bare,
    }
}

/// Length of the JSON number at the start of `b` (0 if none).
#[inline]
pub(crate) fn number_len(b: &[u8]) -> usize {
    let mut i = 0;
    if b.first() == Some(&b'-') {
        i += 1;
    }
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
        }
        _ => return 0,
    }
    if b.get(i) == Some(&b'.') && b.get(i + 1).is_some_and(u8::is_ascii_digit) {
        i += 1;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        let mut j = i + 1;
        if matches!(b.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        if b.get(j).is_some_and(u8::is_ascii_digit) {
            while b.get(j).is_some_and(u8::is_ascii_digit) {
                j += 1;
            }
            i = j;
        }
    }
    i
}
