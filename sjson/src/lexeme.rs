//! The lexical rules both parsers share (`parse.rs`, the production scanner, and
//! `reference.rs`): where bare tokens, keys and numbers end, which escapes decode, which
//! keys repeat.

use std::borrow::Cow;

use crate::doc::{Extra, Node, Tag};
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
    while i < b.len() && is_bare_byte(b[i]) {
        if b[i] == b'/' && matches!(b.get(i + 1), Some(b'/' | b'*')) {
            break;
        }
        if b[i] == 0xEF && b[i..].starts_with("\u{FEFF}".as_bytes()) {
            break;
        }
        i += 1;
    }
    i - pos
}

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

/// Whether byte `c` can continue a bare token (the `/` of a comment is checked apart).
#[inline]
fn is_bare_byte(c: u8) -> bool {
    !matches!(
        c,
        b' ' | b'\t' | b'\r' | b'\n' | b'"' | b'=' | b':' | b',' | b'{' | b'}' | b'[' | b']'
    )
}

/// Checks the `\u` escapes of a quoted lexeme decode (no lone surrogates).
pub(crate) fn check_escapes(text: &str, lexeme: &str, offset: usize) -> Result<(), ParseError> {
    if lexeme.contains("\\u") && string::decode(lexeme, Quoting::Quoted).is_none() {
        return Err(ParseError::at(ErrorKind::InvalidEscape, text, offset));
    }
    Ok(())
}

/// Checks that the `count` members starting at node `first` have distinct keys (for a
/// parser that checks them from its node table, as the reference parser does).
pub(crate) fn check_duplicates(
    text: &str,
    nodes: &[Node],
    extras: &[Extra],
    first: usize,
    count: u32,
) -> Result<(), ParseError> {
    let mut keys = Vec::with_capacity(count as usize);
    let mut i = first;
    for _ in 0..count {
        let quoting = nodes[i].key_quoting().unwrap_or(Quoting::Bare);
        let start = nodes[i].key_start(extras);
        let end = key_end(text.as_bytes(), start as usize, quoting) as u32;
        keys.push(KeySpan {
            start,
            end,
            quoting,
        });
        i = nodes[i].next(i, extras);
    }
    distinct_keys(text, &keys)
}

/// A key lexeme as scanned: its span and how it is quoted.
#[derive(Clone, Copy)]
pub(crate) struct KeySpan {
    pub(crate) start: u32,
    pub(crate) end: u32,
    pub(crate) quoting: Quoting,
}

impl KeySpan {
    /// The key's characters as written, quotes left out: the key itself unless it holds
    /// an escape (`None`).
    fn plain<'t>(&self, text: &'t str) -> Option<&'t str> {
        let (s, e) = (self.start as usize, self.end as usize);
        let inner = match self.quoting {
            Quoting::Bare => &text[s..e],
            Quoting::Raw => &text[s + 3..e - 3],
            Quoting::Quoted => &text[s + 1..e - 1],
        };
        (self.quoting != Quoting::Quoted || !inner.contains('\\')).then_some(inner)
    }

    /// The key, decoded.
    fn decoded<'t>(&self, text: &'t str) -> Cow<'t, str> {
        match self.plain(text) {
            Some(plain) => Cow::Borrowed(plain),
            None => {
                let lexeme = &text[self.start as usize..self.end as usize];
                string::decode(lexeme, self.quoting).unwrap_or_default()
            }
        }
    }
}

/// An error at the first key of `keys` (one object's) that an earlier one repeats.
pub(crate) fn distinct_keys(text: &str, keys: &[KeySpan]) -> Result<(), ParseError> {
    match repeated_key(text, keys) {
        Some(j) => {
            let key = keys[j].decoded(text).into_owned();
            let at = keys[j].start as usize;
            Err(ParseError::at(ErrorKind::DuplicateKey(key), text, at))
        }
        None => Ok(()),
    }
}

/// The first key of `keys` that an earlier one repeats.
fn repeated_key(text: &str, keys: &[KeySpan]) -> Option<usize> {
    const FEW: usize = 12;
    if keys.len() <= FEW {
        // Each key's plain form once, then pairs compared (keys with escapes decoded).
        let mut plain = [None; FEW];
        for (p, k) in plain.iter_mut().zip(keys) {
            *p = k.plain(text);
        }
        let same = |a: usize, b: usize| match (plain[a], plain[b]) {
            (Some(x), Some(y)) => x == y,
            _ => keys[a].decoded(text) == keys[b].decoded(text),
        };
        return (1..keys.len()).find(|&j| (0..j).any(|i| same(i, j)));
    }
    let mut seen = std::collections::HashSet::with_capacity(keys.len());
    (0..keys.len()).find(|&j| !seen.insert(keys[j].decoded(text)))
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
