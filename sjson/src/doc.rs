//! The lossless document: the source text plus a flat, preorder table of nodes
//! whose spans point into it. Everything not covered by a span (white space,
//! comments, commas, separators) is trivia and is printed back as it was.

use std::borrow::Cow;
use std::hash::{Hash, Hasher};
use std::ops::Range;

use crate::number::NumberValue;
use crate::string::{self, Quoting};

/// The syntax a document is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// Bitsquid/Stingray simplified JSON (accepts JSON too).
    Sjson,
    /// Strict RFC 8259 JSON.
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
    pub(crate) fn quoting(self) -> Option<Quoting> {
        match self {
            Tag::Quoted => Some(Quoting::Quoted),
            Tag::Raw => Some(Quoting::Raw),
            Tag::Bare => Some(Quoting::Bare),
            _ => None,
        }
    }
}

/// One value in the preorder table. Spans are byte offsets into the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Node {
    /// Span of the value's own text (brackets included for containers).
    pub start: u32,
    pub end: u32,
    /// Span of the key lexeme when this node is an object member.
    pub key_start: u32,
    pub key_end: u32,
    /// Index one past the last node of this subtree.
    pub next: u32,
    /// Number of children (containers only).
    pub len: u32,
    pub tag: Tag,
    /// Quoting of the key; `None` when the node is not an object member.
    pub key: Option<Quoting>,
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
    pub(crate) text: String,
    pub(crate) nodes: Vec<Node>,
    pub(crate) dialect: Dialect,
    /// Whether the root object is written with braces (always true for JSON containers).
    pub(crate) root_braced: bool,
}

impl Document {
    /// The source text: printing an unedited document is this text, byte for byte.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Consumes the document, returning its source text.
    pub fn into_text(self) -> String {
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
    }

    pub(crate) fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.index()]
    }

    /// The byte range between a container's brackets (its inside).
    pub(crate) fn inner_range(&self, id: NodeId) -> Range<usize> {
        let n = self.node(id);
        if id == NodeId::ROOT && !self.root_braced {
            n.start as usize..n.end as usize
        } else {
            n.start as usize + 1..n.end as usize - 1
        }
    }
}

/// A value in a document: a cheap handle to read it.
#[derive(Clone, Copy)]
pub struct Value<'d> {
    doc: &'d Document,
    id: NodeId,
}

impl std::fmt::Debug for Value<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Value({:?}: {:.60})", self.id, self.text())
    }
}

