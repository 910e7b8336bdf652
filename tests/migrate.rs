//! End to end, `assetvc migrate` with real git: ids into the arrays of objects of every
//! asset in one commit whose diff is only the added id lines; dry runs, idempotence, bare
//! repositories, unparsable files, local changes in the way; and, the point of it all,
//! branches made before the migration still merge into the migrated branch — with
//! `assetvc merge` and with plain `git merge` through the installed driver — keeping the
//! ids, duplicating nothing.

use crate::common;

use std::path::{Path, PathBuf};

use common::{assetvc_expect, data, git_home, git_home_output};
use sjson::{Dialect, Document, Value};

/// One unit of the test level: name, number (position, lod, mass derive from it), scale,
/// mass of its physics component.
#[derive(Clone, Copy)]
struct Unit {
    name: &'static str,
    n: i64,
    scale: i64,
    mass: i64,
}

const fn unit(name: &'static str, n: i64) -> Unit {
    Unit {
        name,
        n,
        scale: 1,
        mass: 10 * n,
    }
}

const BASE_UNITS: [Unit; 6] = [
    unit("barrel", 1),
    unit("crate", 2),
    unit("lamp", 3),
    unit("tree", 4),
    unit("rock", 5),
    unit("fence", 6),
];

/// A level in Stingray's style: `units`, an array of objects without ids whose elements
/// hold a nested array of objects without ids, and a settings object.
fn level(units: &[Unit]) -> String {
    let mut s = String::from("// test level\nunits = [\n");
    for u in units {
        let n = u.n;
        s.push_str(&format!(
            "\t{{\n\t\tunit = \"{}\"\n\t\tpos = [{n} {} {}]\n\t\tscale = {}\n\t\tcomponents = [\n\
             \t\t\t{{\n\t\t\t\ttype = \"mesh\"\n\t\t\t\tlod = {n}\n\t\t\t}}\n\
             \t\t\t{{\n\t\t\t\ttype = \"physics\"\n\t\t\t\tmass = {}\n\t\t\t}}\n\t\t]\n\t}}\n",
            u.name,
            2 * n,
            3 * n,
            u.scale,
            u.mass
        ));
    }
    s.push_str("]\nsettings = {\n\tfog = 0.1\n}\n");
    s
}

/// The feature branch's edits: barrel's nested mass and lamp's scale edited, a statue
/// inserted before the fence, the rock deleted.
fn feature_units() -> Vec<Unit> {
    let mut units: Vec<Unit> = BASE_UNITS.to_vec();
    units[0].mass = 15;
    units[2].scale = 2;
    units.retain(|u| u.name != "rock");
    let statue = Unit {
        scale: 3,
        ..unit("statue", 7)
    };
    units.insert(4, statue);
    units
}

const LOCALIZATION: &str = "{\n  \"lines\": [\n    {\n      \"en\": \"Play\"\n    },\n    {\n      \"en\": \"Quit\"\n    }\n  ]\n}\n";

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

