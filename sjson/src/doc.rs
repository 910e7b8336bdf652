//! The lossless document: the source text plus a flat, preorder table of nodes
//! whose spans point into it. Everything not covered by a span (white space,
//! comments, commas, separators) is trivia and is printed back as it was.

use std::ops::Range;

use crate::string::Quoting;
use crate::value::Value;

/// The syntax a document is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// Bitsquid/Stingray simplified JSON (accepts JSON too).
    Sjson,
    /// RFC 8259 JSON, with comments and trailing commas tolerated (JSONC).
    Json,
}

impl Dialect {
    /// The dialect conventionally used for a file name: `.json` is JSON, anything else SJSON.
    pub fn for_path(path: &str) -> Dialect {
        if path.to_ascii_lowercase().ends_with(".json") {
            Dialect::Json
        } else {
            Dialect::Sjson
        }
    }
}

/// The kind of a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// `null`
    Null,
    /// `true` or `false`
    Bool,
    /// A number, kept as its lexeme.
    Number,
    /// A string (quoted, raw or bare).
    String,
    /// An array.
    Array,
    /// An object (ordered keys).
    Object,
}

/// The syntactic form of a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Tag {
    Null,
    True,
    False,
    Number,
    Quoted,
    Raw,
    Bare,
    Array,
    Object,
}

impl Tag {
    pub(crate) fn is_container(self) -> bool {
        matches!(self, Tag::Array | Tag::Object)
    }

    pub(crate) fn quoting(self) -> Option<Quoting> {
        match self {
            Tag::Quoted => Some(Quoting::Quoted),
            Tag::Raw => Some(Quoting::Raw),
            Tag::Bare => Some(Quoting::Bare),
            _ => None,
        }
    }
}

/// One value in the preorder table: 8 bytes. Spans are byte offsets into the text.
///
/// `meta` packs, from the low bits up: the key's quoting (2 bits: none, quoted, raw,
/// bare), the [`Tag`] (4 bits), a flag (1 bit) and 25 bits of payload. With the flag
/// set, the payload indexes an [`Extra`] entry holding the end, subtree end, child count
/// and key start. With the flag clear, the node is inline:
/// - a scalar: the payload's low [`LEN_BITS`] bits are its text's length and the rest
///   the distance from its key's start to its own start (0 without a key);
/// - a flat container (each child a single node, none with an extra entry, a short
///   text, few children: a level's `position = [x y z]`): the low [`LEN_BITS`] bits are
///   its text's length, the next [`COUNT_BITS`] its child count and the rest the key
///   distance. Its subtree ends after its children.
///
/// Other containers, and the rare scalar that is too long or whose key lies too far
/// before it, have an extra entry. The key's end is not stored:
/// [`crate::lexeme::key_end`] finds it by scanning the key lexeme.
///
/// (Nodes were 12 bytes with the end inline; a level has about five scalars for each
/// container, so moving containers' ends to their extra entry saves a sixth of the
/// tables. Flat containers inline save a fifth of a level's tables again.)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Node {
    /// Where the value's own text starts (its bracket for a container).
    start: u32,
    meta: u32,
}

const _: () = assert!(std::mem::size_of::<Node>() == 8);

const KEY_MASK: u32 = 0b11;
const TAG_SHIFT: u32 = 2;
const TAG_MASK: u32 = 0b1111;
const EXTRA_BIT: u32 = 1 << 6;
const PAYLOAD_SHIFT: u32 = 7;
/// Bits of an inline scalar's payload that hold its length; the key distance has the rest.
const LEN_BITS: u32 = 15;
const LEN_MASK: u32 = (1 << LEN_BITS) - 1;

/// Bits of a flat container's payload, above its length, that hold its child count.
const COUNT_BITS: u32 = 4;
/// The most children a flat container stored inline may have.
#[cfg(not(test))]
const MAX_FLAT_COUNT: u32 = (1 << COUNT_BITS) - 1;
#[cfg(test)]
const MAX_FLAT_COUNT: u32 = 2;
/// The largest key distance a flat container stores inline (the bits its child count
/// leaves). Unit tests lower it below a scalar's, so that the two limits differ there too.
#[cfg(not(test))]
const MAX_FLAT_KEY_DELTA: u32 = (1 << (32 - PAYLOAD_SHIFT - LEN_BITS - COUNT_BITS)) - 1;
#[cfg(test)]
const MAX_FLAT_KEY_DELTA: u32 = 3;

