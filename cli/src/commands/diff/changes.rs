//! `assetvc diff --format changes`: the difference as a change set, JSON Lines that
//! `assetvc apply` takes (see `merge::changeset`).

use merge::changeset::change_set;
use merge::diff::{Diff, DiffOptions};
use sjson::Document;

/// The change set of `diff` (from `old` to `new`, `None` for a missing file) as JSON
/// Lines, each naming `file` when given.
pub(super) fn change_lines(
    old: Option<&Document>,
    new: Option<&Document>,
    diff: &Diff<'_>,
    options: &DiffOptions,
    file: Option<&str>,
) -> String {
    let mut ops = change_set(old.map(|d| d.root()), new.map(|d| d.root()), diff, options);
    let mut out = String::new();
    for op in &mut ops {
        op.file = file.map(str::to_string);
        out.push_str(&op.to_json());
        out.push('\n');
    }
    out
}

/// Names `file` in every line of a change set written without files.
pub(super) fn name_file(lines: &str, file: &str) -> String {
    let mut quoted = String::from(",\"file\":");
    sjson::string::write_quoted(&mut quoted, file);
    quoted.push_str(",\"path\":");
    lines
        .lines()
        .map(|l| format!("{}\n", l.replacen(",\"path\":", &quoted, 1)))
        .collect()
}
