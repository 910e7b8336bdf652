//! Merging commits, with the structured merge for assets, then the worktree, the index and
//! the merge commit (or the state git expects for a merge left for the user:
//! `MERGE_HEAD`, `MERGE_MSG`, unmerged index entries).
//!
//! Two tree merges live here. The merge of three explicit trees (`strategy`, `ort`), which
//! the merge strategy, `pr` and `assetvc merge`/`pull` use: git's own merge-ort (`git
//! merge-tree --write-tree`) for the tree, the assets both sides changed handed over as
//! three stages and merged by structure. git writes its objects into a scratch directory
//! (`scratch`) and the merge into memory; only what the result reaches is copied into the
//! repository ([`persist`]). And gix's tree merge ([`merge_commits`], used by sync, and by
//! `assetvc merge`/`pull` when git is older than 2.41): gix's `merge_trees`/`merge_commits`
//! report every path both sides changed, with the blob the line merge produced; for assets
//! that blob is replaced by the structured merge of the three versions — also when the
//! line merge "merged cleanly" into invalid SJSON, and also when it left conflict markers.
//! The configured `merge.assetvc` driver is disabled for either merge (it would only run
//! this same merge once per file in a subprocess).
//!
//! `asset` holds the structured merge of one asset, `head` the merge into HEAD
//! ([`merge_into_head`]) with its worktree, index, ref and message handling.

mod asset;
mod both_changed;
mod direct;
mod head;
mod isolate;
mod ort;
mod scratch;
mod strategy;

#[cfg(test)]
mod ort_parity;
#[cfg(test)]
mod tests;

use std::collections::HashSet;
use std::sync::Arc;

use gix::bstr::{BString, ByteSlice};
use gix::merge::tree::{ResolutionFailure, TreatAsUnresolved};
use gix::ObjectId;
use merge::{Conflict, MergeOptions};
use sjson::{Dialect, ParseError};

use crate::error::{Error, Result};
use crate::repo;
use crate::worktree;

use crate::journal::Versions;
use both_changed::BothChanged;
pub use head::{conflict_lines, current_index, update_head, MergeReport, MergeResult, TreeMerger};
pub use strategy::{MergeTrees, StrategyMerge};

/// How one asset path is merged: its syntax and its engine profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PathRules {
    /// The syntax the asset patterns give the path (a file they call SJSON is still read as
    /// JSON when ours' content is).
    pub dialect: Dialect,
    /// The engine format configured for the path (`assetvc.toml` `[profiles]`) or told by
    /// its name; `None`: ours' content decides when the merge starts.
    pub profile: Option<merge::profile::Format>,
}

/// The rules of a path ([`AssetRules::new`]).
type RulesOf = dyn Fn(&str) -> Option<PathRules> + Send + Sync;

/// What assetvc knows about assets: which paths are assets, and how to merge each.
#[derive(Clone)]
pub struct AssetRules {
    /// The rules of an asset path, `None` for files that are not assets.
    of_path: Arc<RulesOf>,
    /// Merge settings (policy, id keys…); each path's profile is set from its rules.
    pub options: MergeOptions,
}

impl AssetRules {
    /// Rules from `of_path` (an asset path, repository-relative and `/`-separated, to its
    /// rules; `None` for files that are not assets) and the merge settings.
    pub fn new(
        of_path: impl Fn(&str) -> Option<PathRules> + Send + Sync + 'static,
        options: MergeOptions,
    ) -> AssetRules {
        AssetRules {
            of_path: Arc::new(of_path),
            options,
        }
    }

    /// The same rules for paths, with other merge settings.
    pub fn with_options(&self, options: MergeOptions) -> AssetRules {
        AssetRules {
            of_path: Arc::clone(&self.of_path),
            options,
        }
    }

    /// The rules of `path`, `None` when it is not an asset.
    pub fn of_path(&self, path: &str) -> Option<PathRules> {
        (self.of_path)(path)
    }

    /// The dialect of `path`, `None` when it is not an asset.
    pub fn dialect_of(&self, path: &str) -> Option<Dialect> {
        self.of_path(path).map(|rules| rules.dialect)
    }

