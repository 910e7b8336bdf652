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
pub fn parse_report_pointer(text: &str, mut is_array: impl FnMut(&Path) -> bool) -> Path {
    let parsed = Path::parse(text).unwrap_or_else(|_| {
        Path(
            text.split('/')
                .skip(1)
                .map(|t| Segment::Key(t.to_string()))
                .collect(),
        )
    });
    let mut path = Path::root();
    for seg in parsed.0 {
        let seg = match seg {
            Segment::Key(k) => match k.parse::<usize>() {
                Ok(i) if !k.starts_with('+') && is_array(&path) => Segment::Index(i),
                _ => Segment::Key(k),
            },
            other => other,
        };
        path.push(seg);
    }
    path
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
}
