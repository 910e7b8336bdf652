//! The strategy's tree merge through git's own (`git merge-tree --write-tree`, merge-ort),
//! so that every path that is not an asset — renames, rename/delete, directory renames,
//! binary files, modes, submodules — ends exactly as `git merge` leaves it.
//!
//! The assets both sides changed must not be line merged nor given to the `merge.assetvc`
//! driver (one process per file): git is run with `--attr-source` pointing at ours' tree
//! in which each directory's `.gitattributes` ends with `merge=binary` for the asset paths
//! either side changed. git's binary merge runs in process and leaves such a path
//! conflicted with its three stages — the versions after rename detection — which the
//! structured merge then replaces. Attributes of every other path are ours' own.
//!
//! Nothing of this reaches the repository's objects but what the result keeps: the
//! attribute tree and everything git writes (its merged tree and subtrees, its content
//! merges, a virtual merge base) go to the merge's scratch directory (`scratch.rs`), read
//! from there into the merge's memory; the caller copies into the repository the objects
//! the result's tree and conflict stages reach.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::process::Command;

use gix::bstr::{BStr, BString, ByteSlice};
use gix::ObjectId;

use super::asset::{merge_asset, AssetMerge};
use super::scratch::Scratch;
use super::UnresolvedKind;
use super::{edit_tree, AssetRules, MergeTrees, MergedFile, TreeMerge, Unresolved};
use crate::error::{Error, Result};
use crate::worktree;

/// One conflicted path as `git merge-tree` reports it: its stages (base, ours, theirs).
pub(super) type GitStages = BTreeMap<BString, worktree::Stages>;

/// What `git merge-tree --write-tree -z` printed (or `direct.rs` found git would).
pub(super) struct GitMerge {
    pub(super) tree: ObjectId,
    pub(super) stages: GitStages,
    /// `(paths, conflict type, message)` of each informational message.
    pub(super) messages: Vec<(Vec<BString>, String, String)>,
}

/// Whether a tree merge git's rule can be told without (`direct.rs`) runs git anyway.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum RunGit {
    /// Only when the merge needs it.
    WhenNeeded,
    /// Always (to compare the two in tests).
    #[cfg_attr(not(test), allow(dead_code))]
    Always,
}

/// Merges `trees` with git's merge-ort for the tree and the structured merge for the
/// assets both sides changed. `repo` is a merge repository ([`super::merge_repo`]): every
/// object is written to its memory, and git's into a scratch directory, read into that
/// memory after; with the roots of what the result refers to (for [`super::persist`]).
/// With one merge base and no deletion on either side, merge-ort's answer is told without
/// running git (`direct.rs`) unless `run_git` says always.
pub(super) fn merge_as_ort(
    repo: &mut gix::Repository,
    trees: &MergeTrees<'_>,
    (base, ours, theirs): (Option<ObjectId>, ObjectId, ObjectId),
    rules: &AssetRules,
    run_git: RunGit,
) -> Result<(TreeMerge, Vec<ObjectId>)> {
    let direct = match (trees.bases, base, run_git) {
        ([_], Some(base), RunGit::WhenNeeded) => {
            super::direct::merge(repo, (base, ours, theirs), rules)?
        }
        _ => None,
    };
    let git = match direct {
        Some(git) => git,
        None => {
            let scratch = Scratch::new(repo)?;
            // `info/attributes` outranks the attribute tree: its lines move into the tree
            // and merge-tree runs without it (`isolate`).
            let local = super::isolate::local_attributes(repo)?;
            let attributes = attribute_tree(repo, (base, ours, theirs), rules, local.as_deref())?;
            // The attribute tree goes to the scratch's objects only, where git reads it.
            let written = repo.objects.take_object_memory().unwrap_or_default();
            repo.objects.set_object_memory(Default::default());
            super::persist(&scratch.store(repo.object_hash()), &written, &[attributes])?;
            let git = run_merge_tree(repo, &scratch, trees, attributes, local.is_some())?;
            crate::failpoint::hit("merge-tree-ran");
            scratch.load_into(repo)?;
            git
        }
    };
    let merge = finish(repo, git, rules)?;
    // Keep what the tree and the conflict stages refer to (a stage may hold a blob of a
    // virtual merge base, which git wrote only into the scratch directory).
    let mut roots = vec![merge.tree];
    roots.extend(
        merge
            .index
            .entries()
            .iter()
            .filter(|e| e.stage() != gix::index::entry::Stage::Unconflicted)
            .map(|e| e.id),
    );
    Ok((merge, roots))
}