    /// The merge settings for a path with `rules`: its profile set.
    pub fn options_for(&self, rules: PathRules) -> MergeOptions {
        MergeOptions {
            profile: rules.profile,
            ..self.options.clone()
        }
    }
}

/// An asset merged by structure.
#[derive(Debug, Clone)]
pub struct MergedFile {
    /// Repository-relative path.
    pub path: String,
    /// The true conflicts, each resolved by the policy.
    pub conflicts: Vec<Conflict>,
    /// Where each conflict is, for people (`entities[crate #e1].tint`; a repair: its
    /// object), in the order of `conflicts` ([`merge::Merged::names`]).
    pub places: Vec<String>,
    /// Each repair's referrer for people (`flow[spawn #node-spawn].unit`,
    /// [`merge::Merged::referrers`]), in the order of `conflicts`; may be empty.
    pub referrers: Vec<Option<String>>,
    /// Invariants the result breaks that base, ours and theirs kept (the merge's result
    /// gate, [`merge::gate`]): the path is then left conflicted whatever the policy.
    pub violations: Vec<merge::GateViolation>,
    /// Whether policy `fail` met a conflict or the gate found a violation: the path is
    /// left conflicted.
    pub failed: bool,
}

impl MergedFile {
    /// The place of each conflict for people (`None` only past the end of `places`, which
    /// a merge never leaves).
    pub fn places_or_none(&self) -> impl Iterator<Item = Option<&str>> {
        (0..self.conflicts.len()).map(|i| self.places.get(i).map(String::as_str))
    }

    /// Conflict `i` as one line for people: its place named, a repair's referrer too
    /// (`units[crate #9f0c…4f5f]: referenced object restored (referenced by
    /// flow[spawn #node-spawn].unit), from ours`).
    pub fn line(&self, i: usize) -> String {
        let place = self.places.get(i).map(String::as_str);
        let referrer = self.referrers.get(i).and_then(|r| r.as_deref());
        match self.conflicts.get(i) {
            Some(c) => c.line_with(place, referrer),
            None => String::new(),
        }
    }
}

/// Why a path is left for the user.
#[derive(Debug, Clone)]
pub enum UnresolvedKind {
    /// A version of an asset does not parse: nothing was merged, ours is in the worktree.
    Unparsable {
        /// The version that does not parse.
        side: merge::Version,
        /// The parse error.
        error: ParseError,
        /// The text that failed to parse (lossy UTF-8), for diagnostics.
        text: String,
    },
    /// Policy `fail` met a conflict; the worktree holds the result with theirs' values.
    PolicyFail,
    /// The merged result breaks invariants base, ours and theirs kept (the result gate);
    /// the worktree holds the result, nothing is committed.
    Gate(Vec<merge::GateViolation>),
    /// The structured merge produced a document that does not parse (a bug); ours is kept.
    Internal(String),
    /// A text file with conflict markers.
    Text,
    /// Binary files both changed; ours is kept.
    Binary,
    /// A conflict between trees (modify/delete, rename/rename…), as gix describes it.
    Tree(String),
}

impl std::fmt::Display for UnresolvedKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            UnresolvedKind::Unparsable { side, error, .. } => {
                write!(
                    f,
                    "{side} does not parse ({}:{}: {}); ours kept",
                    error.line, error.col, error.kind
                )
            }
            UnresolvedKind::PolicyFail => {
                f.write_str("conflicts met with policy fail; theirs' values written")
            }
            UnresolvedKind::Gate(violations) => {
                f.write_str("not merged cleanly, the result breaks what its inputs kept: ")?;
                for (i, v) in violations.iter().enumerate() {
                    let sep = if i == 0 { "" } else { "; " };
                    write!(f, "{sep}{v}")?;
                }
                f.write_str(" (result written, not committed)")
            }
            UnresolvedKind::Internal(e) => write!(f, "{e}; ours kept"),
            UnresolvedKind::Text => f.write_str("content conflict (conflict markers written)"),
            UnresolvedKind::Binary => f.write_str("binary files both changed; ours kept"),
            UnresolvedKind::Tree(what) => f.write_str(what),
        }
    }
}

