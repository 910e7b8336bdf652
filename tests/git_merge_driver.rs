//! End to end: plain `git merge` with assetvc configured as the merge driver by hand
//! (`.gitattributes` + `merge.assetvc.driver`), in a real repository in a temp dir. Each
//! test runs with both registrations: `assetvc merge-driver` and the lean
//! `assetvc-merge-driver` binary, which must behave the same.

use crate::common;

use common::{data, TestRepo};
use sjson::Dialect;

const BASE: &str = common::TEST_LEVEL;

/// Both registrations of the driver.
fn drivers() -> [String; 2] {
    [
        format!(
            "{} merge-driver -- %O %A %B %P",
            env!("CARGO_BIN_EXE_assetvc")
        ),
        format!(
            "{} -- %O %A %B %P",
            env!("CARGO_BIN_EXE_assetvc-merge-driver")
        ),
    ]
}

/// A repository with `driver` configured by hand and `level.sjson` (`BASE`) on `main`.
fn setup(driver: &str) -> TestRepo {
    let repo = TestRepo::new();
    repo.git(&["config", "merge.assetvc.name", "assetvc structured merge"]);
    repo.git(&["config", "merge.assetvc.driver", driver]);
    repo.write(".gitattributes", "*.sjson merge=assetvc\n");
    repo.write("level.sjson", BASE);
    repo.commit("base");
    repo
}

fn commit_on(repo: &TestRepo, branch: &str, from: &str, text: &str) {
    repo.git(&["checkout", "-q", "-B", branch, from]);
    repo.write("level.sjson", text);
    repo.git(&["commit", "-q", "-am", branch]);
}

/// Checks out `a` and merges `b` into it with plain `git merge`, which must succeed;
/// returns its stderr.
fn merge_b_into_a(repo: &TestRepo) -> String {
    repo.git(&["checkout", "-q", "a"]);
    let out = repo.git_output(&["merge", "--no-edit", "b"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn git_merge_uses_the_structured_merge() {
    for driver in &drivers() {
        let repo = setup(driver);
        // A moves e1 and changes e2's tint; B adds e3 and changes the fog and e2's position.
        let a = BASE
            .replace("position = [0 0 0]", "position = [1 2 3]")
            .replace(
                "position = [5 0 0]\n\t\ttint = \"white\"",
                "position = [5 0 0]\n\t\ttint = \"red\"",
            );
        let b = BASE
            .replace("fog = 0.1", "fog = 0.3")
            .replace("position = [5 0 0]", "position = [5 5 0]")
            .replace(
                "\t}\n]",
                "\t}\n\t{\n\t\tid = \"e3\"\n\t\tname = \"lamp\"\n\t\tposition = [9 9 9]\n\t\ttint = \"white\"\n\t}\n]",
            );
        commit_on(&repo, "a", "main", &a);
        commit_on(&repo, "b", "main", &b);
        let stderr = merge_b_into_a(&repo);
        assert!(
            stderr.contains("assetvc: level.sjson: merged cleanly"),
            "{stderr}"
        );
        let merged = repo.read("level.sjson");
        assert_eq!(
            data(&merged, Dialect::Sjson),
            data(
                r#"{"entities": [
                    {"id": "e1", "name": "crate", "position": [1, 2, 3], "tint": "white"},
                    {"id": "e2", "name": "barrel", "position": [5, 5, 0], "tint": "red"},
                    {"id": "e3", "name": "lamp", "position": [9, 9, 9], "tint": "white"}],
                   "settings": {"fog": 0.3}}"#,
                Dialect::Json
            )
        );
        assert!(
            merged.starts_with("// test level\n"),
            "ours' text is kept:\n{merged}"
        );
        assert!(!merged.contains("<<<<<<<"));
        // The merge commit has two parents and the worktree is clean.
        let parents = repo.git(&["log", "-1", "--format=%P"]);
        assert_eq!(parents.split_whitespace().count(), 2);
        assert!(repo.git(&["status", "--porcelain"]).is_empty());
    }
}

#[test]
fn true_conflicts_take_theirs_and_are_reported() {
    for driver in &drivers() {
        let repo = setup(driver);
        commit_on(&repo, "a", "main", &BASE.replace("fog = 0.1", "fog = 0.2"));
        commit_on(&repo, "b", "main", &BASE.replace("fog = 0.1", "fog = 0.9"));
        let stderr = merge_b_into_a(&repo);
        assert!(
            stderr.contains("assetvc: level.sjson: merged, 1 conflict resolved (theirs)"),
            "{stderr}"
        );
        let merged = repo.read("level.sjson");
        assert!(merged.contains("fog = 0.9"));
        let out = common::run(
            common::assetvc()
                .args(["conflicts", "--json"])
                .current_dir(&repo.dir)
                .env_remove("GIT_DIR"),
        );
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(report["operation"]["kind"], "merge");
        assert_eq!(
            report["operation"]["branch"], "b",
            "the branch, not GITHEAD_…"
        );
        assert_eq!(report["merge"], "merge of b");
        let file = &report["files"][0];
        assert_eq!(file["path"], "level.sjson");
        assert_eq!(file["conflicts"][0]["path"], "/settings/fog");
        assert_eq!(file["conflicts"][0]["ours"], 0.2);
        assert_eq!(file["conflicts"][0]["theirs"], 0.9);
        assert_eq!(file["conflicts"][0]["taken"], "theirs");
    }
}

#[test]
fn unparsable_side_leaves_the_path_conflicted_with_ours_intact() {
    for driver in &drivers() {
        let repo = setup(driver);
        let ours = BASE.replace("fog = 0.1", "fog = 0.2");
        commit_on(&repo, "a", "main", &ours);
        commit_on(&repo, "b", "main", &BASE.replace("fog = 0.1", "fog = {"));
        repo.git(&["checkout", "-q", "a"]);
        let out = repo.git_output(&["merge", "--no-edit", "b"]);
        assert!(!out.status.success(), "git must report a conflict");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("level.sjson (theirs):"), "{stderr}");
        assert!(
            repo.git(&["diff", "--name-only", "--diff-filter=U"])
                .contains("level.sjson"),
            "the path is conflicted"
        );
        assert_eq!(repo.read("level.sjson"), ours);
    }
}

