//! End to end: `assetvc diff --format changes` writes a change set and `assetvc apply`
//! merges it in elsewhere — a localization table translated on one branch, its change set
//! applied on another branch that renamed some keys meanwhile.

use crate::common;

use std::path::Path;

use common::{assetvc, data, git, run};
use sjson::Dialect;

const TABLE: &str = "// English strings, keyed by id
strings = [
	{ id = \"s1\" key = \"menu.start\" text = \"Start\" }
	{ id = \"s2\" key = \"menu.quit\" text = \"Quit\" }
	{ id = \"s3\" key = \"hud.ammo\" text = \"Ammo\" }
	{ id = \"s4\" key = \"hud.health\" text = \"Health\" }
]
language = \"en\"
";

fn assetvc_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = run(assetvc()
        .args(args)
        .current_dir(dir)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE"));
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// main: the table; `translate`: French texts and a new string; main meanwhile renames
/// two keys (the objects keep their ids).
fn setup(dir: &Path) -> String {
    git(dir, &["init", "-q", "-b", "main"]);
    std::fs::create_dir(dir.join("loc")).unwrap();
    std::fs::write(dir.join("loc/strings.sjson"), TABLE).unwrap();
    git(dir, &["add", "."]);
    git(dir, &["commit", "-q", "-m", "table"]);
    git(dir, &["checkout", "-q", "-b", "translate"]);
    let fr = TABLE
        .replace("\"Start\"", "\"Démarrer\"")
        .replace("\"Quit\"", "\"Quitter\"")
        .replace("language = \"en\"", "language = \"fr\"")
        .replace(
            "\t{ id = \"s4\"",
            "\t{ id = \"s9\" key = \"hud.armor\" text = \"Armure\" }\n\t{ id = \"s4\"",
        );
    std::fs::write(dir.join("loc/strings.sjson"), fr).unwrap();
    git(dir, &["commit", "-q", "-am", "fr"]);
    git(dir, &["checkout", "-q", "main"]);
    let renamed = TABLE
        .replace("menu.start", "menu.play")
        .replace("hud.ammo", "hud.rounds");
    std::fs::write(dir.join("loc/strings.sjson"), &renamed).unwrap();
    git(dir, &["commit", "-q", "-am", "rename keys"]);
    renamed
}

#[test]
fn a_translation_lands_on_a_branch_that_renamed_keys() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let renamed = setup(dir);
    let (code, changes, stderr) =
        assetvc_in(dir, &["diff", "--format", "changes", "main~1", "translate"]);
    assert_eq!(code, 0, "{stderr}");
    // One operation per line, each naming its file and the value it replaces.
    for line in changes.lines() {
        let op: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(op["file"], "loc/strings.sjson", "{line}");
    }
    assert!(
        changes.contains(r#""path":"/strings/[id=s1]/text","old":"Start","value":"Démarrer""#),
        "{changes}"
    );
    std::fs::write(dir.join("fr.changes"), &changes).unwrap();

    // Applied on main without FILE: the files it names, in the worktree.
    let (code, _, stderr) = assetvc_in(dir, &["apply", "fr.changes"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("loc/strings.sjson: applied cleanly"),
        "{stderr}"
    );
    let out = std::fs::read_to_string(dir.join("loc/strings.sjson")).unwrap();
    let expected = renamed
        .replace("\"Start\"", "\"Démarrer\"")
        .replace("\"Quit\"", "\"Quitter\"")
        .replace("language = \"en\"", "language = \"fr\"");
    // Same data as a merge would give: renamed keys kept, translations in, new string in
    // its place.
    let want = expected.replace(
        "\t{ id = \"s4\"",
        "\t{ id = \"s9\" key = \"hud.armor\" text = \"Armure\" }\n\t{ id = \"s4\"",
    );
    assert_eq!(
        data(&out, Dialect::Sjson),
        data(&want, Dialect::Sjson),
        "{out}"
    );
    // Untouched lines keep their bytes.
    for kept in [
        "// English strings, keyed by id\n",
        "\t{ id = \"s1\" key = \"menu.play\" text = \"Démarrer\" }\n",
        "\t{ id = \"s3\" key = \"hud.rounds\" text = \"Ammo\" }\n",
        "\t{ id = \"s4\" key = \"hud.health\" text = \"Health\" }\n",
    ] {
        assert!(out.contains(kept), "{kept:?} not in\n{out}");
    }
    // Applying the same change set again changes nothing more: every value is there.
    let (code, _, stderr) = assetvc_in(dir, &["apply", "fr.changes"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        std::fs::read_to_string(dir.join("loc/strings.sjson")).unwrap(),
        out
    );
}

#[test]
fn a_text_changed_on_both_sides_is_a_conflict_resolved_by_policy() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    setup(dir);
    let (_, changes, _) = assetvc_in(dir, &["diff", "--format", "changes", "main~1", "translate"]);
    std::fs::write(dir.join("fr.changes"), &changes).unwrap();
    let file = dir.join("loc/strings.sjson");
    let edited = std::fs::read_to_string(&file)
        .unwrap()
        .replace("\"Quit\"", "\"Exit\"");
    std::fs::write(&file, &edited).unwrap();

    // --policy fail: theirs taken, exit 1, reported like a merge conflict.
    let (code, stdout, stderr) = assetvc_in(
        dir,
        &[
            "apply",
            "--policy",
            "fail",
            "--json",
            "fr.changes",
            "loc/strings.sjson",
        ],
    );
    assert_eq!(code, 1, "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["policy"], "fail");
    let c = &report["conflicts"][0];
    assert_eq!(c["path"], "/strings/[id=s2]/text");
    assert_eq!(c["kind"], "both-modified");
    assert_eq!(
        (&c["base"], &c["ours"], &c["theirs"]),
        (&"Quit".into(), &"Exit".into(), &"Quitter".into())
    );
    assert!(std::fs::read_to_string(&file)
        .unwrap()
        .contains("\"Quitter\""));

    // --policy ours into another file with -o: ours kept, the rest applied, FILE as it was.
    std::fs::write(&file, &edited).unwrap();
    let (code, _, stderr) = assetvc_in(
        dir,
        &[
            "apply",
            "--policy",
            "ours",
            "-o",
            "out.sjson",
            "fr.changes",
            "loc/strings.sjson",
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("1 conflict resolved (ours)"), "{stderr}");
    assert!(
        stderr.contains("/strings/[id=s2]/text: both modified, took ours"),
        "{stderr}"
    );
    let out = std::fs::read_to_string(dir.join("out.sjson")).unwrap();
    assert!(
        out.contains("\"Exit\"") && out.contains("\"Démarrer\""),
        "{out}"
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), edited);
}

#[test]
fn an_empty_change_set_changes_nothing_and_bad_lines_write_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    setup(dir);
    let file = dir.join("loc/strings.sjson");
    let before = std::fs::read_to_string(&file).unwrap();
    std::fs::write(dir.join("empty.changes"), "").unwrap();
    let (code, stdout, stderr) =
        assetvc_in(dir, &["apply", "-p", "empty.changes", "loc/strings.sjson"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout, before);

    let good = r#"{"op":"set","path":"/language","old":"en","value":"de"}"#;
    for (bad, at, reason) in [
        ("{\"op\":\"set\",\"path\":", "bad.changes:2:", ""),
        (
            r#"{"op":"rename","path":"/language"}"#,
            "bad.changes:2:7: ",
            "unknown op",
        ),
        (
            r#"{"op":"set","value":1}"#,
            "bad.changes:2:1: ",
            "missing \"path\"",
        ),
        (
            r#"{"op":"destroy","path":"/strings/0","old":1}"#,
            "bad.changes:2:",
            "[id=",
        ),
        ("not json", "bad.changes:2:1: ", ""),
    ] {
        std::fs::write(dir.join("bad.changes"), format!("{good}\n{bad}\n")).unwrap();
        let (code, _, stderr) = assetvc_in(dir, &["apply", "bad.changes", "loc/strings.sjson"]);
        assert_eq!(code, 2, "{bad}: {stderr}");
        assert!(
            stderr.starts_with(at) && stderr.contains(reason),
            "{bad}: {stderr}"
        );
        assert_eq!(std::fs::read_to_string(&file).unwrap(), before, "{bad}");
    }
    // A change set that names no file needs FILE; one naming a path outside the
    // repository is refused.
    std::fs::write(dir.join("nofile.changes"), format!("{good}\n")).unwrap();
    let (code, _, stderr) = assetvc_in(dir, &["apply", "nofile.changes"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("names no file"), "{stderr}");
    let outside = r#"{"op":"set","file":"../x.sjson","path":"/a","value":1}"#;
    std::fs::write(dir.join("out.changes"), format!("{outside}\n")).unwrap();
    let (code, _, stderr) = assetvc_in(dir, &["apply", "out.changes"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("not a path inside the repository"),
        "{stderr}"
    );
    assert!(!dir.parent().unwrap().join("x.sjson").exists());
}

#[test]
fn a_change_whose_id_matches_nothing_is_reported_as_not_applied() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("strings.sjson"), TABLE).unwrap();
    let set = "{\"op\":\"set\",\"path\":\"/strings/[id=s7]/text\",\"old\":\"Ammo\",\"value\":\"Munitions\"}\n\
               {\"op\":\"set\",\"path\":\"/strings/[id=s1]/text\",\"old\":\"Start\",\"value\":\"Go\"}\n";
    std::fs::write(dir.join("some.jsonl"), set).unwrap();
    std::fs::write(dir.join("none.jsonl"), set.lines().next().unwrap()).unwrap();
    // Nothing applies: said so, even under the default policy.
    let (code, _, said) = assetvc_in(dir, &["apply", "none.jsonl", "strings.sjson"]);
    assert_eq!(code, 0, "{said}");
    assert!(
        said.contains("strings.sjson: NOT applied: 1 change of the change set names places that are not in it")
            && said.contains("/strings/[id=s7]/text: not applied: not in strings.sjson")
            && !said.contains("took ours"),
        "{said}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("strings.sjson")).unwrap(),
        TABLE
    );
    let (code, _, said) = assetvc_in(
        dir,
        &["apply", "--policy", "fail", "none.jsonl", "strings.sjson"],
    );
    assert_eq!(code, 1, "{said}");
    assert!(
        said.contains("NOT applied") && said.contains("(policy fail)"),
        "{said}"
    );
    // One of two applies: the other is counted as not applied.
    let (code, _, said) = assetvc_in(dir, &["apply", "some.jsonl", "strings.sjson"]);
    assert_eq!(code, 0, "{said}");
    assert!(
        said.contains("strings.sjson: applied; 1 change NOT applied (not in the file)"),
        "{said}"
    );
    let text = std::fs::read_to_string(dir.join("strings.sjson")).unwrap();
    assert!(text.contains("text = \"Go\""), "{text}");
}

/// A file saved while apply works on it (between apply's read and its write: held there
/// by a debug-only pause point) keeps the save; apply names it as left alone, exits 1, and
/// the other files of the change set are written.
#[test]
fn a_save_between_read_and_write_survives_and_is_reported() {
    use std::time::{Duration, Instant};
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    git(dir, &["init", "-q", "-b", "main"]);
    std::fs::write(dir.join("a.sjson"), "x = 1\n").unwrap();
    std::fs::write(dir.join("b.sjson"), "y = 1\n").unwrap();
    std::fs::write(
        dir.join("ab.changes"),
        "{\"file\":\"a.sjson\",\"op\":\"set\",\"path\":\"/x\",\"old\":1,\"value\":2}\n\
         {\"file\":\"b.sjson\",\"op\":\"set\",\"path\":\"/y\",\"old\":1,\"value\":2}\n",
    )
    .unwrap();
    let pause = dir.join("pause");
    std::fs::create_dir(&pause).unwrap();
    let child = assetvc()
        .args(["apply", "ab.changes"])
        .current_dir(dir)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env(
            "ASSETVC_PAUSE",
            format!("atomic-compare:{}", pause.display()),
        )
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let reached = pause.join("atomic-compare.reached");
    let limit = Instant::now() + Duration::from_secs(60);
    while !reached.exists() {
        assert!(Instant::now() < limit, "apply never reached its write");
        std::thread::sleep(Duration::from_millis(10));
    }
    // The editor saves a.sjson (the first file apply writes) by write-and-rename.
    std::fs::write(dir.join(".a.swp"), "x = 7\n").unwrap();
    std::fs::rename(dir.join(".a.swp"), dir.join("a.sjson")).unwrap();
    std::fs::write(pause.join("atomic-compare.go"), "").unwrap();
    let out = child.wait_with_output().unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert_eq!(
        std::fs::read_to_string(dir.join("a.sjson")).unwrap(),
        "x = 7\n"
    );
    assert!(
        said.contains("a.sjson: changed on disk since apply read it"),
        "{said}"
    );
    assert!(said.contains("left alone"), "{said}");
    assert_eq!(
        std::fs::read_to_string(dir.join("b.sjson")).unwrap(),
        "y = 2\n",
        "{said}"
    );
}