fn git_ok(dir: &Path, home: &Path, args: &[&str]) {
    let out = git_home_output(dir, home, args);
    assert!(
        out.status.success(),
        "git {args:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A repository at `home/name` with `assetvc install` done and a base commit holding the
/// level, a JSON asset and a text file.
fn repo_with_level(home: &Path, name: &str) -> PathBuf {
    let dir = home.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    git_home(&dir, home, &["init", "-q", "-b", "main"]);
    assetvc_expect(&dir, home, &["install"], 0);
    std::fs::create_dir_all(dir.join("levels")).unwrap();
    std::fs::write(dir.join("levels/test.level"), level(&BASE_UNITS)).unwrap();
    std::fs::write(dir.join("loc.json"), LOCALIZATION).unwrap();
    std::fs::write(dir.join("notes.txt"), "not an asset\n").unwrap();
    git_home(&dir, home, &["add", "."]);
    git_home(&dir, home, &["commit", "-q", "--no-verify", "-m", "base"]);
    dir
}

fn units_of(doc: &Document) -> Vec<Value<'_>> {
    doc.root().get("units").unwrap().children().collect()
}

fn text_of(v: Value<'_>, key: &str) -> Option<String> {
    v.get(key).and_then(|x| x.as_str()).map(|s| s.into_owned())
}

fn number_of(v: Value<'_>, key: &str) -> i64 {
    v.get(key)
        .and_then(|x| x.as_number())
        .map(|n| n.as_f64() as i64)
        .unwrap()
}

/// The ids the migration gave: per unit name, its id and its components' ids.
fn ids_by_unit(text: &str) -> Vec<(String, String, Vec<String>)> {
    let doc = Document::parse(text, Dialect::Sjson).unwrap();
    units_of(&doc)
        .into_iter()
        .map(|u| {
            let components = u
                .get("components")
                .unwrap()
                .children()
                .map(|c| text_of(c, "id").expect("component id"))
                .collect();
            (
                text_of(u, "unit").unwrap(),
                text_of(u, "id").expect("unit id"),
                components,
            )
        })
        .collect()
}

/// Checks a merge result element by element against the feature's edits applied to
/// the migrated main whose ids are `main_ids`.
fn check_merged(text: &str, main_ids: &[(String, String, Vec<String>)], how: &str) {
    let doc = Document::parse(text, Dialect::Sjson).unwrap();
    let units = units_of(&doc);
    let expected = feature_units();
    let names: Vec<String> = units.iter().map(|u| text_of(*u, "unit").unwrap()).collect();
    let expected_names: Vec<&str> = expected.iter().map(|u| u.name).collect();
    assert_eq!(names, expected_names, "{how}: elements, in order:\n{text}");
    for (u, e) in units.iter().zip(&expected) {
        let at = format!("{how}: unit {}", e.name);
        let pos: Vec<i64> = u
            .get("pos")
            .unwrap()
            .children()
            .map(|c| c.as_number().unwrap().as_f64() as i64)
            .collect();
        assert_eq!(pos, [e.n, 2 * e.n, 3 * e.n], "{at}: pos");
        assert_eq!(number_of(*u, "scale"), e.scale, "{at}: scale");
        let components: Vec<Value<'_>> = u.get("components").unwrap().children().collect();
        assert_eq!(components.len(), 2, "{at}: components");
        assert_eq!(text_of(components[0], "type").unwrap(), "mesh", "{at}");
        assert_eq!(number_of(components[0], "lod"), e.n, "{at}: lod");
        assert_eq!(text_of(components[1], "type").unwrap(), "physics", "{at}");
        assert_eq!(number_of(components[1], "mass"), e.mass, "{at}: mass");
        match main_ids.iter().find(|(name, _, _)| name == e.name) {
            // A pre-existing element keeps the ids main gave it, its components' too.
            Some((_, id, component_ids)) => {
                assert_eq!(text_of(*u, "id").as_ref(), Some(id), "{at}: id");
                let got: Vec<Option<String>> =
                    components.iter().map(|c| text_of(*c, "id")).collect();
                let want: Vec<Option<String>> =
                    component_ids.iter().map(|c| Some(c.clone())).collect();
                assert_eq!(got, want, "{at}: component ids");
            }
            // The element the feature inserted comes without ids (it was made before the
            // migration); `assetvc migrate` again gives it one.
            None => {
                assert!(u.get("id").is_none(), "{at}: inserted, no id");
                assert!(components.iter().all(|c| c.get("id").is_none()), "{at}");
            }
        }
    }
    assert!(
        !names.iter().any(|n| n == "rock"),
        "{how}: the deleted one is gone"
    );
    assert_eq!(
        data(text, Dialect::Sjson)["settings"],
        serde_json::json!({"fog": 0.1}),
        "{how}: settings"
    );
}

fn fsck_clean(dir: &Path, home: &Path) {
    let out = git_home_output(dir, home, &["fsck", "--strict", "--no-dangling"]);
    assert!(
        out.status.success() && out.stdout.is_empty(),
        "git fsck: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn an_old_branch_merges_into_the_migrated_main_with_assetvc_and_with_git() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let a = repo_with_level(home, "a");
    // The feature branch is made before the migration.
    git_home(&a, home, &["checkout", "-q", "-b", "feature"]);
    std::fs::write(a.join("levels/test.level"), level(&feature_units())).unwrap();
    git_home(&a, home, &["commit", "-q", "--no-verify", "-am", "feature"]);
    git_home(&a, home, &["checkout", "-q", "main"]);

    let (_, stderr) = assetvc_expect(&a, home, &["migrate"], 0);
    assert!(
        stderr.contains("assetvc: migrated 2 files: 8 arrays, 20 elements got ids; commit "),
        "{stderr}"
    );
    let migrated = read(&a.join("levels/test.level"));
    let main_ids = ids_by_unit(&migrated);
    assert_eq!(main_ids.len(), 6);
    assert!(git_home(&a, home, &["status", "--porcelain"]).is_empty());

    // (b) starts from a copy of the same state.
    let b = home.join("b");
    let cp = std::process::Command::new("cp")
        .args(["-a", a.to_str().unwrap(), b.to_str().unwrap()])
        .status()
        .unwrap();
    assert!(cp.success());

    // (a) assetvc merge.
    let (_, stderr) = assetvc_expect(&a, home, &["merge", "feature"], 0);
    assert!(
        stderr.contains("levels/test.level: merged cleanly"),
        "no conflicts: {stderr}"
    );
    let merged_a = read(&a.join("levels/test.level"));
    check_merged(&merged_a, &main_ids, "assetvc merge");

    // (b) plain git merge through the driver `assetvc install` configured.
    git_ok(&b, home, &["merge", "--no-edit", "feature"]);
    let merged_b = read(&b.join("levels/test.level"));
    check_merged(&merged_b, &main_ids, "git merge");
    assert_eq!(merged_a, merged_b, "both give the same bytes");

    for dir in [&a, &b] {
        assert!(git_home(dir, home, &["status", "--porcelain"]).is_empty());
        let parents = git_home(dir, home, &["log", "-1", "--format=%P"]);
        assert_eq!(parents.split_whitespace().count(), 2, "a merge commit");
        assetvc_expect(dir, home, &["check"], 0);
        fsck_clean(dir, home);
        // Migrating again gives the inserted element (and its components) ids.
        let (_, stderr) = assetvc_expect(dir, home, &["migrate"], 0);
        assert!(
            stderr.contains("migrated 1 file: 2 arrays, 3 elements got ids"),
            "{stderr}"
        );
    }
}

#[test]
fn merge_file_across_the_migration_pairs_elements_whose_nested_arrays_got_ids() {
    // Elements whose members are mostly arrays of objects: after the migration they
    // share little with their unmigrated versions unless ids are ignored at every depth.
    // Aligning them by the top-level members only duplicated every element.
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let dir = home.join("r");
    std::fs::create_dir_all(&dir).unwrap();
    git_home(&dir, home, &["init", "-q", "-b", "main"]);
    let block = |name: &str, part: &str| {
        format!("\t{{\n\t\tunit = \"{name}\"\n\t\tcomponents = [\n\t\t\t{{\n\t\t\t\ttype = \"{part}\"\n\t\t\t}}\n\t\t]\n\t\tchildren = [\n\t\t\t{{\n\t\t\t\ttype = \"light\"\n\t\t\t}}\n\t\t]\n\t}}\n")
    };
    let base = format!(
        "units = [\n{}{}]\n",
        block("barrel", "mesh"),
        block("crate", "decal")
    );
    std::fs::write(dir.join("a.level"), &base).unwrap();
    git_home(&dir, home, &["add", "."]);
    git_home(&dir, home, &["commit", "-q", "-m", "base"]);
    assetvc_expect(&dir, home, &["migrate"], 0);
    let ours = read(&dir.join("a.level"));
    std::fs::write(dir.join("base.level"), &base).unwrap();
    std::fs::write(
        dir.join("theirs.level"),
        base.replace("\"barrel\"", "\"keg\""),
    )
    .unwrap();
    let (merged, _) = assetvc_expect(
        &dir,
        home,
        &["merge-file", "-p", "a.level", "base.level", "theirs.level"],
        0,
    );
    let expected = ours.replace("\"barrel\"", "\"keg\"");
    assert_eq!(
        merged, expected,
        "the edit applied, ids kept, nothing duplicated"
    );
}

#[test]
fn the_migration_commit_adds_only_id_lines_and_passes_check_and_fsck() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let dir = repo_with_level(home, "r");
    let before = git_home(&dir, home, &["rev-parse", "HEAD"]);
    let (stdout, _) = assetvc_expect(&dir, home, &["migrate", "--json", "-m", "ids"], 0);
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["arrays"], 8);
    assert_eq!(report["elements"], 20);
    assert_eq!(report["files"][0]["path"], "levels/test.level");
    assert_eq!(report["files"][0]["arrays"], 7);
    assert_eq!(report["files"][1]["path"], "loc.json");
    assert_eq!(report["problems"], serde_json::json!([]));
    let head = git_home(&dir, home, &["rev-parse", "HEAD"]);
    assert_eq!(report["commit"].as_str().unwrap(), head.trim());
    assert_eq!(
        git_home(&dir, home, &["log", "-1", "--format=%P%n%B"]).trim(),
        format!("{}\nids", before.trim())
    );
    // The diff: added lines only, each an id.
    let numstat = git_home(&dir, home, &["diff", "--numstat", "HEAD~1", "HEAD"]);
    assert_eq!(numstat, "18\t0\tlevels/test.level\n2\t0\tloc.json\n");
    let diff = git_home(
        &dir,
        home,
        &["diff", "--no-ext-diff", "-U0", "HEAD~1", "HEAD"],
    );
    for line in diff
        .lines()
        .filter(|l| l.starts_with('+') && !l.starts_with("+++"))
    {
        let l = line.trim_start_matches('+').trim();
        assert!(
            l.starts_with("id = \"") || l.starts_with("\"id\": \""),
            "{line}"
        );
    }
    // The JSON asset stays strict JSON.
    let loc: serde_json::Value = serde_json::from_str(&read(&dir.join("loc.json"))).unwrap();
    assert_eq!(loc["lines"][1]["en"], "Quit");
    assert_eq!(loc["lines"][1]["id"].as_str().unwrap().len(), 36);
    assert!(git_home(&dir, home, &["status", "--porcelain"]).is_empty());
    assetvc_expect(&dir, home, &["check"], 0);
    fsck_clean(&dir, home);

    // Idempotent: nothing to do, no commit, exit 0.
    let (_, stderr) = assetvc_expect(&dir, home, &["migrate"], 0);
    assert!(stderr.contains("nothing to migrate"), "{stderr}");
    assert_eq!(git_home(&dir, home, &["rev-parse", "HEAD"]), head);
    let (stdout, _) = assetvc_expect(&dir, home, &["migrate", "--json"], 0);
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["commit"], serde_json::Value::Null);
    assert_eq!(report["files"], serde_json::json!([]));
}

