//! Tests of tree merges in scratch repositories.

use super::asset::{merge_asset, AssetMerge};
use super::*;
use crate::test_git::git;
use std::path::Path;

fn commit(dir: &Path, branch: &str, from: &str, name: &str, text: &str) {
    if !from.is_empty() {
        git(dir, &["checkout", "-q", "-B", branch, from]);
    }
    std::fs::write(dir.join(name), text).unwrap();
    git(dir, &["add", name]);
    git(dir, &["commit", "-q", "-m", branch]);
}

fn sjson_only(path: &str) -> Option<Dialect> {
    path.ends_with(".sjson").then_some(Dialect::Sjson)
}

#[test]
fn assets_merge_by_structure_and_report_conflicts() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    git(dir, &["init", "-q", "-b", "main"]);
    // A line merge would conflict here (adjacent lines); the structured merge does not.
    commit(dir, "main", "", "a.sjson", "x = 1\ny = 1\nz = 1\n");
    commit(dir, "ours", "main", "a.sjson", "x = 2\ny = 5\nz = 1\n");
    commit(dir, "theirs", "main", "a.sjson", "x = 1\ny = 7\nz = 3\n");
    // A broken side in another asset.
    commit(dir, "ours", "ours", "b.sjson", "k = 1\n");
    let repo = crate::Repo::discover(dir).unwrap();
    let ours = repo.resolve_commit("ours").unwrap();
    let theirs = repo.resolve_commit("theirs").unwrap();
    let rules = AssetRules::new(
        |p: &str| {
            sjson_only(p).map(|dialect| PathRules {
                dialect,
                profile: None,
            })
        },
        MergeOptions::default(),
    );
    let m = merge_commits(repo.gix(), ours, theirs, ("ours", "theirs"), &rules).unwrap();
    assert!(m.unresolved.is_empty(), "{:?}", m.unresolved);
    assert_eq!(m.files.len(), 1);
    assert_eq!(m.files[0].path, "a.sjson");
    assert_eq!(m.files[0].conflicts.len(), 1);
    assert_eq!(m.files[0].conflicts[0].path.to_string(), "/y");
    let tree = repo.gix().find_tree(m.tree).unwrap();
    let entry = tree.lookup_entry_by_path("a.sjson").unwrap().unwrap();
    let blob = repo.gix().find_blob(entry.object_id()).unwrap();
    assert_eq!(blob.data.as_slice(), b"x = 2\ny = 7\nz = 3\n");
    assert_eq!(m.tree, m.worktree_tree);
    assert!(worktree::unmerged_paths(&m.index).is_empty());
}

#[test]
fn an_unparsable_side_is_left_with_stages() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    git(dir, &["init", "-q", "-b", "main"]);
    commit(dir, "main", "", "a.sjson", "x = 1\n");
    commit(dir, "ours", "main", "a.sjson", "x = 2\n");
    commit(dir, "theirs", "main", "a.sjson", "x = {\n");
    let repo = crate::Repo::discover(dir).unwrap();
    let ours = repo.resolve_commit("ours").unwrap();
    let theirs = repo.resolve_commit("theirs").unwrap();
    let rules = AssetRules::new(
        |p: &str| {
            sjson_only(p).map(|dialect| PathRules {
                dialect,
                profile: None,
            })
        },
        MergeOptions::default(),
    );
    let m = merge_commits(repo.gix(), ours, theirs, ("ours", "theirs"), &rules).unwrap();
    assert_eq!(m.unresolved.len(), 1);
    assert!(matches!(
        m.unresolved[0].kind,
        UnresolvedKind::Unparsable {
            side: merge::Version::Theirs,
            ..
        }
    ));
    assert_eq!(
        worktree::unmerged_paths(&m.index),
        vec!["a.sjson".to_string()]
    );
    let tree = repo.gix().find_tree(m.worktree_tree).unwrap();
    let entry = tree.lookup_entry_by_path("a.sjson").unwrap().unwrap();
    assert_eq!(
        repo.gix()
            .find_blob(entry.object_id())
            .unwrap()
            .data
            .as_slice(),
        b"x = 2\n"
    );
}

#[test]
fn an_unparsable_virtual_base_falls_back_to_a_real_one() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    git(dir, &["init", "-q", "-b", "main"]);
    let handle = crate::Repo::discover(dir).unwrap();
    let repo = handle.gix();
    let blob = |t: &str| repo.write_blob(t.as_bytes()).unwrap().detach();
    let (virtual_base, real_base) = (blob("<<<<<<< a\nx = 1\n"), blob("x = 1\ny = 1\n"));
    let (ours, theirs) = (blob("x = 2\ny = 1\n"), blob("x = 1\ny = 2\n"));
    let options = MergeOptions::default();
    let merged = merge_asset(
        repo,
        (Some(virtual_base), Some(real_base)),
        ours,
        theirs,
        Dialect::Sjson,
        &options,
    )
    .unwrap();
    let AssetMerge::Merged {
        blob, conflicts, ..
    } = merged
    else {
        panic!("not merged");
    };
    assert!(conflicts.is_empty());
    assert_eq!(
        repo.find_blob(blob).unwrap().data.as_slice(),
        b"x = 2\ny = 2\n"
    );
    let failed = merge_asset(
        repo,
        (Some(virtual_base), None),
        ours,
        theirs,
        Dialect::Sjson,
        &options,
    )
    .unwrap();
    assert!(matches!(
        failed,
        AssetMerge::Failed(UnresolvedKind::Unparsable {
            side: merge::Version::Base,
            ..
        })
    ));
}
