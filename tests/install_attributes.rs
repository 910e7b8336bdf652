//! End to end, `.gitattributes` as teammates and Git LFS see it (issue #34): `doctor`
//! warns while it is not committed; `install` never takes the files LFS tracks from LFS's
//! merge (its lines go before LFS's) and says what LFS tracking means; `check` outside a
//! repository refuses to walk the current folder.

use crate::common;

use std::path::Path;

use common::{assetvc_expect, git_home, write};

fn check_attr(dir: &Path, attr: &str, path: &str) -> String {
    let out = git_home(dir, dir, &["check-attr", attr, "--", path]);
    out.rsplit(": ")
        .next()
        .unwrap_or_default()
        .trim()
        .to_string()
}

#[test]
fn doctor_warns_while_gitattributes_is_not_committed() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    git_home(dir, dir, &["init", "-q", "-b", "main"]);
    assetvc_expect(dir, dir, &["install"], 0);
    let (report, _) = assetvc_expect(dir, dir, &["doctor"], 0);
    assert!(
        report.contains("WARNING") && report.contains(".gitattributes is not committed"),
        "{report}"
    );
    let (json, _) = assetvc_expect(dir, dir, &["doctor", "--json"], 0);
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(json["warnings"].as_array().map(Vec::len), Some(1), "{json}");
    git_home(dir, dir, &["add", ".gitattributes"]);
    git_home(dir, dir, &["commit", "-qm", "attributes"]);
    let (report, _) = assetvc_expect(dir, dir, &["doctor"], 0);
    assert!(!report.contains("WARNING"), "{report}");
    let text = std::fs::read_to_string(dir.join(".gitattributes")).unwrap();
    write(dir, ".gitattributes", &format!("{text}*.png binary\n"));
    let (report, _) = assetvc_expect(dir, dir, &["doctor"], 0);
    assert!(
        report.contains("changes that are not committed"),
        "{report}"
    );
}

#[test]
fn install_leaves_lfs_tracked_files_to_lfs_and_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    git_home(dir, dir, &["init", "-q", "-b", "main"]);
    let lfs = "*.level filter=lfs diff=lfs merge=lfs -text\n";
    write(dir, ".gitattributes", lfs);
    let (_, said) = assetvc_expect(dir, dir, &["install"], 0);
    assert!(
        said.contains(".gitattributes:1: *.level is stored in Git LFS")
            && said.contains("git lfs untrack"),
        "{said}"
    );
    let text = std::fs::read_to_string(dir.join(".gitattributes")).unwrap();
    assert!(text.ends_with(lfs), "{text}");
    // LFS keeps its merge for the files it tracks; other assets get ours.
    assert_eq!(check_attr(dir, "merge", "levels/a.level"), "lfs");
    assert_eq!(check_attr(dir, "filter", "levels/a.level"), "lfs");
    assert_eq!(check_attr(dir, "merge", "units/a.sjson"), "assetvc");
    let (report, _) = assetvc_expect(dir, dir, &["doctor"], 0);
    assert!(report.contains("stored in Git LFS"), "{report}");
    assert!(!report.contains("comes after an LFS line"), "{report}");
    // What an older install wrote: our line after LFS's takes the files from LFS.
    let ours = text.strip_suffix(lfs).unwrap();
    let level = "*.level merge=assetvc diff=assetvc\n";
    let older = format!("{}{lfs}{level}", ours.replace(level, ""));
    write(dir, ".gitattributes", &older);
    let (report, _) = assetvc_expect(dir, dir, &["doctor"], 0);
    assert!(report.contains("comes after an LFS line"), "{report}");
}

#[test]
fn check_outside_a_repository_refuses_to_walk_the_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    write(dir, "a.level", "entities = [\n");
    let (_, said) = assetvc_expect(dir, dir, &["check"], 2);
    assert!(said.contains("not in a git worktree"), "{said}");
    assert!(!said.contains("files checked"), "{said}");
    // Named paths are checked.
    let (found, _) = assetvc_expect(dir, dir, &["check", "a.level"], 1);
    assert!(found.contains("a.level:"), "{found}");
}
