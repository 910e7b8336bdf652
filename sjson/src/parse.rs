//! The production parser: a single pass over the bytes with an explicit stack (no
//! recursion, so nesting is limited only by `max_depth`), building the flat node table of
//! [`Document`]. It accepts exactly what the pest grammars in `grammar/` accept; the
//! reference parser (`reference.rs`) and a differential test keep the two in step.

use std::borrow::Cow;

use crate::doc::{Dialect, Document, Node, Tag};
use crate::error::{ErrorKind, ParseError};
use crate::string::{self, Quoting};

/// Default limit on container nesting.
pub const DEFAULT_MAX_DEPTH: usize = 512;

/// How to parse a document.
#[derive(Debug, Clone, Copy)]
pub struct ParseOptions {
    /// The syntax to accept.
    pub dialect: Dialect,
    /// The deepest container nesting accepted.
    pub max_depth: usize,
}

impl ParseOptions {
    /// Options for `dialect` with the default depth limit.
    pub fn new(dialect: Dialect) -> Self {
        ParseOptions {
            dialect,
            max_depth: DEFAULT_MAX_DEPTH,
        }
    }
}

impl Document {
    /// Parses `text` as `dialect` with default options.
    pub fn parse(text: impl Into<String>, dialect: Dialect) -> Result<Document, ParseError> {
        Self::parse_with(text.into(), ParseOptions::new(dialect))
    }

    /// Parses raw bytes, reporting invalid UTF-8 with its position.
    pub fn parse_bytes(bytes: Vec<u8>, options: ParseOptions) -> Result<Document, ParseError> {
        match String::from_utf8(bytes) {
            Ok(text) => Self::parse_with(text, options),
            Err(e) => {
                let valid = e.utf8_error().valid_up_to();
                let bytes = e.into_bytes();
                let prefix = std::str::from_utf8(&bytes[..valid]).unwrap_or_default();
                Err(ParseError::at(ErrorKind::InvalidUtf8, prefix, valid))
            }
        }
    }

    /// Parses `text` with explicit options.
    pub fn parse_with(text: String, options: ParseOptions) -> Result<Document, ParseError> {
        if text.len() >= u32::MAX as usize {
            return Err(ParseError::at(ErrorKind::TooLarge, "", 0));
        }
        let (nodes, root_braced) = Scanner::new(&text, options).document()?;
        Ok(Document {
            text,
            nodes,
            dialect: options.dialect,
            root_braced,
        })
    }
}

/// Rejects nesting deeper than `limit`, following the grammar's lexical rules (strings,
/// raw strings, comments) so brackets inside them are not counted. Used before the
/// recursive reference parser.
pub(crate) fn check_depth(text: &str, limit: usize) -> Result<(), ParseError> {
    let b = text.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return Err(ParseError::at(ErrorKind::TooDeep(limit), text, i));
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            b'"' => {
                if b[i..].starts_with(b"\"\"\"") {
                    if let Some(end) = find(&b[i + 3..], b"\"\"\"") {
                        i += 3 + end + 3;
                        continue;
                    }
                    // An unterminated raw string reads as `""` followed by a string.
                    i += 2;
                    continue;
                }
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => match find(&b[i + 2..], b"*/") {
                Some(end) => i += 2 + end + 1,
                None => return Ok(()),
            },
            _ => {}
        }
        i += 1;
    }
    Ok(())
}

/// Position of `needle` in `hay`.
pub(crate) fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
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

fn key_of<'t>(text: &'t str, node: &Node) -> Cow<'t, str> {
    let lexeme = &text[node.key_start as usize..node.key_end as usize];
    string::decode(lexeme, node.key.unwrap_or(Quoting::Bare)).unwrap_or_default()
}

