//! End to end: the typed merge journal. A journal written by the previous (untyped) format
//! still reads and resolves; the versions of a live step survive `git gc --prune=now`; a
//! merge driver that fails is recorded and `conflicts --all` shows it; a sync's pending
//! conflict shows on the review page (both values, who made the upstream one) and
//! resolving it clears its pending mark.

use crate::common;
use crate::review_page::{chromium, dom, screenshot};
use crate::sync_support;

use std::path::Path;

use common::{assetvc_expect, git_home, git_home_output};
use sync_support::Team;

/// The three versions of `a.level` in the merge that wrote `tests/data/journal-v1` (with
/// the binary of the previous format): base, git's ours (main) and theirs (feature).
const V1_BASE: &str = "entities = [\n\t{ id = \"e1\" name = \"crate\" position = [0 0 0] }\n\t{ id = \"e2\" name = \"gate\" position = [5 5 5] }\n]\n";

fn v1_side(crate_at: &str, gate_at: &str) -> String {
    V1_BASE
        .replace("[0 0 0]", crate_at)
        .replace("[5 5 5]", gate_at)
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.path().is_dir() {
            copy_dir(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

#[test]
fn a_journal_of_the_previous_format_reads_and_resolves() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    git_home(dir, dir, &["init", "-q", "-b", "main"]);
    // The versions the old journal names, as blobs (content-addressed: the same ids).
    let ours = v1_side("[2 0 0]", "[7.25 5 5]");
    let theirs = v1_side("[1 0 0]", "[6.50 5 5]");
    for (name, text) in [("base", V1_BASE), ("ours", &ours), ("theirs", &theirs)] {
        std::fs::write(dir.join(name), text).unwrap();
        git_home(dir, dir, &["hash-object", "-w", name]);
        std::fs::remove_file(dir.join(name)).unwrap();
    }
    std::fs::write(dir.join("a.level"), &theirs).unwrap();
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/journal-v1");
    copy_dir(&data, &dir.join(".git/assetvc/journal"));

    let (out, _) = assetvc_expect(dir, dir, &["conflicts", "--all"], 0);
    assert!(
        out.contains("a.level entities[gate #e2].position: both modified, took theirs"),
        "{out}"
    );
    assert!(
        out.contains("c.level: not merged, left for you to resolve: c.level (theirs):3:1"),
        "{out}"
    );
    let (out, _) = assetvc_expect(dir, dir, &["conflicts", "--all", "--json"], 0);
    let all: serde_json::Value = serde_json::from_str(&out).unwrap();
    let c = &all["operations"][0]["files"][0]["conflicts"][1];
    assert_eq!(c["kind"], "both-modified", "{all}");
    assert_eq!(c["kept"], "upstream", "{all}");
    assert_eq!(c["ours"], serde_json::json!([7.25, 5, 5]), "{all}");

    let (out, _) = assetvc_expect(
        dir,
        dir,
        &["resolve", "a.level", "--all", "--take", "ours"],
        0,
    );
    assert!(out.contains("took ours"), "{out}");
    assert_eq!(std::fs::read_to_string(dir.join("a.level")).unwrap(), ours);
}

/// A repository with the driver installed and a merge of `feature` that resolved a
/// conflict in `level.sjson` by policy.
fn merged_with_a_conflict(dir: &Path) {
    git_home(dir, dir, &["init", "-q", "-b", "main"]);
    assetvc_expect(dir, dir, &["install"], 0);
    std::fs::write(dir.join("level.sjson"), common::TEST_LEVEL).unwrap();
    git_home(dir, dir, &["add", "."]);
    git_home(dir, dir, &["commit", "-q", "-m", "base"]);
    git_home(dir, dir, &["checkout", "-q", "-b", "feature"]);
    let edit = |from: &str, to: &str| {
        let text = std::fs::read_to_string(dir.join("level.sjson")).unwrap();
        assert!(text.contains(from), "{text}");
        std::fs::write(dir.join("level.sjson"), text.replacen(from, to, 1)).unwrap();
    };
    edit("fog = 0.1", "fog = 0.375");
    git_home(dir, dir, &["commit", "-q", "-am", "feature fog"]);
    git_home(dir, dir, &["checkout", "-q", "main"]);
    edit("fog = 0.1", "fog = 0.2");
    git_home(dir, dir, &["commit", "-q", "-am", "main fog"]);
    git_home(dir, dir, &["merge", "-q", "--no-edit", "feature"]);
}

#[test]
fn the_versions_of_a_live_step_survive_git_gc_prune_now() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    merged_with_a_conflict(dir);
    // The merge is undone and the branch deleted: theirs' blob is named by nothing in
    // the history any more, only by the journal.
    git_home(dir, dir, &["reset", "-q", "--hard", "HEAD~1"]);
    git_home(dir, dir, &["branch", "-q", "-D", "feature"]);
    let theirs_blob = {
        let text = common::TEST_LEVEL.replacen("fog = 0.1", "fog = 0.375", 1);
        std::fs::write(dir.join("probe"), text).unwrap();
        let id = git_home(dir, dir, &["hash-object", "probe"]);
        std::fs::remove_file(dir.join("probe")).unwrap();
        id.trim().to_string()
    };
    let listed = git_home(dir, dir, &["ls-tree", "refs/assetvc/journal"]);
    assert!(listed.contains(&theirs_blob), "{listed}");
    git_home(dir, dir, &["reflog", "expire", "--expire=now", "--all"]);
    git_home(dir, dir, &["gc", "-q", "--prune=now"]);
    let kept = git_home_output(dir, dir, &["cat-file", "-e", &theirs_blob]);
    assert!(kept.status.success(), "theirs' version was pruned");
    let (out, _) = assetvc_expect(
        dir,
        dir,
        &["resolve", "level.sjson", "--all", "--take", "theirs"],
        0,
    );
    assert!(out.contains("took theirs"), "{out}");
    let level = std::fs::read_to_string(dir.join("level.sjson")).unwrap();
    assert!(level.contains("fog = 0.375"), "{level}");
}

#[test]
fn a_merge_driver_that_fails_is_recorded_and_shown() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    git_home(dir, dir, &["init", "-q", "-b", "main"]);
    assetvc_expect(dir, dir, &["install"], 0);
    std::fs::write(dir.join("level.sjson"), common::TEST_LEVEL).unwrap();
    git_home(dir, dir, &["add", "."]);
    git_home(dir, dir, &["commit", "-q", "-m", "base"]);
    git_home(dir, dir, &["checkout", "-q", "-b", "feature"]);
    let edit = |from: &str, to: &str| {
        let text = std::fs::read_to_string(dir.join("level.sjson")).unwrap();
        std::fs::write(dir.join("level.sjson"), text.replacen(from, to, 1)).unwrap();
    };
    edit("fog = 0.1", "fog = 0.3");
    git_home(dir, dir, &["commit", "-q", "-am", "feature fog"]);
    git_home(dir, dir, &["checkout", "-q", "main"]);
    edit("fog = 0.1", "fog = 0.2");
    git_home(dir, dir, &["commit", "-q", "-am", "main fog"]);
    // The settings the driver reads are broken: it cannot merge.
    std::fs::write(dir.join("assetvc.toml"), "[merge]\npolicy = 3\n").unwrap();
    let merge = git_home_output(dir, dir, &["merge", "--no-edit", "feature"]);
    assert!(!merge.status.success(), "the merge went through");
    let status = git_home(dir, dir, &["status", "--porcelain"]);
    assert!(
        status.contains("UU level.sjson"),
        "git marks the path conflicted: {status}"
    );
    let (out, _) = assetvc_expect(dir, dir, &["conflicts", "--all"], 0);
    assert!(
        out.contains("level.sjson: not merged, left for you to resolve: the merge driver failed: "),
        "{out}"
    );
    assert!(out.contains("assetvc.toml"), "{out}");
}

