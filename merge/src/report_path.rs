//! Paths as reports show them: for people (`entities[id=f341].position`) and as the JSON
//! Pointers of assetvc's own reports, read back. Below `diff`, `changeset` and `naming`,
//! which all use them, so that none of those needs another for its paths.

use std::fmt::Write as _;

use sjson::string::terminal_safe;
use sjson::{Path, Segment};

/// A path for people: `entities[id=f341].position`, `units[2].pos`, `["a.b"].c`;
/// `(root)` for the root.
pub fn path_text(path: &Path) -> String {
    let mut s = String::new();
    for seg in &path.0 {
        match seg {
            Segment::Key(k) if is_simple_key(k) => {
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(k);
            }
            Segment::Key(k) => {
                s.push('[');
                sjson::string::write_quoted(&mut s, k);
                s.push(']');
            }
            Segment::Index(i) => {
                let _ = write!(s, "[{i}]");
            }
            Segment::Id { key, value } => {
                // Ids are shown bare: control characters in them are escaped.
                let (key, value) = (terminal_safe(key), terminal_safe(value));
                let _ = write!(s, "[{key}={value}]");
            }
        }
    }
    if s.is_empty() {
        s.push_str("(root)");
    }
    s
}

/// Whether `k` shows bare in a path for people (`a.b`), not quoted (`["a b"]`).
pub(crate) fn is_simple_key(k: &str) -> bool {
    !k.is_empty()
        && k.chars().all(|c| {
            !c.is_whitespace() && !c.is_control() && !matches!(c, '.' | '[' | ']' | '"' | '=')
        })
}

/// A pointer of one of assetvc's own reports, read as [`Path::parse`] reads it (a
/// malformed one as plain keys); a number step is an array index where `is_array` says
/// the path so far leads to an array.
pub fn parse_report_pointer(text: &str, is_array: impl FnMut(&Path) -> bool) -> Path {
    reported_indices(&read_report_pointer(text), is_array)
}

/// A pointer of one of assetvc's own reports, read as [`Path::parse`] reads it; a
/// malformed one (never written by a merge) as plain keys, never an error. Number steps
/// are keys: [`reported_indices`] makes them indices where the documents hold arrays.
pub(crate) fn read_report_pointer(text: &str) -> Path {
    Path::parse(text).unwrap_or_else(|_| {
        Path(
            text.split('/')
                .skip(1)
                .map(|t| Segment::Key(t.to_string()))
                .collect(),
        )
    })
}

/// `path` as its report pointer reads back: a number step (a key of digits or an index)
/// is an array index where `is_array` says the path so far leads to an array, a key
/// otherwise; other steps as they are.
pub fn reported_indices(path: &Path, mut is_array: impl FnMut(&Path) -> bool) -> Path {
    let mut out = Path(Vec::with_capacity(path.0.len()));
    for seg in &path.0 {
        let seg = match seg {
            Segment::Key(k) => match k.parse::<usize>() {
                Ok(i) if !k.starts_with('+') && is_array(&out) => Segment::Index(i),
                _ => Segment::Key(k.clone()),
            },
            Segment::Index(i) if !is_array(&out) => Segment::Key(i.to_string()),
            other => other.clone(),
        };
        out.push(seg);
    }
    out
}

/// Serde for a report pointer ([`Path`]): written as its text (`Display`,
/// `/entities/[id=f341]/position`), read back by [`read_report_pointer`], so a journal
/// holds the same text as before the path was typed. Number steps read back as keys.
pub(crate) mod pointer {
    use serde::{Deserialize, Deserializer, Serializer};
    use sjson::Path;

    /// Writes `path` as its pointer text.
    pub(crate) fn serialize<S: Serializer>(path: &Path, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(path)
    }

    /// Reads a pointer text (a malformed one as plain keys).
    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Path, D::Error> {
        let text = std::borrow::Cow::<'de, str>::deserialize(d)?;
        Ok(super::read_report_pointer(&text))
    }
}

/// [`pointer`] for an optional path (`null` or absent: `None`).
pub(crate) mod optional_pointer {
    use serde::{Deserialize, Deserializer, Serializer};
    use sjson::Path;

    /// Writes `path` as its pointer text, `None` as `null`.
    pub(crate) fn serialize<S: Serializer>(path: &Option<Path>, s: S) -> Result<S::Ok, S::Error> {
        match path {
            Some(path) => s.collect_str(path),
            None => s.serialize_none(),
        }
    }