/// The most [`Extra`] entries a document may hold.
const MAX_EXTRAS: usize = 1 << (32 - PAYLOAD_SHIFT);
/// The longest text a node stores inline (a scalar's or a flat container's), and the
/// largest key-to-value distance a scalar node stores inline. Unit tests lower them so
/// that short documents take the extra-entry path too.
#[cfg(not(test))]
const MAX_SCALAR_LEN: u32 = LEN_MASK;
#[cfg(test)]
const MAX_SCALAR_LEN: u32 = 8;
#[cfg(not(test))]
const MAX_KEY_DELTA: u32 = (1 << (32 - PAYLOAD_SHIFT - LEN_BITS)) - 1;
#[cfg(test)]
const MAX_KEY_DELTA: u32 = 6;

/// Tags by their code (codes 9 to 15 are unused).
const TAGS: [Tag; 16] = [
    Tag::Null,
    Tag::True,
    Tag::False,
    Tag::Number,
    Tag::Quoted,
    Tag::Raw,
    Tag::Bare,
    Tag::Array,
    Tag::Object,
    Tag::Null,
    Tag::Null,
    Tag::Null,
    Tag::Null,
    Tag::Null,
    Tag::Null,
    Tag::Null,
];

/// What a node does not keep inline: the end, subtree end, child count and key start of
/// a container that is not flat (or of a long scalar, or one whose key lies far before
/// it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Extra {
    /// Where the value's text ends (after its closing bracket for a container).
    end: u32,
    /// Index one past the last node of this subtree.
    next: u32,
    /// Number of children.
    len: u32,
    /// Start of the key lexeme (0 when the node is not an object member).
    key_start: u32,
}

/// There are more extra entries (containers not stored inline, long scalars) than a node
/// can index.
#[derive(Debug)]
pub(crate) struct TooManyContainers;

/// Appends a node for a value spanning `start..end` whose key, if it is an object member,
/// starts at `key.0`. Returns the index of its [`Extra`] entry, if it has one: for a
/// container, [`close`] must complete the entry once its children are in.
#[inline]
pub(crate) fn push_node(
    nodes: &mut Vec<Node>,
    extras: &mut Vec<Extra>,
    start: u32,
    end: u32,
    tag: Tag,
    key: Option<(u32, Quoting)>,
) -> Result<Option<usize>, TooManyContainers> {
    let (key_start, q) = match key {
        None => (start, 0),
        Some((s, Quoting::Quoted)) => (s, 1),
        Some((s, Quoting::Raw)) => (s, 2),
        Some((s, Quoting::Bare)) => (s, 3),
    };
    let delta = start - key_start;
    let meta = q | ((tag as u32) << TAG_SHIFT);
    // (A container's end is not known yet: `close` sets it.)
    let len = end.wrapping_sub(start);
    if !tag.is_container() && delta <= MAX_KEY_DELTA && len <= MAX_SCALAR_LEN {
        nodes.push(Node {
            start,
            meta: meta | (((delta << LEN_BITS) | len) << PAYLOAD_SHIFT),
        });
        return Ok(None);
    }
    let index = extras.len();
    if index >= MAX_EXTRAS {
        return Err(TooManyContainers);
    }
    extras.push(Extra {
        // A scalar's entry is complete now; a container's is completed by `close`.
        end,
        next: nodes.len() as u32 + 1,
        len: 0,
        key_start: if key.is_some() { key_start } else { 0 },
    });
    nodes.push(Node {
        start,
        meta: meta | EXTRA_BIT | ((index as u32) << PAYLOAD_SHIFT),
    });
    Ok(Some(index))
}

/// Completes the container with extra entry `extra` once its children are in: its span
/// ends at `end` and it has `len` children. A flat container (see [`Node`]) whose entry
/// is the last is stored inline instead, and its entry dropped.
#[inline]
pub(crate) fn close(nodes: &mut [Node], extras: &mut Vec<Extra>, extra: usize, end: u32, len: u32) {
    let next = nodes.len() as u32;
    // `push_node` set the entry's `next` to the container's index + 1.
    let node = extras[extra].next as usize - 1;
    if extra + 1 == extras.len() && next as usize - node - 1 == len as usize {
        let n = &mut nodes[node];
        let span = end - n.start;
        let delta = match n.meta & KEY_MASK {
            0 => 0,
            _ => n.start - extras[extra].key_start,
        };
        if len <= MAX_FLAT_COUNT && span <= MAX_SCALAR_LEN && delta <= MAX_FLAT_KEY_DELTA {
            let payload = (((delta << COUNT_BITS) | len) << LEN_BITS) | span;
            n.meta =
                (n.meta & !(EXTRA_BIT | (u32::MAX << PAYLOAD_SHIFT))) | (payload << PAYLOAD_SHIFT);
            extras.pop();
            return;
        }
    }
    extras[extra].end = end;
    extras[extra].next = next;
    extras[extra].len = len;
}