/// Everything a dry run must leave as it was.
fn snapshot(dir: &Path, home: &Path) -> Vec<String> {
    vec![
        git_home(
            dir,
            home,
            &["for-each-ref", "--format=%(refname) %(objectname)"],
        ),
        git_home(dir, home, &["rev-parse", "HEAD"]),
        git_home(dir, home, &["count-objects", "-v"]),
        format!("{:?}", std::fs::read(dir.join(".git/index")).unwrap()),
        read(&dir.join("levels/test.level")),
        read(&dir.join("loc.json")),
        git_home(dir, home, &["status", "--porcelain"]),
    ]
}

#[test]
fn a_dry_run_reports_per_file_and_touches_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let dir = repo_with_level(home, "r");
    let before = snapshot(&dir, home);
    let (stdout, stderr) = assetvc_expect(&dir, home, &["migrate", "--dry-run"], 0);
    // Each array that would get ids, by its path, with how many elements.
    let mut expected =
        String::from("levels/test.level: 7 arrays, 18 elements\n  /units: 6 elements\n");
    for i in 0..6 {
        expected.push_str(&format!("  /units/{i}/components: 2 elements\n"));
    }
    expected.push_str("loc.json: 1 array, 2 elements\n  /lines: 2 elements\n");
    assert_eq!(stdout, expected);
    assert!(
        stderr.contains("dry run: 2 files of 2 would get ids: 8 arrays, 20 elements"),
        "{stderr}"
    );
    let (stdout, _) = assetvc_expect(&dir, home, &["migrate", "--dry-run", "--json"], 0);
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["dry_run"], true);
    assert_eq!(report["commit"], serde_json::Value::Null);
    assert_eq!(report["files"][1]["elements"], 2);
    assert_eq!(report["files"][1]["places"][0]["pointer"], "/lines");
    assert_eq!(report["files"][1]["places"][0]["elements"], 2);
    assert_eq!(report["files"][0]["places"].as_array().unwrap().len(), 7);
    assert_eq!(snapshot(&dir, home), before);
}

