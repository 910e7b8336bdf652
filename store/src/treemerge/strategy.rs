//! Merging three explicit trees, the way git's merge strategies are asked to
//! (`git-merge-NAME BASE... -- HEAD REMOTE`): in memory ([`Repo::merge_trees`]) or into
//! the worktree and the index under the index lock ([`Repo::merge_trees_into_worktree`]),
//! never moving a ref nor writing `MERGE_HEAD`/`MERGE_MSG` (git does that around a
//! strategy). Also what a merge queue needs beside: a commit object written without moving
//! any ref, and the three versions of merged files for the journal.

use gix::ObjectId;

use super::{AssetRules, MergedFile, TreeMerge};
use super::{Unresolved, Versions};
use crate::error::{Error, Result};
use crate::worktree;
use crate::Repo;

/// One merge step: the merge bases (commits or trees; none for unrelated histories), ours
/// and theirs (commits, or trees when there is one base or none), and the names of ours
/// and theirs in conflict markers.
#[derive(Debug, Clone, Copy)]
pub struct MergeTrees<'a> {
    /// The merge bases. With several, ours and theirs must be commits: their merge bases
    /// are merged into a virtual one, as merge-ort does.
    pub bases: &'a [ObjectId],
    /// Ours (HEAD's commit for a strategy).
    pub ours: ObjectId,
    /// Theirs (the commit merged or replayed).
    pub theirs: ObjectId,
    /// How conflict markers name ours and theirs.
    pub labels: (&'a str, &'a str),
}

/// The outcome of a merge of explicit trees.
#[derive(Debug, Clone)]
pub struct StrategyMerge {
    /// The merged tree (what a commit of the merge holds when nothing is unresolved).
    pub tree: ObjectId,
    /// Every asset both sides changed, merged by structure.
    pub files: Vec<MergedFile>,
    /// Paths left for the user.
    pub unresolved: Vec<Unresolved>,
}

impl StrategyMerge {
    fn of(merge: &mut TreeMerge) -> StrategyMerge {
        StrategyMerge {
            tree: merge.tree,
            files: std::mem::take(&mut merge.files),
            unresolved: std::mem::take(&mut merge.unresolved),
        }
    }
}

impl Repo {
    /// Merges `trees` in memory: assets by structure, every other path as git's merge-ort
    /// (`git merge-tree`: renames, binary files, modify/delete). Only the objects of the
    /// result are written to the object database; no ref, index or file changes.
    pub fn merge_trees(&self, trees: &MergeTrees<'_>, rules: &AssetRules) -> Result<StrategyMerge> {
        Ok(StrategyMerge::of(&mut merge_explicit(
            &self.git, trees, rules,
        )?))
    }

    /// Merges `trees` (ours must be HEAD) like a git merge strategy: the result goes into
    /// the worktree and the index under the index lock, with conflict stages (1, 2, 3) at
    /// the paths left for the user and, in their files, what the driver would leave there
    /// (conflict markers, or the structured result). Refuses, changing nothing, when the
    /// index is not HEAD's or a local change would be overwritten. Moves no ref.
    pub fn merge_trees_into_worktree(
        &self,
        trees: &MergeTrees<'_>,
        rules: &AssetRules,
    ) -> Result<StrategyMerge> {
        let repo = &self.git;
        let mut lock = worktree::IndexLock::acquire(repo)?;
        let ours_tree = peel_to_tree(repo, trees.ours)?;
        let mut merged = merge_explicit(repo, trees, rules)?;
        let head_index = repo.index_from_tree(&ours_tree)?;
        let report = StrategyMerge::of(&mut merged);
        let TreeMerge {
            worktree_index,
            index,
            ..
        } = merged;
        worktree::checkout(repo, &mut lock, &head_index, &worktree_index, index)?;
        lock.commit()?;
        Ok(report)
    }

    /// The object `spec` names (a commit, tree or tag id, a ref, `HEAD`), not peeled.
    pub fn resolve_object(&self, spec: &str) -> Result<ObjectId> {
        use gix::bstr::ByteSlice;
        let id = self
            .git
            .rev_parse_single(spec.as_bytes().as_bstr())
            .map_err(|_| Error::UnknownRevision(spec.to_string()))?;
        Ok(id.detach())
    }

