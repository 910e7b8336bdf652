//! RFC 6902 JSON Patch: `add`, `remove`, `replace`, `move`, `copy` and `test`, paths as
//! RFC 6901 JSON Pointers (`~0`, `~1`, `-` for the end of an array), all operations or
//! none. [`apply_patch`] applies a patch to a document and prints the result as an edit of
//! it: the target's text is kept wherever a value did not change. No I/O happens here.

mod limits;
mod members;
mod tree;

#[cfg(test)]
mod tests;

use sjson::{Document, Kind, ParseOptions, Value};

use crate::{structural, MergeOptions};
use sjson::unescape_token;

pub use limits::PatchLimits;
pub use members::Members;
pub use tree::{json_equal, Json};

use limits::Budget;

/// Why a patch was refused: the operation (its index and name, where known), the byte
/// offset in the patch of what is wrong, and the reason.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{reason}", describe(*.index, .op.as_deref()))]
pub struct PatchError {
    /// The index of the operation in the patch (`None`: the patch as a whole).
    pub index: Option<usize>,
    /// The operation's `op`, when it has one.
    pub op: Option<String>,
    /// Byte offset in the patch text.
    pub offset: usize,
    /// What is wrong.
    pub reason: String,
}

fn describe(index: Option<usize>, op: Option<&str>) -> String {
    match (index, op) {
        (Some(i), Some(op)) => format!("operation {i} ({op}): "),
        (Some(i), None) => format!("operation {i}: "),
        _ => String::new(),
    }
}

/// One operation of a patch.
#[derive(Debug, Clone)]
pub enum Op {
    /// Add a member or insert an element (`-`: at the end).
    Add(Vec<String>, Json),
    /// Remove.
    Remove(Vec<String>),
    /// Replace an existing value.
    Replace(Vec<String>, Json),
    /// Move from the first pointer to the second.
    Move(Vec<String>, Vec<String>),
    /// Copy from the first pointer to the second.
    Copy(Vec<String>, Vec<String>),
    /// Check that the value is equal.
    Test(Vec<String>, Json),
}

/// An operation with where it was written.
#[derive(Debug, Clone)]
pub struct Operation {
    /// What it does.
    pub op: Op,
    /// Its `op` name.
    pub name: &'static str,
    /// Its index in the patch.
    pub index: usize,
    /// Byte offset of the operation in the patch text.
    pub offset: usize,
}

/// Reads the operations of a patch document (a JSON array of operation objects).
pub fn read_patch(patch: &Document) -> Result<Vec<Operation>, PatchError> {
    let root = patch.root();
    if root.kind() != Kind::Array {
        return Err(PatchError {
            index: None,
            op: None,
            offset: root.span().start,
            reason: "a JSON Patch is an array of operations".into(),
        });
    }
    root.children()
        .enumerate()
        .map(|(i, v)| read_op(i, v))
        .collect()
}

fn read_op(index: usize, v: Value<'_>) -> Result<Operation, PatchError> {
    let op_name = v
        .get("op")
        .filter(|o| o.kind() == Kind::String)
        .and_then(|o| o.as_str())
        .map(|s| s.into_owned());
    let fail = |at: Value<'_>, reason: String| PatchError {
        index: Some(index),
        op: op_name.clone(),
        offset: at.span().start,
        reason,
    };
    if v.kind() != Kind::Object {
        return Err(fail(v, "an operation is a JSON object".into()));
    }
    let pointer = |name: &str| -> Result<Vec<String>, PatchError> {
        match v.get(name) {
            None => Err(fail(v, format!("missing \"{name}\""))),
            Some(p) if p.kind() != Kind::String => {
                Err(fail(p, format!("\"{name}\" must be a string")))
            }
            Some(p) => parse_pointer(&p.as_str().unwrap_or_default()).map_err(|r| fail(p, r)),
        }
    };
    let value = || match v.get("value") {
        Some(x) => Ok(Json::from_value(x)),
        None => Err(fail(v, "missing \"value\"".into())),
    };
    let (op, name) = match op_name.as_deref() {
        None if v.get("op").is_some() => {
            return Err(fail(
                v.get("op").unwrap_or(v),
                "\"op\" must be a string".into(),
            ))
        }
        None => return Err(fail(v, "missing \"op\"".into())),
        Some("add") => (Op::Add(pointer("path")?, value()?), "add"),
        Some("remove") => (Op::Remove(pointer("path")?), "remove"),
        Some("replace") => (Op::Replace(pointer("path")?, value()?), "replace"),
        Some("move") => (Op::Move(pointer("from")?, pointer("path")?), "move"),
        Some("copy") => (Op::Copy(pointer("from")?, pointer("path")?), "copy"),
        Some("test") => (Op::Test(pointer("path")?, value()?), "test"),
        Some(other) => {
            return Err(fail(
                v.get("op").unwrap_or(v),
                format!(
                    "unknown op \"{other}\" (expected add, remove, replace, move, copy or test)"
                ),
            ))
        }
    };
    Ok(Operation {
        op,
        name,
        index,
        offset: v.span().start,
    })
}

