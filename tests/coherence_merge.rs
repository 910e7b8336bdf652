//! End to end: merges that would break a level's references are repaired and reported
//! (docs/design.md "Level coherence"), under `git merge` with the driver and `merge-file`.

use crate::common;

use std::path::Path;

use common::{assetvc, git, git_output, run};

const UNIT: &str = "9f0c2d1e-5a6b-4c7d-8e9f-0a1b2c3d4e5f";

fn base_level() -> String {
    format!(
        "units = [\n\t{{\n\t\tid = \"{UNIT}\"\n\t\tname = \"crate\"\n\t\ttype = \"units/crate\"\n\t}}\n]\nflow = [\n]\n"
    )
}

fn flow_level() -> String {
    base_level().replace(
        "flow = [\n]",
        &format!("flow = [\n\t{{\n\t\tid = \"node-spawn\"\n\t\tunit = \"{UNIT}\"\n\t}}\n]"),
    )
}

const NO_UNITS: &str = "units = [\n]\nflow = [\n]\n";

fn setup(dir: &Path) {
    git(dir, &["init", "-q", "-b", "main"]);
    let driver = format!("{} merge-driver %O %A %B %P", env!("CARGO_BIN_EXE_assetvc"));
    git(dir, &["config", "merge.assetvc.driver", &driver]);
    std::fs::write(dir.join(".gitattributes"), "*.level merge=assetvc\n").unwrap();
    std::fs::write(dir.join("a.level"), base_level()).unwrap();
    git(dir, &["add", "."]);
    git(dir, &["commit", "-q", "-m", "base"]);
}

fn commit_on(dir: &Path, branch: &str, text: &str) {
    git(dir, &["checkout", "-q", "-B", branch, "main"]);
    std::fs::write(dir.join("a.level"), text).unwrap();
    git(dir, &["commit", "-q", "-am", branch]);
}

#[test]
fn git_merge_restores_a_unit_deleted_on_one_branch_that_a_new_flow_node_uses() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    setup(dir);
    commit_on(dir, "flow", &flow_level());
    commit_on(dir, "cleanup", NO_UNITS);
    git(dir, &["checkout", "-q", "flow"]);
    let out = git_output(dir, &["merge", "--no-edit", "cleanup"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains(
            "units[crate #9f0c…4e5f]: referenced object restored (referenced by flow[#node-spawn].unit), from ours"
        ),
        "{stderr}"
    );
    let merged = std::fs::read_to_string(dir.join("a.level")).unwrap();
    assert_eq!(merged, flow_level(), "the unit is back, with ours' text");
    // `assetvc conflicts` reads the same repair.
    let out = run(assetvc().arg("conflicts").current_dir(dir));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("a.level units[crate #9f0c…4e5f]: referenced object restored (referenced by flow[#node-spawn].unit), from ours"),
        "{text}"
    );
    let out = run(assetvc().args(["conflicts", "--json"]).current_dir(dir));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let c = &report["files"][0]["conflicts"][0];
    assert_eq!(c["kind"], "dangling-reference");
    assert_eq!(c["referrer"], "/flow/[id=node-spawn]/unit");
    assert_eq!(c["object"], "crate #9f0c2d1e");
    assert_eq!(c["taken"], "ours");
}

/// PATH with the directory of the built `git-merge-assetvc` first.
fn path_with_strategy() -> std::ffi::OsString {
    let exe = std::path::PathBuf::from(env!("CARGO_BIN_EXE_git-merge-assetvc"));
    let mut dirs = vec![exe.parent().unwrap().to_path_buf()];
    dirs.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(dirs).unwrap()
}