/// A path left for the user.
#[derive(Debug, Clone)]
pub struct Unresolved {
    /// Repository-relative path.
    pub path: String,
    /// Why.
    pub kind: UnresolvedKind,
}

/// The in-memory merge of two commits.
pub struct TreeMerge {
    /// The merged tree (meaningful when nothing is unresolved).
    pub tree: ObjectId,
    /// What the worktree should hold: the merged tree, with ours (or the policy-`fail`
    /// result) at unresolved asset paths and conflict markers in unresolved text files.
    #[cfg_attr(not(test), allow(dead_code))] // its index, `worktree_index`, is what is used
    pub worktree_tree: ObjectId,
    /// The index of `worktree_tree`, every entry at stage 0: what the worktree should hold.
    pub worktree_index: gix::index::File,
    /// The index of `worktree_tree` with conflict stages at unresolved paths.
    pub index: gix::index::File,
    /// Every asset both sides changed, merged by structure.
    pub files: Vec<MergedFile>,
    /// Paths left for the user.
    pub unresolved: Vec<Unresolved>,
}

/// Bytes of decoded objects the in-memory merge keeps (trees looked up once per merged path).
const OBJECT_CACHE: usize = 64 * 1024 * 1024;

/// A clone of `repo` for merging in memory: the `merge.assetvc` driver is not configured
/// (gix's tree merge would run it), and objects are written to memory, so that the line
/// merges that the structured merge replaces never reach the object database.
fn merge_repo(repo: &gix::Repository) -> gix::Repository {
    let mut repo = repo.clone().with_object_memory();
    // Every merged path is looked up in the merged tree: a large tree already in the object
    // database (a merge tried before) would be inflated again for each of them.
    repo.object_cache_size_if_unset(OBJECT_CACHE);
    {
        let mut config = repo.config_snapshot_mut();
        while config
            .remove_section("merge", Some("assetvc".into()))
            .is_some()
        {}
    }
    repo
}

/// Writes the objects of `memory` that `roots` reach into `target` (an object database),
/// children before parents (as git does): an object found in the database after a kill
/// is then always complete, and every object of `memory` is written whether or not the
/// database already has it (its presence proves nothing about its children).
fn persist(
    target: &impl gix::objs::Write,
    memory: &gix::odb::memory::Storage,
    roots: &[ObjectId],
) -> Result<()> {
    // (object, whether its children are already on the stack above it)
    let mut stack: Vec<(ObjectId, bool)> = roots.iter().map(|&id| (id, false)).collect();
    let mut seen = HashSet::new();
    while let Some((id, expanded)) = stack.pop() {
        let Some((kind, data)) = memory.get(&id) else {
            continue; // not made by this merge: it came from the database with its closure
        };
        if expanded {
            crate::failpoint::hit("merge-write-object");
            target.write_buf(*kind, data)?;
            continue;
        }
        if !seen.insert(id) {
            continue;
        }
        stack.push((id, true));
        if *kind == gix::objs::Kind::Tree {
            for entry in gix::objs::TreeRefIter::from_bytes(data, id.kind()) {
                let entry = entry.map_err(Error::git)?;
                stack.push((entry.oid.to_owned(), false));
            }
        }
    }
    Ok(())
}

/// Merges commits `ours` and `theirs` in memory; only the objects of the result (its trees,
/// the merged blobs, the blobs of conflict stages) are written to the object database, and
/// nothing else changes. `labels` name ours and theirs in conflict markers.
pub fn merge_commits(
    repo: &gix::Repository,
    ours: ObjectId,
    theirs: ObjectId,
    labels: (&str, &str),
    rules: &AssetRules,
) -> Result<TreeMerge> {
    let target = repo;
    let mut memory_repo = merge_repo(repo);
    let repo = &memory_repo;
    let options: gix::merge::commit::Options = repo.tree_merge_options()?.into();
    let text_labels = gix::merge::blob::builtin_driver::text::Labels {
        ancestor: Some("merged common ancestors".into()),
        current: Some(labels.0.into()),
        other: Some(labels.1.into()),
    };
    let outcome = repo.merge_commits(ours, theirs, text_labels, options)?;
    let first_base_tree = match (&outcome.merge_bases, outcome.virtual_merge_bases.is_empty()) {
        (Some(bases), false) => Some(repo::tree_of(repo, Some(*bases.first()))?),
        _ => None,
    };
    let (merge, roots) = finish(repo, outcome.tree_merge, first_base_tree, rules)?;
    let memory = memory_repo.objects.take_object_memory().unwrap_or_default();
    persist(&target.objects, &memory, &roots)?;
    Ok(merge)
}