/// The reference tokens of an RFC 6901 JSON Pointer.
pub fn parse_pointer(text: &str) -> Result<Vec<String>, String> {
    if text.is_empty() {
        return Ok(Vec::new());
    }
    let Some(rest) = text.strip_prefix('/') else {
        return Err(format!("path \"{text}\" must be empty or start with /"));
    };
    rest.split('/').map(|t| unescape_token(t, text)).collect()
}

fn pointer_text(tokens: &[String]) -> String {
    tokens
        .iter()
        .map(|t| format!("/{}", t.replace('~', "~0").replace('/', "~1")))
        .collect()
}

/// An array index token: `0` or digits without a leading zero.
fn index_of(token: &str, len: usize, path: &[String]) -> Result<usize, String> {
    let digits = !token.is_empty() && token.bytes().all(|b| b.is_ascii_digit());
    if !digits || (token.len() > 1 && token.starts_with('0')) {
        return Err(format!(
            "{}: \"{token}\" is not an array index",
            pointer_text(path)
        ));
    }
    match token.parse::<usize>() {
        Ok(i) if i < len => Ok(i),
        _ => Err(format!(
            "{}: index {token} is past the end of the array ({len} elements)",
            pointer_text(path)
        )),
    }
}

/// The value at `path`.
fn get<'j>(root: &'j Json, path: &[String]) -> Result<&'j Json, String> {
    let mut at = root;
    for (n, token) in path.iter().enumerate() {
        at = match at {
            Json::Object(m) => match m.get(token) {
                Some(v) => v,
                None => return Err(format!("{}: no such member", pointer_text(&path[..=n]))),
            },
            Json::Array(a) => &a[index_of(token, a.len(), &path[..=n])?],
            other => {
                return Err(format!(
                    "{}: {} is {}, not a container",
                    pointer_text(&path[..=n]),
                    pointer_text(&path[..n]),
                    other.kind_name()
                ))
            }
        };
    }
    Ok(at)
}

/// The container holding the target of `path` (not the root), and the last token.
fn parent_mut<'j>(
    root: &'j mut Json,
    path: &'j [String],
) -> Result<(&'j mut Json, &'j str), String> {
    let (last, parent) = path.split_last().ok_or("the root has no parent")?;
    let mut at = root;
    for (n, token) in parent.iter().enumerate() {
        at = match at {
            Json::Object(m) => match m.get_mut(token) {
                Some(v) => v,
                None => return Err(format!("{}: no such member", pointer_text(&path[..=n]))),
            },
            Json::Array(a) => {
                let i = index_of(token, a.len(), &path[..=n])?;
                &mut a[i]
            }
            other => {
                return Err(format!(
                    "{}: {} is {}, not a container",
                    pointer_text(&path[..=n]),
                    pointer_text(&path[..n]),
                    other.kind_name()
                ))
            }
        };
    }
    Ok((at, last))
}

/// Adds `value` at `path`; gives the size it took up less the size of what it replaced.
fn add(root: &mut Json, path: &[String], value: Json) -> Result<isize, String> {
    let added = value.size() as isize;
    if path.is_empty() {
        let old = std::mem::replace(root, value);
        return Ok(added - old.size() as isize);
    }
    let (parent, last) = parent_mut(root, path)?;
    match parent {
        Json::Object(m) => match m.get_mut(last) {
            Some(v) => {
                let old = std::mem::replace(v, value);
                return Ok(added - old.size() as isize);
            }
            None => {
                m.set(last, value);
                return Ok(tree::member_size(last, &Json::Null) as isize - 4 + added);
            }
        },
        Json::Array(a) if last == "-" => a.push(value),
        Json::Array(a) => {
            let i = index_of(last, a.len() + 1, path)?;
            a.insert(i, value);
        }
        other => {
            return Err(format!(
                "{}: {} is {}, not a container",
                pointer_text(path),
                pointer_text(&path[..path.len() - 1]),
                other.kind_name()
            ))
        }
    }
    Ok(added + 1)
}

/// Removes the value at `path`; gives it and the size it took up (with its key, in an
/// object).
fn remove(root: &mut Json, path: &[String]) -> Result<(Json, isize), String> {
    if path.is_empty() {
        return Err("cannot remove the whole document".into());
    }
    let (parent, last) = parent_mut(root, path)?;
    match parent {
        Json::Object(m) => match m.remove(last) {
            Some(v) => {
                let freed = tree::member_size(last, &v) as isize;
                Ok((v, freed))
            }
            None => Err(format!("{}: no such member", pointer_text(path))),
        },
        Json::Array(a) => {
            let i = index_of(last, a.len(), path)?;
            let v = a.remove(i);
            let freed = v.size() as isize + 1;
            Ok((v, freed))
        }
        other => Err(format!(
            "{}: {} is {}, not a container",
            pointer_text(path),
            pointer_text(&path[..path.len() - 1]),
            other.kind_name()
        )),
    }
}