#[test]
fn the_driver_the_strategy_the_porcelain_and_conflicts_name_a_repairs_referrer() {
    let named = flow_level().replace(
        "\t\tid = \"node-spawn\"\n",
        "\t\tid = \"node-spawn\"\n\t\tname = \"spawn_barrel\"\n",
    );
    let line = "units[crate #9f0c…4e5f]: referenced object restored (referenced by \
                flow[spawn_barrel #node-spawn].unit), from ours";
    let conflicts = |dir: &Path| {
        let out = run(assetvc().arg("conflicts").current_dir(dir));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let merges: [&[&str]; 3] = [
        &["git", "merge", "--no-edit", "cleanup"],
        &["git", "merge", "--no-edit", "-s", "assetvc", "cleanup"],
        &["assetvc", "merge", "cleanup"],
    ];
    for merge in merges {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        setup(dir);
        commit_on(dir, "flow", &named);
        commit_on(dir, "cleanup", NO_UNITS);
        git(dir, &["checkout", "-q", "flow"]);
        let mut cmd = match merge[0] {
            "git" => std::process::Command::new("git"),
            _ => assetvc(),
        };
        let out = run(cmd
            .args(&merge[1..])
            .current_dir(dir)
            .env("PATH", path_with_strategy()));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{merge:?}: {stderr}");
        assert!(stderr.contains(line), "{merge:?}: {stderr}");
        assert!(!stderr.contains("flow[#node-spawn]"), "{merge:?}: {stderr}");
        let listed = conflicts(dir);
        assert!(
            listed.contains(&format!("a.level {line}")),
            "{merge:?}: {listed}"
        );
    }
}

#[test]
fn merge_file_reports_repairs_in_json_and_the_report_and_fails_under_policy_fail() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("base.level"), base_level()).unwrap();
    std::fs::write(dir.join("ours.level"), NO_UNITS).unwrap();
    std::fs::write(dir.join("theirs.level"), flow_level()).unwrap();
    let out = run(assetvc()
        .args([
            "merge-file",
            "--json",
            "--policy",
            "fail",
            "--report",
            "r.json",
        ])
        .args(["ours.level", "base.level", "theirs.level"])
        .current_dir(dir));
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["conflicts"][0]["kind"], "dangling-reference");
    assert_eq!(json["conflicts"][0]["taken"], "theirs");
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("r.json")).unwrap()).unwrap();
    assert_eq!(report, json);
    // Repaired, then failed: the result holds the unit and the node.
    let merged = std::fs::read_to_string(dir.join("ours.level")).unwrap();
    assert!(
        merged.contains(UNIT) && merged.contains("node-spawn"),
        "{merged}"
    );
}

#[test]
fn merge_file_names_the_restored_object_and_its_referrer_never_by_pointer_or_whole_uuid() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let named_flow = flow_level().replace(
        "id = \"node-spawn\"",
        "id = \"node-spawn\"\n\t\tname = \"spawn_barrel\"",
    );
    std::fs::write(dir.join("base.level"), base_level()).unwrap();
    std::fs::write(dir.join("ours.level"), NO_UNITS).unwrap();
    std::fs::write(dir.join("theirs.level"), &named_flow).unwrap();
    let out = run(assetvc()
        .args(["merge-file", "ours.level", "base.level", "theirs.level"])
        .current_dir(dir));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    // A repair is counted as a repair, not as a conflict the policy resolved.
    assert!(
        stderr.contains("assetvc: ours.level: merged, 1 repair\n"),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "units[crate #9f0c…4e5f]: referenced object restored \
             (referenced by flow[spawn_barrel #node-spawn].unit), from theirs"
        ),
        "{stderr}"
    );
    assert!(
        !stderr.contains(UNIT) && !stderr.contains("[id="),
        "{stderr}"
    );
}

#[test]
fn a_reference_to_an_id_held_twice_merges() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let twice = format!(
        "units = [\n\t{{ id = \"{UNIT}\" }}\n\t{{ id = \"{UNIT}\" }}\n]\nflow = [\n\t{{ id = n unit = \"{UNIT}\" }}\n]\n"
    );
    std::fs::write(dir.join("base.level"), &twice).unwrap();
    std::fs::write(dir.join("ours.level"), &twice).unwrap();
    let theirs = twice.replace("id = n unit", "id = n x = 1 unit");
    std::fs::write(dir.join("theirs.level"), &theirs).unwrap();
    let out = run(assetvc()
        .args(["merge-file", "ours.level", "base.level", "theirs.level"])
        .current_dir(dir));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("ours.level")).unwrap(),
        theirs
    );
}

/// `merge-file` of the three versions in a test's folder, written over ours.
const MERGE_FILE_ARGS: [&str; 4] = ["merge-file", "ours.level", "base.level", "theirs.level"];

/// The driver on the three versions in a test's folder, as git calls it (`%O %A %B %P`).
const DRIVER_ARGS: [&str; 6] = [
    "merge-driver",
    "--",
    "base.level",
    "ours.level",
    "theirs.level",
    "a.level",
];

/// A level over a mebibyte (a large merge frees base and reads it again for a repair):
/// filler units, then `c1` holding `items`.
fn large_level(items: &str) -> String {
    let mut text = String::from("units = [\n");
    for i in 0..20_000 {
        text.push_str(&format!(
            "\t{{\n\t\tid = \"filler-{i:05}\"\n\t\tname = \"filler\"\n\t\tpos = [1 2 3]\n\t}}\n"
        ));
    }
    text.push_str(&format!(
        "\t{{\n\t\tid = \"c1\"\n\t\titems = [{items}]\n\t}}\n]\n"
    ));
    assert!(text.len() > 1 << 20);
    text
}

