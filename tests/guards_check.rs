//! End to end: `assetvc check` on a worktree runs the guards' checks (the same as the
//! hooks), prints `path:line:col: reason` with the source line, and `--json`.

use crate::common;

use std::path::Path;
use std::process::Output;

use common::{assetvc, git_home, run, write};

fn check(dir: &Path, args: &[&str]) -> Output {
    run(assetvc()
        .arg("check")
        .args(args)
        .current_dir(dir)
        .env("HOME", dir)
        .env("GIT_CONFIG_NOSYSTEM", "1"))
}

#[test]
fn check_reports_every_kind_of_problem() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    git_home(dir, dir, &["init", "-q", "-b", "main"]);
    write(
        dir,
        "assetvc.toml",
        "[check]\nrequire_ids = true\n\n[[expressions]]\nkeys = [\"*_expr\"]\nvariables = [\"t\"]\n",
    );
    write(
        dir,
        "levels/good.level",
        "units = [ { id = a } { id = b } ]\nnums = [1 2 3]\n",
    );
    write(
        dir,
        "levels/dup.level",
        "units = [\n\t{ id = a }\n\t{ Id = a }\n]\n",
    );
    write(dir, "levels/noids.level", "units = [\n\t{ name = a }\n]\n");
    write(dir, "levels/broken.level", "a = {\n");
    write(dir, "fx/e.particles", "size_expr = \"t +\"\n");
    write(dir, "scripts/s.lua", "local function f(\nend\n");
    write(
        dir,
        "docs/merge.txt",
        "a\n<<<<<<< ours\nb\n=======\nc\n>>>>>>> theirs\n",
    );
    write(dir, "docs/heading.md", "Title\n=======\n");
    std::fs::write(dir.join("docs/blob.bin"), b"\0\0<<<<<<< x\n").unwrap();
    write(dir, "ignored/x.level", "a = {\n");
    write(dir, ".gitignore", "ignored/\n");

    let out = check(dir, &[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    for expected in [
        "./levels/dup.level:3:4: duplicate id \"a\" in this array (first at line 2)\n    \t{ Id = a }\n",
        "./levels/noids.level:2:2: 1 of the 1 objects in this array have no id",
        "./levels/broken.level:2:1: ",
        "./fx/e.particles:1:17: expression in `size_expr` does not compile",
        "./scripts/s.lua:2:1: Lua: ",
        "./docs/merge.txt:2:1: unresolved merge conflict (conflict marker `<<<<<<<`)\n    <<<<<<< ours\n    ^\n",
    ] {
        assert!(stdout.contains(expected), "missing {expected:?} in:\n{stdout}");
    }
    for absent in ["good.level", "heading.md", "blob.bin", "ignored/"] {
        assert!(!stdout.contains(absent), "{absent} reported:\n{stdout}");
    }
    assert!(stderr.contains("6 problems"), "{stderr}");

    // JSON: the same problems with their check, in path order.
    let out = check(dir, &["--json", "levels", "docs/merge.txt"]);
    assert_eq!(out.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["files_checked"], 5);
    let checks: Vec<&str> = report["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["check"].as_str().unwrap())
        .collect();
    assert_eq!(
        checks,
        ["conflict-marker", "parse", "duplicate-id", "missing-id"],
        "{report:#}"
    );
    assert_eq!(report["problems"][2]["line"], 3);
    assert_eq!(report["problems"][2]["col"], 4);
    assert_eq!(report["problems"][2]["source_line"], "\t{ Id = a }");

    // Clean paths pass; a missing path is a usage error.
    let out = check(dir, &["levels/good.level", "docs/heading.md"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let out = check(dir, &["nope"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no such file"));
    // An invalid assetvc.toml is a problem found, at its line and column (issue 13).
    write(dir, "assetvc.toml", "[check]\ncommand = \"x\"\n");
    let out = check(dir, &["levels/good.level"]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("assetvc.toml:2:1: unknown field `command`"),
        "{stdout}"
    );
}