/// Replaces the value at `path` where it is: a member keeps its place among its
/// siblings (a remove then an add would move it to the end of its object). The answer is
/// how much the document grew.
fn replace(root: &mut Json, path: &[String], value: Json) -> Result<isize, String> {
    get(root, path)?;
    let size = value.size() as isize;
    if path.is_empty() {
        let old = std::mem::replace(root, value);
        return Ok(size - old.size() as isize);
    }
    let (parent, last) = parent_mut(root, path)?;
    let slot = match parent {
        Json::Object(m) => m.get_mut(last),
        Json::Array(a) => {
            let i = index_of(last, a.len(), path)?;
            a.get_mut(i)
        }
        _ => None,
    };
    match slot {
        Some(v) => {
            let old = std::mem::replace(v, value);
            Ok(size - old.size() as isize)
        }
        // `get` found it: unreachable, but an error rather than a panic.
        None => Err(format!("{}: no such member", pointer_text(path))),
    }
}

/// Applies one operation to `doc`, within no limit.
pub fn apply_op(doc: &mut Json, op: &Op) -> Result<(), String> {
    apply_op_within(doc, op, &mut Budget::unlimited())
}

/// Applies one operation to `doc`, counting what it adds and copies against `budget`.
fn apply_op_within(doc: &mut Json, op: &Op, budget: &mut Budget) -> Result<(), String> {
    let grown = match op {
        Op::Add(path, value) => add(doc, path, value.clone())?,
        Op::Remove(path) => -remove(doc, path)?.1,
        Op::Replace(path, value) => replace(doc, path, value.clone())?,
        Op::Move(from, path) => {
            get(doc, from)?;
            if from == path {
                return Ok(());
            }
            if path.len() > from.len() && path[..from.len()] == from[..] {
                return Err(format!(
                    "cannot move {} into itself ({})",
                    pointer_text(from),
                    pointer_text(path)
                ));
            }
            let (v, freed) = remove(doc, from)?;
            add(doc, path, v)? - freed
        }
        Op::Copy(from, path) => {
            let source = get(doc, from)?;
            // Counted before the clone: doubling copies stop at the limit, not in memory.
            budget.copy(source.size())?;
            let v = source.clone();
            add(doc, path, v)?
        }
        Op::Test(path, value) => {
            let mut found = String::new();
            let at = get(doc, path)?;
            if at.equals(value) {
                return Ok(());
            }
            at.write(&mut found);
            let mut wanted = String::new();
            value.write(&mut wanted);
            return Err(format!(
                "test failed: {} is {found}, not {wanted}",
                display_path(path)
            ));
        }
    };
    budget.grow(grown)
}

fn display_path(path: &[String]) -> String {
    if path.is_empty() {
        "the document".into()
    } else {
        pointer_text(path)
    }
}

/// Applies `patch` to `target`, all operations or none, and prints the result as an edit
/// of `target` (its text kept wherever a value did not change), within the default
/// [`PatchLimits`] for their sizes.
pub fn apply_patch(
    target: &Document,
    patch: &Document,
    options: &MergeOptions,
) -> Result<String, PatchError> {
    let limits = PatchLimits::for_input(target.text().len() + patch.text().len());
    apply_patch_within(target, patch, options, &limits)
}

/// [`apply_patch`] within `limits`: a patch with more operations, or one that would make
/// the document (or the bytes its `copy` operations copy) larger than allowed, is refused
/// before anything is printed.
pub fn apply_patch_within(
    target: &Document,
    patch: &Document,
    options: &MergeOptions,
    limits: &PatchLimits,
) -> Result<String, PatchError> {
    let ops = read_patch(patch)?;
    limits.check_operations(ops.len())?;
    let mut doc = Json::from_value(target.root());
    let mut budget = Budget::new(limits, doc.size());
    for op in &ops {
        apply_op_within(&mut doc, &op.op, &mut budget).map_err(|reason| PatchError {
            index: Some(op.index),
            op: Some(op.name.into()),
            offset: op.offset,
            reason,
        })?;
    }
    let mut text = String::new();
    doc.write(&mut text);
    let invalid = |e: sjson::ParseError| PatchError {
        index: None,
        op: None,
        offset: 0,
        reason: format!("the patched document is not valid: {}", e.kind),
    };
    let dialect = target.dialect();
    if dialect == sjson::Dialect::Sjson && !matches!(doc, Json::Object(_)) {
        return Err(PatchError {
            index: None,
            op: None,
            offset: 0,
            reason: "the root of an SJSON document must stay an object".into(),
        });
    }
    // Theirs in the target's style, so that the values it brings print like their
    // neighbours.
    let json =
        Document::parse_with(text, ParseOptions::new(sjson::Dialect::Json)).map_err(invalid)?;
    let styled = sjson::format(&json, &sjson::Style::detect(target));
    let theirs = Document::parse_with(styled, ParseOptions::new(dialect)).map_err(invalid)?;
    let outcome = structural(target, target, &theirs, options);
    Document::parse_with(outcome.text, ParseOptions::new(dialect))
        .map(Document::into_text)
        .map_err(invalid)
}
