//! The strategy's merge of paths that are not assets, compared with git's own
//! (`git merge-tree --write-tree`, merge-ort) on a table of cases: renames, rename/delete,
//! directory renames, binary files, modes, add/add. For each case the tree git writes
//! (conflict markers included) must be the worktree tree of [`merge_explicit`], and git's
//! conflicted entries (mode, object, stage, path) the unmerged entries of its index.

use std::path::Path;
use std::process::Command;

use gix::bstr::ByteSlice;
use gix::ObjectId;
use merge::MergeOptions;
use sjson::Dialect;

use super::strategy::merge_explicit;
use super::{AssetRules, MergeTrees, PathRules};

/// Runs `script` with `sh` in `dir` with a fixed identity; panics on failure.
fn sh(dir: &Path, script: &str) {
    let out = Command::new("sh")
        .arg("-ec")
        .arg(script)
        .current_dir(dir)
        .envs(identity(dir))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{script}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn identity(dir: &Path) -> Vec<(&'static str, String)> {
    vec![
        ("GIT_AUTHOR_NAME", "T".into()),
        ("GIT_AUTHOR_EMAIL", "t@e".into()),
        ("GIT_COMMITTER_NAME", "T".into()),
        ("GIT_COMMITTER_EMAIL", "t@e".into()),
        ("GIT_CONFIG_NOSYSTEM", "1".into()),
        ("HOME", dir.display().to_string()),
    ]
}

/// git's merge: the tree it wrote and its conflicted entries `mode oid stage\tpath`, sorted.
fn git_merge_tree(dir: &Path) -> (ObjectId, Vec<String>) {
    let out = Command::new("git")
        .args([
            "merge-tree",
            "--write-tree",
            "--merge-base=base",
            "ours",
            "theirs",
        ])
        .current_dir(dir)
        .envs(identity(dir))
        .output()
        .unwrap();
    let code = out.status.code();
    assert!(matches!(code, Some(0 | 1)), "git merge-tree: {code:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines = text.lines();
    let tree = ObjectId::from_hex(lines.next().unwrap().as_bytes()).unwrap();
    let mut stages: Vec<String> = lines
        .take_while(|l| !l.is_empty())
        .map(str::to_string)
        .collect();
    stages.sort();
    (tree, stages)
}

/// The strategy's merge of the case in `dir` (refs `base`, `ours`, `theirs`), `.sjson`
/// files merged as assets when `assets`.
fn merge_case(dir: &Path, assets: bool) -> (crate::Repo, super::TreeMerge) {
    let repo = crate::Repo::discover(dir).unwrap();
    let id = |r: &str| repo.resolve_object(r).unwrap();
    let trees = MergeTrees {
        bases: &[id("base")],
        ours: id("ours"),
        theirs: id("theirs"),
        labels: ("ours", "theirs"),
    };
    let sjson = move |p: &str| {
        (assets && p.ends_with(".sjson")).then_some(PathRules {
            dialect: Dialect::Sjson,
            profile: None,
        })
    };
    let rules = AssetRules::new(sjson, MergeOptions::default());
    let m = merge_explicit(repo.gix(), &trees, &rules).unwrap();
    (repo, m)
}

/// The strategy's merge of the same three commits: its worktree tree and unmerged entries.
fn strategy_merge(dir: &Path) -> (ObjectId, Vec<String>, usize) {
    let (_, m) = merge_case(dir, false);
    let mut stages = unmerged(&m.index);
    stages.sort();
    (m.worktree_tree, stages, m.unresolved.len())
}

/// The unmerged entries of `index` as `git merge-tree` prints them: `mode oid stage\tpath`.
fn unmerged(index: &gix::index::File) -> Vec<String> {
    index
        .entries()
        .iter()
        .filter(|e| e.stage() != gix::index::entry::Stage::Unconflicted)
        .map(|e| {
            format!(
                "{:06o} {} {}\t{}",
                e.mode.bits(),
                e.id,
                e.stage() as u32,
                e.path(index).to_str_lossy()
            )
        })
        .collect()
}

/// A repository with branches `base`, `ours` and `theirs`: `base` made by `setup`, the
/// others by their scripts from it.
fn case(setup: &str, ours: &str, theirs: &str) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    sh(dir, "git init -q -b base");
    sh(dir, &format!("{setup}\ngit add -A\ngit commit -q -m base"));
    for (branch, script) in [("ours", ours), ("theirs", theirs)] {
        sh(
            dir,
            &format!(
                "git checkout -q -b {branch} base\n{script}\ngit add -A\n\
                 git commit -q --allow-empty -m {branch}"
            ),
        );
    }
    tmp
}

/// Lines of text numbered `from..to`, enough for rename detection to pair edited copies.
const BODY: &str = "for i in $(seq 1 40); do echo \"line $i of the file\"; done";

/// The table: name, base, ours, theirs (shell scripts in the repository).
const CASES: &[(&str, &str, &str, &str)] = &[
    (
        "rename and edit",
        "BODY > a.txt",
        "git mv a.txt b.txt",
        "sed -i 's/line 3 /line three /' a.txt",
    ),
    (
        "rename/rename to different paths",
        "BODY > a.txt",
        "git mv a.txt b.txt",
        "git mv a.txt c.txt",
    ),
    (
        "rename/delete",
        "BODY > a.txt",
        "git mv a.txt b.txt",
        "git rm -q a.txt",
    ),
    (
        "modify/delete",
        "BODY > a.txt",
        "echo more >> a.txt",
        "git rm -q a.txt",
    ),
    (
        "directory renamed, file added to it by the other side",
        "mkdir x; BODY > x/a; BODY | sed s/line/row/ > x/b; BODY | sed s/line/entry/ > x/c",
        "git mv x z",
        "echo new > x/d",
    ),
    (
        "binary files both changed",
        "printf 'a\\000b' > bin.dat",
        "printf 'a\\000c' > bin.dat",
        "printf 'a\\000d' > bin.dat",
    ),
    (
        "binary file changed by one side",
        "printf 'a\\000b' > bin.dat; echo t > t.txt",
        "printf 'a\\000c' > bin.dat",
        "echo u > t.txt",
    ),
    (
        "mode change and content change",
        "BODY > run.sh",
        "chmod +x run.sh",
        "sed -i 's/line 3 /line three /' run.sh",
    ),
    (
        "mode changed differently from content on both sides",
        "BODY > run.sh",
        "chmod +x run.sh; echo a >> run.sh",
        "echo a >> run.sh",
    ),
    (
        "add/add, different contents",
        "echo base > keep.txt",
        "echo one > new.txt",
        "echo two > new.txt",
    ),
    (
        "add/add, same contents",
        "echo base > keep.txt",
        "echo same > new.txt",
        "echo same > new.txt",
    ),
    (
        "text conflict",
        "BODY > a.txt",
        "sed -i 's/line 3 /line ours /' a.txt",
        "sed -i 's/line 3 /line theirs /' a.txt",
    ),
    (
        "file/directory",
        "echo base > keep.txt",
        "echo file > p",
        "mkdir p; echo inner > p/q",
    ),
];

fn compare(name: &str, setup: &str, ours: &str, theirs: &str) {
    let body = |s: &str| s.replace("BODY", &format!("{{ {BODY}; }}"));
    let tmp = case(&body(setup), &body(ours), &body(theirs));
    let (git_tree, git_stages) = git_merge_tree(tmp.path());
    let (tree, stages, unresolved) = strategy_merge(tmp.path());
    assert_eq!(stages, git_stages, "{name}: conflict stages");
    assert_eq!(
        unresolved == 0,
        git_stages.is_empty(),
        "{name}: clean or not"
    );
    assert_eq!(tree, git_tree, "{name}: merged tree");
}

#[test]
fn non_asset_paths_merge_as_git_merge_tree_does() {
    let mut failed = Vec::new();
    for (name, setup, ours, theirs) in CASES {
        let run = std::panic::catch_unwind(|| compare(name, setup, ours, theirs));
        if let Err(e) = run {
            let why = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            failed.push(format!("{name}: {why}"));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));
}

/// The text of `path` in `tree`.
fn text_at(repo: &crate::Repo, tree: ObjectId, path: &str) -> Option<String> {
    let g = repo.gix();
    let entry = g
        .find_tree(tree)
        .unwrap()
        .lookup_entry_by_path(path)
        .unwrap()?;
    Some(String::from_utf8(g.find_blob(entry.object_id()).unwrap().take_data()).unwrap())
}

#[test]
fn assets_follow_git_renames_and_merge_by_structure_without_the_driver() {
    // Adjacent lines edited by both sides: a line merge conflicts, the structured merge
    // does not. Ours renames the file (and moves its directory); theirs edits it.
    let level = "x = 1\ny = 1\nname = \"a long enough level to be paired by rename detection\"\n";
    let tmp = case(
        &format!(
            "mkdir lv; printf '{level}' > lv/a.sjson; echo t > lv/t.txt\n\
             echo '*.sjson merge=assetvc' > .gitattributes"
        ),
        "git mv lv maps; sed -i 's/x = 1/x = 2/' maps/a.sjson",
        "sed -i 's/y = 1/y = 3/' lv/a.sjson; echo new > lv/b.txt",
    );
    let dir = tmp.path();
    // The attributes name a driver that would fail the merge if git ran it.
    sh(dir, "git config merge.assetvc.driver false");
    let (repo, m) = merge_case(dir, true);
    // Theirs' new file in the renamed directory: merge-ort's "file location" conflict
    // (merge.directoryRenames defaults to `conflict`), the file at the new place.
    let left: Vec<&str> = m.unresolved.iter().map(|u| u.path.as_str()).collect();
    assert_eq!(left, ["maps/b.txt"]);
    assert_eq!(m.files.len(), 1);
    assert_eq!(m.files[0].path, "maps/a.sjson");
    let merged = text_at(&repo, m.tree, "maps/a.sjson").unwrap();
    assert!(merged.starts_with("x = 2\ny = 3\n"), "{merged}");
    assert_eq!(text_at(&repo, m.tree, "lv/a.sjson"), None);
    assert_eq!(
        text_at(&repo, m.tree, "maps/b.txt").as_deref(),
        Some("new\n")
    );
}

#[test]
fn a_deeper_attributes_file_naming_the_driver_does_not_make_git_run_it() {
    // The `merge=binary` lines go to the deepest `.gitattributes` above each asset, so a
    // directory's own file (which would win over the root's) cannot send git to a driver.
    let level = "x = 1\ny = 1\n";
    let tmp = case(
        &format!(
            "mkdir -p lv/deep; printf '{level}' > lv/deep/a.sjson; printf '{level}' > b.sjson\n\
             echo '*.sjson merge=assetvc' > lv/.gitattributes"
        ),
        "sed -i 's/x = 1/x = 2/' lv/deep/a.sjson b.sjson",
        "sed -i 's/y = 1/y = 3/' lv/deep/a.sjson b.sjson",
    );
    let dir = tmp.path();
    sh(dir, "git config merge.assetvc.driver false");
    let (repo, m) = merge_case(dir, true);
    assert!(m.unresolved.is_empty(), "{:?}", m.unresolved);
    let paths: Vec<&str> = m.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["b.sjson", "lv/deep/a.sjson"]);
    for path in paths {
        assert_eq!(
            text_at(&repo, m.tree, path).as_deref(),
            Some("x = 2\ny = 3\n")
        );
    }
    // The attributes committed are ours', untouched.
    assert_eq!(
        text_at(&repo, m.tree, "lv/.gitattributes").as_deref(),
        Some("*.sjson merge=assetvc\n")
    );
    assert_eq!(text_at(&repo, m.tree, ".gitattributes"), None);
}