/// Checks that the `count` members starting at node `first` have distinct keys.
pub(crate) fn check_duplicates(
    text: &str,
    nodes: &[Node],
    first: usize,
    count: u32,
) -> Result<(), ParseError> {
    let mut keys: Vec<(Cow<'_, str>, usize)> = Vec::with_capacity(count as usize);
    let mut i = first;
    for _ in 0..count {
        keys.push((key_of(text, &nodes[i]), i));
        i = nodes[i].next as usize;
    }
    let duplicate = if keys.len() <= 12 {
        (1..keys.len()).find(|&j| keys[..j].iter().any(|(k, _)| *k == keys[j].0))
    } else {
        let mut seen = std::collections::HashSet::with_capacity(keys.len());
        (0..keys.len()).find(|&j| !seen.insert(keys[j].0.clone()))
    };
    match duplicate {
        Some(j) => {
            let (key, node) = &keys[j];
            let offset = nodes[*node].key_start as usize;
            Err(ParseError::at(
                ErrorKind::DuplicateKey(key.to_string()),
                text,
                offset,
            ))
        }
        None => Ok(()),
    }
}

/// An open container on the scanner's stack.
struct Open {
    node: usize,
    count: u32,
    object: bool,
    /// A braceless SJSON root, closed by the end of the text.
    braceless: bool,
}

struct Scanner<'t> {
    text: &'t str,
    b: &'t [u8],
    pos: usize,
    sjson: bool,
    max_depth: usize,
    nodes: Vec<Node>,
    stack: Vec<Open>,
}

type PResult<T> = std::result::Result<T, ParseError>;

impl<'t> Scanner<'t> {
    fn new(text: &'t str, options: ParseOptions) -> Self {
        Scanner {
            text,
            b: text.as_bytes(),
            pos: 0,
            sjson: options.dialect == Dialect::Sjson,
            max_depth: options.max_depth,
            nodes: Vec::with_capacity(text.len() / 12 + 1),
            stack: Vec::new(),
        }
    }

    fn error(&self, at: usize, reason: impl Into<String>) -> ParseError {
        ParseError::at(ErrorKind::Syntax(reason.into()), self.text, at)
    }

    fn found(&self, at: usize) -> String {
        match self.text[at..].chars().next() {
            None => "end of file".to_string(),
            Some(c) if c.is_control() || c == ' ' => format!("{c:?}"),
            Some(c) => format!("'{c}'"),
        }
    }

    fn expected(&self, what: &str) -> ParseError {
        self.error(
            self.pos,
            format!("expected {what}, found {}", self.found(self.pos)),
        )
    }

    /// Skips white space; in SJSON also commas, comments and byte-order marks.
    #[inline]
    fn skip_trivia(&mut self) -> PResult<()> {
        let b = self.b;
        loop {
            match b.get(self.pos) {
                Some(b' ' | b'\t' | b'\r' | b'\n') => self.pos += 1,
                Some(b',') if self.sjson => self.pos += 1,
                Some(b'/') if self.sjson && b.get(self.pos + 1) == Some(&b'/') => {
                    self.pos += 2;
                    while self.pos < b.len() && b[self.pos] != b'\n' {
                        self.pos += 1;
                    }
                }
                Some(b'/') if self.sjson && b.get(self.pos + 1) == Some(&b'*') => {
                    match find(&b[self.pos + 2..], b"*/") {
                        Some(end) => self.pos += 2 + end + 2,
                        None => return Err(self.error(self.pos, "unterminated comment")),
                    }
                }
                Some(0xEF) if self.sjson && b[self.pos..].starts_with("\u{FEFF}".as_bytes()) => {
                    self.pos += 3
                }
                _ => return Ok(()),
            }
        }
    }

    fn document(mut self) -> PResult<(Vec<Node>, bool)> {
        let braced;
        if self.sjson {
            self.skip_trivia()?;
            braced = self.b.get(self.pos) == Some(&b'{');
            if !braced {
                let start = if self.text.starts_with('\u{FEFF}') {
                    3
                } else {
                    0
                };
                self.nodes.push(Node {
                    start,
                    end: self.b.len() as u32,
                    key_start: 0,
                    key_end: 0,
                    next: 0,
                    len: 0,
                    tag: Tag::Object,
                    key: None,
                });
                self.stack.push(Open {
                    node: 0,
                    count: 0,
                    object: true,
                    braceless: true,
                });
            }
        } else {
            if self.text.starts_with('\u{FEFF}') {
                self.pos = 3;
            }
            self.skip_trivia()?;
            braced = true;
        }
        self.run()?;
        Ok((self.nodes, braced))
    }

