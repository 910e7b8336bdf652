//! Finding an object that is no longer in the tree: `log NAME` of a deleted object walks
//! history back from the tip (lazily, like `log`) to the newest commit that deleted an
//! object matching the spec, and close names for a spec that matches nothing anywhere.

use gix::ObjectId;

use super::build::ObjectIndex;
use super::history::{parent_infos, Walk};
use super::{Candidate, TreeIndex};
use crate::error::Error;

/// The object matching `spec` (an exact id, an exact `name`, or an id prefix of at least
/// four characters) deleted by the newest commit reachable from `start` that deleted one,
/// looking at no more than `max_commits` commits; `None` if none.
pub fn find_deleted(
    index: &mut ObjectIndex<'_>,
    start: ObjectId,
    spec: &str,
    max_commits: usize,
) -> Result<Option<Candidate>, Error> {
    let matches = |id: &str, name: Option<&str>| {
        id == spec || name == Some(spec) || (spec.len() >= 4 && id.starts_with(spec))
    };
    let mut walk: Walk<()> = Walk::new();
    walk.push(&index.commit_info(start)?, (), |_, _| {});
    let mut seen = 0;
    while let Some((commit, ())) = walk.pop() {
        seen += 1;
        if seen > max_commits {
            break;
        }
        let info = index.commit_info(commit)?;
        let parents = parent_infos(index, &info)?;
        if let Some(first) = parents.first() {
            let delta = index.delta(info.tree, first.tree)?;
            let deleted = delta.changes.iter().find_map(|c| match (&c.old, &c.new) {
                (Some(old), None) if matches(&c.id, old.entry.name.as_deref()) => Some(Candidate {
                    path: old.path.clone(),
                    id: c.id.clone(),
                    name: old.entry.name.clone(),
                }),
                _ => None,
            });
            if deleted.is_some() {
                return Ok(deleted);
            }
        }
        for p in &parents {
            walk.push(p, (), |_, _| {});
        }
    }
    Ok(None)
}

/// Up to `max` objects of `index` whose name is close to `spec` (one contains the other,
/// ignoring case, or they differ by at most two edits), closest first.
pub fn close_names(index: &TreeIndex, spec: &str, max: usize) -> Vec<Candidate> {
    let wanted = spec.to_lowercase();
    let mut scored: Vec<(usize, Candidate)> = index
        .objects()
        .filter_map(|(path, id, entry)| {
            let name = entry.name.as_deref()?;
            let lower = name.to_lowercase();
            let distance = edit_distance(&lower, &wanted);
            let close = distance <= 2 || lower.contains(&wanted) || wanted.contains(&lower);
            close.then(|| {
                let candidate = Candidate {
                    path: path.to_string(),
                    id: id.to_string(),
                    name: Some(name.to_string()),
                };
                (distance, candidate)
            })
        })
        .collect();
    scored.sort_by(|a, b| (a.0, &a.1.name, &a.1.path).cmp(&(b.0, &b.1.name, &b.1.path)));
    scored.into_iter().take(max).map(|(_, c)| c).collect()
}

/// Levenshtein distance over characters (names are short).
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let next = (row[j + 1] + 1)
                .min(row[j] + 1)
                .min(prev + usize::from(ca != *cb));
            prev = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn distances() {
        assert_eq!(edit_distance("barrel", "barel"), 1);
        assert_eq!(edit_distance("door", "dor"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("lamp", "lamp"), 0);
    }

    proptest! {
        /// A metric's basics: symmetric, zero only for equal strings, bounded by the
        /// longer length, and at least the difference of lengths.
        #[test]
        fn edit_distance_is_a_metric(a in "[a-c]{0,8}", b in "[a-c]{0,8}") {
            let d = edit_distance(&a, &b);
            prop_assert_eq!(d, edit_distance(&b, &a));
            prop_assert_eq!(d == 0, a == b);
            prop_assert!(d <= a.len().max(b.len()));
            prop_assert!(d >= a.len().abs_diff(b.len()));
        }
    }
}