/// Ours' tree with `merge=binary` for the asset paths git may merge by content, appended
/// to the deepest `.gitattributes` of ours above each (the root's when there is none
/// deeper), whose lines win over every shallower file's: only small trees are rewritten,
/// never a directory of thousands of assets. `local` (the lines of `info/attributes`) goes
/// first in the root's.
fn attribute_tree(
    repo: &gix::Repository,
    (base, ours, theirs): (Option<ObjectId>, ObjectId, ObjectId),
    rules: &AssetRules,
    local: Option<&[u8]>,
) -> Result<ObjectId> {
    let base = base.unwrap_or_else(|| ObjectId::empty_tree(repo.object_hash()));
    let ours_tree = repo.find_tree(ours)?;
    // Each directory's `.gitattributes` in ours (its text), looked up once.
    let mut files: HashMap<BString, Option<Vec<u8>>> = HashMap::new();
    let mut by_file: BTreeMap<BString, Vec<u8>> = BTreeMap::new();
    for path in content_merge_candidates(repo, (base, ours, theirs))? {
        if path
            .to_str()
            .ok()
            .and_then(|p| rules.dialect_of(p))
            .is_none()
        {
            continue;
        }
        let mut home = split(path.as_bstr()).0;
        while !home.is_empty() && attributes_in(repo, &ours_tree, &mut files, home)?.is_none() {
            home = split(home).0;
        }
        let rela = if home.is_empty() {
            path.as_bstr()
        } else {
            path[home.len() + 1..].as_bstr()
        };
        if let Some(line) = binary_line(rela) {
            by_file.entry(home.to_owned()).or_default().extend(line);
        }
    }
    if local.is_some() {
        by_file.entry(BString::default()).or_default();
    }
    if by_file.is_empty() {
        return Ok(ours);
    }
    let mut edits = Vec::new();
    for (dir, lines) in by_file {
        let mut text = match local.filter(|_| dir.is_empty()) {
            Some(local) => local.to_vec(),
            None => Vec::new(),
        };
        if !text.is_empty() && !text.ends_with(b"\n") {
            text.push(b'\n');
        }
        if let Some(own) = attributes_in(repo, &ours_tree, &mut files, dir.as_bstr())? {
            text.extend_from_slice(own);
        }
        if !text.is_empty() && !text.ends_with(b"\n") {
            text.push(b'\n');
        }
        text.extend(lines);
        let blob = repo.write_blob(&text)?.detach();
        edits.push((
            attributes_path(dir.as_bstr()),
            gix::objs::tree::EntryKind::Blob,
            blob,
        ));
    }
    edit_tree(repo, ours, &edits)
}

/// `dir/.gitattributes` (`.gitattributes` at the root).
fn attributes_path(dir: &BStr) -> BString {
    if dir.is_empty() {
        ".gitattributes".into()
    } else {
        format!("{dir}/.gitattributes").into()
    }
}

/// The text of `dir/.gitattributes` in `tree` (`None` when it has none), looked up once
/// into `cache`.
fn attributes_in<'c>(
    repo: &gix::Repository,
    tree: &gix::Tree<'_>,
    cache: &'c mut HashMap<BString, Option<Vec<u8>>>,
    dir: &BStr,
) -> Result<Option<&'c [u8]>> {
    if !cache.contains_key(dir) {
        let path = attributes_path(dir);
        let text = match tree.lookup_entry_by_path(crate::repo::to_path(path.as_bstr()))? {
            Some(e) if e.mode().is_blob() => Some(repo.find_blob(e.object_id())?.take_data()),
            _ => None,
        };
        cache.insert(dir.to_owned(), text);
    }
    Ok(cache.get(dir).and_then(|text| text.as_deref()))
}

/// The paths at which git may merge contents: those both sides changed from the base,
/// and every path either side added (where a rename, or a directory rename, may bring a
/// file the other side changed). A path only one side modified in place is taken whole,
/// never merged, so its attributes do not matter: leaving it out keeps the attribute
/// files short (git matches each merged path against every line).
fn content_merge_candidates(
    repo: &gix::Repository,
    (base, ours, theirs): (ObjectId, ObjectId, ObjectId),
) -> Result<BTreeSet<BString>> {
    let ours = changed_paths(repo, base, ours)?;
    let theirs = changed_paths(repo, base, theirs)?;
    let in_theirs: HashSet<&BStr> = theirs.iter().map(|(p, _)| p.as_bstr()).collect();
    let mut out = BTreeSet::new();
    for (path, added) in &ours {
        if *added || in_theirs.contains(path.as_bstr()) {
            out.insert(path.clone());
        }
    }
    out.extend(
        theirs
            .into_iter()
            .filter(|(_, added)| *added)
            .map(|(p, _)| p),
    );
    Ok(out)
}

