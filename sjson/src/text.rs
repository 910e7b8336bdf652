//! A document's source text: a `String`, or text held elsewhere (a mapped file).

use std::fmt;
use std::ops::Deref;

/// Text held by something other than a `String`: a file mapped into memory, read without
/// copying it. Parsing a large version from its mapping spares a copy of the file into
/// fresh memory, which on the 100,000-entity merge took as long as parsing a third of it.
///
/// An implementor answers the same text every time it is asked, for as long as it lives.
pub trait Backing: Send + Sync + 'static {
    /// The text.
    fn text(&self) -> &str;
}

/// A document's source text ([`crate::Document::into_source`]): a `String`, or a [`Backing`].
/// It dereferences to `str`.
pub struct Text(Repr);

enum Repr {
    Owned(String),
    Backed(Box<dyn Backing>),
}

impl Text {
    /// Text held by `backing`, not copied.
    pub fn backed(backing: impl Backing) -> Text {
        Text(Repr::Backed(Box::new(backing)))
    }

    /// The text as a `String`: itself when it is one, a copy of a backing's.
    pub fn into_string(self) -> String {
        match self.0 {
            Repr::Owned(s) => s,
            Repr::Backed(b) => b.text().to_owned(),
        }
    }

    /// Whether the text is held by a [`Backing`], not a `String`.
    pub fn is_backed(&self) -> bool {
        matches!(self.0, Repr::Backed(_))
    }
}

impl Deref for Text {
    type Target = str;

    fn deref(&self) -> &str {
        match &self.0 {
            Repr::Owned(s) => s,
            Repr::Backed(b) => b.text(),
        }
    }
}

impl From<String> for Text {
    fn from(s: String) -> Text {
        Text(Repr::Owned(s))
    }
}

/// A clone owns its text (a backing's is copied).
impl Clone for Text {
    fn clone(&self) -> Text {
        Text(Repr::Owned(self.to_string()))
    }
}

impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Held(Box<str>);

    impl Backing for Held {
        fn text(&self) -> &str {
            &self.0
        }
    }

    #[test]
    fn a_backed_text_reads_as_its_backing_and_owns_its_copies() {
        let t = Text::backed(Held("a = 1\n".into()));
        assert!(t.is_backed());
        assert_eq!(&*t, "a = 1\n");
        let c = t.clone();
        assert!(!c.is_backed());
        assert_eq!(*c, *t);
        assert_eq!(t.into_string(), "a = 1\n");
        let o = Text::from("x".to_string());
        assert!(!o.is_backed());
        assert_eq!(o.into_string(), "x");
    }
}
