//! End to end: the merge journal with real `git merge`, `git rebase` and `assetvc merge`:
//! `conflicts` shows whole operations, a merge commit made by git lists what was resolved,
//! `resolve` redoes one choice, policies `upstream`/`local` mean the same everywhere, and
//! the driver's registration with `--` merges files named like options.

use crate::common;

use std::path::Path;

use common::{assetvc_expect, git_home, git_home_output};

const BASE: &str = common::TEST_LEVEL;
const OTHER: &str = "a = 1\nb = 2\n";

fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap()
}

/// A repository set up by `assetvc install`, with `level.sjson` and `other.sjson`.
fn setup(dir: &Path, toml: Option<&str>) {
    git_home(dir, dir, &["init", "-q", "-b", "main"]);
    assetvc_expect(dir, dir, &["install"], 0);
    std::fs::write(dir.join("level.sjson"), BASE).unwrap();
    std::fs::write(dir.join("other.sjson"), OTHER).unwrap();
    if let Some(t) = toml {
        std::fs::write(dir.join("assetvc.toml"), t).unwrap();
    }
    git_home(dir, dir, &["add", "."]);
    git_home(dir, dir, &["commit", "-q", "-m", "base"]);
}

fn commit(dir: &Path, message: &str, edits: &[(&str, &str, &str)]) {
    for (file, from, to) in edits {
        let text = read(dir, file);
        assert!(text.contains(from), "{file} has no {from:?}");
        std::fs::write(dir.join(file), text.replacen(from, to, 1)).unwrap();
    }
    git_home(dir, dir, &["commit", "-q", "-am", message]);
}

const E1_TINT: &str = "name = \"crate\"\n\t\tposition = [0 0 0]\n\t\ttint = \"white\"";
const E2_TINT: &str = "name = \"barrel\"\n\t\tposition = [5 0 0]\n\t\ttint = \"white\"";

fn tint(which: &str, colour: &str) -> String {
    let from = if which == "e1" { E1_TINT } else { E2_TINT };
    from.replace("\"white\"", &format!("\"{colour}\""))
}

/// Two branches that both change e1's and e2's tint, the fog and other.sjson's `a`.
fn diverge(dir: &Path) {
    git_home(dir, dir, &["checkout", "-q", "-b", "theirs"]);
    let (t1, t2) = (tint("e1", "green"), tint("e2", "yellow"));
    commit(
        dir,
        "theirs",
        &[
            ("level.sjson", E1_TINT, &t1),
            ("level.sjson", E2_TINT, &t2),
            ("level.sjson", "fog = 0.1", "fog = 0.3"),
            ("other.sjson", "a = 1", "a = 3"),
        ],
    );
    git_home(dir, dir, &["checkout", "-q", "main"]);
    let (o1, o2) = (tint("e1", "red"), tint("e2", "blue"));
    commit(
        dir,
        "ours",
        &[
            ("level.sjson", E1_TINT, &o1),
            ("level.sjson", E2_TINT, &o2),
            ("level.sjson", "fog = 0.1", "fog = 0.2"),
            ("other.sjson", "a = 1", "a = 2"),
        ],
    );
}

