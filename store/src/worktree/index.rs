//! Indexes: the stage-0 differences between two, unmerged paths, conflict stages, and
//! writing one to its file.

use std::cmp::Ordering;

use gix::bstr::{BStr, BString, ByteSlice};
use gix::index::entry::{Mode, Stage, Stat};
use gix::ObjectId;

/// One path whose entry differs between two flat trees.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathChange {
    /// Repository-relative path.
    pub(crate) path: BString,
    /// The entry before, if any.
    pub(crate) old: Option<(ObjectId, Mode)>,
    /// The entry after, if any.
    pub(crate) new: Option<(ObjectId, Mode)>,
}

impl PathChange {
    /// The object before the change, if the path had an entry.
    pub fn old_id(&self) -> Option<ObjectId> {
        self.old.map(|(id, _)| id)
    }

    /// The object after the change; `None` when the entry was removed.
    pub fn new_id(&self) -> Option<ObjectId> {
        self.new.map(|(id, _)| id)
    }

    /// The path, lossily decoded if not UTF-8.
    pub fn path_lossy(&self) -> String {
        self.path.to_str_lossy().into_owned()
    }

    /// Whether the new entry is a submodule (a commit, not a file).
    pub fn is_submodule(&self) -> bool {
        self.new.is_some_and(|(_, mode)| mode == Mode::COMMIT)
    }
}

/// The stage-0 entries whose id or mode differ between two indexes (both sorted, as gix
/// keeps them), in path order.
pub fn diff_indexes(old: &gix::index::State, new: &gix::index::State) -> Vec<PathChange> {
    let stage0 = |s: &'_ gix::index::State| -> Vec<(usize, bool)> {
        s.entries()
            .iter()
            .enumerate()
            .filter(|(_, e)| e.stage() == Stage::Unconflicted)
            .map(|(i, _)| (i, true))
            .collect()
    };
    let (a, b) = (stage0(old), stage0(new));
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::new();
    while i < a.len() || j < b.len() {
        let ea = a.get(i).map(|&(k, _)| &old.entries()[k]);
        let eb = b.get(j).map(|&(k, _)| &new.entries()[k]);
        let ord = match (ea, eb) {
            (Some(x), Some(y)) => gix::index::Entry::cmp_filepaths(x.path(old), y.path(new)),
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => break,
        };
        match ord {
            Ordering::Less => {
                let x = ea.expect("present");
                out.push(PathChange {
                    path: x.path(old).to_owned(),
                    old: Some((x.id, x.mode)),
                    new: None,
                });
                i += 1;
            }
            Ordering::Greater => {
                let y = eb.expect("present");
                out.push(PathChange {
                    path: y.path(new).to_owned(),
                    old: None,
                    new: Some((y.id, y.mode)),
                });
                j += 1;
            }
            Ordering::Equal => {
                let (x, y) = (ea.expect("present"), eb.expect("present"));
                if x.id != y.id || x.mode != y.mode {
                    out.push(PathChange {
                        path: x.path(old).to_owned(),
                        old: Some((x.id, x.mode)),
                        new: Some((y.id, y.mode)),
                    });
                }
                i += 1;
                j += 1;
            }
        }
    }
    out
}

/// The paths of `index` that hold unmerged entries (stages 1–3).
pub fn unmerged_paths(index: &gix::index::State) -> Vec<String> {
    let mut out: Vec<String> = index
        .entries()
        .iter()
        .filter(|e| e.stage() != Stage::Unconflicted)
        .map(|e| e.path(index).to_str_lossy().into_owned())
        .collect();
    out.dedup();
    out
}

/// The base, ours and theirs entries of a conflicted path (`None` where a side has none).
pub type Stages = [Option<(ObjectId, Mode)>; 3];

/// Adds conflict stages for each path of `conflicts` to `index`, replacing its stage-0
/// entry: the stages are base, ours and theirs (`None` where a side has no file). The
/// index is scanned and sorted once, not once per path.
pub fn set_all_conflict_stages<'p>(
    index: &mut gix::index::State,
    conflicts: impl IntoIterator<Item = (&'p BStr, Stages)>,
) {
    let conflicts: Vec<(&BStr, Stages)> = conflicts.into_iter().collect();
    if conflicts.is_empty() {
        return;
    }
    let paths: std::collections::HashSet<&BStr> = conflicts.iter().map(|(p, _)| *p).collect();
    index.remove_entries(|_, p, _| paths.contains(p));
    for (path, stages) in conflicts {
        for (i, stage) in stages.iter().enumerate() {
            if let Some((id, mode)) = stage {
                let stage = match i {
                    0 => Stage::Base,
                    1 => Stage::Ours,
                    _ => Stage::Theirs,
                };
                index.dangerously_push_entry(
                    Stat::default(),
                    *id,
                    gix::index::entry::Flags::from_stage(stage),
                    *mode,
                    path,
                );
            }
        }
    }
    index.sort_entries();
}