#[test]
fn the_lean_driver_reads_its_arguments_like_the_subcommand() {
    let lean = || std::process::Command::new(env!("CARGO_BIN_EXE_assetvc-merge-driver"));
    // Wrong count: status 2, the count and the usage; nothing written.
    for args in [
        &[][..],
        &["--", "o", "a", "b"][..],
        &["o", "a", "b", "p", "x"][..],
    ] {
        let out = common::run(lean().args(args));
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.starts_with("assetvc: error: expected 4 arguments, got "),
            "{stderr}"
        );
        assert!(stderr.contains("usage: assetvc-merge-driver"), "{stderr}");
    }
    let out = common::run(lean().arg("--help"));
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("usage: assetvc-merge-driver"));
    // After `--`, a file named like an option is a path; without `--`, four paths too.
    let repo = TestRepo::new();
    repo.write("-h", BASE);
    repo.write("a", &BASE.replace("fog = 0.1", "fog = 0.2"));
    repo.write(
        "b",
        &BASE.replace("position = [0 0 0]", "position = [1 0 0]"),
    );
    for args in [
        &["--", "-h", "a", "b", "-h.sjson"][..],
        &["-h", "a", "b", "x.sjson"][..],
    ] {
        let out = common::run(lean().current_dir(&repo.dir).args(args));
        let stderr = String::from_utf8_lossy(&out.stderr);
        if args[0] == "--" {
            assert!(out.status.success(), "{stderr}");
            assert!(stderr.contains("-h.sjson: merged cleanly"), "{stderr}");
            let merged = repo.read("a");
            assert!(merged.contains("fog = 0.2") && merged.contains("position = [1 0 0]"));
        } else {
            // `-h` first is the help, as in `assetvc merge-driver -h`.
            assert!(out.status.success(), "{stderr}");
            assert!(String::from_utf8_lossy(&out.stdout).contains("usage:"));
        }
    }
}

/// Issue #30: the driver's temporary file (next to `%A`, in the repository's root) is
/// named like every other assetvc temporary, so one a killed driver left (and one in the
/// driver's former `.assetvc-XXXXXX.tmp` naming) is removed by the next driver run once
/// it is a minute old; a fresh one may be another run's and is kept.
#[test]
fn a_temporary_left_by_a_killed_driver_is_removed_by_the_next_run() {
    for driver in &drivers() {
        let repo = setup(driver);
        commit_on(&repo, "a", "main", &BASE.replace("fog = 0.1", "fog = 0.2"));
        commit_on(&repo, "b", "main", &BASE.replace("fog = 0.1", "fog = 0.9"));
        let stale = repo.path(".merge_file_Ab12Cd.assetvc-tmp-Zx9Yw8");
        let former = repo.path(".assetvc-Qw3rTy.tmp");
        let fresh = repo.path(".merge_file_Ef34Gh.assetvc-tmp-Vu7Ts6");
        let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        for p in [&stale, &former, &fresh] {
            std::fs::write(p, "half written").unwrap();
        }
        for p in [&stale, &former] {
            let f = std::fs::File::options().write(true).open(p).unwrap();
            f.set_modified(old).unwrap();
        }
        let stderr = merge_b_into_a(&repo);
        assert!(stderr.contains("assetvc: level.sjson: merged"), "{stderr}");
        assert!(
            !stale.exists(),
            "{driver}: a killed driver's temporary was left"
        );
        assert!(
            !former.exists(),
            "{driver}: a former-style temporary was left"
        );
        assert!(
            fresh.exists(),
            "{driver}: a fresh temporary may be another run's"
        );
        let left: Vec<_> = std::fs::read_dir(&repo.dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains("assetvc-tmp") && !n.contains("Ef34Gh"))
            .collect();
        assert!(left.is_empty(), "{driver}: the driver left {left:?}");
        std::fs::remove_file(&fresh).unwrap();
    }
}