    /// The main loop: reads members and elements until the root value is complete.
    fn run(&mut self) -> PResult<()> {
        if self.stack.is_empty() {
            // JSON root or braced SJSON root: one value.
            self.value(None)?;
        }
        // `need_comma`: JSON only — whether a `,` must come before the next item.
        let mut need_comma = false;
        while let Some(top) = self.stack.last() {
            let (object, braceless) = (top.object, top.braceless);
            self.skip_trivia()?;
            let c = self.b.get(self.pos).copied();
            let close = if object { b'}' } else { b']' };
            if braceless && c.is_none() || !braceless && c == Some(close) {
                if !braceless {
                    self.pos += 1;
                }
                self.close()?;
                need_comma = true;
                continue;
            }
            if !self.sjson {
                if need_comma {
                    if c != Some(b',') {
                        let what = if object { "',' or '}'" } else { "',' or ']'" };
                        return Err(self.expected(what));
                    }
                    self.pos += 1;
                    self.skip_trivia()?;
                }
            }
            let key = if object {
                let key = self.key()?;
                self.skip_trivia()?;
                match self.b.get(self.pos) {
                    Some(b'=') if self.sjson => self.pos += 1,
                    Some(b':') => self.pos += 1,
                    _ => return Err(self.expected(if self.sjson { "'=' or ':'" } else { "':'" })),
                }
                self.skip_trivia()?;
                Some(key)
            } else {
                None
            };
            let opened = self.value(key)?;
            if !opened {
                if let Some(top) = self.stack.last_mut() {
                    top.count += 1;
                }
            }
            need_comma = !opened;
        }
        self.skip_trivia()?;
        if self.pos < self.b.len() {
            return Err(self.expected("end of file"));
        }
        Ok(())
    }

    /// Closes the innermost container.
    fn close(&mut self) -> PResult<()> {
        let open = self.stack.pop().expect("close with an open container");
        let next = self.nodes.len() as u32;
        let node = &mut self.nodes[open.node];
        node.end = if open.braceless {
            self.b.len() as u32
        } else {
            self.pos as u32
        };
        node.next = next;
        node.len = open.count;
        if open.object && open.count > 1 {
            check_duplicates(self.text, &self.nodes, open.node + 1, open.count)?;
        }
        if let Some(parent) = self.stack.last_mut() {
            parent.count += 1;
        }
        Ok(())
    }

    fn key(&mut self) -> PResult<(u32, u32, Quoting)> {
        let start = self.pos;
        match self.b.get(self.pos) {
            Some(b'"') => {
                let q = self.string()?;
                Ok((start as u32, self.pos as u32, q))
            }
            Some(_) if self.sjson && self.bare_len() > 0 => {
                self.pos += self.bare_len();
                Ok((start as u32, self.pos as u32, Quoting::Bare))
            }
            _ => Err(self.expected(if self.sjson { "key" } else { "string" })),
        }
    }

    /// Length of the bare token at the current position.
    #[inline]
    fn bare_len(&self) -> usize {
        let b = self.b;
        let mut i = self.pos;
        while i < b.len() && is_bare_byte(b[i]) {
            if b[i] == b'/' && matches!(b.get(i + 1), Some(b'/' | b'*')) {
                break;
            }
            if b[i] == 0xEF && b[i..].starts_with("\u{FEFF}".as_bytes()) {
                break;
            }
            i += 1;
        }
        i - self.pos
    }