#[test]
fn resolve_after_git_merge_changes_one_object_and_nothing_else() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    setup(dir, None);
    diverge(dir);
    let out = git_home_output(dir, dir, &["merge", "--no-edit", "theirs"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The merge commit made by git lists what the driver resolved (prepare-commit-msg).
    let message = git_home(dir, dir, &["log", "-1", "--format=%B"]);
    assert!(
        message.starts_with(
            "Merge branch 'theirs'\n\nassetvc resolved 4 conflicts by policy theirs:\n"
        ),
        "{message}"
    );
    assert!(
        message.contains("level.sjson entities[crate #e1].tint: both modified, took theirs\n"),
        "{message}"
    );
    let merged = read(dir, "level.sjson");
    let other = read(dir, "other.sjson");
    assert!(merged.contains(&tint("e1", "green")) && merged.contains("fog = 0.3"));

    // An ambiguous prefix lists the candidates by name and id, and changes nothing.
    let (_, err) = assetvc_expect(
        dir,
        dir,
        &["resolve", "level.sjson", "e", "--take", "ours"],
        2,
    );
    assert!(err.contains("ambiguous"), "{err}");
    assert!(
        err.contains("crate #e1") && err.contains("barrel #e2"),
        "{err}"
    );
    assert_eq!(read(dir, "level.sjson"), merged);

    // One object, by name: only its conflicting nodes change.
    let (stdout, _) = assetvc_expect(
        dir,
        dir,
        &["resolve", "level.sjson", "crate", "--take", "ours"],
        0,
    );
    assert_eq!(
        stdout,
        "level.sjson /entities/[id=e1]/tint: took ours: \"red\"\n"
    );
    assert_eq!(
        read(dir, "level.sjson"),
        merged.replace(&tint("e1", "green"), &tint("e1", "red"))
    );
    assert_eq!(read(dir, "other.sjson"), other, "other files untouched");

    // Every conflict of the file, from the base.
    let (json, _) = assetvc_expect(
        dir,
        dir,
        &[
            "resolve",
            "level.sjson",
            "--all",
            "--take",
            "base",
            "--json",
        ],
        0,
    );
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(json["changed"].as_array().unwrap().len(), 3, "{json}");
    assert_eq!(read(dir, "level.sjson"), BASE);
    assert_eq!(read(dir, "other.sjson"), other);

    // A file that does not parse is refused and left as it is.
    std::fs::write(dir.join("level.sjson"), "entities = [\n").unwrap();
    let (_, err) = assetvc_expect(
        dir,
        dir,
        &["resolve", "level.sjson", "--all", "--take", "ours"],
        2,
    );
    assert!(err.contains("level.sjson:2:1:"), "{err}");
    assert_eq!(read(dir, "level.sjson"), "entities = [\n");
}

#[test]
fn a_rebase_is_one_operation_and_resolve_takes_the_upstream_of_its_step() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    setup(dir, None);
    // Upstream: e1 blue, fog 0.2. Local: two commits, e1 red, then fog 0.9.
    git_home(dir, dir, &["checkout", "-q", "-b", "feature"]);
    let red = tint("e1", "red");
    commit(dir, "local 1", &[("level.sjson", E1_TINT, &red)]);
    commit(dir, "local 2", &[("level.sjson", "fog = 0.1", "fog = 0.9")]);
    git_home(dir, dir, &["checkout", "-q", "main"]);
    let blue = tint("e1", "blue");
    commit(
        dir,
        "upstream",
        &[
            ("level.sjson", E1_TINT, &blue),
            ("level.sjson", "fog = 0.1", "fog = 0.2"),
            ("other.sjson", "b = 2", "b = 5"),
        ],
    );
    git_home(dir, dir, &["checkout", "-q", "feature"]);
    let out = git_home_output(dir, dir, &["rebase", "main"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Policy theirs: in a rebase, the replayed (local) commit wins.
    let rebased = read(dir, "level.sjson");
    assert!(
        rebased.contains(&red) && rebased.contains("fog = 0.9"),
        "{rebased}"
    );

    // Both steps, not only the last.
    let (text, _) = assetvc_expect(dir, dir, &["conflicts"], 0);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(lines[0].starts_with("rebase of feature onto "), "{text}");
    assert!(
        lines[1].starts_with("[1/2 ")
            && lines[1]
                .ends_with("level.sjson entities[crate #e1].tint: both modified, took theirs"),
        "{text}"
    );
    assert!(
        lines[2].starts_with("[2/2 ")
            && lines[2].ends_with("level.sjson settings.fog: both modified, took theirs"),
        "{text}"
    );
    let (json, _) = assetvc_expect(dir, dir, &["conflicts", "--json"], 0);
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(json["operation"]["kind"], "rebase");
    assert_eq!(json["operation"]["branch"], "feature");
    assert_eq!(json["files"][0]["sides"]["ours"], "upstream");
    assert_eq!(json["files"][0]["conflicts"][0]["kept"], "local");

    // The upstream's tint back for e1, from step 1's versions; the fog (step 2) stays.
    let other = read(dir, "other.sjson");
    assetvc_expect(
        dir,
        dir,
        &["resolve", "level.sjson", "e1", "--take", "upstream"],
        0,
    );
    assert_eq!(read(dir, "level.sjson"), rebased.replace(&red, &blue));
    assert_eq!(read(dir, "other.sjson"), other);
}

#[test]
fn policy_local_keeps_local_work_in_a_merge_and_in_a_rebase() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    setup(dir, Some("[merge]\npolicy = \"local\"\n"));
    diverge(dir);
    // Merge: local is main (ours).
    let out = git_home_output(dir, dir, &["merge", "--no-edit", "theirs"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr
            .contains("level.sjson: merged, 3 conflicts resolved (kept local: ours in this merge)"),
        "{stderr}"
    );
    assert!(read(dir, "level.sjson").contains("fog = 0.2"));
    let (text, _) = assetvc_expect(dir, dir, &["conflicts"], 0);
    assert!(
        text.contains("level.sjson settings.fog: both modified, kept local (ours in this merge)"),
        "{text}"
    );

    // Rebase `theirs` onto main: local is the replayed commit (git's theirs).
    git_home(dir, dir, &["reset", "-q", "--hard", "HEAD~1"]);
    git_home(dir, dir, &["checkout", "-q", "theirs"]);
    let out = git_home_output(dir, dir, &["rebase", "main"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("(kept local: theirs in this rebase)"),
        "{stderr}"
    );
    assert!(
        read(dir, "level.sjson").contains("fog = 0.3"),
        "the rebased branch's own value"
    );
    let (text, _) = assetvc_expect(dir, dir, &["conflicts", "--all"], 0);
    let headings: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with(['[', 'l', 'o']))
        .collect();
    assert_eq!(headings.len(), 2, "{text}");
    assert!(headings[0].starts_with("merge of theirs:"), "{text}");
    assert!(headings[1].starts_with("rebase of theirs onto "), "{text}");
    assert!(
        text.contains(
            "level.sjson settings.fog: both modified, kept local (theirs in this rebase)"
        ),
        "{text}"
    );
}

#[test]
fn resolve_after_assetvc_merge_uses_the_versions_read_from_the_commits() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    setup(dir, None);
    diverge(dir);
    assetvc_expect(dir, dir, &["merge", "theirs"], 0);
    let merged = read(dir, "level.sjson");
    assert!(merged.contains(&tint("e2", "yellow")));
    assetvc_expect(
        dir,
        dir,
        &["resolve", "level.sjson", "barrel", "--take", "local"],
        0,
    );
    assert_eq!(
        read(dir, "level.sjson"),
        merged.replace(&tint("e2", "yellow"), &tint("e2", "blue"))
    );
    let (_, err) = assetvc_expect(
        dir,
        dir,
        &["resolve", "notes.sjson", "--all", "--take", "ours"],
        2,
    );
    assert!(err.contains("no recorded merge"), "{err}");
}

#[test]
fn files_named_like_options_merge_with_git() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    git_home(dir, dir, &["init", "-q", "-b", "main"]);
    std::fs::write(dir.join(".gitattributes"), "*.level merge=assetvc\n").unwrap();
    let names = ["-h.level", "--x.level", "-p.level"];
    for n in names {
        std::fs::write(dir.join(n), BASE).unwrap();
    }
    // An outdated registration (no `--`) is flagged, and install fixes it.
    let exe = env!("CARGO_BIN_EXE_assetvc");
    git_home(
        dir,
        dir,
        &[
            "config",
            "merge.assetvc.driver",
            &format!("{exe} merge-driver %O %A %B %P"),
        ],
    );
    let (doctor, _) = assetvc_expect(dir, dir, &["doctor"], 1);
    assert!(doctor.contains("is outdated"), "{doctor}");
    // The subcommand's registration works (the rest is not set up yet: status 1); doctor
    // says the lean binary is faster.
    git_home(
        dir,
        dir,
        &[
            "config",
            "merge.assetvc.driver",
            &format!("{exe} merge-driver -- %O %A %B %P"),
        ],
    );
    let (doctor, _) = assetvc_expect(dir, dir, &["doctor"], 1);
    assert!(
        doctor.contains("ok       merge-driver")
            && doctor.contains("registers the faster assetvc-merge-driver"),
        "{doctor}"
    );
    assetvc_expect(dir, dir, &["install"], 0);
    let driver = git_home(dir, dir, &["config", "merge.assetvc.driver"]);
    assert!(
        driver
            .trim_end()
            .ends_with("/assetvc-merge-driver -- %O %A %B %P"),
        "{driver}"
    );

    git_home(dir, dir, &["add", "--", "."]);
    git_home(dir, dir, &["commit", "-q", "-m", "base"]);
    git_home(dir, dir, &["checkout", "-q", "-b", "b"]);
    for n in names {
        std::fs::write(dir.join(n), BASE.replace("fog = 0.1", "fog = 0.5")).unwrap();
    }
    git_home(dir, dir, &["commit", "-q", "-am", "b"]);
    git_home(dir, dir, &["checkout", "-q", "main"]);
    for n in names {
        std::fs::write(dir.join(n), BASE.replace("[5 0 0]", "[6 0 0]")).unwrap();
    }
    git_home(dir, dir, &["commit", "-q", "-am", "a"]);
    let out = git_home_output(dir, dir, &["merge", "--no-edit", "b"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let want = BASE
        .replace("fog = 0.1", "fog = 0.5")
        .replace("[5 0 0]", "[6 0 0]");
    for n in names {
        assert_eq!(read(dir, n), want, "{n}");
    }
}

#[test]
fn a_cherry_pick_is_named_and_upstream_means_the_picked_commit() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    setup(dir, Some("[merge]\npolicy = \"upstream\"\n"));
    diverge(dir);
    let out = git_home_output(dir, dir, &["cherry-pick", "theirs"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        read(dir, "level.sjson").contains("fog = 0.3"),
        "the picked commit's value"
    );
    let (text, _) = assetvc_expect(dir, dir, &["conflicts"], 0);
    assert!(text.starts_with("cherry-pick: "), "{text}");
    assert!(
        text.contains(
            "level.sjson settings.fog: both modified, kept upstream (theirs in this cherry-pick)"
        ),
        "{text}"
    );
}

/// A binary file both branches changed is left unmerged by git (no driver merges it):
/// `conflicts` lists it beside what the driver resolved, in text and JSON.
#[test]
fn conflicts_lists_a_binary_file_git_left_unmerged() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    setup(dir, None);
    std::fs::write(dir.join("tex.bin"), [0u8, 1, 2, 3, 0, 255]).unwrap();
    git_home(dir, dir, &["add", "tex.bin"]);
    git_home(dir, dir, &["commit", "-q", "-m", "texture"]);
    git_home(dir, dir, &["checkout", "-q", "-b", "theirs"]);
    std::fs::write(dir.join("tex.bin"), [0u8, 9, 9, 9, 0, 255]).unwrap();
    commit(dir, "theirs", &[("other.sjson", "a = 1", "a = 3")]);
    git_home(dir, dir, &["checkout", "-q", "main"]);
    std::fs::write(dir.join("tex.bin"), [0u8, 7, 7, 7, 0, 255]).unwrap();
    commit(dir, "ours", &[("other.sjson", "a = 1", "a = 2")]);
    let out = git_home_output(dir, dir, &["merge", "--no-edit", "theirs"]);
    assert!(!out.status.success(), "git should leave tex.bin conflicted");
    let (text, _) = assetvc_expect(dir, dir, &["conflicts"], 0);
    assert!(
        text.contains("other.sjson a: both modified, took theirs"),
        "{text}"
    );
    assert!(
        text.contains("tex.bin: unmerged in the index, left for you to resolve"),
        "{text}"
    );
    let (json, _) = assetvc_expect(dir, dir, &["conflicts", "--json"], 0);
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        value["unmerged"],
        serde_json::json!(["tex.bin"]),
        "{value:#}"
    );
}

