//! End to end: `git rebase` with the driver `assetvc install` configured. During a rebase
//! git swaps the sides: the driver's %A ("ours") is the upstream the commits are replayed
//! onto and %B ("theirs") is the commit being replayed — so with policy `theirs` the
//! replayed commit, your own work, wins a true conflict, as with `git rebase -X theirs`,
//! and the text keeps the upstream's style. The rebase runs through without stopping.

use crate::common;

use std::path::Path;

use common::{assetvc_expect, data, git_home, git_home_output};
use sjson::Dialect;

const BASE: &str = "entities = [
	{
		id = \"e1\"
		position = [0 0 0]
	}
]
settings = {
	fog = 0.1
}
";

fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap()
}

#[test]
fn git_rebase_with_the_driver_replays_by_structure() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let remote = home.join("remote.git");
    git_home(
        home,
        home,
        &["init", "-q", "--bare", "-b", "main", "remote.git"],
    );
    let (a, b) = (home.join("a"), home.join("b"));
    git_home(home, home, &["clone", "-q", remote.to_str().unwrap(), "a"]);
    assetvc_expect(&a, home, &["install"], 0);
    std::fs::write(a.join("level.sjson"), BASE).unwrap();
    assetvc_expect(
        &a,
        home,
        &["commit", "-m", "base", "level.sjson", ".gitattributes"],
        0,
    );
    assetvc_expect(&a, home, &["push", "-u", "origin", "main"], 0);
    git_home(home, home, &["clone", "-q", remote.to_str().unwrap(), "b"]);
    assetvc_expect(&b, home, &["install"], 0);

    // Upstream (A): moves e1, sets the fog. Written with a comment: the upstream's style.
    let upstream = format!(
        "// upstream\n{}",
        BASE.replace("[0 0 0]", "[1 2 3]")
            .replace("fog = 0.1", "fog = 0.2")
    );
    std::fs::write(a.join("level.sjson"), &upstream).unwrap();
    assetvc_expect(&a, home, &["commit", "-a", "-m", "A"], 0);
    assetvc_expect(&a, home, &["push"], 0);

    // B: two commits: a new entity, then the fog (a true conflict with A).
    let b1 = BASE.replace(
        "\t}\n]",
        "\t}\n\t{\n\t\tid = \"e2\"\n\t\tposition = [7 7 7]\n\t}\n]",
    );
    std::fs::write(b.join("level.sjson"), &b1).unwrap();
    assetvc_expect(&b, home, &["commit", "-a", "-m", "B1: add e2"], 0);
    std::fs::write(b.join("level.sjson"), b1.replace("fog = 0.1", "fog = 0.9")).unwrap();
    assetvc_expect(&b, home, &["commit", "-a", "-m", "B2: fog"], 0);

    git_home(&b, home, &["fetch", "-q"]);
    let out = git_home_output(&b, home, &["rebase", "origin/main"]);
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let merged = read(&b, "level.sjson");
    assert_eq!(
        data(&merged, Dialect::Sjson),
        data(
            r#"{"entities": [{"id": "e1", "position": [1, 2, 3]}, {"id": "e2", "position": [7, 7, 7]}],
                "settings": {"fog": 0.9}}"#,
            Dialect::Json
        ),
        "the replayed commit (theirs during a rebase) wins the fog"
    );
    assert!(
        merged.starts_with("// upstream\n"),
        "upstream's text is ours:\n{merged}"
    );
    // A linear history on top of A's commit, and a clean worktree.
    let log = git_home(&b, home, &["log", "--format=%s", "--first-parent"]);
    assert_eq!(log, "B2: fog\nB1: add e2\nA\nbase\n");
    assert_eq!(
        git_home(&b, home, &["log", "-1", "--format=%P"])
            .split_whitespace()
            .count(),
        1
    );
    assert!(git_home(&b, home, &["status", "--porcelain"]).is_empty());
    let (conflicts, _) = assetvc_expect(&b, home, &["conflicts"], 0);
    let mut lines = conflicts.lines();
    assert!(
        lines.next().unwrap().starts_with("rebase of main onto "),
        "{conflicts}"
    );
    let line = lines.next().unwrap();
    assert!(line.starts_with("[2/2 "), "{conflicts}");
    assert!(
        line.ends_with("] level.sjson settings.fog: both modified, took theirs"),
        "{conflicts}"
    );
    assetvc_expect(&b, home, &["push"], 0);
    let fsck = git_home_output(&remote, home, &["fsck", "--strict"]);
    assert!(fsck.status.success());
}

#[test]
fn pull_rebase_points_to_git_pull_rebase() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    git_home(dir, dir, &["init", "-q", "-b", "main"]);
    let (_, said) = assetvc_expect(dir, dir, &["pull", "--rebase"], 2);
    assert!(
        said.contains("use `git pull --rebase`") && !said.contains("tip:"),
        "{said}"
    );
    let (_, said) = assetvc_expect(dir, dir, &["pull", "--rebase", "origin", "main"], 2);
    assert!(said.contains("does not rebase"), "{said}");
}