#[test]
fn unparsable_files_are_reported_and_left_while_the_others_migrate() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let dir = repo_with_level(home, "r");
    let broken = "units = [\n\t{ unit = \"x\" }\n";
    std::fs::write(dir.join("levels/broken.level"), broken).unwrap();
    git_home(&dir, home, &["add", "."]);
    git_home(&dir, home, &["commit", "-q", "--no-verify", "-m", "broken"]);
    let (stdout, stderr) = assetvc_expect(&dir, home, &["migrate", "--json"], 1);
    assert!(
        stderr.contains("levels/broken.level:3:1: "),
        "path:line:col: reason\n{stderr}"
    );
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["problems"][0]["path"], "levels/broken.level");
    assert_eq!(report["problems"][0]["line"], 3);
    assert_eq!(report["files"].as_array().unwrap().len(), 2);
    assert!(report["commit"].is_string());
    // The broken file is the same blob; the others were migrated.
    let changed = git_home(&dir, home, &["diff", "--name-only", "HEAD~1", "HEAD"]);
    assert_eq!(changed, "levels/test.level\nloc.json\n");
    assert_eq!(read(&dir.join("levels/broken.level")), broken);
    assert!(read(&dir.join("levels/test.level")).contains("\t\tid = \""));
    assert!(git_home(&dir, home, &["status", "--porcelain"]).is_empty());
    fsck_clean(&dir, home);
    // Again: still the broken file, nothing else to do, no commit.
    let head = git_home(&dir, home, &["rev-parse", "HEAD"]);
    let (_, stderr) = assetvc_expect(&dir, home, &["migrate"], 1);
    assert!(stderr.contains("nothing to migrate"), "{stderr}");
    assert_eq!(git_home(&dir, home, &["rev-parse", "HEAD"]), head);
}