/// Appends `more_nodes` and `more_extras`, parsed apart with indexes counted from 0,
/// shifting their indexes; `false` (and nothing appended) when the tables would hold more
/// than they can index.
pub(crate) fn append(
    nodes: &mut Vec<Node>,
    extras: &mut Vec<Extra>,
    mut more_nodes: Vec<Node>,
    mut more_extras: Vec<Extra>,
) -> bool {
    let (node_shift, extra_shift) = (nodes.len(), extras.len());
    let fits = extra_shift + more_extras.len() <= MAX_EXTRAS
        && node_shift + more_nodes.len() < u32::MAX as usize;
    if !fits {
        return false;
    }
    for e in &mut more_extras {
        e.next += node_shift as u32;
    }
    for n in &mut more_nodes {
        if n.meta & EXTRA_BIT != 0 {
            n.meta += (extra_shift as u32) << PAYLOAD_SHIFT;
        }
    }
    nodes.append(&mut more_nodes);
    extras.append(&mut more_extras);
    true
}

impl Node {
    #[inline]
    pub(crate) fn tag(&self) -> Tag {
        TAGS[((self.meta >> TAG_SHIFT) & TAG_MASK) as usize]
    }

    /// Whether the node is an array or an object (from its tag's code, without the
    /// table: the accessors ask it for every node without an extra entry).
    #[inline]
    fn is_container(&self) -> bool {
        const ARRAY: u32 = Tag::Array as u32;
        const OBJECT: u32 = Tag::Object as u32;
        matches!((self.meta >> TAG_SHIFT) & TAG_MASK, ARRAY | OBJECT)
    }

    /// The index of the extra entry, if the node has one.
    #[inline]
    fn extra(&self) -> Option<usize> {
        (self.meta & EXTRA_BIT != 0).then_some((self.meta >> PAYLOAD_SHIFT) as usize)
    }

    /// How the key is written; `None` when the node is not an object member.
    #[inline]
    pub(crate) fn key_quoting(&self) -> Option<Quoting> {
        match self.meta & KEY_MASK {
            0 => None,
            1 => Some(Quoting::Quoted),
            2 => Some(Quoting::Raw),
            _ => Some(Quoting::Bare),
        }
    }

    #[inline]
    pub(crate) fn start(&self) -> u32 {
        self.start
    }

    /// Where the value's text ends.
    #[inline]
    pub(crate) fn end(&self, extras: &[Extra]) -> u32 {
        match self.extra() {
            Some(e) => extras[e].end,
            None => self.start + ((self.meta >> PAYLOAD_SHIFT) & LEN_MASK),
        }
    }

    /// The start of the key lexeme (meaningful for object members only).
    #[inline]
    pub(crate) fn key_start(&self, extras: &[Extra]) -> u32 {
        match self.extra() {
            Some(e) => extras[e].key_start,
            None => {
                let above_len = self.meta >> (PAYLOAD_SHIFT + LEN_BITS);
                match self.is_container() {
                    true => self.start - (above_len >> COUNT_BITS),
                    false => self.start - above_len,
                }
            }
        }
    }

    /// Index one past the last node of the subtree of this node, which is node `index`.
    #[inline]
    pub(crate) fn next(&self, index: usize, extras: &[Extra]) -> usize {
        match self.extra() {
            Some(e) => extras[e].next as usize,
            None => index + 1 + self.inline_len() as usize,
        }
    }

    /// Number of children (0 for scalars).
    #[inline]
    pub(crate) fn len(&self, extras: &[Extra]) -> u32 {
        match self.extra() {
            Some(e) => extras[e].len,
            None => self.inline_len(),
        }
    }

    /// The child count of a node without an extra entry: a flat container's, 0 for a
    /// scalar.
    #[inline]
    fn inline_len(&self) -> u32 {
        match self.is_container() {
            true => (self.meta >> (PAYLOAD_SHIFT + LEN_BITS)) & ((1 << COUNT_BITS) - 1),
            false => 0,
        }
    }