#[test]
fn a_large_merge_read_through_mappings_is_the_merge_of_the_texts() {
    // Versions over a mebibyte are parsed from their files' mappings, not copied: the
    // result, written over ours by `merge-file` and by the driver, is the library's merge
    // of the same texts, and the versions are left as they were.
    let base = large_level("{ id = n0 }");
    let ours = base.replace(
        "filler-00007\"\n\t\tname = \"filler\"",
        "filler-00007\"\n\t\tname = \"seven\"",
    );
    let theirs = base
        .replace(
            "filler-19000\"\n\t\tname = \"filler\"\n\t\tpos = [1 2 3]",
            "filler-19000\"\n\t\tname = \"filler\"\n\t\tpos = [4 5 6]",
        )
        .replace("{ id = n0 }", "{ id = n0 } { id = n2 }");
    assert!(ours != base && theirs != base);
    let expected = merge::merge(
        merge::Inputs::texts(&base, &ours, &theirs, sjson::Dialect::Sjson),
        &merge::MergeOptions::default(),
    )
    .unwrap()
    .document
    .into_text();
    assert!(
        expected.contains("seven") && expected.contains("pos = [4 5 6]") && expected.contains("n2")
    );
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let write = |name: &str, text: &str| std::fs::write(dir.join(name), text).unwrap();
    // Both write the result over ours.
    for args in [&MERGE_FILE_ARGS[..], &DRIVER_ARGS[..]] {
        write("base.level", &base);
        write("ours.level", &ours);
        write("theirs.level", &theirs);
        let out = run(assetvc().args(args).current_dir(dir));
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            std::fs::read_to_string(dir.join("ours.level")).unwrap(),
            expected,
            "{args:?}"
        );
        assert_eq!(
            std::fs::read_to_string(dir.join("base.level")).unwrap(),
            base
        );
        assert_eq!(
            std::fs::read_to_string(dir.join("theirs.level")).unwrap(),
            theirs
        );
    }
}

/// Base, ours and theirs of a large level where ours adds `n1` inside `c1` and theirs
/// deletes `c1`.
fn large_versions() -> [String; 3] {
    let base = large_level("{ id = n0 }");
    let ours = large_level("{ id = n0 } { id = n1 }");
    let theirs = base.replace("\t{\n\t\tid = \"c1\"\n\t\titems = [{ id = n0 }]\n\t}\n", "");
    [base, ours, theirs]
}

#[test]
fn a_large_merge_reads_base_again_from_its_file_when_a_repair_needs_it() {
    // Ours adds `n1` inside `c1`, theirs deletes `c1` and wins: `n1` is restored (an
    // orphan), and whether `n0` was deleted by theirs is read in base, which a merge this
    // large freed: from base's file, under `merge-file` and the driver alike.
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let [base, ours, theirs] = large_versions();
    for (name, text) in [("base", &base), ("ours", &ours), ("theirs", &theirs)] {
        std::fs::write(dir.join(format!("{name}.level")), text).unwrap();
    }
    let out = run(assetvc()
        .args(["merge-file", "-p", "--json"])
        .args(["ours.level", "base.level", "theirs.level"])
        .current_dir(dir));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    let report: serde_json::Value = serde_json::from_str(stderr.trim()).unwrap();
    let kinds: Vec<_> = report["conflicts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["kind"].as_str().unwrap(), c["path"].as_str().unwrap()))
        .collect();
    assert!(
        kinds.contains(&("orphan", "/units/[id=c1]/items/[id=n1]")),
        "{kinds:?}"
    );
    let merged = String::from_utf8(out.stdout).unwrap();
    assert!(
        merged.contains("id = n1") && !merged.contains("n0"),
        "n1 restored, n0 deleted"
    );
    // The driver on the same files writes the same result.
    let out = run(assetvc().args(DRIVER_ARGS).current_dir(dir));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("ours.level")).unwrap(),
        merged
    );
}

#[test]
fn a_large_in_process_merge_reads_base_again_from_its_blob_when_a_repair_needs_it() {
    // The same repair as above, under `assetvc merge`: base is read again from its blob.
    let repo = common::TestRepo::new();
    let [base, ours, theirs] = large_versions();
    repo.write("big.sjson", &base);
    repo.commit("base");
    repo.git(&["checkout", "-q", "-b", "theirs"]);
    repo.write("big.sjson", &theirs);
    repo.commit("theirs");
    repo.git(&["checkout", "-q", "main"]);
    repo.write("big.sjson", &ours);
    repo.commit("ours");
    let (_, stderr) = repo.assetvc_expect(&["merge", "theirs"], 0);
    assert!(
        stderr.contains("units[#c1].items[#n1]: lost object restored"),
        "the orphan repair is reported by name: {stderr}"
    );
    // merge-file on the same three texts gives the same bytes.
    let dir = tempfile::tempdir().unwrap();
    let out = common::merge_three(
        dir.path(),
        "sjson",
        [&base, &ours, &theirs],
        &["merge-file", "-p"],
    );
    assert!(out.status.success());
    assert_eq!(repo.read("big.sjson").as_bytes(), out.stdout);
}
