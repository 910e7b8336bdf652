//! Reading change sets: JSON Lines into operations, with the line and column of every
//! mistake.

use sjson::{Dialect, Document, Kind, ParseOptions, Path, Segment, Value};

use super::{ChangeOp, OpKind, Placement};

/// A change set that does not parse: where and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{col}: {reason}")]
pub struct ChangeSetError {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub col: usize,
    /// What is wrong.
    pub reason: String,
}

/// One parsed line of a change set.
#[derive(Debug)]
pub struct Line {
    /// 1-based line number in the change set.
    pub number: usize,
    /// The line's JSON document.
    pub doc: Document,
}

/// Parses a change set's lines as JSON documents (blank lines are skipped).
pub fn parse_change_set(text: &str) -> Result<Vec<Line>, ChangeSetError> {
    let mut lines = Vec::new();
    for (i, line) in text.split('\n').enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.trim().is_empty() {
            continue;
        }
        let doc = Document::parse_with(line.to_string(), ParseOptions::new(Dialect::Json))
            .map_err(|e| ChangeSetError {
                line: i + 1,
                col: e.col,
                reason: e.kind.to_string(),
            })?;
        lines.push(Line { number: i + 1, doc });
    }
    Ok(lines)
}

/// The operations of parsed lines, in order.
pub fn read_ops(lines: &[Line]) -> Result<Vec<ChangeOp<'_>>, ChangeSetError> {
    lines.iter().map(read_op).collect()
}

fn read_op(line: &Line) -> Result<ChangeOp<'_>, ChangeSetError> {
    let root = line.doc.root();
    let fail = |v: Value<'_>, reason: String| ChangeSetError {
        line: line.number,
        col: sjson::line_col(line.doc.text(), v.span().start).1,
        reason,
    };
    if root.kind() != Kind::Object {
        return Err(fail(root, "a change is a JSON object".into()));
    }
    for (key, v) in root.members() {
        if !matches!(
            &*key,
            "op" | "file" | "path" | "old" | "value" | "after" | "before"
        ) {
            return Err(fail(v, format!("unknown field \"{key}\"")));
        }
    }
    let string = |name: &str| -> Result<Option<String>, ChangeSetError> {
        match root.get(name) {
            None => Ok(None),
            Some(v) if v.kind() == Kind::String => Ok(v.as_str().map(|s| s.into_owned())),
            Some(v) => Err(fail(v, format!("\"{name}\" must be a string"))),
        }
    };
    let kind = match string("op")?.as_deref() {
        Some("create") => OpKind::Create,
        Some("destroy") => OpKind::Destroy,
        Some("set") => OpKind::Set,
        Some(other) => {
            let at = root.get("op").unwrap_or(root);
            let hint = match other {
                "add" | "remove" | "replace" | "move" | "copy" | "test" => {
                    "; a JSON Patch is an array of operations: [ … ]"
                }
                _ => "",
            };
            return Err(fail(
                at,
                format!("unknown op \"{other}\" (expected create, destroy or set){hint}"),
            ));
        }
        None => return Err(fail(root, "missing \"op\"".into())),
    };
    let Some(text) = string("path")? else {
        return Err(fail(root, "missing \"path\"".into()));
    };
    let at_path = root.get("path").unwrap_or(root);
    let path = Path::parse(&text).map_err(|r| fail(at_path, r))?;
    let (old, new) = (root.get("old"), root.get("value"));
    let last_is_id = matches!(path.0.last(), Some(Segment::Id { .. }));
    match kind {
        OpKind::Create | OpKind::Destroy if !last_is_id => {
            return Err(fail(
                at_path,
                format!("{} needs a path ending in [id=…]", kind.name()),
            ))
        }
        OpKind::Create if new.is_none() => return Err(fail(root, "missing \"value\"".into())),
        OpKind::Destroy if old.is_none() => return Err(fail(root, "missing \"old\"".into())),
        OpKind::Set if old.is_none() && new.is_none() => {
            return Err(fail(root, "a set needs \"old\", \"value\" or both".into()))
        }
        _ => {}
    }
    let anchor = |name: &str| match root.get(name) {
        None => Ok(None),
        Some(v) if v.kind() == Kind::Null => Ok(Some(None)),
        Some(v) if v.kind() == Kind::String => {
            Ok(Some(Some(v.as_str().unwrap_or_default().into_owned())))
        }
        Some(v) => Err(fail(v, format!("\"{name}\" must be an id string or null"))),
    };
    let after = Placement {
        after: anchor("after")?,
        before: anchor("before")?,
    };
    Ok(ChangeOp {
        kind,
        file: string("file")?,
        path,
        old: if kind == OpKind::Create { None } else { old },
        new: if kind == OpKind::Destroy { None } else { new },
        after,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_lines_name_line_and_column() {
        let e =
            parse_change_set("{\"op\":\"set\",\"path\":\"/a\",\"value\":1}\n{\"op\":").unwrap_err();
        assert_eq!(e.line, 2);
        let lines = parse_change_set("\n{\"op\":\"frob\",\"path\":\"/a\"}").unwrap();
        let e = read_ops(&lines).unwrap_err();
        assert_eq!((e.line, e.col), (2, 7));
        assert!(e.reason.contains("unknown op"), "{e}");
        let lines = parse_change_set("{\"op\":\"set\",\"value\":1}").unwrap();
        assert!(read_ops(&lines)
            .unwrap_err()
            .reason
            .contains("missing \"path\""));
        let lines = parse_change_set("{\"op\":\"create\",\"path\":\"/a\",\"value\":1}").unwrap();
        assert!(read_ops(&lines).is_err());
    }
}