    /// The best common ancestor of commits `a` and `b`, `None` for unrelated histories.
    pub fn merge_base_of(&self, a: ObjectId, b: ObjectId) -> Result<Option<ObjectId>> {
        Ok(self.git.merge_base(a, b)?.map(|id| id.detach()))
    }

    /// Writes a commit object of `tree` with `parents` and `message` (author and committer
    /// from the configuration, as `git commit-tree`) without moving any ref.
    pub fn write_commit(
        &self,
        tree: ObjectId,
        parents: &[ObjectId],
        message: &str,
    ) -> Result<ObjectId> {
        let commit = self
            .git
            .new_commit(message, tree, parents.iter().copied())
            .map_err(Error::git)?;
        Ok(commit.id)
    }

    /// The three versions of each of `paths` in the trees of `base` (empty when there is
    /// none or it lacks the path), `ours` and `theirs` (commits or trees); `None` for a
    /// path missing on ours or theirs.
    pub fn versions_in(
        &self,
        (base, ours, theirs): (Option<ObjectId>, ObjectId, ObjectId),
        paths: &[&str],
    ) -> Result<Vec<Option<Versions>>> {
        let repo = &self.git;
        let trees = [
            base.map(|b| peel_to_tree(repo, b)).transpose()?,
            Some(peel_to_tree(repo, ours)?),
            Some(peel_to_tree(repo, theirs)?),
        ];
        let blob = |tree: Option<ObjectId>, path: &str| -> Result<Option<Vec<u8>>> {
            let Some(tree) = tree else { return Ok(None) };
            match repo.find_tree(tree)?.lookup_entry_by_path(path)? {
                Some(e) if e.mode().is_blob() => {
                    Ok(Some(repo.find_blob(e.object_id())?.take_data()))
                }
                _ => Ok(None),
            }
        };
        paths
            .iter()
            .map(|path| {
                let (Some(ours), Some(theirs)) = (blob(trees[1], path)?, blob(trees[2], path)?)
                else {
                    return Ok(None);
                };
                Ok(Some(Versions {
                    base: blob(trees[0], path)?.unwrap_or_default(),
                    ours,
                    theirs,
                }))
            })
            .collect()
    }
}

/// The tree a commit or tree `id` names.
fn peel_to_tree(repo: &gix::Repository, id: ObjectId) -> Result<ObjectId> {
    let object = repo.find_object(id)?;
    Ok(object.peel_to_tree().map_err(Error::git)?.id)
}

/// The merge of `trees`: git's own merge (merge-ort) for the tree, the structured merge
/// for the assets both sides changed (see `ort.rs`). Only the objects the result reaches
/// (its tree, the blobs of its conflict stages) are written to `repo`'s object database:
/// git writes into a scratch directory, the merge into memory.
pub(super) fn merge_explicit(
    repo: &gix::Repository,
    trees: &MergeTrees<'_>,
    rules: &AssetRules,
) -> Result<TreeMerge> {
    merge_explicit_running(repo, trees, rules, super::ort::RunGit::WhenNeeded)
}

