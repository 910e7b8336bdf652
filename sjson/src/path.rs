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

    /// Parses a JSON Pointer (RFC 6901) in which `[key=value]` names a keyed element by id.
    /// Other steps are object keys (or array indices, by the container they meet); a key
    /// that starts with `[` starts with `~2` instead.
    pub fn parse(text: &str) -> Result<Path, String> {
        if text.is_empty() {
            return Ok(Path::root());
        }
        let Some(rest) = text.strip_prefix('/') else {
            return Err(format!("path \"{text}\" must be empty or start with /"));
        };
        let mut path = Path::root();
        for raw in rest.split('/') {
            let id = raw
                .strip_prefix('[')
                .and_then(|r| r.strip_suffix(']'))
                .and_then(|r| r.split_once('='));
            let seg = match id {
                Some((key, value)) => Segment::Id {
                    key: unescape_token(key, text)?,
                    value: unescape_token(value, text)?,
                },
                // A key's leading `[` is written `~2`, so that it does not read as an id
                // (see `Display`).
                None => match raw.strip_prefix("~2") {
                    Some(rest) => Segment::Key(format!("[{}", unescape_token(rest, text)?)),
                    None => Segment::Key(unescape_token(raw, text)?),
                },
            };
            path.push(seg);
        }
        Ok(path)
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

/// One step of a JSON Pointer with `~1` (`/`) and `~0` (`~`) undone; any other `~` is an
/// error naming the pointer `whole`.
pub fn unescape_token(raw: &str, whole: &str) -> Result<String, String> {
    if !raw.contains('~') {
        return Ok(raw.to_string());
    }
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c != '~' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('0') => out.push('~'),
            Some('1') => out.push('/'),
            _ => return Err(format!("path \"{whole}\": ~ must be followed by 0 or 1")),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers_name_keys_ids_and_escapes() {
        let p = Path::parse("/units/[id=u~11]/a~0b").unwrap();
        assert_eq!(p.to_string(), "/units/[id=u~11]/a~0b");
        assert_eq!(
            p.0[1],
            Segment::Id {
                key: "id".into(),
                value: "u/1".into()
            }
        );
        assert!(Path::parse("units").is_err());
        assert!(Path::parse("/a~2").is_err());
        assert_eq!(
            Path::parse("/~2id=x]/a[b").unwrap().0,
            [Segment::Key("[id=x]".into()), Segment::Key("a[b".into())]
        );
        assert_eq!(Path::parse("").unwrap(), Path::root());
    }

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