/// A tree of `files` (path, executable, text) written with gix.
fn write_tree(
    repo: &crate::Repo,
    files: &std::collections::BTreeMap<String, (bool, String)>,
) -> ObjectId {
    let g = repo.gix();
    let mut editor = g.edit_tree(ObjectId::empty_tree(g.object_hash())).unwrap();
    for (path, (exec, text)) in files {
        let blob = g.write_blob(text.as_bytes()).unwrap().detach();
        let kind = if *exec {
            gix::objs::tree::EntryKind::BlobExecutable
        } else {
            gix::objs::tree::EntryKind::Blob
        };
        editor.upsert(path.as_str(), kind, blob).unwrap();
    }
    editor.write().unwrap().detach()
}

/// What a merge leaves, for comparing two ways of reaching it: the trees, the unmerged
/// entries, each unresolved path with why, each merged asset with its conflicts.
fn outcome(m: &super::TreeMerge) -> (ObjectId, ObjectId, Vec<String>, Vec<String>, Vec<String>) {
    let stages = unmerged(&m.index);
    let unresolved = m
        .unresolved
        .iter()
        .map(|u| format!("{}: {}", u.path, u.kind))
        .collect();
    let files = m
        .files
        .iter()
        .map(|f| format!("{} {:?} {}", f.path, f.conflicts, f.failed))
        .collect();
    (m.tree, m.worktree_tree, stages, unresolved, files)
}