impl<'d> Value<'d> {
    fn node(&self) -> &'d Node {
        &self.doc.nodes[self.id.index()]
    }

    /// The document this value belongs to.
    pub fn doc(&self) -> &'d Document {
        self.doc
    }

    /// This value's node id.
    pub fn id(&self) -> NodeId {
        self.id
    }

    /// The kind of value.
    pub fn kind(&self) -> Kind {
        match self.node().tag {
            Tag::Null => Kind::Null,
            Tag::True | Tag::False => Kind::Bool,
            Tag::Number => Kind::Number,
            Tag::Quoted | Tag::Raw | Tag::Bare => Kind::String,
            Tag::Array => Kind::Array,
            Tag::Object => Kind::Object,
        }
    }

    /// Whether this is an array or an object.
    pub fn is_container(&self) -> bool {
        matches!(self.node().tag, Tag::Array | Tag::Object)
    }

    /// The source text of the value (brackets included; the whole text for a braceless root).
    pub fn text(&self) -> &'d str {
        let n = self.node();
        &self.doc.text[n.start as usize..n.end as usize]
    }

    /// The byte range of the value in the source text.
    pub fn span(&self) -> Range<usize> {
        let n = self.node();
        n.start as usize..n.end as usize
    }

    /// The boolean, if this is one.
    pub fn as_bool(&self) -> Option<bool> {
        match self.node().tag {
            Tag::True => Some(true),
            Tag::False => Some(false),
            _ => None,
        }
    }

    /// The number lexeme, if this is a number.
    pub fn as_number_lexeme(&self) -> Option<&'d str> {
        (self.node().tag == Tag::Number).then(|| self.text())
    }

    /// The exact numeric value, if this is a number.
    pub fn as_number(&self) -> Option<NumberValue> {
        self.as_number_lexeme().map(NumberValue::from_lexeme)
    }

    /// The decoded string, if this is a string.
    pub fn as_str(&self) -> Option<Cow<'d, str>> {
        let q = self.node().tag.quoting()?;
        // Escapes were validated when parsing.
        string::decode(self.text(), q)
    }

    /// How the string is written, if this is a string.
    pub fn quoting(&self) -> Option<Quoting> {
        self.node().tag.quoting()
    }

    /// The number of elements or members (0 for scalars).
    pub fn len(&self) -> usize {
        self.node().len as usize
    }

    /// Whether a container is empty (always true for scalars).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The children (array elements or object member values) in order.
    pub fn children(&self) -> Children<'d> {
        let n = self.node();
        Children {
            doc: self.doc,
            next: self.id.0 + 1,
            remaining: if matches!(n.tag, Tag::Array | Tag::Object) {
                n.len
            } else {
                0
            },
        }
    }

    /// This value and everything inside it, in document order.
    pub fn descendants(&self) -> impl Iterator<Item = Value<'d>> + 'd {
        let doc = self.doc;
        let end = self.node().next;
        (self.id.0..end).map(move |i| Value { doc, id: NodeId(i) })
    }

    /// Whether `other` (of the same document) lies inside this value or is this value.
    pub fn contains(&self, other: NodeId) -> bool {
        self.id <= other && other.0 < self.node().next
    }

    /// The members of an object as (key, value); empty for other kinds.
    pub fn members(&self) -> impl Iterator<Item = (Cow<'d, str>, Value<'d>)> + 'd {
        let is_object = self.node().tag == Tag::Object;
        self.children()
            .filter(move |_| is_object)
            .map(|v| (v.key().unwrap_or(Cow::Borrowed("")), v))
    }

    /// The value under `key` in an object.
    pub fn get(&self, key: &str) -> Option<Value<'d>> {
        if self.node().tag != Tag::Object {
            return None;
        }
        self.children().find(|v| v.key().as_deref() == Some(key))
    }

    /// The decoded key, when this value is an object member.
    pub fn key(&self) -> Option<Cow<'d, str>> {
        let n = self.node();
        let q = n.key?;
        string::decode(&self.doc.text[n.key_start as usize..n.key_end as usize], q)
    }

    /// The key as written (quotes included), when this value is an object member.
    pub fn key_lexeme(&self) -> Option<&'d str> {
        let n = self.node();
        n.key?;
        Some(&self.doc.text[n.key_start as usize..n.key_end as usize])
    }

    /// How the key is written, when this value is an object member.
    pub fn key_quoting(&self) -> Option<Quoting> {
        self.node().key
    }

    /// The byte offset where this value's key (or the value itself) starts.
    pub fn item_start(&self) -> usize {
        let n = self.node();
        if n.key.is_some() {
            n.key_start as usize
        } else {
            n.start as usize
        }
    }

    /// Exact value equality (numbers by value, strings decoded, objects in order).
    pub fn same_value(&self, other: &Value<'_>) -> bool {
        if self.text() == other.text()
            && self.is_root_text_comparable()
            && other.is_root_text_comparable()
        {
            // Identical text is an identical value in either dialect.
            return true;
        }
        match (self.kind(), other.kind()) {
            (Kind::Null, Kind::Null) => true,
            (Kind::Bool, Kind::Bool) => self.as_bool() == other.as_bool(),
            (Kind::Number, Kind::Number) => self.as_number() == other.as_number(),
            (Kind::String, Kind::String) => self.as_str() == other.as_str(),
            (Kind::Array, Kind::Array) => {
                self.len() == other.len()
                    && self
                        .children()
                        .zip(other.children())
                        .all(|(a, b)| a.same_value(&b))
            }
            (Kind::Object, Kind::Object) => {
                self.len() == other.len()
                    && self
                        .children()
                        .zip(other.children())
                        .all(|(a, b)| a.key() == b.key() && a.same_value(&b))
            }
            _ => false,
        }
    }

    /// A braceless root's text is the whole file, trivia included; compare it structurally.
    fn is_root_text_comparable(&self) -> bool {
        self.id != NodeId::ROOT || self.doc.root_braced
    }

    /// Feeds the value (not its formatting) to a hasher, consistent with [`Value::same_value`].
    pub fn hash_value<H: Hasher>(&self, h: &mut H) {
        match self.node().tag {
            Tag::Null => 0u8.hash(h),
            Tag::True => 1u8.hash(h),
            Tag::False => 2u8.hash(h),
            Tag::Number => {
                3u8.hash(h);
                if let Some(n) = self.as_number() {
                    n.hash(h);
                }
            }
            Tag::Quoted | Tag::Raw | Tag::Bare => {
                4u8.hash(h);
                self.as_str().unwrap_or_default().hash(h);
            }
            Tag::Array => {
                5u8.hash(h);
                self.len().hash(h);
                for c in self.children() {
                    c.hash_value(h);
                }
            }
            Tag::Object => {
                6u8.hash(h);
                self.len().hash(h);
                for c in self.children() {
                    c.key().unwrap_or_default().hash(h);
                    c.hash_value(h);
                }
            }
        }
    }
}