/// The paths whose entries differ between trees `a` and `b`, each with whether `b` added
/// it (no rename detection: a rename is a deletion and an addition).
fn changed_paths(repo: &gix::Repository, a: ObjectId, b: ObjectId) -> Result<Vec<(BString, bool)>> {
    if a == b {
        return Ok(Vec::new());
    }
    let (a, b) = (repo.find_tree(a)?, repo.find_tree(b)?);
    let options = gix::diff::Options::default().with_rewrites(None);
    let changes = repo
        .diff_tree_to_tree(&a, &b, options)
        .map_err(Error::git)?;
    Ok(changes
        .into_iter()
        .filter(|c| !c.entry_mode().is_tree())
        .map(|c| {
            let added = matches!(c, gix::object::tree::diff::ChangeDetached::Addition { .. });
            (c.location().to_owned(), added)
        })
        .collect())
}

/// The attribute line making `rela` (an asset, relative to the directory of the
/// attributes file) merge as binary; `None` when a pattern cannot spell its path plainly
/// (git then merges it as ours' attributes say).
fn binary_line(rela: &BStr) -> Option<Vec<u8>> {
    let plain = rela
        .iter()
        .all(|&b| b.is_ascii_graphic() && !b"\\\"*?[]!#".contains(&b));
    plain.then(|| format!("/{} merge=binary\n", rela.to_str_lossy()).into_bytes())
}

/// `path`'s directory (empty at the root) and name.
fn split(path: &BStr) -> (&BStr, &BStr) {
    match path.rfind_byte(b'/') {
        Some(i) => (path[..i].as_bstr(), path[i + 1..].as_bstr()),
        None => (b"".as_bstr(), path),
    }
}

/// Runs `git merge-tree --write-tree -z` on `trees` with attributes from `attributes`
/// (only: without `info/attributes` when `isolated`), its objects written to `scratch`.
fn run_merge_tree(
    repo: &gix::Repository,
    scratch: &Scratch,
    trees: &MergeTrees<'_>,
    attributes: ObjectId,
    isolated: bool,
) -> Result<GitMerge> {
    let private = isolated
        .then(|| super::isolate::Private::new(repo, scratch.path(), trees.ours))
        .transpose()?;
    let mut cmd = Command::new("git");
    scratch.apply(&mut cmd)?;
    match &private {
        Some(private) => private.apply(&mut cmd),
        None => {
            cmd.arg("--git-dir").arg(repo.git_dir());
        }
    }
    cmd.arg(format!("--attr-source={attributes}")).args([
        "merge-tree",
        "--write-tree",
        "-z",
        "--messages",
    ]);
    match trees.bases {
        [one] => {
            cmd.arg(format!("--merge-base={one}"));
        }
        [] => {
            // Unrelated histories: the empty tree is the base (ours and theirs may be trees).
            let empty = ObjectId::empty_tree(repo.object_hash());
            cmd.arg(format!("--merge-base={empty}"));
        }
        _ => {} // git computes the merge bases (and their virtual merge) itself
    }
    let mut labels = [
        label(repo, trees.labels.0, trees.ours),
        label(repo, trees.labels.1, trees.theirs),
    ];
    if let Some(private) = &private {
        let [a, b] = labels;
        labels = [private.label(a, trees.ours), private.label(b, trees.theirs)];
    }
    cmd.args(labels);
    for var in ["GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_PREFIX"] {
        cmd.env_remove(var);
    }
    let out = cmd
        .output()
        .map_err(|e| Error::git_in("git merge-tree", e))?;
    if !matches!(out.status.code(), Some(0 | 1)) {
        return Err(Error::git_in(
            "git merge-tree",
            String::from_utf8_lossy(&out.stderr).trim().to_string(),
        ));
    }
    parse_merge_tree(&out.stdout)
        .ok_or_else(|| Error::git_in("git merge-tree", "output not understood"))
}

/// What git names a side by in conflict markers: its label when that resolves to the
/// side's commit (`HEAD`, a branch), else the commit id.
fn label(repo: &gix::Repository, label: &str, id: ObjectId) -> String {
    let resolves = !label.starts_with('-')
        && repo
            .rev_parse_single(label.as_bytes().as_bstr())
            .is_ok_and(|found| found.detach() == id);
    if resolves {
        label.to_string()
    } else {
        id.to_string()
    }
}

