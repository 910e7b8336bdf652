//! The production parser: a single pass over the bytes with an explicit stack (no
//! recursion, so nesting is limited only by `max_depth`), building the flat node table of
//! [`Document`]. It accepts exactly what the pest grammars in `grammar/` accept; the
//! reference parser (`reference.rs`) and a differential test keep the two in step.

use std::borrow::Cow;

use crate::doc::{self, Dialect, Document, Extra, Node, Tag};
use crate::error::{ErrorKind, ParseError};
use crate::split::{Pending, Piece, Split};
use crate::string::{self, Quoting};

/// Capacity guesses for the node and container tables, in bytes of text per entry. The
/// tables are shrunk to fit after parsing, so a wrong guess only costs a transient: one
/// doubling when too high a figure, spare room when too low. Measured densities: generated
/// levels have 13.9 (SJSON) and 17.3 (JSON) bytes per node, 65 and 81 per container; the
/// corpus 8.6 bytes per node overall (7.3 in its densest file) and 717 per container
/// (42 in its densest file).
const NODE_BYTES_GUESS: usize = 12;
const CONTAINER_BYTES_GUESS: usize = 56;

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
        Self::parse_split(text, options, None)
    }

    /// [`Document::parse_with`], on two threads when `split` names the start of an
    /// element of a big array (see [`Split`]): the same document, or the same error,
    /// whether the hint is right or not.
    pub fn parse_split(
        text: String,
        options: ParseOptions,
        split: Option<Split>,
    ) -> Result<Document, ParseError> {
        if text.len() >= u32::MAX as usize {
            return Err(ParseError::at(ErrorKind::TooLarge, "", 0));
        }
        let split = split.filter(|s| s.at < text.len() && s.depth >= 1);
        let (nodes, extras, root_braced) = match split {
            None => Scanner::new(&text, options).document()?,
            Some(split) => std::thread::scope(|scope| {
                let (send, piece) = std::sync::mpsc::channel();
                let rest = &text;
                scope.spawn(move || {
                    let _ = send.send(Scanner::new(rest, options).piece(split));
                });
                let mut scanner = Scanner::new(&text, options);
                scanner.pending = Some(Pending { split, piece });
                scanner.document()
            })?,
        };
        let mut doc = Document {
            text,
            nodes,
            extras,
            dialect: options.dialect,
            root_braced,
            line_starts: std::sync::OnceLock::new(),
        };
        doc.shrink_tables();
        Ok(doc)
    }
}

/// Rejects nesting deeper than `limit`, following the grammar's lexical rules (strings,
/// raw strings, comments) so brackets inside them are not counted. Used before the
/// recursive reference parser.
pub(crate) fn check_depth(text: &str, options: ParseOptions) -> Result<(), ParseError> {
    let limit = options.max_depth;
    let b = text.as_bytes();
    let mut depth = 0usize;
    if options.dialect == Dialect::Sjson {
        // A braceless root is a level of nesting, as in `Scanner::document`.
        let mut s = Scanner::new(text, options);
        if s.skip_trivia().is_ok() && b.get(s.pos) != Some(&b'{') {
            depth = 1;
        }
    }
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
                    // An unterminated raw string: the parser rejects the text there.
                    return Ok(());
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
    memchr::memmem::find(hay, needle)
}