#[test]
fn a_pending_conflict_shows_on_the_review_page_and_resolving_it_clears_it() {
    let team = Team::new();
    let url = team.file_url();
    let alice = team.clone_for("alice", &url);
    let bob = team.clone_for("bob", &url);
    alice.edit("position = [0 0 0]", "position = [1.50 1 1]");
    alice.commit_and_push("crate moved");
    bob.edit("position = [0 0 0]", "position = [2 2 2]");
    bob.expect(&["sync"], 0);
    let author = bob.git(&["log", "-1", "--format=%an", "origin/main"]);
    let author = author.trim().to_string();
    let (out, _) = bob.expect(&["conflicts"], 0);
    assert!(out.contains("pending: the upstream's [1.50,1,1]"), "{out}");

    let page = bob.dir.join("review.html");
    bob.expect(&["conflicts", "--html", page.to_str().unwrap()], 0);
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("1 pending conflict of a sync"), "{html}");
    assert!(
        html.contains(&format!("the upstream&#39;s value was made by {author}"))
            || html.contains(&format!("the upstream's value was made by {author}")),
        "{html}"
    );
    if let Some(browser) = chromium() {
        let dom = dom(&browser, &page);
        assert!(dom.contains("class=\"pending\""), "{dom}");
        // Both values are on the page as written: the local and the upstream's.
        assert!(dom.contains("1.50"), "{dom}");
        let (w, h, pixels) = screenshot(&browser, &page, "pending-conflict");
        assert_eq!((w, h), (1400, 1000));
        let first = &pixels[..4];
        assert!(
            pixels.chunks(4).any(|p| p != first),
            "the screenshot is blank"
        );
    }

    bob.expect(
        &["resolve", "level.sjson", "--all", "--take", "upstream"],
        0,
    );
    let (out, _) = bob.expect(&["conflicts"], 0);
    assert!(out.contains("entities[crate #e1].position"), "{out}");
    assert!(!out.contains("pending"), "{out}");
    let (out, _) = bob.expect(&["who", "--json"], 0);
    let who: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(who["pending"], serde_json::json!([]), "{who}");
}
