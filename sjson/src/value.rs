//! [`Value`]: a cheap handle to read a value of a [`Document`]: its kind, text, number,
//! string, members and elements.

use std::borrow::Cow;
use std::hash::{Hash, Hasher};
use std::ops::Range;

use crate::doc::{Document, Kind, Node, NodeId, Tag};
use crate::number::{NumberKey, NumberValue};
use crate::string::{self, Quoting};

/// A value in a document: a cheap handle to read it.
#[derive(Clone, Copy)]
pub struct Value<'d> {
    pub(crate) doc: &'d Document,
    pub(crate) id: NodeId,
}

impl std::fmt::Debug for Value<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Value({:?}: {:.60})", self.id, self.text())
    }
}

impl<'d> Value<'d> {
    fn node(&self) -> &'d Node {
        self.doc.node(self.id)
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
        match self.node().tag() {
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
        self.node().tag().is_container()
    }

    /// The source text of the value (brackets included; the whole text for a braceless root).
    pub fn text(&self) -> &'d str {
        &self.doc.text[self.span()]
    }

    /// The byte range of the value in the source text.
    pub fn span(&self) -> Range<usize> {
        self.doc.span(self.id)
    }

    /// The boolean, if this is one.
    pub fn as_bool(&self) -> Option<bool> {
        match self.node().tag() {
            Tag::True => Some(true),
            Tag::False => Some(false),
            _ => None,
        }
    }

    /// The number lexeme, if this is a number.
    pub fn as_number_lexeme(&self) -> Option<&'d str> {
        (self.node().tag() == Tag::Number).then(|| self.text())
    }

    /// The exact numeric value, if this is a number.
    pub fn as_number(&self) -> Option<NumberValue> {
        self.as_number_lexeme().map(NumberValue::from_lexeme)
    }

    /// The number's identity for value equality, if this is a number.
    pub fn as_number_key(&self) -> Option<NumberKey> {
        self.as_number_lexeme().map(NumberKey::from_lexeme)
    }

    /// The decoded string, if this is a string.
    pub fn as_str(&self) -> Option<Cow<'d, str>> {
        let q = self.node().tag().quoting()?;
        // Escapes were validated when parsing.
        string::decode(self.text(), q)
    }

    /// How the string is written, if this is a string.
    pub fn quoting(&self) -> Option<Quoting> {
        self.node().tag().quoting()
    }

    /// The number of elements or members (0 for scalars).
    pub fn len(&self) -> usize {
        self.doc.len(self.id) as usize
    }

    /// Whether a container is empty (always true for scalars).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The children (array elements or object member values) in order.
    pub fn children(&self) -> Children<'d> {
        Children {
            doc: self.doc,
            next: self.id.0 + 1,
            remaining: self.doc.len(self.id),
        }
    }

    /// Whether anything lies below this value's children (false for scalars): when not,
    /// every child is a scalar or an empty container, and a walk looking for objects
    /// with members can skip the value whole (`[1 2 3]`).
    pub fn has_grandchildren(&self) -> bool {
        self.doc.next(self.id) - self.id.0 - 1 > self.doc.len(self.id)
    }

    /// This value and everything inside it, in document order.
    pub fn descendants(&self) -> impl Iterator<Item = Value<'d>> + 'd {
        let doc = self.doc;
        let end = self.doc.next(self.id);
        (self.id.0..end).map(move |i| Value { doc, id: NodeId(i) })
    }

    /// Whether `other` (of the same document) lies inside this value or is this value.
    pub fn contains(&self, other: NodeId) -> bool {
        self.id <= other && other.0 < self.doc.next(self.id)
    }

    /// The members of an object as (key, value); empty for other kinds.
    pub fn members(&self) -> impl Iterator<Item = (Cow<'d, str>, Value<'d>)> + 'd {
        let is_object = self.node().tag() == Tag::Object;
        self.children()
            .filter(move |_| is_object)
            .map(|v| (v.key().unwrap_or(Cow::Borrowed("")), v))
    }

    /// The value under `key` in an object.
    pub fn get(&self, key: &str) -> Option<Value<'d>> {
        if self.node().tag() != Tag::Object {
            return None;
        }
        self.children().find(|v| v.key().as_deref() == Some(key))
    }

    /// The decoded key, when this value is an object member.
    pub fn key(&self) -> Option<Cow<'d, str>> {
        let q = self.node().key_quoting()?;
        let range = self.doc.key_range(self.id)?;
        string::decode(&self.doc.text[range], q)
    }

    /// The key as written (quotes included), when this value is an object member.
    pub fn key_lexeme(&self) -> Option<&'d str> {
        Some(&self.doc.text[self.doc.key_range(self.id)?])
    }

    /// How the key is written, when this value is an object member.
    pub fn key_quoting(&self) -> Option<Quoting> {
        self.node().key_quoting()
    }

    /// The byte offset where this value's key (or the value itself) starts.
    pub fn item_start(&self) -> usize {
        let n = self.node();
        if n.key_quoting().is_some() {
            n.key_start(&self.doc.extras) as usize
        } else {
            n.start() as usize
        }
    }

    /// Exact value equality (numbers by [`NumberKey`], strings decoded, objects in order).
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
            (Kind::Number, Kind::Number) => self.as_number_key() == other.as_number_key(),
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
        match self.node().tag() {
            Tag::Null => 0u8.hash(h),
            Tag::True => 1u8.hash(h),
            Tag::False => 2u8.hash(h),
            Tag::Number => {
                3u8.hash(h);
                if let Some(n) = self.as_number_key() {
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
        self.next = self.doc.next(id);
        Some(Value { doc: self.doc, id })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining as usize, Some(self.remaining as usize))
    }
}

impl ExactSizeIterator for Children<'_> {}
