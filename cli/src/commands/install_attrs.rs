//! `.gitattributes` beside Git LFS and beside teammates, for `install` and `doctor`:
//!
//! * LFS: a pattern tracked by LFS (`*.level filter=lfs diff=lfs merge=lfs -text`) holds
//!   pointer files in git, not the assets: they cannot be merged by structure. `install`
//!   writes its lines *before* the first LFS line, so that for every file LFS tracks, LFS's
//!   later line wins and its merge is never replaced by ours (whatever the patterns'
//!   overlap), and says which asset patterns LFS tracks and what to do about it;
//! * sharing: attributes that are not committed reach no other clone; `doctor` says so.

use std::path::Path;

use globset::Glob;

/// A line of `.gitattributes` that gives its pattern `filter=lfs`: (1-based line, pattern).
pub fn lfs_lines(text: &str) -> Vec<(usize, String)> {
    text.lines()
        .enumerate()
        .filter_map(|(i, line)| {
            let mut words = line.split_whitespace();
            let pattern = words.next().filter(|p| !p.starts_with('#'))?;
            words
                .any(|w| w == "filter=lfs")
                .then(|| (i + 1, pattern.to_string()))
        })
        .collect()
}

/// A file name `pattern` matches (each wildcard as `x`): to test overlaps.
fn sample(pattern: &str) -> String {
    let p = pattern.trim_start_matches('/');
    let p = p.strip_prefix("**/").unwrap_or(p);
    p.replace("**", "x").replace(['*', '?'], "x")
}

/// Whether some file could match both patterns (each matches the other's sample).
fn overlap(a: &str, b: &str) -> bool {
    let matches = |glob: &str, name: &str| {
        Glob::new(glob).is_ok_and(|g| {
            let m = g.compile_matcher();
            m.is_match(name) || Path::new(name).file_name().is_some_and(|f| m.is_match(f))
        })
    };
    a == b || matches(a, &sample(b)) || matches(b, &sample(a))
}

/// The asset patterns that overlap a pattern LFS tracks, each with the LFS line.
pub fn lfs_tracked<'p>(text: &str, patterns: &'p [String]) -> Vec<(&'p str, usize, String)> {
    let lfs = lfs_lines(text);
    patterns
        .iter()
        .flat_map(|p| {
            lfs.iter()
                .filter(|(_, l)| overlap(p, l))
                .map(move |(n, l)| (p.as_str(), *n, l.clone()))
        })
        .collect()
}

/// What LFS tracking means, for one asset pattern.
pub fn lfs_note(pattern: &str, line: usize, lfs: &str) -> String {
    format!(
        ".gitattributes:{line}: {lfs} is stored in Git LFS, which overlaps asset pattern \
         {pattern}: git holds LFS pointers, not the assets, so those files keep LFS's merge \
         (not by structure). To merge them by structure, stop tracking them in LFS \
         (`git lfs untrack '{lfs}'`, then `git add --renormalize .`)"
    )
}

/// `existing` with `added` (whole lines) inserted before its first LFS line, or at its end
/// (after a line break if it lacks one).
pub fn insert_lines(existing: &str, added: &str, newline: &str) -> String {
    let first_lfs = lfs_lines(existing).first().map(|(n, _)| *n);
    let Some(line) = first_lfs else {
        let mut text = existing.to_string();
        if !text.is_empty() && !text.ends_with('\n') {
            text.push_str(newline);
        }
        text.push_str(added);
        return text;
    };
    let at: usize = existing
        .split_inclusive('\n')
        .take(line - 1)
        .map(str::len)
        .sum();
    format!("{}{added}{}", &existing[..at], &existing[at..])
}

/// Asset patterns whose `merge=assetvc` line comes after an LFS line for an overlapping
/// pattern (an older `install` appended it there): LFS files then go to assetvc's driver.
pub fn after_lfs<'p>(text: &str, patterns: &'p [String]) -> Vec<&'p str> {
    let lfs = lfs_lines(text);
    patterns
        .iter()
        .filter(|p| {
            text.lines().enumerate().any(|(i, line)| {
                let mut words = line.split_whitespace();
                words.next() == Some(p.as_str())
                    && words.any(|w| w == "merge=assetvc")
                    && lfs.iter().any(|(n, l)| *n < i + 1 && overlap(p, l))
            })
        })
        .map(String::as_str)
        .collect()
}

