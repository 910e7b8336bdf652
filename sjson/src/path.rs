//! Locations in a document as JSON Pointers (RFC 6901), with keyed array elements named
//! by their id: `/entities/[id=f341]/position`. A key that starts with `[` starts with
//! `~2` instead, so that it never reads as an id.

use std::fmt;

/// One step from a container to a child.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Segment {
    /// An object member.
    Key(String),
    /// An array element by position.
    Index(usize),
    /// A keyed array element by its id field and value.
    Id {
        /// The id field's name, e.g. `id`.
        key: String,
        /// The id's value as text.
        value: String,
    },
}

/// A path from the root.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Path(pub Vec<Segment>);

impl Path {
    /// The root.
    pub fn root() -> Path {
        Path(Vec::new())
    }

    /// Appends a segment.
    pub fn push(&mut self, s: Segment) {
        self.0.push(s);
    }

    /// Removes the last segment.
    pub fn pop(&mut self) {
        self.0.pop();
    }

    /// The path as a plain RFC 6901 JSON Pointer, as a JSON Patch holds it: keys escaped as
    /// the RFC says only (a leading `[` stays `[`); id steps as `Display` writes them.
    pub fn rfc6901(&self) -> impl fmt::Display + '_ {
        Rfc6901(self)
    }
}

/// [`Path::rfc6901`].
struct Rfc6901<'p>(&'p Path);

impl fmt::Display for Rfc6901<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for s in &self.0 .0 {
            f.write_str("/")?;
            match s {
                Segment::Key(k) => escape(k, f)?,
                other => other.fmt(f)?,
            }
        }
        Ok(())
    }
}

fn escape(s: &str, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    for c in s.chars() {
        match c {
            '~' => f.write_str("~0")?,
            '/' => f.write_str("~1")?,
            c => write!(f, "{c}")?,
        }
    }
    Ok(())
}

impl fmt::Display for Segment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // A key that starts with `[` would read back as an id (`[id=x]`): its `[` is
            // written `~2`.
            Segment::Key(k) => match k.strip_prefix('[') {
                Some(rest) => {
                    f.write_str("~2")?;
                    escape(rest, f)
                }
                None => escape(k, f),
            },
            Segment::Index(i) => write!(f, "{i}"),
            Segment::Id { key, value } => {
                f.write_str("[")?;
                escape(key, f)?;
                f.write_str("=")?;
                escape(value, f)?;
                f.write_str("]")
            }
        }
    }
}

impl fmt::Display for Path {
    /// The JSON Pointer; the root is the empty string.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for s in &self.0 {
            f.write_str("/")?;
            s.fmt(f)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_json_pointers_with_ids() {
        let p = Path(vec![
            Segment::Key("entities".into()),
            Segment::Id {
                key: "id".into(),
                value: "f341".into(),
            },
            Segment::Key("position".into()),
        ]);
        assert_eq!(p.to_string(), "/entities/[id=f341]/position");
        let q = Path(vec![Segment::Key("a/b~c".into()), Segment::Index(3)]);
        assert_eq!(q.to_string(), "/a~1b~0c/3");
        let r = Path(vec![
            Segment::Key("[id=x]".into()),
            Segment::Key("a[b".into()),
        ]);
        assert_eq!(r.to_string(), "/~2id=x]/a[b");
        assert_eq!(r.rfc6901().to_string(), "/[id=x]/a[b");
        assert_eq!(q.rfc6901().to_string(), q.to_string());
        assert_eq!(Path::root().to_string(), "");
    }
}