#[test]
fn local_changes_to_touched_files_refuse_and_others_are_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let dir = repo_with_level(home, "r");
    let head = git_home(&dir, home, &["rev-parse", "HEAD"]);
    let edited = level(&BASE_UNITS).replace("fog = 0.1", "fog = 0.5");
    std::fs::write(dir.join("levels/test.level"), &edited).unwrap();
    let (_, stderr) = assetvc_expect(&dir, home, &["migrate"], 2);
    assert!(stderr.contains("levels/test.level"), "{stderr}");
    assert_eq!(git_home(&dir, home, &["rev-parse", "HEAD"]), head);
    assert_eq!(read(&dir.join("levels/test.level")), edited);
    // A local change to a file the migration does not touch stays, uncommitted.
    std::fs::write(dir.join("levels/test.level"), level(&BASE_UNITS)).unwrap();
    std::fs::write(dir.join("notes.txt"), "edited\n").unwrap();
    assetvc_expect(&dir, home, &["migrate"], 0);
    assert_eq!(
        git_home(&dir, home, &["status", "--porcelain"]),
        " M notes.txt\n"
    );
    assert_eq!(read(&dir.join("notes.txt")), "edited\n");
    // Staged changes: refused.
    git_home(&dir, home, &["add", "notes.txt"]);
    let head = git_home(&dir, home, &["rev-parse", "HEAD"]);
    let (_, stderr) = assetvc_expect(&dir, home, &["migrate"], 2);
    assert!(stderr.contains("staged"), "{stderr}");
    assert_eq!(git_home(&dir, home, &["rev-parse", "HEAD"]), head);
}