/// Why `.gitattributes` does not reach teammates, if it does not: not committed, or
/// changed since the last commit.
pub fn unshared(repo: &store::Repo, root: &Path) -> Option<String> {
    let here = std::fs::read(root.join(".gitattributes")).ok()?;
    match repo.blob_at("HEAD", ".gitattributes").ok().flatten() {
        None => Some(
            ".gitattributes is not committed: other clones do not get it and merge assets \
             line by line; `git add .gitattributes` and commit it"
                .into(),
        ),
        Some(committed) if committed != here => Some(
            ".gitattributes has changes that are not committed: other clones do not get them; \
             commit it"
                .into(),
        ),
        Some(_) => None,
    }
}

/// What `doctor` warns about (never a failure: this clone works).
pub fn warnings(repo: &store::Repo, root: &Path, patterns: &[String]) -> Vec<String> {
    let text = std::fs::read_to_string(root.join(".gitattributes")).unwrap_or_default();
    let mut out: Vec<String> = unshared(repo, root).into_iter().collect();
    for (pattern, line, lfs) in lfs_tracked(&text, patterns) {
        out.push(lfs_note(pattern, line, &lfs));
    }
    for pattern in after_lfs(&text, patterns) {
        out.push(format!(
            ".gitattributes: the `{pattern} merge=assetvc` line comes after an LFS line for \
             the same files: their LFS pointers go to assetvc's driver, which cannot merge \
             them; move the line above the LFS lines"
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const LFS: &str =
        "*.png filter=lfs diff=lfs merge=lfs -text\n*.level filter=lfs diff=lfs merge=lfs -text\n";

    #[test]
    fn lfs_patterns_are_found_and_our_lines_go_before_them() {
        let patterns = vec!["*.level".to_string(), "*.sjson".to_string()];
        assert_eq!(lfs_lines(LFS).len(), 2);
        let tracked = lfs_tracked(LFS, &patterns);
        assert_eq!(tracked, vec![("*.level", 2, "*.level".to_string())]);
        let text = insert_lines(LFS, "*.level merge=assetvc diff=assetvc\n", "\n");
        assert!(text.starts_with("*.level merge=assetvc"), "{text}");
        assert!(text.ends_with(LFS));
        assert!(after_lfs(&text, &patterns).is_empty());
        let appended = format!("{LFS}*.level merge=assetvc diff=assetvc\n");
        assert_eq!(after_lfs(&appended, &patterns), vec!["*.level"]);
        // No LFS: appended, after a missing line break.
        assert_eq!(
            insert_lines("*.png binary", "a b\n", "\n"),
            "*.png binary\na b\n"
        );
    }

    proptest::proptest! {
        /// Our lines are inserted whole, before every LFS line, and nothing else moves.
        #[test]
        fn inserted_lines_come_before_lfs_and_keep_the_rest(
            lines in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::strategy::Just("*.level filter=lfs merge=lfs -text".to_string()),
                    "[a-z*.# ]{0,12}",
                ],
                0..6,
            ),
            end in proptest::bool::ANY,
        ) {
            let mut existing = lines.join("\n");
            if end && !existing.is_empty() {
                existing.push('\n');
            }
            let added = "*.x merge=assetvc diff=assetvc\n";
            let text = insert_lines(&existing, added, "\n");
            let at = text.find(added).unwrap();
            let rest = format!("{}{}", &text[..at], &text[at + added.len()..]);
            proptest::prop_assert_eq!(rest.trim_end_matches('\n'), existing.trim_end_matches('\n'));
            let first_lfs = text.find("filter=lfs");
            proptest::prop_assert!(first_lfs.is_none_or(|l| at < l));
            proptest::prop_assert!(at == 0 || text[..at].ends_with('\n'));
        }
    }

    #[test]
    fn overlapping_patterns_count_as_tracked() {
        assert!(overlap("*.level", "levels/*.level"));
        assert!(overlap("**/*.level", "*.level"));
        assert!(!overlap("*.level", "*.png"));
    }
}