/// Length of the bare token starting at `pos` of `b`: a run of bare bytes, stopping at a
/// comment (`//`, `/*`) or a byte-order mark.
#[inline]
fn bare_len(b: &[u8], pos: usize) -> usize {
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

/// An open container on the scanner's stack.
struct Open {
    extra: usize,
    count: u32,
    object: bool,
    /// A braceless SJSON root, closed by the end of the text.
    braceless: bool,
    /// Where this object's keys start in [`Scanner::keys`].
    keys_from: usize,
}

/// A key lexeme as scanned: its span and how it is quoted.
#[derive(Clone, Copy)]
struct KeySpan {
    start: u32,
    end: u32,
    quoting: Quoting,
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
fn distinct_keys(text: &str, keys: &[KeySpan]) -> Result<(), ParseError> {
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

struct Scanner<'t> {
    text: &'t str,
    b: &'t [u8],
    pos: usize,
    sjson: bool,
    max_depth: usize,
    nodes: Vec<Node>,
    extras: Vec<Extra>,
    stack: Vec<Open>,
    /// The keys of the open objects, innermost last (checked for repeats on close).
    keys: Vec<KeySpan>,
    /// Containers open around the stack's first entry (a piece's array, see
    /// [`Scanner::piece`]): they count for the depth limit.
    depth_base: usize,
    /// Parsing a piece: stop at the bracket that closes the stack's first entry.
    in_piece: bool,
    /// Another thread's piece, to take when the parse reaches its start.
    pending: Option<Pending>,
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
            nodes: Vec::with_capacity(text.len() / NODE_BYTES_GUESS + 1),
            extras: Vec::with_capacity(text.len() / CONTAINER_BYTES_GUESS + 1),
            stack: Vec::new(),
            keys: Vec::new(),
            depth_base: 0,
            in_piece: false,
            pending: None,
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

    fn document(mut self) -> PResult<(Vec<Node>, Vec<Extra>, bool)> {
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
                let end = self.b.len() as u32;
                let extra = self.push_node(start, end, Tag::Object, None)?;
                self.stack.push(Open {
                    extra: extra.unwrap_or_default(),
                    count: 0,
                    object: true,
                    braceless: true,
                    keys_from: 0,
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
        Ok((self.nodes, self.extras, braced))
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
                if self.in_piece && self.stack.len() == 1 {
                    // The piece's array closes here: the first thread goes on from here.
                    return Ok(());
                }
                if !braceless {
                    self.pos += 1;
                }
                self.close()?;
                need_comma = true;
                continue;
            }
            if !self.sjson && need_comma {
                if c != Some(b',') {
                    let what = if object { "',' or '}'" } else { "',' or ']'" };
                    return Err(self.expected(what));
                }
                self.pos += 1;
                self.skip_trivia()?;
            }
            let key = if object {
                let key = self.key()?;
                self.keys.push(KeySpan {
                    start: key.0,
                    end: self.pos as u32,
                    quoting: key.1,
                });
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
            if !object && self.at_pending() && self.take_piece() {
                need_comma = true;
                continue;
            }
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

    /// Parses the elements of an array from `split.at` (the start of one) up to the
    /// bracket that closes the array, as if the array were open `split.depth` deep.
    fn piece(mut self, split: Split) -> PResult<Piece> {
        self.pos = split.at;
        self.depth_base = split.depth - 1;
        self.in_piece = true;
        self.stack.push(Open {
            extra: usize::MAX,
            count: 0,
            object: false,
            braceless: false,
            keys_from: 0,
        });
        self.run()?;
        let count = self.stack.last().map_or(0, |open| open.count);
        Ok(Piece {
            nodes: self.nodes,
            extras: self.extras,
            count,
            end: self.pos,
        })
    }

    /// Whether the parse stands where the pending piece starts: at an element of an
    /// array as deep as the piece's.
    fn at_pending(&self) -> bool {
        self.pending.as_ref().is_some_and(|p| {
            p.split.at == self.pos && p.split.depth == self.depth_base + self.stack.len()
        })
    }

    /// Appends the pending piece's nodes and goes on after them; `false` (and nothing
    /// taken) when the other thread met an error or the tables would overflow.
    fn take_piece(&mut self) -> bool {
        let Some(pending) = self.pending.take() else {
            return false;
        };
        let Ok(Ok(piece)) = pending.piece.recv() else {
            return false;
        };
        if !doc::append(&mut self.nodes, &mut self.extras, piece.nodes, piece.extras) {
            return false;
        }
        self.pos = piece.end;
        if let Some(top) = self.stack.last_mut() {
            top.count += piece.count;
        }
        #[cfg(test)]
        crate::split::PIECES_TAKEN.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        true
    }

    /// Closes the innermost container.
    fn close(&mut self) -> PResult<()> {
        let open = self.stack.pop().expect("close with an open container");
        let end = if open.braceless {
            self.b.len() as u32
        } else {
            self.pos as u32
        };
        doc::close(&self.nodes, &mut self.extras, open.extra, end, open.count);
        if open.object && open.count > 1 {
            distinct_keys(self.text, &self.keys[open.keys_from..])?;
        }
        if open.object {
            self.keys.truncate(open.keys_from);
        }
        if let Some(parent) = self.stack.last_mut() {
            parent.count += 1;
        }
        Ok(())
    }

    fn key(&mut self) -> PResult<(u32, Quoting)> {
        let start = self.pos;
        match self.b.get(self.pos) {
            Some(b'"') => {
                let q = self.string()?;
                Ok((start as u32, q))
            }
            Some(_) if self.sjson => match self.bare_len() {
                0 => Err(self.expected("key")),
                len => {
                    self.pos += len;
                    Ok((start as u32, Quoting::Bare))
                }
            },
            _ => Err(self.expected(if self.sjson { "key" } else { "string" })),
        }
    }

    /// Length of the bare token at the current position.
    #[inline]
    fn bare_len(&self) -> usize {
        bare_len(self.b, self.pos)
    }

    /// Reads a quoted or raw string at the current position; returns its quoting.
    fn string(&mut self) -> PResult<Quoting> {
        let b = self.b;
        let start = self.pos;
        if self.sjson && b[start..].starts_with(b"\"\"\"") {
            return match find(&b[start + 3..], b"\"\"\"") {
                Some(end) => {
                    self.pos = start + 3 + end + 3;
                    Ok(Quoting::Raw)
                }
                None => Err(self.error(start, "unterminated raw string")),
            };
        }
        let mut i = start + 1;
        let mut escaped = false;
        loop {
            // The next quote or backslash, found a vector at a time; JSON forbids control
            // characters before it.
            let stop = memchr::memchr2(b'"', b'\\', &b[i..]).map(|n| i + n);
            if !self.sjson {
                let run = &b[i..stop.unwrap_or(b.len())];
                if let Some(n) = run.iter().position(|&c| c < 0x20) {
                    return Err(self.error(i + n, "control character in string"));
                }
            }
            let Some(stop) = stop else {
                return Err(self.error(start, "unterminated string"));
            };
            i = stop;
            if b[i] == b'"' {
                break;
            }
            escaped = true;
            match b.get(i + 1) {
                Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => i += 2,
                Some(b'u')
                    if b.len() >= i + 6 && b[i + 2..i + 6].iter().all(u8::is_ascii_hexdigit) =>
                {
                    i += 6
                }
                _ => return Err(self.error(i, "invalid escape")),
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
    fn value(&mut self, key: Option<(u32, Quoting)>) -> PResult<bool> {
        let start = self.pos;
        let tag = match self.b.get(start) {
            Some(&c @ (b'{' | b'[')) => {
                if self.depth_base + self.stack.len() + 1 > self.max_depth {
                    return Err(ParseError::at(
                        ErrorKind::TooDeep(self.max_depth),
                        self.text,
                        start,
                    ));
                }
                let object = c == b'{';
                let tag = if object { Tag::Object } else { Tag::Array };
                // The span's end is set when the container closes.
                let extra = self.push_node(start as u32, 0, tag, key)?;
                self.pos += 1;
                self.stack.push(Open {
                    extra: extra.unwrap_or_default(),
                    count: 0,
                    object,
                    braceless: false,
                    keys_from: self.keys.len(),
                });
                return Ok(true);
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
        self.push_node(start as u32, self.pos as u32, tag, key)?;
        Ok(false)
    }

    /// Appends a node (see [`doc::push_node`]).
    #[inline]
    fn push_node(
        &mut self,
        start: u32,
        end: u32,
        tag: Tag,
        key: Option<(u32, Quoting)>,
    ) -> PResult<Option<usize>> {
        doc::push_node(&mut self.nodes, &mut self.extras, start, end, tag, key)
            .map_err(|_| ParseError::at(ErrorKind::TooLarge, self.text, start as usize))
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

#[cfg(test)]
mod tests {
    //! Every construct of both dialects, through both parsers: the production parser must
    //! build the same node table as the reference grammar, and the value view must read
    //! what the text says.

    use super::*;
    use crate::doc::{Kind, Value};
    use crate::number::NumberValue;
    use crate::reference::parse_reference;

    /// Parses with both parsers, checks they agree and the text is kept, returns the fast one.
    fn parse_both(text: &str, dialect: Dialect) -> Document {
        let fast = Document::parse(text, dialect)
            .unwrap_or_else(|e| panic!("{dialect:?} {text:?}: fast parser: {e}"));
        let reference = parse_reference(text, ParseOptions::new(dialect))
            .unwrap_or_else(|e| panic!("{dialect:?} {text:?}: reference parser: {e}"));
        assert!(
            fast.same_tree(&reference),
            "{dialect:?} {text:?}: trees differ\nfast:      {:?} {:?}\nreference: {:?} {:?}",
            fast.nodes,
            fast.extras,
            reference.nodes,
            reference.extras
        );
        assert_eq!(fast.text(), text);
        fast
    }

    fn sjson(text: &str) -> Document {
        parse_both(text, Dialect::Sjson)
    }

    fn json(text: &str) -> Document {
        parse_both(text, Dialect::Json)
    }

    /// Both parsers reject `text`; returns the production parser's error.
    fn fails(text: &str, dialect: Dialect) -> ParseError {
        let reference = parse_reference(text, ParseOptions::new(dialect));
        assert!(
            reference.is_err(),
            "{dialect:?} {text:?}: the reference parser accepts it"
        );
        match Document::parse(text, dialect) {
            Ok(doc) => panic!(
                "{dialect:?} {text:?}: the fast parser accepts it: {}",
                show(doc.root())
            ),
            Err(e) => e,
        }
    }

    /// A compact, unambiguous rendering of a value: numbers as lexemes, strings with their
    /// quoting (`b"…"` bare, `r"…"` raw, `"…"` quoted), keys decoded.
    fn show(v: Value<'_>) -> String {
        match v.kind() {
            Kind::Null => "null".into(),
            Kind::Bool => v.as_bool().unwrap().to_string(),
            Kind::Number => v.as_number_lexeme().unwrap().to_string(),
            Kind::String => {
                let prefix = match v.quoting().unwrap() {
                    Quoting::Quoted => "",
                    Quoting::Raw => "r",
                    Quoting::Bare => "b",
                };
                format!("{prefix}{:?}", v.as_str().unwrap())
            }
            Kind::Array => {
                let items: Vec<String> = v.children().map(show).collect();
                format!("[{}]", items.join(","))
            }
            Kind::Object => {
                let items: Vec<String> = v
                    .members()
                    .map(|(k, c)| format!("{k:?}:{}", show(c)))
                    .collect();
                format!("{{{}}}", items.join(","))
            }
        }
    }

    fn sj(text: &str) -> String {
        show(sjson(text).root())
    }

    fn js(text: &str) -> String {
        show(json(text).root())
    }

    #[test]
    fn root_braces_are_optional() {
        let bare = sjson("a = 1");
        let braced = sjson("{ a = 1 }");
        assert!(!bare.root_braced());
        assert!(braced.root_braced());
        assert_eq!(show(bare.root()), r#"{"a":1}"#);
        assert_eq!(show(braced.root()), r#"{"a":1}"#);
        assert!(bare.root().same_value(&braced.root()));
        // A braceless root spans the whole text, trivia included.
        assert_eq!(bare.root().span(), 0..5);
        assert_eq!(sjson("\n{ a = 1 }\n").root().span(), 1..10);
        assert_eq!(sj("{}"), "{}");
        assert_eq!(sj(" { } "), "{}");
    }

    #[test]
    fn empty_and_trivia_only_files_are_empty_objects() {
        for text in [
            "",
            " ",
            "\n\n",
            "\t// only a comment",
            "/* a */ // b\n,,\r\n",
        ] {
            let doc = sjson(text);
            assert_eq!(doc.root().kind(), Kind::Object, "{text:?}");
            assert!(doc.root().is_empty(), "{text:?}");
            assert!(!doc.root_braced());
            assert_eq!(doc.node_count(), 1);
        }
    }

    #[test]
    fn bare_keys_of_real_files() {
        let doc = sjson(
            "* = 1\n#4d2c5ef0-1e1b-4f0a-9a5b-3b0c2d9f6e11 = {}\nsource-templates = []\n1E7C6F15 = 2\n",
        );
        let keys: Vec<_> = doc.root().members().map(|(k, _)| k.into_owned()).collect();
        assert_eq!(
            keys,
            [
                "*",
                "#4d2c5ef0-1e1b-4f0a-9a5b-3b0c2d9f6e11",
                "source-templates",
                "1E7C6F15"
            ]
        );
        for c in doc.root().children() {
            assert_eq!(c.key_quoting(), Some(Quoting::Bare));
            assert_eq!(c.key_lexeme().unwrap(), c.key().unwrap());
        }
        // Keywords and numbers are plain keys.
        assert_eq!(
            sj("true = 1 null = 2 12 = 3 -1.5 = 4"),
            r#"{"true":1,"null":2,"12":3,"-1.5":4}"#
        );
        // Quoted and raw keys.
        let doc = sjson(r#""a b" = 1 """c"d""" = 2"#);
        let kids: Vec<_> = doc.root().children().collect();
        assert_eq!(kids[0].key().unwrap(), "a b");
        assert_eq!(kids[0].key_lexeme().unwrap(), r#""a b""#);
        assert_eq!(kids[0].key_quoting(), Some(Quoting::Quoted));
        assert_eq!(kids[1].key().unwrap(), "c\"d");
        assert_eq!(kids[1].key_quoting(), Some(Quoting::Raw));
    }

    #[test]
    fn equals_or_colon() {
        assert_eq!(sj("a = 1 b: 2 c=3 d:4"), r#"{"a":1,"b":2,"c":3,"d":4}"#);
        assert_eq!(sj("a\n=\n1"), r#"{"a":1}"#);
    }

    #[test]
    fn commas_are_white_space() {
        assert_eq!(sj("a = [1,2,,3]"), r#"{"a":[1,2,3]}"#);
        assert_eq!(sj(",a = 1,,b = 2,"), r#"{"a":1,"b":2}"#);
        assert_eq!(sj("a = [,]"), r#"{"a":[]}"#);
        assert_eq!(sj("{,a = {,b = 1,},}"), r#"{"a":{"b":1}}"#);
        // A comma ends a bare token.
        assert_eq!(sj("a = [x,y]"), r#"{"a":[b"x",b"y"]}"#);
    }

    #[test]
    fn comments() {
        assert_eq!(
            sj("// head\na = 1 // one\n/* two\nlines */ b = /* in */ 2 /**/"),
            r#"{"a":1,"b":2}"#
        );
        // `//` inside a string is text.
        assert_eq!(sj(r#"url = "http://x/*y*/""#), r#"{"url":"http://x/*y*/"}"#);
        assert_eq!(sj(r#"u = """//raw""""#), r#"{"u":r"//raw"}"#);
        // A bare token stops at a comment, but a lone `/` is part of it.
        assert_eq!(sj("a = b//c\n"), r#"{"a":b"b"}"#);
        assert_eq!(sj("a = b/*c*/"), r#"{"a":b"b"}"#);
        assert_eq!(sj("a = b/c"), r#"{"a":b"b/c"}"#);
        assert_eq!(sj("a//c\n= 1"), r#"{"a":1}"#);
        assert_eq!(sj("a = 1//c"), r#"{"a":1}"#);
        assert_eq!(sj("a = true/**/"), r#"{"a":true}"#);
        // Comments do not nest: the first `*/` ends one.
        assert_eq!(sj("/* /* */ a = 1"), r#"{"a":1}"#);
        fails("/* /* */ */ a = 1", Dialect::Sjson);
        // A `//` comment at the end of the file without a line break.
        assert_eq!(sj("a = 1 // end"), r#"{"a":1}"#);
    }

    #[test]
    fn raw_strings() {
        let doc = sjson("text = \"\"\"He said \"hi\",\nthen \"\"left\\n.\"\"\"\n");
        let v = doc.root().get("text").unwrap();
        assert_eq!(v.quoting(), Some(Quoting::Raw));
        assert_eq!(v.as_str().unwrap(), "He said \"hi\",\nthen \"\"left\\n.");
        assert_eq!(sj(r#"a = """""""#), r#"{"a":r""}"#);
        // The first `"""` ends a raw string.
        assert_eq!(sj(r#"a = [""""x""" ""]"#), r#"{"a":[r"\"x",""]}"#);
        // Three quotes always open a raw string: an unterminated one is an error.
        let e = Document::parse(r#"a = ["""x"]"#, Dialect::Sjson).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Syntax("unterminated raw string".into()));
        assert_eq!((e.line, e.col), (1, 6));
        assert!(parse_reference(r#"a = ["""x"]"#, ParseOptions::new(Dialect::Sjson)).is_err());
        assert_eq!(sj(r#"a = ["" "x"]"#), r#"{"a":["","x"]}"#);
        // No escapes in raw strings.
        assert_eq!(sj(r#"a = """\u0041\""""#), r#"{"a":r"\\u0041\\"}"#);
    }

    #[test]
    fn json_escapes() {
        let doc = sjson(r#"s = "\"\\\/\b\f\n\r\t\u00e9\u20AC\ud83d\ude00""#);
        let s = doc.root().get("s").unwrap().as_str().unwrap().into_owned();
        assert_eq!(s, "\"\\/\u{8}\u{c}\n\r\té€😀");
        let doc = json(r#"["\ud83d\ude00", "\u0000", "a\/b"]"#);
        let items: Vec<_> = doc
            .root()
            .children()
            .map(|c| c.as_str().unwrap().into_owned())
            .collect();
        assert_eq!(items, ["😀", "\0", "a/b"]);
        // Escaped keys decode too.
        assert_eq!(sj(r#""\u0061\n" = 1"#), r#"{"a\n":1}"#);
    }

    #[test]
    fn raw_control_characters_in_strings() {
        assert_eq!(sj("a = \"x\ty\nz\r\u{1}\""), r#"{"a":"x\ty\nz\r\u{1}"}"#);
        assert_eq!(sj("\"k\tey\" = 1"), r#"{"k\tey":1}"#);
        for text in ["\"x\ty\"", "\"x\ny\"", "[\"\u{0}\"]", "{\"a\u{1f}\": 1}"] {
            let e = fails(text, Dialect::Json);
            assert_eq!(
                e.kind,
                ErrorKind::Syntax("control character in string".into())
            );
        }
        // DEL and other non-ASCII are not control characters for JSON.
        assert_eq!(js("\"\u{7f}\u{85}\""), r#""\u{7f}\u{85}""#);
    }

    #[test]
    fn no_space_between_tokens() {
        assert_eq!(sj("a=[0.5[255 255 255]]"), r#"{"a":[0.5,[255,255,255]]}"#);
        assert_eq!(sj("b={c=1}d=2"), r#"{"b":{"c":1},"d":2}"#);
        assert_eq!(sj(r#"a="x"b="y""#), r#"{"a":"x","b":"y"}"#);
        assert_eq!(
            sj(r#"a=[1"x"true{}[]null"""r"""]"#),
            r#"{"a":[1,"x",true,{},[],null,r"r"]}"#
        );
        assert_eq!(sj("{a=1}"), r#"{"a":1}"#);
        assert_eq!(sj("a:{b:[]}c:d"), r#"{"a":{"b":[]},"c":b"d"}"#);
    }

    #[test]
    fn bare_string_values() {
        let doc = sjson("categories = [ Tools ]\nmode = fast-ish\n");
        let tools = doc
            .root()
            .get("categories")
            .unwrap()
            .children()
            .next()
            .unwrap();
        assert_eq!(tools.kind(), Kind::String);
        assert_eq!(tools.quoting(), Some(Quoting::Bare));
        assert_eq!(tools.as_str().unwrap(), "Tools");
        assert_eq!(tools.text(), "Tools");
        assert_eq!(
            doc.root().get("mode").unwrap().as_str().unwrap(),
            "fast-ish"
        );
        // Bare tokens that merely start like numbers or keywords are strings.
        assert_eq!(
            sj("a = [1E7C6F15 01 1. 1e .5 - -x 1.5.2 0x10 +1 Infinity NaN]"),
            r#"{"a":[b"1E7C6F15",b"01",b"1.",b"1e",b".5",b"-",b"-x",b"1.5.2",b"0x10",b"+1",b"Infinity",b"NaN"]}"#
        );
        // Non-ASCII white space is not white space.
        assert_eq!(sj("a = x\u{a0}y"), r#"{"a":b"x\u{a0}y"}"#);
    }

    #[test]
    fn numbers_keep_their_lexemes() {
        let doc = sjson("a = [1E-05 -0 1.0 0 -12.5e+3 9007199254740993 123456789012345678901234567890123456789012]");
        let arr = doc.root().get("a").unwrap();
        let lexemes: Vec<_> = arr
            .children()
            .map(|c| {
                assert_eq!(c.kind(), Kind::Number);
                c.as_number_lexeme().unwrap()
            })
            .collect();
        assert_eq!(
            lexemes,
            [
                "1E-05",
                "-0",
                "1.0",
                "0",
                "-12.5e+3",
                "9007199254740993",
                "123456789012345678901234567890123456789012"
            ]
        );
        let values: Vec<_> = arr.children().map(|c| c.as_number().unwrap()).collect();
        assert_eq!(values[0], NumberValue::Float(1e-5));
        assert_eq!(values[1], NumberValue::Int(0));
        assert_eq!(values[2], NumberValue::Int(1));
        assert_eq!(values[4], NumberValue::Float(-12500.0));
        assert!(matches!(values[5], NumberValue::Int(9007199254740993)));
        assert!(matches!(values[6], NumberValue::Big(_)));
        // JSON numbers are the same lexemes.
        assert_eq!(js("[1E-05, -0, 1.0, 2e3]"), "[1E-05,-0,1.0,2e3]");
    }

    #[test]
    fn keywords_need_a_token_boundary() {
        assert_eq!(
            sj("a = [true false null trueish nullable false_ True NULL]"),
            r#"{"a":[true,false,null,b"trueish",b"nullable",b"false_",b"True",b"NULL"]}"#
        );
        assert_eq!(sj("a=true,b=false"), r#"{"a":true,"b":false}"#);
        assert_eq!(sj("a = [true]"), r#"{"a":[true]}"#);
    }

    #[test]
    fn crlf_bom_final_newline_and_blank_lines() {
        let doc = sjson("a = 1\r\nb = [\r\n\t1\r\n]\r\n");
        assert_eq!(doc.newline(), "\r\n");
        assert_eq!(show(doc.root()), r#"{"a":1,"b":[1]}"#);
        let doc = sjson("\u{FEFF}a = 1\n");
        assert_eq!(doc.root().span(), 3..doc.text().len());
        assert_eq!(show(doc.root()), r#"{"a":1}"#);
        assert_eq!(doc.newline(), "\n");
        let doc = sjson("\u{FEFF}{a = 1}");
        assert!(doc.root_braced());
        assert_eq!(doc.root().span(), 3..10);
        // A byte-order mark is white space anywhere in SJSON, but ends a bare token.
        assert_eq!(sj("a\u{FEFF}= x\u{FEFF}"), r#"{"a":b"x"}"#);
        assert_eq!(sj("a = 1"), r#"{"a":1}"#);
        assert_eq!(sj("\na = 1\n"), r#"{"a":1}"#);
        assert_eq!(sj("\r\n\r\na = 1\r\n\r\n"), r#"{"a":1}"#);
        assert_eq!(js("\u{FEFF}[1]"), "[1]");
        assert_eq!(js("\u{FEFF} [1]\r\n"), "[1]");
        assert_eq!(js("[1]"), "[1]");
    }

    #[test]
    fn json_byte_order_mark_only_first() {
        // Regression: the JSON grammar let white space come before the mark.
        for text in [
            " \u{FEFF}1",
            "\n\u{FEFF}[]",
            "\u{FEFF}\u{FEFF}1",
            "[\u{FEFF}1]",
        ] {
            fails(text, Dialect::Json);
        }
    }

    #[test]
    fn json_root_may_be_any_value() {
        assert_eq!(js("[1, 2]"), "[1,2]");
        assert_eq!(js(r#""s""#), r#""s""#);
        assert_eq!(js(" 1.5 "), "1.5");
        assert_eq!(js("true"), "true");
        assert_eq!(js("null"), "null");
        assert_eq!(js("{}"), "{}");
        assert_eq!(
            js(r#"{"a": [1, {"b": null}], "c": "d"}"#),
            r#"{"a":[1,{"b":null}],"c":"d"}"#
        );
        assert!(json("{}").root_braced());
    }

    #[test]
    fn sjson_root_must_be_an_object() {
        for text in [
            "[1]",
            "\"s\"",
            "1",
            "true",
            "a",
            "{a = 1} b = 2",
            "{a = 1}}",
            "a = 1}",
        ] {
            fails(text, Dialect::Sjson);
        }
    }

    #[test]
    fn sjson_syntax_is_an_error_in_json() {
        for text in [
            "// c\n{}",
            "{} /* c */",
            "{a: 1}",
            r#"{"a" = 1}"#,
            "[1, 2,]",
            r#"{"a": 1,}"#,
            "[1 2]",
            r#"{"a": 1 "b": 2}"#,
            "[,1]",
            "[1,,2]",
            "[tools]",
            r#"[""""""]"#,
            "",
            "a = 1",
            "[01]",
            "[1.]",
            "[.5]",
            "[+1]",
            "[-]",
            "[1e]",
            "[truex]",
            "['a']",
            "[1] [2]",
            "{\"a\": 1}\u{FEFF}",
        ] {
            fails(text, Dialect::Json);
        }
    }

    #[test]
    fn sjson_accepts_json() {
        let text = r#"{"a": [1, 2.5e-3, {"b": null}], "c": "d\u00e9", "e": true}"#;
        assert_eq!(show(sjson(text).root()), show(json(text).root()));
        assert!(sjson(text).root().same_value(&json(text).root()));
    }

    #[test]
    fn malformed_sjson() {
        for text in [
            "a",
            "a =",
            "a = ",
            "= 1",
            "a = =",
            "a = [",
            "a = [}",
            "a = {]",
            "a = {b}",
            "a = {b = }",
            "a b = 1",
            "a = \"x",
            "a = 1 /* x",
            "a = \"\\x\"",
            "a = \"\\u12\"",
            "a = \"\\u12G4\"",
            "[a = 1]",
            "a = [b = 1]",
            "a = 1 \"b\"",
            "\"a\"",
        ] {
            fails(text, Dialect::Sjson);
        }
    }

    #[test]
    fn spans_and_keys_point_into_the_text() {
        let text = "a = [1 \"x\"]\n\"k\" : { b = true }";
        let doc = sjson(text);
        let root = doc.root();
        let a = root.get("a").unwrap();
        assert_eq!(a.text(), "[1 \"x\"]");
        assert_eq!(a.item_start(), 0);
        let k = root.get("k").unwrap();
        assert_eq!(k.key_lexeme(), Some("\"k\""));
        assert_eq!(k.text(), "{ b = true }");
        assert_eq!(&text[k.item_start()..k.span().end], "\"k\" : { b = true }");
        assert_eq!(doc.node_count(), 6);
        let second = a.children().nth(1).unwrap();
        assert_eq!(second.text(), "\"x\"");
        assert_eq!(second.key(), None);
        assert_eq!(second.item_start(), second.span().start);
    }

    #[test]
    fn same_tree_notices_differences() {
        let a = sjson("a = 1");
        assert!(a.same_tree(&sjson("a = 1")));
        assert!(!a.same_tree(&sjson("a = 2 ")));
        assert!(!a.same_tree(&sjson("{a=1}")));
        assert!(!json("[1]").same_tree(&sjson("a = [1]")));
    }

    #[test]
    fn depth_limit_counts_a_braceless_root() {
        // Regression: the reference parser's depth check did not count the braceless root
        // as a level, so it accepted `a = [[…]]` with 512 brackets that the production
        // parser rejects.
        let options = ParseOptions {
            dialect: Dialect::Sjson,
            max_depth: 3,
        };
        for (text, ok) in [
            ("a = [[1]]", true),
            ("a = [[[1]]]", false),
            ("{a = [[1]]}", true),
            ("{a = [[[1]]]}", false),
            ("// c\n\u{FEFF}, a = [[1]]", true),
            ("/* { */ a = [[[1]]]", false),
        ] {
            let fast = Document::parse_with(text.to_string(), options);
            let reference = parse_reference(text, options);
            assert_eq!(fast.is_ok(), ok, "{text:?}: {fast:?}");
            assert_eq!(reference.is_ok(), ok, "{text:?}: {reference:?}");
            if let (Err(f), Err(r)) = (fast, reference) {
                assert_eq!(f, r, "{text:?}");
                assert_eq!(f.kind, ErrorKind::TooDeep(3));
            }
        }
    }

    #[test]
    fn dialect_for_path() {
        assert_eq!(Dialect::for_path("a/b.JSON"), Dialect::Json);
        assert_eq!(Dialect::for_path("level.level"), Dialect::Sjson);
        assert_eq!(Dialect::for_path("x.json.bak"), Dialect::Sjson);
    }

    #[test]
    fn number_len_matches_the_grammar() {
        for (lexeme, len) in [
            ("0", 1),
            ("-0", 2),
            ("01", 1),
            ("1.", 1),
            ("1.5", 3),
            ("1e5", 3),
            ("1E+5", 4),
            ("1e+", 1),
            ("-", 0),
            ("-a", 0),
            (".5", 0),
            ("12.34e-56x", 9),
        ] {
            assert_eq!(number_len(lexeme.as_bytes()), len, "{lexeme:?}");
        }
    }
}