/// Parses `TREE NUL (MODE OID STAGE TAB PATH NUL)* NUL (N NUL PATH NUL... TYPE NUL MSG NUL)*`.
fn parse_merge_tree(out: &[u8]) -> Option<GitMerge> {
    let mut fields = out.split(|&b| b == 0);
    let tree = ObjectId::from_hex(fields.next()?).ok()?;
    let mut stages = GitStages::new();
    for field in fields.by_ref() {
        if field.is_empty() {
            break;
        }
        let (info, path) = field.split_once_str(b"\t")?;
        let mut parts = info.split_str(b" ");
        let mode = u32::from_str_radix(parts.next()?.to_str().ok()?, 8).ok()?;
        let id = ObjectId::from_hex(parts.next()?).ok()?;
        let stage: usize = parts.next()?.to_str().ok()?.parse().ok()?;
        let slot = stages.entry(path.into()).or_default();
        *slot.get_mut(stage.checked_sub(1)?)? =
            Some((id, gix::index::entry::Mode::from_bits_truncate(mode)));
    }
    let mut messages = Vec::new();
    while let Some(count) = fields.next().filter(|f| !f.is_empty()) {
        let n: usize = count.to_str().ok()?.parse().ok()?;
        let paths = (0..n)
            .map(|_| fields.next().map(BString::from))
            .collect::<Option<Vec<_>>>()?;
        let kind = fields.next()?.to_str_lossy().into_owned();
        let message = fields.next()?.to_str_lossy().into_owned();
        messages.push((paths, kind, message));
    }
    Some(GitMerge {
        tree,
        stages,
        messages,
    })
}

/// Replaces the assets git left with three stages by their structured merges and builds
/// the trees and the index of the result.
fn finish(repo: &gix::Repository, git: GitMerge, rules: &AssetRules) -> Result<TreeMerge> {
    let mut files = Vec::new();
    let mut unresolved = Vec::new();
    let mut commit_edits = Vec::new();
    let mut left = GitStages::new();
    for (path, stages) in git.stages {
        let path_rules = path.to_str().ok().and_then(|p| rules.of_path(p));
        let merged = match (&stages, path_rules) {
            ([base, Some(ours), Some(theirs)], Some(path_rules)) => Some(merge_asset(
                repo,
                (base.map(|b| b.0), None),
                ours.0,
                theirs.0,
                path_rules.dialect,
                &rules.options_for(path_rules),
            )?),
            _ => None,
        };
        let path_str = path.to_str_lossy().into_owned();
        match merged {
            Some(AssetMerge::Merged {
                blob,
                conflicts,
                places,
                referrers,
                violations,
                failed,
            }) => {
                let kind = mode_kind(stages[1].map(|s| s.1));
                commit_edits.push((path.clone(), kind, blob));
                if failed {
                    left.insert(path.clone(), stages);
                    unresolved.push(Unresolved {
                        path: path_str.clone(),
                        kind: super::asset::failure_kind(&violations),
                    });
                }
                files.push(MergedFile {
                    path: path_str,
                    conflicts,
                    places,
                    referrers,
                    violations,
                    failed,
                });
            }
            Some(AssetMerge::Failed(kind)) => {
                left.insert(path, stages);
                unresolved.push(Unresolved {
                    path: path_str,
                    kind,
                });
            }
            None => {
                let kind = git_kind(&git.messages, path.as_bstr());
                left.insert(path, stages);
                unresolved.push(Unresolved {
                    path: path_str,
                    kind,
                });
            }
        }
    }
    // git's tree holds ours at an asset it merged as binary: the structured result goes
    // into the commit and the worktree alike.
    let tree = edit_tree(repo, git.tree, &commit_edits)?;
    let worktree_index = repo.index_from_tree(&tree)?;
    let mut index = worktree_index.clone();
    worktree::set_all_conflict_stages(
        &mut index,
        left.iter().map(|(path, stages)| (path.as_bstr(), *stages)),
    );
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(TreeMerge {
        tree,
        worktree_tree: tree,
        worktree_index,
        index,
        files,
        unresolved,
    })
}

fn mode_kind(mode: Option<gix::index::entry::Mode>) -> gix::objs::tree::EntryKind {
    match mode {
        Some(m) if m == gix::index::entry::Mode::FILE_EXECUTABLE => {
            gix::objs::tree::EntryKind::BlobExecutable
        }
        _ => gix::objs::tree::EntryKind::Blob,
    }
}

/// Why git left `path` conflicted, from its messages.
fn git_kind(messages: &[(Vec<BString>, String, String)], path: &BStr) -> UnresolvedKind {
    let found = messages
        .iter()
        .rfind(|(paths, kind, _)| kind.starts_with("CONFLICT") && paths.iter().any(|p| p == path));
    match found {
        Some((_, kind, _)) if kind == "CONFLICT (contents)" => UnresolvedKind::Text,
        Some((_, kind, _)) if kind == "CONFLICT (binary)" => UnresolvedKind::Binary,
        Some((_, _, message)) => UnresolvedKind::Tree(message.trim().to_string()),
        None => UnresolvedKind::Tree("conflict".into()),
    }
}
