//! The checks of one file's content, shared by `check`, `commit`, pre-commit and
//! pre-receive.
//!
//! - Every text file (no NUL byte in its first 8,000 bytes, git's own test): no conflict
//!   markers — a line starting with exactly seven `<`, `>` or `|` followed by a space or
//!   the line's end, or a line of exactly seven `=`. A lone `=======` (a Markdown
//!   heading underline) counts only in a file that also has a `<<<<<<<` or `>>>>>>>`
//!   marker. The other checks run too: an asset with markers also fails to parse.
//! - Assets: parse; ids unique within every keyed array (an array whose elements are all
//!   objects carrying an id, the first of `merge.id_keys` present, keys matched
//!   case-insensitively, ids compared as the merge compares them: strings exactly,
//!   numbers by value); with `check.require_ids`, arrays of objects carry ids (see
//!   [`check_change`] for which arrays); expression-valued properties compile.
//! - `*.lua`: parses as Lua 5.1 with the LuaJIT and Lua 5.2 additions (full_moon).
//! - `assetvc.toml`: a valid configuration (unknown fields are errors).
//! - External checkers whose patterns match (from trusted git config only).
//!
//! Here: the entry points, the conflict-marker and `assetvc.toml` checks; the asset
//! checks are in `asset`, the Lua checks in `lua`.

mod asset;
mod lua;
pub mod resources;

#[cfg(test)]
mod tests;

use crate::policy::{FileClass, Policy};
use crate::problem::{excerpt, Check, Problem};
use config::Config;

use asset::check_asset;
pub use asset::duplicate_ids_in;
use lua::check_lua;
pub use lua::LUA_MAX_LEVELS;

/// How many bytes git looks at to call a file binary.
const BINARY_SNIFF: usize = 8000;

/// Whether git would call this content binary: a NUL byte in its first 8,000 bytes.
pub fn is_binary(bytes: &[u8]) -> bool {
    bytes[..bytes.len().min(BINARY_SNIFF)].contains(&0)
}

/// Checks the content of `path` as a new file: with `check.require_ids`, every array of
/// objects must carry ids. This is what `assetvc check` and a new file in a commit get.
pub fn check_blob(path: &str, bytes: &[u8], policy: &Policy) -> Vec<Problem> {
    check_change(path, bytes, None, policy)
}

/// Checks the content of `path`, changed from `base` (the previous content at the same
/// path, if any). `base` matters only for `check.require_ids`: an array of objects
/// must carry ids when it is new — at a place (object keys, and element ids or indices)
/// where `base` had no non-empty array of objects — or when `base`'s array there was
/// keyed (every element had an id), so a keyed array stays keyed. Arrays that were
/// already unkeyed in `base` are left to `assetvc migrate`.
pub fn check_change(
    path: &str,
    bytes: &[u8],
    base: Option<&[u8]>,
    policy: &Policy,
) -> Vec<Problem> {
    check_classified(path, bytes, base, &policy.classify(path), policy)
}

/// One file for [`check_many`]: path, content, and the previous content at the path.
pub type FileVersion<'a> = (&'a str, &'a [u8], Option<&'a [u8]>);

/// [`check_change`] on many files in parallel; problems in the order of `files`.
pub fn check_many(files: &[FileVersion<'_>], policy: &Policy) -> Vec<Problem> {
    use rayon::prelude::*;
    crate::engine::in_pool(|| {
        files
            .par_iter()
            .map(|&(path, bytes, base)| {
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    check_change(path, bytes, base, policy)
                }))
                .unwrap_or_else(|_| {
                    vec![Problem::whole_file(
                        path,
                        Check::Internal,
                        "a check crashed on this file; rejected to be safe",
                    )]
                })
            })
            .flatten()
            .collect()
    })
}

/// [`check_change`] with the class already known.
pub fn check_classified(
    path: &str,
    bytes: &[u8],
    base: Option<&[u8]>,
    class: &FileClass,
    policy: &Policy,
) -> Vec<Problem> {
    let mut out = Vec::new();
    let binary = is_binary(bytes);
    if !binary {
        conflict_markers(path, bytes, &mut out);
    }
    if let Some(dialect) = class.dialect {
        check_asset(path, bytes, base, dialect, policy, &mut out);
    } else if class.lua && !binary {
        check_lua(path, bytes, &mut out);
    }
    if class.config_file {
        check_config_file(path, bytes, &mut out);
    }
    for &i in &class.checkers {
        if let Some(checker) = policy.checkers.get(i) {
            out.extend(checker.run(path, bytes));
        }
    }
    out
}

/// A conflict marker's character if `line` is one (see the module documentation).
fn marker(line: &[u8]) -> Option<u8> {
    let c = *line.first()?;
    if !matches!(c, b'<' | b'=' | b'>' | b'|')
        || line.len() < 7
        || line[..7].iter().any(|&b| b != c)
    {
        return None;
    }
    let rest = &line[7..];
    let blank = |b: &u8| matches!(b, b' ' | b'\t' | b'\r');
    let ok = if c == b'=' {
        rest.iter().all(blank)
    } else {
        rest.first().is_none_or(blank)
    };
    ok.then_some(c)
}

fn conflict_markers(path: &str, bytes: &[u8], out: &mut Vec<Problem>) {
    let mut found: Vec<(usize, usize, u8)> = Vec::new(); // line number, line start, marker
    let mut start = 0;
    for (number, line) in (1..).zip(bytes.split(|&b| b == b'\n')) {
        if let Some(c) = marker(line) {
            found.push((number, start, c));
        }
        start += line.len() + 1;
    }
    if found.is_empty() {
        return;
    }
    let angles = found.iter().any(|&(_, _, c)| c == b'<' || c == b'>');
    let mut open = false;
    let mut report = |number: usize, start: usize, reason: String| {
        let end = bytes[start..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(bytes.len(), |p| start + p);
        let text = String::from_utf8_lossy(&bytes[start..end]);
        let (source_line, caret) = excerpt(text.trim_end_matches('\r'), 1);
        out.push(Problem {
            path: path.to_string(),
            line: number,
            col: 1,
            check: Check::ConflictMarker,
            severity: crate::problem::Severity::Error,
            reason,
            source_line,
            caret,
        });
    };
    for (number, start, c) in found {
        match (c, open) {
            (b'<', _) => {
                open = true;
                report(
                    number,
                    start,
                    "unresolved merge conflict (conflict marker `<<<<<<<`)".into(),
                );
            }
            (b'>', true) => open = false,
            (b'=' | b'|', true) => {}
            (b'=', false) if !angles => {}
            (c, _) => {
                let m = String::from_utf8(vec![c; 7]).unwrap_or_default();
                report(number, start, format!("conflict marker `{m}`"));
            }
        }
    }
}
fn check_config_file(path: &str, bytes: &[u8], out: &mut Vec<Problem>) {
    let text = String::from_utf8_lossy(bytes);
    let result =
        Config::parse(&text, std::path::Path::new(path)).and_then(|c| Policy::new(&c).map(|_| ()));
    match result {
        Ok(()) => {}
        Err(config::ConfigError::Invalid {
            line, col, message, ..
        }) => {
            let offset = text
                .split_inclusive('\n')
                .take(line.saturating_sub(1))
                .map(str::len)
                .sum::<usize>();
            let mut p = Problem::at(path, &text, offset, Check::Config, message);
            p.col = col;
            p.caret = col;
            if p.source_line.chars().count() < col {
                p.caret = 0;
            }
            out.push(p);
        }
        Err(e) => out.push(Problem::whole_file(path, Check::Config, e.to_string())),
    }
}
