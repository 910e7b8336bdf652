//! The production parser: a single pass over the bytes with an explicit stack (no
//! recursion, so nesting is limited only by `max_depth`), building the flat node table of
//! [`Document`]. It accepts exactly what the pest grammars in `grammar/` accept; the
//! reference parser (`reference.rs`) and a differential test keep the two in step.

use crate::doc::{self, Dialect, Document, Extra, Node, Tag};
use crate::error::{ErrorKind, ParseError};
use crate::lexeme::{bare_len, check_escapes, classify_bare, ends_bare, find, number_len};
use crate::split::{Pending, Piece, Split};
use crate::string::Quoting;

/// Capacity guesses for the node and extra-entry tables, in bytes of text per entry. The
/// tables are shrunk to fit after parsing, so a wrong guess only costs a transient: one
/// doubling when too high a figure, spare room when too low. Measured densities: generated
/// levels have 13.9 (SJSON) and 17.3 (JSON) bytes per node, and, since flat containers
/// are inline (two of an entity's three containers), about 194 and 241 per extra entry;
/// the corpus 8.6 bytes per node overall (7.3 in its densest file), and before flat
/// containers were inline 717 per container (42 in its densest file).
const NODE_BYTES_GUESS: usize = 12;
const EXTRA_BYTES_GUESS: usize = 160;

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

    /// Parses text held by a [`crate::Backing`] (a mapped file) without copying it.
    pub fn parse_backed(
        backing: impl crate::Backing,
        options: ParseOptions,
    ) -> Result<Document, ParseError> {
        Self::parse_split(crate::Text::backed(backing), options, None)
    }

    /// [`Document::parse_with`], on two threads when `split` names the start of an
    /// element of a big array (see [`Split`]): the same document, or the same error,
    /// whether the hint is right or not.
    pub fn parse_split(
        text: impl Into<crate::Text>,
        options: ParseOptions,
        split: Option<Split>,
    ) -> Result<Document, ParseError> {
        Self::parse_split_reusing(text, options, split, Default::default())
    }

    /// [`Document::parse_split`] into the node tables of documents no longer needed
    /// ([`Document::into_parts`]; the second for the second thread's piece): the same
    /// document. Memory already written is not faulted in again, which on a large merge
    /// costs about as much as the writes themselves.
    pub fn parse_split_reusing(
        text: impl Into<crate::Text>,
        options: ParseOptions,
        split: Option<Split>,
        [first, second]: [Tables; 2],
    ) -> Result<Document, ParseError> {
        let text: crate::Text = text.into();
        if text.len() >= u32::MAX as usize {
            return Err(ParseError::at(ErrorKind::TooLarge, "", 0));
        }
        let split = split.filter(|s| s.at < text.len() && s.depth >= 1);
        let (nodes, extras, root_braced) = match split {
            None => Scanner::new(&text, options, first).document()?,
            Some(split) => std::thread::scope(|scope| {
                let (send, piece) = std::sync::mpsc::channel();
                let rest = &text;
                scope.spawn(move || {
                    let _ = send.send(Scanner::new(rest, options, second).piece(split));
                });
                let mut scanner = Scanner::new(&text, options, first);
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

/// A document's node tables, emptied, for another parse to fill
/// ([`Document::into_parts`], [`Document::parse_split_reusing`]). The default is none.
#[derive(Debug, Default)]
pub struct Tables {
    nodes: Vec<Node>,
    extras: Vec<Extra>,
}

impl Document {
    /// Consumes the document, returning its source text as it is held and its node
    /// tables for another parse ([`Document::parse_split_reusing`]).
    pub fn into_parts(self) -> (crate::Text, Tables) {
        let tables = Tables {
            nodes: self.nodes,
            extras: self.extras,
        };
        (self.text, tables)
    }
}

/// Rejects nesting deeper than `limit`, following the grammar's lexical rules (strings,
/// raw strings, comments) so brackets inside them are not counted. Used before the
/// recursive reference parser.
#[cfg(feature = "reference")]
pub(crate) fn check_depth(text: &str, options: ParseOptions) -> Result<(), ParseError> {
    let limit = options.max_depth;
    let b = text.as_bytes();
    let mut depth = 0usize;
    if options.dialect == Dialect::Sjson {
        // A braceless root is a level of nesting, as in `Scanner::document`.
        let mut s = Scanner::new(text, options, Tables::default());
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

/// An open container on the scanner's stack.
struct Open {
    extra: usize,
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
    extras: Vec<Extra>,
    stack: Vec<Open>,
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
    /// A scanner of `text`, filling `tables` (emptied; reserved to the size guessed for
    /// the text when they are empty).
    fn new(text: &'t str, options: ParseOptions, tables: Tables) -> Self {
        let Tables {
            mut nodes,
            mut extras,
        } = tables;
        nodes.clear();
        extras.clear();
        if nodes.capacity() == 0 {
            nodes.reserve(text.len() / NODE_BYTES_GUESS + 1);
        }
        if extras.capacity() == 0 {
            extras.reserve(text.len() / EXTRA_BYTES_GUESS + 1);
        }
        Scanner {
            text,
            b: text.as_bytes(),
            pos: 0,
            sjson: options.dialect == Dialect::Sjson,
            max_depth: options.max_depth,
            nodes,
            extras,
            stack: Vec::new(),
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

    /// Skips white space and comments; in SJSON also commas, semicolons and byte-order
    /// marks.
    #[inline]
    fn skip_trivia(&mut self) -> PResult<()> {
        let b = self.b;
        loop {
            match b.get(self.pos) {
                Some(b' ' | b'\t' | b'\r' | b'\n') => self.pos += 1,
                // Vermintide's `.cfg` ends members with `;`: a separator, like a comma.
                Some(b',' | b';') if self.sjson => self.pos += 1,
                Some(b'/') if b.get(self.pos + 1) == Some(&b'/') => {
                    self.pos += 2;
                    while self.pos < b.len() && b[self.pos] != b'\n' {
                        self.pos += 1;
                    }
                }
                Some(b'/') if b.get(self.pos + 1) == Some(&b'*') => {
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
                if self.b.get(self.pos) == Some(&close) {
                    // A trailing comma (JSON with comments, as editors write it).
                    need_comma = false;
                    continue;
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
        doc::close(
            &mut self.nodes,
            &mut self.extras,
            open.extra,
            end,
            open.count,
        );
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
                });
                return Ok(true);
            }
            Some(b'"') => match self.string()? {
                Quoting::Raw => Tag::Raw,
                _ => Tag::Quoted,
            },
            Some(&c) if self.sjson => {
                // A number that a byte ending bare tokens follows is a whole token: one
                // scan, where a level's many numbers were scanned as a token, then again
                // as a number.
                let number = match c {
                    b'-' | b'0'..=b'9' => number_len(&self.b[start..]),
                    _ => 0,
                };
                if number > 0 && self.b.get(start + number).is_none_or(|&c| ends_bare(c)) {
                    self.pos += number;
                    Tag::Number
                } else {
                    let len = self.bare_len();
                    if len == 0 {
                        return Err(self.expected("value"));
                    }
                    self.pos += len;
                    classify_bare(&self.b[start..self.pos])
                }
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

#[cfg(test)]
mod tests;