/// Paths a side may hold: assets and text files, a folder that is also a file elsewhere.
const PATHS: &[&str] = &[
    "a.sjson",
    "b.txt",
    "d/c.sjson",
    "d/e.txt",
    "n",
    "n/m.sjson",
    "z.sjson",
];
/// Contents: levels whose edits merge by structure or conflict, text, one unparsable.
const TEXTS: &[&str] = &[
    "x = 1\ny = 1\n",
    "x = 2\ny = 1\n",
    "x = 1\ny = 3\n",
    "x = 4\ny = 4\n",
    "t\n",
    "u\n",
    "x = {\n",
];

/// One side's tree from base's: each path kept, rewritten, made executable, deleted or
/// added (`op` per path: 0-5 keep, 6-7 rewrite, 8 chmod, 9 delete/add); a file standing
/// where a folder is needed is dropped.
fn side(
    base: &std::collections::BTreeMap<String, (bool, String)>,
    ops: &[(u8, usize)],
) -> std::collections::BTreeMap<String, (bool, String)> {
    let mut out = base.clone();
    for (path, &(op, text)) in PATHS.iter().zip(ops) {
        let text = TEXTS[text % TEXTS.len()].to_string();
        match (op, out.contains_key(*path)) {
            (6 | 7, true) => {
                out.get_mut(*path).unwrap().1 = text;
            }
            (8, true) => {
                let e = out.get_mut(*path).unwrap();
                e.0 = !e.0;
            }
            (9, true) => {
                out.remove(*path);
            }
            (9, false) => {
                out.insert(path.to_string(), (false, text));
            }
            _ => {}
        }
    }
    valid(out)
}

