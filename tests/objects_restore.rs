//! End to end, `assetvc restore` and `assetvc show` with real git: one object put back as
//! it was at a revision while every other byte of the file (other objects' edits,
//! comments, odd spacing) stays as it is; a deleted object re-created at its place; an
//! unparsable file refused and left untouched.

use crate::common;

use std::path::Path;

use common::{assetvc_expect, git};

const LEVEL: &str = "// the courtyard\nentities = [\n\t{\n\t\tid = \"d00r0000-aaaa\"\n\t\tname = \"door\"\n\t\tpos = [0 0 0]\n\t\tscale = 1\n\t}\n\t{\n\t\tid = \"6a7e0000-bbbb\"\n\t\tname = \"gate\"   // keep this spacing\n\t\tpos = [1 1 1]\n\t}\n\t{\n\t\tid = \"3a110000-cccc\"\n\t\tname = \"wall\"\n\t\tpos = [2 2 2]\n\t}\n]\n";

fn setup() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    git(dir, &["init", "-q", "-b", "main"]);
    std::fs::create_dir(dir.join("levels")).unwrap();
    std::fs::write(dir.join("levels/yard.level"), LEVEL).unwrap();
    git(dir, &["add", "."]);
    git(dir, &["commit", "-q", "-m", "yard"]);
    tmp
}

fn read(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("levels/yard.level")).unwrap()
}

#[test]
fn restore_changes_only_the_chosen_object() {
    let tmp = setup();
    let dir = tmp.path();
    // Committed edits to the door and the gate, then an uncommitted one to the wall.
    let edited = LEVEL
        .replace(
            "pos = [0 0 0]\n\t\tscale = 1\n",
            "pos = [5 0 0]\n\t\tlocked = true\n",
        )
        .replace("pos = [1 1 1]", "pos = [1 9 1]");
    std::fs::write(dir.join("levels/yard.level"), &edited).unwrap();
    git(dir, &["commit", "-q", "-am", "edits"]);
    let worktree = edited.replace("name = \"wall\"", "name = \"big wall\"");
    std::fs::write(dir.join("levels/yard.level"), &worktree).unwrap();

    let (out, _) = assetvc_expect(dir, dir, &["restore", "door", "--source", "HEAD~1"], 0);
    assert_eq!(
        out,
        "restored door #d00r0000 in levels/yard.level as at HEAD~1\n"
    );
    // The door is back (scale re-created after pos, locked gone); the gate's committed
    // edit and the wall's uncommitted one are untouched, byte for byte.
    assert_eq!(
        read(dir),
        LEVEL
            .replace("pos = [1 1 1]", "pos = [1 9 1]")
            .replace("name = \"wall\"", "name = \"big wall\"")
    );
    // Again: nothing to do.
    let (out, _) = assetvc_expect(dir, dir, &["restore", "door", "--source", "HEAD~1"], 0);
    assert!(out.contains("is already as at HEAD~1"), "{out}");

    // By FILE#ID prefix, with --json.
    let (out, _) = assetvc_expect(
        dir,
        dir,
        &[
            "restore",
            "levels/yard.level#6a7e",
            "--source",
            "HEAD~1",
            "--json",
        ],
        0,
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["result"], "restored");
    assert_eq!(v["id"], "6a7e0000-bbbb");
    assert_eq!(
        read(dir),
        LEVEL.replace("name = \"wall\"", "name = \"big wall\"")
    );
}

#[test]
fn restore_recreates_a_deleted_object_at_its_place() {
    let tmp = setup();
    let dir = tmp.path();
    let start = LEVEL.find("\t{\n\t\tid = \"6a7e").unwrap();
    let end = LEVEL.find("\t{\n\t\tid = \"3a11").unwrap();
    let without_gate = format!("{}{}", &LEVEL[..start], &LEVEL[end..]);
    std::fs::write(dir.join("levels/yard.level"), &without_gate).unwrap();
    git(dir, &["commit", "-q", "-am", "no gate"]);
    // The gate is gone from HEAD: it is named as it was at the source revision.
    let (_, err) = assetvc_expect(dir, dir, &["show", "gate"], 2);
    assert!(err.contains("no object matches \"gate\""), "{err}");
    let (out, _) = assetvc_expect(dir, dir, &["restore", "gate", "--source", "HEAD~1"], 0);
    assert_eq!(
        out,
        "re-created gate #6a7e0000 in levels/yard.level as at HEAD~1\n"
    );
    // Re-created in the file's style (tabs, one member per line), its comment kept; every
    // other byte as it was.
    assert_eq!(
        read(dir),
        LEVEL.replace("\"gate\"   // keep", "\"gate\" // keep")
    );
}

#[test]
fn restore_refuses_an_unparsable_file_and_unknown_input() {
    let tmp = setup();
    let dir = tmp.path();
    let broken = LEVEL.replace("pos = [2 2 2]", "pos = [2 2 2");
    std::fs::write(dir.join("levels/yard.level"), &broken).unwrap();
    let (_, err) = assetvc_expect(dir, dir, &["restore", "door", "--source", "HEAD"], 2);
    assert!(err.contains("levels/yard.level:"), "{err}");
    assert!(err.contains("nothing was changed"), "{err}");
    assert_eq!(read(dir), broken);
    let (_, err) = assetvc_expect(dir, dir, &["restore", "door", "--source", "nope"], 2);
    assert!(err.contains("unknown revision \"nope\""), "{err}");
    assert_eq!(read(dir), broken);
}

#[test]
fn show_prints_the_object_and_where_it_lives() {
    let tmp = setup();
    let dir = tmp.path();
    let (out, _) = assetvc_expect(dir, dir, &["show", "gate"], 0);
    assert_eq!(
        out,
        "gate #6a7e0000 in levels/yard.level at /entities/[id=6a7e0000-bbbb] (worktree)\n{\n\tid = \"6a7e0000-bbbb\"\n\tname = \"gate\"   // keep this spacing\n\tpos = [1 1 1]\n}\n"
    );
    std::fs::write(
        dir.join("levels/yard.level"),
        LEVEL.replace("[2 2 2]", "[3 3 3]"),
    )
    .unwrap();
    let (out, _) = assetvc_expect(dir, dir, &["show", "3a11", "--json"], 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["value"]["pos"], serde_json::json!([3, 3, 3]));
    assert_eq!(v["revision"], "worktree");
    let (out, _) = assetvc_expect(dir, dir, &["show", "wall", "--rev", "HEAD", "--json"], 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["value"]["pos"], serde_json::json!([2, 2, 2]));
    assert_eq!(v["path"], "levels/yard.level");
    assert_eq!(v["pointer"], "/entities/[id=3a110000-cccc]");
}