    /// Reads a pointer text or `null`.
    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Path>, D::Error> {
        let text = Option::<std::borrow::Cow<'de, str>>::deserialize(d)?;
        Ok(text.map(|t| super::read_report_pointer(&t)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_pointers_make_number_steps_indices_where_told() {
        let p = parse_report_pointer("/a/[id=x~1y]/2/+3", |p| p.0.len() == 2);
        assert_eq!(
            p.0,
            vec![
                Segment::Key("a".into()),
                Segment::Id {
                    key: "id".into(),
                    value: "x/y".into()
                },
                Segment::Index(2),
                Segment::Key("+3".into()),
            ]
        );
        // Malformed (a bad escape): plain keys, never an error.
        assert_eq!(
            parse_report_pointer("/a~2/1", |_| true).0,
            vec![Segment::Key("a~2".into()), Segment::Index(1)]
        );
    }

    /// A conflict at `path` (a repair, so that its referrer is written too).
    fn conflict(path: Path, referrer: Option<Path>) -> crate::Conflict {
        crate::Conflict {
            path,
            kind: crate::ConflictKind::DanglingReference,
            base: Some("[1,2.50]".into()),
            ours: None,
            theirs: Some("{\"a\":true}".into()),
            taken: crate::Side::Ours,
            object: Some("crate #f341".into()),
            referrer,
        }
    }

    fn key(k: &str) -> Segment {
        Segment::Key(k.into())
    }

    fn id(key: &str, value: &str) -> Segment {
        Segment::Id {
            key: key.into(),
            value: value.into(),
        }
    }

    #[test]
    fn a_conflict_round_trips_through_serde_as_its_pointer_text() {
        let c = conflict(
            Path(vec![key("entities"), id("id", "f341"), key("position")]),
            Some(Path(vec![key("flow"), id("id", "n1"), key("unit")])),
        );
        let text = serde_json::to_string(&c).unwrap();
        assert_eq!(
            text,
            r#"{"path":"/entities/[id=f341]/position","kind":"dangling-reference","base":[1,2.50],"ours":null,"theirs":{"a":true},"taken":"ours","object":"crate #f341","referrer":"/flow/[id=n1]/unit"}"#
        );
        let back: crate::Conflict = serde_json::from_str(&text).unwrap();
        assert_eq!(back, c);
        // The journal's record of it holds the same text.
        let record =
            crate::record::ConflictRecord::of(&c, crate::record::SideMeanings::MERGE, None);
        let written = serde_json::to_value(&record).unwrap();
        assert_eq!(written["path"], "/entities/[id=f341]/position");
        assert_eq!(written["referrer"], "/flow/[id=n1]/unit");
        // A conflict without a referrer writes none, and reads back without one.
        let plain = conflict(Path::root(), None);
        let text = serde_json::to_string(&plain).unwrap();
        assert!(
            text.starts_with(r#"{"path":"","#) && !text.contains("referrer"),
            "{text}"
        );
        assert_eq!(
            serde_json::from_str::<crate::Conflict>(&text).unwrap(),
            plain
        );
    }

    #[test]
    fn awkward_keys_round_trip_through_serde() {
        let path = Path(vec![
            key("a/b"),
            key("~x~1"),
            key("[id=x]"),
            key("["),
            key("ünï ☃"),
            key(""),
            id("id", "a/b]~c=d"),
            key("~2"),
        ]);
        let c = conflict(path.clone(), Some(path.clone()));
        let text = serde_json::to_string(&c).unwrap();
        let pointer = r#"/a~1b/~0x~01/~2id=x]/~2/ünï ☃//[id=a~1b]~0c=d]/~02"#;
        assert!(text.contains(&format!(r#""path":"{pointer}""#)), "{text}");
        let back: crate::Conflict = serde_json::from_str(&text).unwrap();
        assert_eq!(back.path, path);
        assert_eq!(back.referrer, Some(path));
        // An index is written as its number and reads back as a key, which names the
        // element again where it meets an array.
        let indexed = conflict(Path(vec![key("l"), Segment::Index(3)]), None);
        let back: crate::Conflict =
            serde_json::from_str(&serde_json::to_string(&indexed).unwrap()).unwrap();
        assert_eq!(back.path.to_string(), "/l/3");
        assert_eq!(back.path.0[1], key("3"));
        assert_eq!(
            reported_indices(&back.path, |p| p.0.len() == 1),
            indexed.path
        );
        // A malformed pointer (never written by a merge) reads as plain keys.
        let odd: crate::Conflict =
            serde_json::from_str(r#"{"path":"/a~2/b","kind":"order","taken":"theirs"}"#).unwrap();
        assert_eq!(odd.path, Path(vec![key("a~2"), key("b")]));
    }

    proptest::proptest! {
        #[test]
        fn any_keys_and_ids_round_trip_through_serde(
            steps in proptest::collection::vec(
                (
                    proptest::bool::ANY,
                    "[a-z_\\[\\]]{0,4}",
                    "[a-z0-9/~=\\[\\] ü☃\"\\\\]{0,6}",
                ),
                0..5,
            ),
        ) {
            // (An id's key never holds `=`: the first `=` of `[key=value]` ends it.)
            let path = Path(
                steps
                    .into_iter()
                    .map(|(is_id, k, v)| if is_id { id(&k, &v) } else { key(&v) })
                    .collect(),
            );
            let c = conflict(path.clone(), Some(path.clone()));
            let text = serde_json::to_string(&c).unwrap();
            let back: crate::Conflict = serde_json::from_str(&text).unwrap();
            proptest::prop_assert_eq!(&back, &c);
            proptest::prop_assert_eq!(Path::parse(&path.to_string()), Ok(path));
        }
    }
}