/// Iterator over a container's children.
#[derive(Clone)]
pub struct Children<'d> {
    doc: &'d Document,
    next: u32,
    remaining: u32,
}

impl<'d> Iterator for Children<'d> {
    type Item = Value<'d>;

    fn next(&mut self) -> Option<Value<'d>> {
        if self.remaining == 0 {
            return None;
        }
        self.remaining -= 1;
        let id = NodeId(self.next);
        self.next = self.doc.nodes[id.index()].next;
        Some(Value { doc: self.doc, id })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining as usize, Some(self.remaining as usize))
    }
}

impl ExactSizeIterator for Children<'_> {}

#[cfg(test)]
mod tests {
    use std::collections::hash_map::DefaultHasher;

    use super::*;

    fn sjson(text: &str) -> Document {
        Document::parse(text, Dialect::Sjson).unwrap_or_else(|e| panic!("{text:?}: {e}"))
    }

    fn json(text: &str) -> Document {
        Document::parse(text, Dialect::Json).unwrap_or_else(|e| panic!("{text:?}: {e}"))
    }

    fn hash(v: Value<'_>) -> u64 {
        let mut h = DefaultHasher::new();
        v.hash_value(&mut h);
        h.finish()
    }

    /// `same_value` both ways, and equal values hash alike.
    fn same(a: &Document, b: &Document) -> bool {
        let ab = a.root().same_value(&b.root());
        assert_eq!(
            ab,
            b.root().same_value(&a.root()),
            "same_value is not symmetric"
        );
        if ab {
            assert_eq!(
                hash(a.root()),
                hash(b.root()),
                "equal values hash differently"
            );
        }
        ab
    }

    #[test]
    fn identical_braceless_documents_are_the_same_value() {
        // Regression: equal text of two braceless roots returned `false` instead of
        // comparing structurally.
        for text in ["a = 1", "", "// c\nb = [1 2]\n"] {
            assert!(same(&sjson(text), &sjson(text)), "{text:?}");
        }
        assert!(!same(&sjson("a = 1"), &sjson("a = 2")));
    }