/// Replaces, in gix's tree merge `tree_merge` (made in `repo`, a [`merge_repo`] whose
/// objects are in memory), the line merges of assets by their structured merges and builds
/// the trees and the index of the result; with the objects to persist (the roots of what
/// the result refers to).
fn finish(
    repo: &gix::Repository,
    mut tree_merge: gix::merge::tree::Outcome<'_>,
    first_base_tree: Option<ObjectId>,
    rules: &AssetRules,
) -> Result<(TreeMerge, Vec<ObjectId>)> {
    let merged_tree = tree_merge.tree.write()?.detach();
    let how = TreatAsUnresolved::git();

    let mut assets = BothChanged::default();
    let tree = repo.find_tree(merged_tree)?;
    for (i, c) in tree_merge.conflicts.iter().enumerate() {
        assets.merge(repo, &tree, first_base_tree, rules, (i, c))?;
    }
    drop(tree);
    let BothChanged {
        handled,
        mut files,
        mut unresolved,
        commit_edits,
        worktree_edits,
        stages,
    } = assets;

    // What gix left unresolved outside the assets it merged by structure.
    let gix_unresolved: Vec<gix::merge::tree::Conflict> = tree_merge
        .conflicts
        .iter()
        .enumerate()
        .filter(|(i, c)| !handled.contains(i) && c.is_unresolved(how))
        .map(|(_, c)| c.clone())
        .collect();
    for c in &gix_unresolved {
        unresolved.push(Unresolved {
            path: c.ours.location().to_str_lossy().into_owned(),
            kind: describe_gix_conflict(c),
        });
    }

    let commit_tree = edit_tree(repo, merged_tree, &commit_edits)?;
    let worktree_tree = edit_tree(repo, merged_tree, &worktree_edits)?;
    let index = merged_index(
        repo,
        merged_tree,
        (&gix_unresolved, how),
        &worktree_edits,
        &stages,
    )?;
    // Keep what the trees and the conflict stages refer to (a stage may hold a blob of a
    // virtual merge base, which exists only in memory); drop the rest.
    let mut roots = vec![commit_tree, worktree_tree];
    roots.extend(
        index
            .entries()
            .iter()
            .filter(|e| e.stage() != gix::index::entry::Stage::Unconflicted)
            .map(|e| e.id),
    );
    unresolved.sort_by(|a, b| a.path.cmp(&b.path));
    unresolved.dedup_by(|a, b| a.path == b.path);
    files.sort_by(|a, b| a.path.cmp(&b.path));
    let merge = TreeMerge {
        tree: commit_tree,
        worktree_tree,
        worktree_index: repo.index_from_tree(&worktree_tree)?,
        index,
        files,
        unresolved,
    };
    Ok((merge, roots))
}

/// The index of the merge: gix's tree `merged_tree` with the entries of the conflicts gix
/// left unresolved, our edits (the structured results, and ours at paths that did not
/// merge) and the conflict stages of the paths left conflicted.
fn merged_index(
    repo: &gix::Repository,
    merged_tree: ObjectId,
    (gix_unresolved, how): (&[gix::merge::tree::Conflict], TreatAsUnresolved),
    worktree_edits: &[both_changed::Edit],
    stages: &[(BString, worktree::Stages)],
) -> Result<gix::index::File> {
    // gix's conflict entries must be applied to the index of its own tree.
    let mut index = repo.index_from_tree(&merged_tree)?;
    gix::merge::tree::apply_index_entries(
        gix_unresolved,
        how,
        &mut index,
        gix::merge::tree::apply_index_entries::RemovalMode::Prune,
    );
    for (path, kind, id) in worktree_edits {
        if let Some(e) = index
            .entry_mut_by_path_and_stage(path.as_bstr(), gix::index::entry::Stage::Unconflicted)
        {
            e.id = *id;
            e.mode = both_changed::index_mode((*kind).into());
        }
    }
    worktree::set_all_conflict_stages(
        &mut index,
        stages.iter().map(|(path, s)| (path.as_bstr(), *s)),
    );
    Ok(index)
}