    /// The byte range of the key lexeme in `text`, for an object member.
    #[inline]
    pub(crate) fn key_range(&self, text: &str, extras: &[Extra]) -> Option<Range<usize>> {
        let q = self.key_quoting()?;
        let start = self.key_start(extras) as usize;
        Some(start..crate::lexeme::key_end(text.as_bytes(), start, q))
    }
}

/// Identifies a node within its document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub(crate) u32);

impl NodeId {
    /// The root value of every document.
    pub const ROOT: NodeId = NodeId(0);

    /// The index of this node in preorder.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A parsed document that prints back byte for byte.
#[derive(Debug, Clone)]
pub struct Document {
    pub(crate) text: crate::Text,
    pub(crate) nodes: Vec<Node>,
    /// The nodes' [`Extra`] entries (containers' that are not flat, mostly), in preorder.
    pub(crate) extras: Vec<Extra>,
    pub(crate) dialect: Dialect,
    /// Whether the root object is written with braces (always true for JSON containers).
    pub(crate) root_braced: bool,
    /// Byte offsets of the line starts after the first, built when an indentation is
    /// first asked for on a long line (the printer asks for the indentation of every
    /// item it prints: a scan per item is quadratic on a one-line 200,000-element array).
    pub(crate) line_starts: std::sync::OnceLock<Vec<usize>>,
}

impl Document {
    /// The source text: printing an unedited document is this text, byte for byte.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Consumes the document, returning its source text as a `String` (a copy when the
    /// document was parsed from a [`crate::Backing`]; [`Document::into_source`] keeps it).
    pub fn into_text(self) -> String {
        self.text.into_string()
    }

    /// Consumes the document, returning its source text as it is held.
    pub fn into_source(self) -> crate::Text {
        self.text
    }

    /// The dialect the document was parsed as.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// Whether an SJSON root object is written with braces.
    pub fn root_braced(&self) -> bool {
        self.root_braced
    }

    /// The root value.
    pub fn root(&self) -> Value<'_> {
        self.value(NodeId::ROOT)
    }

    /// The value of node `id`.
    pub fn value(&self, id: NodeId) -> Value<'_> {
        Value { doc: self, id }
    }

    /// Number of nodes (values) in the document.
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// The line ending the document uses (`"\r\n"` if its first line ends so).
    pub fn newline(&self) -> &'static str {
        match self.text.find('\n') {
            Some(i) if i > 0 && self.text.as_bytes()[i - 1] == b'\r' => "\r\n",
            _ => "\n",
        }
    }

    /// Whether two documents have the same node table and dialect (same spans, kinds,
    /// keys): used to check the production parser against the reference grammar.
    pub fn same_tree(&self, other: &Document) -> bool {
        self.dialect == other.dialect
            && self.root_braced == other.root_braced
            && self.nodes == other.nodes
            && self.extras == other.extras
    }

    #[inline]
    pub(crate) fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.index()]
    }

    /// The syntactic form of node `id`.
    #[inline]
    pub(crate) fn tag(&self, id: NodeId) -> Tag {
        self.node(id).tag()
    }

    /// Index one past the last node of the subtree of `id`.
    #[inline]
    pub(crate) fn next(&self, id: NodeId) -> u32 {
        self.node(id).next(id.index(), &self.extras) as u32
    }

    /// Number of children of `id` (0 for scalars).
    #[inline]
    pub(crate) fn len(&self, id: NodeId) -> u32 {
        self.node(id).len(&self.extras)
    }

    /// The byte range of the value of `id` (brackets included).
    #[inline]
    pub(crate) fn span(&self, id: NodeId) -> Range<usize> {
        let n = self.node(id);
        n.start() as usize..n.end(&self.extras) as usize
    }

    /// The byte range of the key lexeme of `id`, when it is an object member.
    #[inline]
    pub(crate) fn key_range(&self, id: NodeId) -> Option<Range<usize>> {
        self.node(id).key_range(&self.text, &self.extras)
    }

    /// Releases the spare capacity of the tables (after parsing).
    pub(crate) fn shrink_tables(&mut self) {
        self.nodes.shrink_to_fit();
        self.extras.shrink_to_fit();
    }

    /// The byte range between a container's brackets (its inside).
    pub(crate) fn inner_range(&self, id: NodeId) -> Range<usize> {
        let span = self.span(id);
        if id == NodeId::ROOT && !self.root_braced {
            span
        } else {
            span.start + 1..span.end - 1
        }
    }
}

#[cfg(test)]
mod tests;