/// `files` without the files that stand where another path needs a folder.
fn valid(
    mut files: std::collections::BTreeMap<String, (bool, String)>,
) -> std::collections::BTreeMap<String, (bool, String)> {
    let folders: Vec<String> = files
        .keys()
        .flat_map(|p| {
            let parts: Vec<&str> = p.split('/').collect();
            (1..parts.len()).map(move |n| parts[..n].join("/"))
        })
        .collect();
    for f in folders {
        files.remove(&f);
    }
    files
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]

    /// Told without git or merged by git, a merge ends the same: trees, conflict stages,
    /// unresolved paths and why, merged assets and their conflicts.
    #[test]
    fn a_merge_told_without_git_is_git_s(
        base_ops in proptest::collection::vec((0u8..10, 0usize..7), PATHS.len()),
        ours_ops in proptest::collection::vec((0u8..10, 0usize..7), PATHS.len()),
        theirs_ops in proptest::collection::vec((0u8..10, 0usize..7), PATHS.len()),
        no_deletions in proptest::bool::ANY,
    ) {
        let tmp = tempfile::tempdir().unwrap();
        sh(tmp.path(), "git init -q -b main");
        let repo = crate::Repo::discover(tmp.path()).unwrap();
        // Base: the paths whose op is odd.
        let base = valid(
            PATHS.iter().zip(&base_ops)
                .filter(|(_, (op, _))| op % 2 == 1)
                .map(|(p, (_, t))| (p.to_string(), (false, TEXTS[*t].to_string())))
                .collect(),
        );
        // Half the cases without deletions: the merges told without git.
        let keep = |ops: &[(u8, usize)]| -> Vec<(u8, usize)> {
            ops.iter().zip(PATHS).map(|(&(op, t), p)| {
                if no_deletions && op == 9 && base.contains_key(*p) { (0, t) } else { (op, t) }
            }).collect()
        };
        let (ours, theirs) = (side(&base, &keep(&ours_ops)), side(&base, &keep(&theirs_ops)));
        let trees = MergeTrees {
            bases: &[write_tree(&repo, &base)],
            ours: write_tree(&repo, &ours),
            theirs: write_tree(&repo, &theirs),
            labels: ("ours", "theirs"),
        };
        let sjson = |p: &str| p.ends_with(".sjson").then_some(PathRules { dialect: Dialect::Sjson, profile: None });
        let rules = AssetRules::new(sjson, MergeOptions::default());
        let direct = super::strategy::merge_explicit(repo.gix(), &trees, &rules).unwrap();
        let git = super::strategy::merge_explicit_running(repo.gix(), &trees, &rules, super::ort::RunGit::Always).unwrap();
        proptest::prop_assert_eq!(outcome(&direct), outcome(&git));
    }
}