/// The base version of a both-changed path, if it had one.
fn base_of(
    c: &gix::merge::tree::Conflict,
) -> Option<(ObjectId, gix::objs::tree::EntryMode, BString)> {
    use gix::diff::tree_with_rewrites::Change;
    for change in [&c.ours, &c.theirs] {
        match change {
            Change::Modification { .. } | Change::Rewrite { .. } => {
                let (mode, id) = change.source_entry_mode_and_id();
                if mode.is_blob() {
                    return Some((id.to_owned(), mode, change.source_location().to_owned()));
                }
            }
            Change::Addition { .. } | Change::Deletion { .. } => {}
        }
    }
    None
}

fn describe_gix_conflict(c: &gix::merge::tree::Conflict) -> UnresolvedKind {
    match &c.resolution {
        Ok(_) => match c.content_merge() {
            Some(m) => {
                let (_, ours_id) = c.ours.entry_mode_and_id();
                if m.merged_blob_id == ours_id {
                    UnresolvedKind::Binary
                } else {
                    UnresolvedKind::Text
                }
            }
            None => UnresolvedKind::Tree("conflict".into()),
        },
        Err(failure) => {
            let (first, _) = c.changes_in_resolution();
            let first_is_ours = std::ptr::eq(first, &c.ours);
            let who = |ours_first: &str, theirs_first: &str| {
                if first_is_ours {
                    ours_first.to_string()
                } else {
                    theirs_first.to_string()
                }
            };
            UnresolvedKind::Tree(match failure {
                ResolutionFailure::OursModifiedTheirsDeleted => who(
                    "modified by ours, deleted by theirs",
                    "deleted by ours, modified by theirs",
                ),
                ResolutionFailure::OursDeletedTheirsRenamed => who(
                    "deleted by ours, renamed by theirs",
                    "renamed by ours, deleted by theirs",
                ),
                ResolutionFailure::OursRenamedTheirsRenamedDifferently { .. } => {
                    "renamed differently by both sides".into()
                }
                ResolutionFailure::OursRenamedTheirsRenamedToSameLocation => {
                    "both sides renamed different files to this path".into()
                }
                ResolutionFailure::OursAddedTheirsAddedTypeMismatch { .. } => {
                    "added by both sides as different kinds of entry".into()
                }
                ResolutionFailure::SubmoduleMerge | ResolutionFailure::SubmoduleAddAdd => {
                    "submodule changed by both sides".into()
                }
                other => format!("{other:?}"),
            })
        }
    }
}

/// `tree` with `edits` (path, kind, object) made. gix's plain editor: its repository-level
/// one checks that every entry of every tree it writes is in the object database (20,000
/// lookups when one file of a 20,000-file folder changes), where every entry here comes
/// from a tree git wrote or an object this merge wrote; the checkout validates each path
/// before anything reaches the disk (`worktree::validate_index`).
fn edit_tree(
    repo: &gix::Repository,
    tree: ObjectId,
    edits: &[(BString, gix::objs::tree::EntryKind, ObjectId)],
) -> Result<ObjectId> {
    if edits.is_empty() {
        return Ok(tree);
    }
    let mut editor = repo.edit_tree(tree)?.detach();
    for (path, kind, id) in edits {
        editor
            .upsert(path.split_str("/"), *kind, *id)
            .map_err(Error::git)?;
    }
    editor
        .write(|tree| repo.write_object(tree).map(|id| id.detach()))
        .map_err(Error::git)
}