/// [`merge_explicit`], git run as `run_git` says.
pub(super) fn merge_explicit_running(
    repo: &gix::Repository,
    trees: &MergeTrees<'_>,
    rules: &AssetRules,
    run_git: super::ort::RunGit,
) -> Result<TreeMerge> {
    // The first merge base tells which assets changed (with several, git merges them
    // into a virtual base itself).
    let base = trees
        .bases
        .first()
        .map(|b| peel_to_tree(repo, *b))
        .transpose()?;
    let sides = (
        base,
        peel_to_tree(repo, trees.ours)?,
        peel_to_tree(repo, trees.theirs)?,
    );
    let mut memory_repo = super::merge_repo(repo);
    let (merge, roots) = super::ort::merge_as_ort(&mut memory_repo, trees, sides, rules, run_git)?;
    let memory = memory_repo.objects.take_object_memory().unwrap_or_default();
    super::persist(&repo.objects, &memory, &roots)?;
    Ok(merge)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_git::git;
    use crate::PathRules;
    use merge::MergeOptions;
    use proptest::prelude::*;
    use sjson::Dialect;

    fn sjson_only(path: &str) -> Option<Dialect> {
        path.ends_with(".sjson").then_some(Dialect::Sjson)
    }

    fn rules() -> AssetRules {
        AssetRules::new(
            |p: &str| {
                sjson_only(p).map(|dialect| PathRules {
                    dialect,
                    profile: None,
                })
            },
            MergeOptions::default(),
        )
    }

    /// A scratch repository (objects only are written to it).
    fn scratch() -> (tempfile::TempDir, Repo) {
        let tmp = tempfile::tempdir().unwrap();
        git(tmp.path(), &["init", "-q", "-b", "main"]);
        let repo = Repo::discover(tmp.path()).unwrap();
        (tmp, repo)
    }

    /// A tree of `files` (path, text).
    fn tree(repo: &Repo, files: &[(&str, String)]) -> ObjectId {
        let g = repo.gix();
        let mut editor = g.edit_tree(ObjectId::empty_tree(g.object_hash())).unwrap();
        for (path, text) in files {
            let blob = g.write_blob(text.as_bytes()).unwrap().detach();
            editor
                .upsert(*path, gix::objs::tree::EntryKind::Blob, blob)
                .unwrap();
        }
        editor.write().unwrap().detach()
    }

    fn text_at(repo: &Repo, tree: ObjectId, path: &str) -> String {
        let g = repo.gix();
        let entry = g
            .find_tree(tree)
            .unwrap()
            .lookup_entry_by_path(path)
            .unwrap()
            .unwrap();
        String::from_utf8(g.find_blob(entry.object_id()).unwrap().take_data()).unwrap()
    }

    fn level(x: i64, y: i64) -> String {
        format!("x = {x}\ny = {y}\n")
    }

    #[test]
    fn an_explicit_base_replays_only_what_theirs_changed_from_it() {
        // A cherry-pick: base is theirs' parent, not a common ancestor of ours.
        let (_tmp, repo) = scratch();
        let base = tree(&repo, &[("a.sjson", level(1, 1)), ("n.txt", "a\n".into())]);
        let ours = tree(&repo, &[("a.sjson", level(5, 1)), ("n.txt", "b\n".into())]);
        let theirs = tree(&repo, &[("a.sjson", level(1, 9)), ("n.txt", "a\n".into())]);
        let trees = MergeTrees {
            bases: &[base],
            ours,
            theirs,
            labels: ("HEAD", "picked"),
        };
        let m = repo.merge_trees(&trees, &rules()).unwrap();
        assert!(m.unresolved.is_empty(), "{:?}", m.unresolved);
        assert_eq!(text_at(&repo, m.tree, "a.sjson"), level(5, 9));
        assert_eq!(text_at(&repo, m.tree, "n.txt"), "b\n");
        // No base (unrelated histories): both additions of a path conflict unless equal.
        let none = MergeTrees {
            bases: &[],
            ..trees
        };
        let m = repo.merge_trees(&none, &rules()).unwrap();
        assert_eq!(
            m.files.len(),
            1,
            "the asset is merged against an empty base"
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]

        /// One side's edits against the base are taken whole when the other side is the
        /// base, and edits of different keys by both sides all land; never a panic.
        #[test]
        fn one_sided_and_disjoint_edits_land(
            (x0, y0, x1, y1) in (any::<i32>(), any::<i32>(), any::<i32>(), any::<i32>()),
            note in "[a-z]{0,8}",
        ) {
            let (_tmp, repo) = scratch();
            let (x0, y0, x1, y1) = (i64::from(x0), i64::from(y0), i64::from(x1), i64::from(y1));
            let base = tree(&repo, &[("a.sjson", level(x0, y0)), ("n.txt", "n\n".into())]);
            let ours = tree(&repo, &[("a.sjson", level(x1, y0)), ("n.txt", "n\n".into())]);
            let theirs = tree(&repo, &[("a.sjson", level(x0, y1)), ("n.txt", format!("{note}\n"))]);
            let only = |ours: ObjectId, theirs: ObjectId| {
                let trees = MergeTrees { bases: &[base], ours, theirs, labels: ("o", "t") };
                repo.merge_trees(&trees, &rules()).unwrap()
            };
            prop_assert_eq!(only(ours, base).tree, ours);
            prop_assert_eq!(only(base, theirs).tree, theirs);
            let both = only(ours, theirs);
            prop_assert!(both.unresolved.is_empty());
            prop_assert_eq!(text_at(&repo, both.tree, "a.sjson"), level(x1, y1));
            prop_assert_eq!(text_at(&repo, both.tree, "n.txt"), format!("{note}\n"));
        }
    }
}