#[test]
fn a_bare_repository_migrates_its_branches_and_other_revisions_move_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let work = repo_with_level(home, "work");
    let bare = home.join("server.git");
    git_home(
        home,
        home,
        &["init", "-q", "--bare", "-b", "main", "server.git"],
    );
    git_home(
        &work,
        home,
        &["push", "-q", bare.to_str().unwrap(), "main", "main:dev"],
    );
    git_home(&work, home, &["tag", "v1"]);
    git_home(&work, home, &["push", "-q", bare.to_str().unwrap(), "v1"]);
    let old = git_home(&bare, home, &["rev-parse", "main"]);

    // A tag: the new commit is printed, nothing moves.
    let (stdout, _) = assetvc_expect(&bare, home, &["migrate", "--rev", "v1"], 0);
    let printed = stdout.trim().to_string();
    assert_eq!(printed.len(), 40, "{stdout}");
    assert_eq!(git_home(&bare, home, &["rev-parse", "main"]), old);
    assert_eq!(git_home(&bare, home, &["rev-parse", "v1^{commit}"]), old);
    assert_eq!(
        git_home(&bare, home, &["rev-parse", &format!("{printed}^")]),
        old
    );

    // HEAD moves main.
    let (_, stderr) = assetvc_expect(&bare, home, &["migrate"], 0);
    assert!(stderr.contains("main moved"), "{stderr}");
    let new = git_home(&bare, home, &["rev-parse", "main"]);
    assert_ne!(new, old);
    assert_eq!(git_home(&bare, home, &["rev-parse", "main^"]), old);
    let level = git_home(&bare, home, &["show", "main:levels/test.level"]);
    assert_eq!(ids_by_unit(&level).len(), 6);
    assert_eq!(git_home(&bare, home, &["rev-parse", "dev"]), old);

    // A branch by name.
    let (_, stderr) = assetvc_expect(&bare, home, &["migrate", "--rev", "dev"], 0);
    assert!(stderr.contains("dev moved"), "{stderr}");
    assert_eq!(git_home(&bare, home, &["rev-parse", "dev^"]), old);
    assetvc_expect(&bare, home, &["migrate", "--rev", "main"], 0);
    assert_eq!(git_home(&bare, home, &["rev-parse", "main"]), new);
    fsck_clean(&bare, home);

    // Unknown revision: exit 2.
    assetvc_expect(&bare, home, &["migrate", "--rev", "nope"], 2);
}

/// Regression: an element the old branch deleted was "modified" by the migration only
/// (ids in its nested arrays); that is no edit, so it stays deleted, without a conflict,
/// under every policy and in both directions. Compared with only its top-level id
/// ignored, it was a modify/delete conflict: `--policy ours`, or merging the migrated
/// main into the old branch, brought it back.
#[test]
fn elements_deleted_before_the_migration_stay_deleted_under_every_policy() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let dir = repo_with_level(home, "r");
    git_home(&dir, home, &["checkout", "-q", "-b", "feature"]);
    std::fs::write(dir.join("levels/test.level"), level(&feature_units())).unwrap();
    git_home(
        &dir,
        home,
        &["commit", "-q", "--no-verify", "-am", "feature"],
    );
    git_home(&dir, home, &["checkout", "-q", "main"]);
    assetvc_expect(&dir, home, &["migrate"], 0);
    let ours = read(&dir.join("levels/test.level"));
    let main_ids = ids_by_unit(&ours);
    // The old branch into the migrated main, whatever the policy: the rock the feature
    // deleted was only given ids by main (its components too), which is no edit.
    std::fs::write(dir.join("base.level"), level(&BASE_UNITS)).unwrap();
    std::fs::write(dir.join("feature.level"), level(&feature_units())).unwrap();
    for policy in ["ours", "fail", "theirs"] {
        let (merged, stderr) = assetvc_expect(
            &dir,
            home,
            &[
                "merge-file",
                "-p",
                "--policy",
                policy,
                "levels/test.level",
                "base.level",
                "feature.level",
            ],
            0,
        );
        assert!(!stderr.contains("conflict"), "{policy}: {stderr}");
        check_merged(&merged, &main_ids, policy);
    }
    // The migrated main into the old branch, default policy: the rock stays deleted.
    std::fs::remove_file(dir.join("base.level")).unwrap();
    std::fs::remove_file(dir.join("feature.level")).unwrap();
    git_home(&dir, home, &["checkout", "-q", "feature"]);
    let (_, stderr) = assetvc_expect(&dir, home, &["merge", "main"], 0);
    assert!(stderr.contains("merged cleanly"), "{stderr}");
    check_merged(
        &read(&dir.join("levels/test.level")),
        &main_ids,
        "main into feature",
    );
}