#[test]
fn conflicts_all_says_when_a_merge_was_undone() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    setup(dir, None);
    diverge(dir);
    let out = git_home_output(dir, dir, &["merge", "--no-commit", "theirs"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // In progress: reported as it is.
    let (listed, _) = assetvc_expect(dir, dir, &["conflicts", "--all"], 0);
    assert!(
        listed.starts_with("merge of theirs: 2 file merges, 4 conflicts"),
        "{listed}"
    );
    assert!(!listed.contains("undone"), "{listed}");
    git_home(dir, dir, &["merge", "--abort"]);
    let (listed, _) = assetvc_expect(dir, dir, &["conflicts", "--all"], 0);
    assert!(
        listed.starts_with(
            "merge of theirs: 2 file merges, 4 conflicts resolved by policy (undone: not in HEAD"
        ),
        "{listed}"
    );
    assert!(!listed.contains("took theirs"), "{listed}");
    let (json, _) = assetvc_expect(dir, dir, &["conflicts", "--all", "--json"], 0);
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(json["operations"][0]["undone"], true, "{json}");
    // Merged for real: in HEAD's history, listed with its conflicts.
    let out = git_home_output(dir, dir, &["merge", "--no-edit", "theirs"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (listed, _) = assetvc_expect(dir, dir, &["conflicts", "--all"], 0);
    assert!(
        !listed.contains("undone") && listed.contains("took theirs"),
        "{listed}"
    );
    // The journal keeps the versions as blob ids, not as copies of the files.
    let journal = dir.join(".git/assetvc/journal");
    let mut kept = Vec::new();
    for op in std::fs::read_dir(&journal).unwrap().flatten() {
        for v in std::fs::read_dir(op.path().join("versions"))
            .into_iter()
            .flatten()
            .flatten()
        {
            kept.push(v.file_name().to_string_lossy().into_owned());
        }
    }
    assert!(
        !kept.is_empty() && kept.iter().all(|k| k.ends_with(".ids")),
        "{kept:?}"
    );
}
