//! A line diff, for files that are not documents (they do not parse): the fallback that
//! keeps `git diff` and `git log -p` going over a half-edited file or one holding
//! conflict markers.

/// One line of a unified line diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DiffLine {
    /// A hunk header, `@@ -a,b +c,d @@`.
    Hunk(String),
    /// A line both sides hold (context).
    Same(String),
    /// A line only the old side holds.
    Removed(String),
    /// A line only the new side holds.
    Added(String),
}

impl DiffLine {
    /// The line as in a unified diff (` `, `-` or `+` before the text).
    pub fn text(&self) -> String {
        match self {
            DiffLine::Hunk(h) => h.clone(),
            DiffLine::Same(l) => format!(" {l}"),
            DiffLine::Removed(l) => format!("-{l}"),
            DiffLine::Added(l) => format!("+{l}"),
        }
    }
}

/// The hunks of a unified diff (three lines of context) of `old` against `new`, without
/// a file header; empty when the texts hold the same lines.
pub fn line_diff(old: &str, new: &str) -> Vec<DiffLine> {
    let diff = similar::TextDiff::from_lines(old, new);
    let mut out = Vec::new();
    for hunk in diff.unified_diff().context_radius(3).iter_hunks() {
        out.push(DiffLine::Hunk(hunk.header().to_string()));
        for change in hunk.iter_changes() {
            let text = change.value().trim_end_matches(['\n', '\r']).to_string();
            out.push(match change.tag() {
                similar::ChangeTag::Equal => DiffLine::Same(text),
                similar::ChangeTag::Delete => DiffLine::Removed(text),
                similar::ChangeTag::Insert => DiffLine::Added(text),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn shows_a_conflict_block_as_added_lines() {
        let old = "a = 1\nb = 2\n";
        let new = "a = 1\n<<<<<<< ours\nb = 3\n=======\nb = 4\n>>>>>>> theirs\n";
        let lines: Vec<String> = line_diff(old, new).iter().map(DiffLine::text).collect();
        assert_eq!(lines[0], "@@ -1,2 +1,6 @@");
        assert_eq!(lines[1], " a = 1");
        assert!(lines.contains(&"-b = 2".to_string()));
        assert!(lines.contains(&"+<<<<<<< ours".to_string()));
        assert_eq!(line_diff(old, old), Vec::new());
    }

    proptest! {
        /// The old side's lines are the context and removed lines, the new side's the
        /// context and added lines, in order (for texts whose hunks cover every line).
        #[test]
        fn hunks_rebuild_both_sides(
            old in proptest::collection::vec("[abc]{0,2}", 0..4),
            new in proptest::collection::vec("[abc]{0,2}", 0..4),
        ) {
            let text = |lines: &[String]| lines.iter().map(|l| format!("{l}\n")).collect::<String>();
            let (o, n) = (text(&old), text(&new));
            let lines = line_diff(&o, &n);
            let side = |keep_removed: bool| -> Vec<String> {
                lines.iter().filter_map(|l| match l {
                    DiffLine::Same(t) => Some(t.clone()),
                    DiffLine::Removed(t) if keep_removed => Some(t.clone()),
                    DiffLine::Added(t) if !keep_removed => Some(t.clone()),
                    _ => None,
                }).collect()
            };
            // With at most 4 lines, three lines of context cover each whole text
            // whenever anything changed.
            if o != n {
                prop_assert_eq!(side(true), old);
                prop_assert_eq!(side(false), new);
            } else {
                prop_assert!(lines.is_empty());
            }
        }
    }
}
