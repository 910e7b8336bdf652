//! The assets both sides of a tree merge changed, merged by structure one by one in place
//! of gix's line merge, and what each gave: the edits to the merged trees, the conflict
//! stages, the files merged and the paths left unresolved.

use std::collections::HashSet;

use gix::bstr::{BString, ByteSlice};
use gix::index::entry::Mode;
use gix::merge::tree::Resolution;
use gix::ObjectId;

use super::asset::{merge_asset, AssetMerge};
use super::{base_of, AssetRules, MergedFile, Unresolved};
use crate::error::Result;
use crate::repo;
use crate::worktree;

/// A tree entry to write: path, kind, object.
pub(super) type Edit = (BString, gix::objs::tree::EntryKind, ObjectId);

/// What merging the both-changed assets gave, path by path.
#[derive(Default)]
pub(super) struct BothChanged {
    /// The positions, in gix's conflict list, of the conflicts merged here.
    pub handled: HashSet<usize>,
    /// The assets merged by structure.
    pub files: Vec<MergedFile>,
    /// The paths left for the user.
    pub unresolved: Vec<Unresolved>,
    /// Edits to the merged tree for the commit: the structured results.
    pub commit_edits: Vec<Edit>,
    /// Edits to the merged tree for the worktree: also ours at paths that did not merge.
    pub worktree_edits: Vec<Edit>,
    /// The conflict stages (base, ours, theirs) of the paths left conflicted.
    pub stages: Vec<(BString, worktree::Stages)>,
}

impl BothChanged {
    /// Merges conflict `i` (`c`) of gix's tree merge by structure when it is an asset both
    /// sides changed whose line merge landed in `tree`; other conflicts are left to gix.
    pub fn merge(
        &mut self,
        repo: &gix::Repository,
        tree: &gix::Tree<'_>,
        first_base_tree: Option<ObjectId>,
        rules: &AssetRules,
        (i, c): (usize, &gix::merge::tree::Conflict),
    ) -> Result<()> {
        let Some(content) = c.content_merge() else {
            return Ok(());
        };
        match &c.resolution {
            Ok(Resolution::OursModifiedTheirsModifiedThenBlobContentMerge { .. })
            | Ok(Resolution::OursModifiedTheirsRenamedAndChangedThenRename {
                final_location: None,
                ..
            }) => {}
            _ => return Ok(()),
        }
        let Some((path, entry_mode)) = line_merge_location(tree, c, content.merged_blob_id)? else {
            return Ok(());
        };
        let path_str = path.to_str_lossy().into_owned();
        let Some(path_rules) = rules.of_path(&path_str) else {
            return Ok(());
        };
        self.handled.insert(i);
        let (ours_mode, ours_id) = c.ours.entry_mode_and_id();
        let (theirs_mode, theirs_id) = c.theirs.entry_mode_and_id();
        let base = base_of(c);
        let ours_entry = (ours_id.to_owned(), index_mode(ours_mode));
        let theirs_entry = (theirs_id.to_owned(), index_mode(theirs_mode));
        let conflict_stages = [
            base.as_ref().map(|(id, mode, _)| (*id, index_mode(*mode))),
            Some(ours_entry),
            Some(theirs_entry),
        ];
        // With several merge bases gix merges them into a virtual one, line by line; when
        // that left the asset unparsable, the first real merge base's version serves.
        let fallback_base = match (first_base_tree, &base) {
            (Some(tree), Some((_, _, base_path))) => repo
                .find_tree(tree)?
                .lookup_entry_by_path(repo::to_path(base_path.as_bstr()))?
                .filter(|e| e.mode().is_blob())
                .map(|e| e.object_id()),
            _ => None,
        };
        let merged = merge_asset(
            repo,
            (base.as_ref().map(|b| b.0), fallback_base),
            ours_entry.0,
            theirs_entry.0,
            path_rules.dialect,
            &rules.options_for(path_rules),
        )?;
        let kind = entry_mode.kind();
        match merged {
            AssetMerge::Merged {
                blob,
                conflicts,
                places,
                referrers,
                violations,
                failed,
            } => {
                self.commit_edits.push((path.clone(), kind, blob));
                self.worktree_edits.push((path.clone(), kind, blob));
                if failed {
                    self.stages.push((path.clone(), conflict_stages));
                    self.unresolved.push(Unresolved {
                        path: path_str.clone(),
                        kind: super::asset::failure_kind(&violations),
                    });
                }
                self.files.push(MergedFile {
                    path: path_str,
                    conflicts,
                    places,
                    referrers,
                    violations,
                    failed,
                });
            }
            AssetMerge::Failed(kind_of_failure) => {
                self.worktree_edits
                    .push((path.clone(), ours_mode.kind(), ours_entry.0));
                self.stages.push((path, conflict_stages));
                self.unresolved.push(Unresolved {
                    path: path_str,
                    kind: kind_of_failure,
                });
            }
        }
        Ok(())
    }
}

/// Where in `tree` the line merge's blob `merged` of conflict `c` landed (ours' location
/// or theirs'), with its mode.
fn line_merge_location(
    tree: &gix::Tree<'_>,
    c: &gix::merge::tree::Conflict,
    merged: ObjectId,
) -> Result<Option<(BString, gix::objs::tree::EntryMode)>> {
    for candidate in [c.ours.location(), c.theirs.location()] {
        let entry = tree.lookup_entry_by_path(repo::to_path(candidate))?;
        if let Some(entry) = entry {
            if entry.object_id() == merged {
                return Ok(Some((candidate.to_owned(), entry.mode())));
            }
        }
    }
    Ok(None)
}

/// A tree entry mode as an index entry mode.
pub(super) fn index_mode(mode: gix::objs::tree::EntryMode) -> Mode {
    Mode::from_bits_truncate(mode.value() as u32)
}