    #[test]
    fn values_compare_by_value_not_by_text() {
        let pairs = [
            ("a = 1", "{ \"a\": 1.0 }", true),
            ("a = 1", "// c\n{a=1e0}", true),
            ("a = [1 2]", "a = [1, 2]", true),
            ("a = x", "a = \"x\"", true),
            ("a = x", "a = \"\"\"x\"\"\"", true),
            ("\"\\u0061\" = 1", "a = 1", true),
            ("a = \"\\n\"", "a = \"\n\"", true),
            ("a = -0", "a = 0.0", true),
            ("a = 1E-05", "a = 0.00001", true),
            ("a = 1 b = 2", "b = 2 a = 1", false),
            ("a = 1", "a = 1 b = 2", false),
            ("a = [1]", "a = [1 1]", false),
            ("a = null", "a = false", false),
            ("a = true", "a = false", false),
            ("a = true", "a = \"true\"", false),
            ("a = 1", "a = \"1\"", false),
            ("a = []", "a = {}", false),
            ("a = 9007199254740993", "a = 9007199254740992", false),
            ("a = 0.1", "a = 0.10000000000000001", true),
        ];
        for (x, y, expected) in pairs {
            assert_eq!(same(&sjson(x), &sjson(y)), expected, "{x:?} vs {y:?}");
        }
        // Across dialects.
        assert!(same(&sjson("a = [1 \"x\"]"), &json(r#"{"a":[1,"x"]}"#)));
        assert!(same(&json("[1]"), &json(" [ 1.0 ] ")));
        assert!(!same(&json("[1]"), &json("{}")));
        // Sub-values compare too.
        let d = sjson("a = [1 2] b = [1.0 2.0]");
        let (a, b) = (d.root().get("a").unwrap(), d.root().get("b").unwrap());
        assert!(a.same_value(&b));
    }

    #[test]
    fn accessors() {
        let doc = sjson("a = 1\nb = [true null \"s\"]\nc = { d = 2 }\n");
        let root = doc.root();
        assert_eq!(root.kind(), Kind::Object);
        assert_eq!(root.len(), 3);
        assert!(root.is_container());
        assert_eq!(root.id(), NodeId::ROOT);
        assert!(root.get("z").is_none());
        let b = root.get("b").unwrap();
        assert_eq!(b.kind(), Kind::Array);
        assert!(b.get("x").is_none(), "arrays have no keys");
        assert_eq!(b.members().count(), 0);
        let kinds: Vec<_> = b.children().map(|c| c.kind()).collect();
        assert_eq!(kinds, [Kind::Bool, Kind::Null, Kind::String]);
        assert_eq!(b.children().len(), 3);
        let one = root.get("a").unwrap();
        assert!(one.is_empty() && !one.is_container());
        assert_eq!(one.children().count(), 0);
        assert_eq!(one.as_bool(), None);
        assert_eq!(one.as_str(), None);
        assert_eq!(one.quoting(), None);
        assert_eq!(b.as_number(), None);
        assert_eq!(
            root.get("c").unwrap().get("d").unwrap().as_number_lexeme(),
            Some("2")
        );
        assert_eq!(root.key(), None);
        assert_eq!(root.key_lexeme(), None);
        // Children skip over whole subtrees.
        let ids: Vec<_> = root.children().map(|c| c.id().index()).collect();
        assert_eq!(ids, [1, 2, 6]);
        assert_eq!(doc.value(NodeId(5)).as_str().unwrap(), "s");
        assert_eq!(format!("{:?}", doc.value(NodeId(1))), "Value(NodeId(1): 1)");
    }

    #[test]
    fn newline_is_the_first_lines_ending() {
        assert_eq!(sjson("a = 1\r\nb = 2\n").newline(), "\r\n");
        assert_eq!(sjson("a = 1\nb = 2\r\n").newline(), "\n");
        assert_eq!(sjson("a = 1").newline(), "\n");
        assert_eq!(sjson("\r\n").newline(), "\r\n");
        assert_eq!(sjson("\n").newline(), "\n");
    }

    #[test]
    fn text_round_trips() {
        let text = "\u{FEFF}\r\n// c\r\na = [1,2]  \r\n";
        let doc = sjson(text);
        assert_eq!(doc.text(), text);
        assert_eq!(doc.dialect(), Dialect::Sjson);
        assert_eq!(doc.into_text(), text);
    }
}