    /// Reads a quoted or raw string at the current position; returns its quoting.
    fn string(&mut self) -> PResult<Quoting> {
        let b = self.b;
        let start = self.pos;
        if self.sjson && b[start..].starts_with(b"\"\"\"") {
            if let Some(end) = find(&b[start + 3..], b"\"\"\"") {
                self.pos = start + 3 + end + 3;
                return Ok(Quoting::Raw);
            }
        }
        let mut i = start + 1;
        let mut escaped = false;
        loop {
            match b.get(i) {
                None => return Err(self.error(start, "unterminated string")),
                Some(b'"') => break,
                Some(b'\\') => {
                    escaped = true;
                    match b.get(i + 1) {
                        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => i += 2,
                        Some(b'u')
                            if b.len() >= i + 6
                                && b[i + 2..i + 6].iter().all(u8::is_ascii_hexdigit) =>
                        {
                            i += 6
                        }
                        _ => return Err(self.error(i, "invalid escape")),
                    }
                }
                Some(&c) if c < 0x20 && !self.sjson => {
                    return Err(self.error(i, "control character in string"))
                }
                Some(_) => i += 1,
            }
        }
        self.pos = i + 1;
        if escaped {
            check_escapes(self.text, &self.text[start..self.pos], start)?;
        }
        Ok(Quoting::Quoted)
    }

    /// Reads one value; a container is pushed on the stack, to be filled by `run`, and
    /// `true` returned.
    fn value(&mut self, key: Option<(u32, u32, Quoting)>) -> PResult<bool> {
        let start = self.pos;
        let (key_start, key_end, key_q) = match key {
            Some((s, e, q)) => (s, e, Some(q)),
            None => (0, 0, None),
        };
        let tag = match self.b.get(start) {
            Some(&c @ (b'{' | b'[')) => {
                if self.stack.len() + 1 > self.max_depth {
                    return Err(ParseError::at(
                        ErrorKind::TooDeep(self.max_depth),
                        self.text,
                        start,
                    ));
                }
                self.pos += 1;
                let object = c == b'{';
                self.stack.push(Open {
                    node: self.nodes.len(),
                    count: 0,
                    object,
                    braceless: false,
                });
                if object {
                    Tag::Object
                } else {
                    Tag::Array
                }
            }
            Some(b'"') => match self.string()? {
                Quoting::Raw => Tag::Raw,
                _ => Tag::Quoted,
            },
            Some(_) if self.sjson => {
                let len = self.bare_len();
                if len == 0 {
                    return Err(self.expected("value"));
                }
                self.pos += len;
                classify_bare(&self.b[start..self.pos])
            }
            Some(b't') if self.b[start..].starts_with(b"true") => {
                self.pos += 4;
                Tag::True
            }
            Some(b'f') if self.b[start..].starts_with(b"false") => {
                self.pos += 5;
                Tag::False
            }
            Some(b'n') if self.b[start..].starts_with(b"null") => {
                self.pos += 4;
                Tag::Null
            }
            Some(b'-' | b'0'..=b'9') => {
                let len = number_len(&self.b[start..]);
                if len == 0 {
                    return Err(self.expected("value"));
                }
                self.pos += len;
                Tag::Number
            }
            _ => return Err(self.expected("value")),
        };
        let container = matches!(tag, Tag::Array | Tag::Object);
        self.nodes.push(Node {
            start: start as u32,
            end: if container { 0 } else { self.pos as u32 },
            key_start,
            key_end,
            next: if container {
                0
            } else {
                self.nodes.len() as u32 + 1
            },
            len: 0,
            tag,
            key: key_q,
        });
        Ok(container)
    }
}

/// Classifies an SJSON bare token: a keyword, a number, or a bare string.
fn classify_bare(token: &[u8]) -> Tag {
    match token {
        b"true" => Tag::True,
        b"false" => Tag::False,
        b"null" => Tag::Null,
        _ if number_len(token) == token.len() => Tag::Number,
        _ => Tag::Bare,
    }
}

/// Length of the JSON number at the start of `b` (0 if none).
fn number_len(b: &[u8]) -> usize {
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
