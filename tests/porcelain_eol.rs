//! End to end: line endings. Files committed with CRLF merge into CRLF; in clones with
//! `core.autocrlf=true` (LF in the repository, CRLF on disk) `assetvc commit` stores LF,
//! `assetvc pull` and plain `git pull` write CRLF, and no line changes that the merge did not
//! mean to change.

use crate::common;

use std::path::Path;

use common::{assetvc_expect, data, git_home, git_home_output};
use sjson::Dialect;

const BASE: &str = "entities = [
	{
		id = \"e1\"
		position = [0 0 0]
	}
	{
		id = \"e2\"
		position = [5 0 0]
	}
]
settings = {
	fog = 0.1
}
";

fn crlf(text: &str) -> String {
    text.replace('\n', "\r\n")
}

fn edit_a(text: &str, nl: &str) -> String {
    text.replace("[0 0 0]", "[1 2 3]")
        .replace("fog = 0.1", "fog = 0.2")
        .replace(
            &format!("\t}}{nl}]"),
            &format!("\t}}{nl}\t{{{nl}\t\tid = \"a1\"{nl}\t\tposition = [1 1 1]{nl}\t}}{nl}]"),
        )
}

fn edit_b(text: &str) -> String {
    text.replace("[5 0 0]", "[5 5 0]")
        .replace("fog = 0.1", "fog = 0.9")
}

fn expected() -> serde_json::Value {
    data(
        r#"{"entities": [{"id": "e1", "position": [1, 2, 3]}, {"id": "e2", "position": [5, 5, 0]},
                         {"id": "a1", "position": [1, 1, 1]}],
            "settings": {"fog": 0.2}}"#,
        Dialect::Json,
    )
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap()
}

/// Every line ends with CRLF.
fn all_crlf(bytes: &[u8]) -> bool {
    bytes
        .iter()
        .enumerate()
        .all(|(i, &b)| b != b'\n' || i > 0 && bytes[i - 1] == b'\r')
}

/// Lines added and deleted by the last commit's first-parent diff, per path.
fn numstat(dir: &Path, home: &Path) -> String {
    git_home(dir, home, &["diff", "--numstat", "HEAD^1", "HEAD"])
}

#[test]
fn crlf_files_merge_into_crlf() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    git_home(dir, dir, &["init", "-q", "-b", "main"]);
    git_home(dir, dir, &["config", "core.autocrlf", "false"]);
    std::fs::write(dir.join("level.sjson"), crlf(BASE)).unwrap();
    git_home(dir, dir, &["add", "."]);
    git_home(dir, dir, &["commit", "-q", "-m", "base"]);
    git_home(dir, dir, &["checkout", "-q", "-b", "a"]);
    std::fs::write(dir.join("level.sjson"), edit_a(&crlf(BASE), "\r\n")).unwrap();
    assetvc_expect(dir, dir, &["commit", "-a", "-m", "a"], 0);
    git_home(dir, dir, &["checkout", "-q", "main"]);
    std::fs::write(dir.join("level.sjson"), edit_b(&crlf(BASE))).unwrap();
    assetvc_expect(dir, dir, &["commit", "-a", "-m", "b"], 0);
    assetvc_expect(dir, dir, &["merge", "a"], 0);
    let merged = read(&dir.join("level.sjson"));
    assert!(all_crlf(&merged), "{}", String::from_utf8_lossy(&merged));
    assert_eq!(
        data(&String::from_utf8_lossy(&merged), Dialect::Sjson),
        expected()
    );
    assert!(git_home(dir, dir, &["status", "--porcelain"]).is_empty());
    // Against ours: e1's position (1 line) and the new entity (4 lines) — the fog was ours'
    // 0.9 before and theirs' 0.2 now (1 line).
    assert_eq!(numstat(dir, dir), "6\t2\tlevel.sjson\n");
    let stored = git_home(dir, dir, &["cat-file", "-p", "HEAD:level.sjson"]);
    assert!(all_crlf(stored.as_bytes()));
}

#[test]
fn autocrlf_clones_store_lf_and_check_out_crlf() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let remote = home.join("remote.git");
    git_home(
        home,
        home,
        &["init", "-q", "--bare", "-b", "main", "remote.git"],
    );
    let seed = home.join("seed");
    git_home(
        home,
        home,
        &["clone", "-q", remote.to_str().unwrap(), "seed"],
    );
    std::fs::write(seed.join("level.sjson"), BASE).unwrap();
    std::fs::write(seed.join("notes.txt"), "one\ntwo\n").unwrap();
    git_home(&seed, home, &["add", "."]);
    git_home(&seed, home, &["commit", "-q", "-m", "base"]);
    git_home(&seed, home, &["push", "-q", "origin", "main"]);

    let clone = |name: &str| {
        git_home(
            home,
            home,
            &[
                "clone",
                "-q",
                "-c",
                "core.autocrlf=true",
                remote.to_str().unwrap(),
                name,
            ],
        );
        let dir = home.join(name);
        assetvc_expect(&dir, home, &["install"], 0);
        // install's .gitattributes is not committed in this test: keep it out of the way.
        std::fs::rename(dir.join(".gitattributes"), dir.join(".git/info/attributes")).unwrap();
        assert!(
            all_crlf(&read(&dir.join("level.sjson"))),
            "checked out with CRLF"
        );
        dir
    };
    let (a, b, c) = (clone("a"), clone("b"), clone("c"));

    // A edits in CRLF (as a Windows editor would) and publishes: the repository gets LF.
    let text_a = edit_a(&crlf(BASE), "\r\n");
    std::fs::write(a.join("level.sjson"), &text_a).unwrap();
    assetvc_expect(&a, home, &["commit", "-a", "-m", "a"], 0);
    assert!(git_home(&a, home, &["status", "--porcelain"]).is_empty());
    let stored = git_home(&a, home, &["cat-file", "-p", "HEAD:level.sjson"]);
    assert!(!stored.contains('\r'), "stored with LF:\n{stored:?}");
    assert_eq!(numstat(&a, home), "6\t2\tlevel.sjson\n");
    assetvc_expect(&a, home, &["push"], 0);

    // B and C edit the same way; B pulls with assetvc, C with plain git.
    for dir in [&b, &c] {
        std::fs::write(dir.join("level.sjson"), edit_b(&crlf(BASE))).unwrap();
        std::fs::write(dir.join("notes.txt"), "zero\r\none\r\ntwo\r\n").unwrap();
    }
    assetvc_expect(&b, home, &["commit", "-a", "-m", "b"], 0);
    git_home(&c, home, &["commit", "-q", "--no-verify", "-am", "b"]);
    assetvc_expect(&b, home, &["pull"], 0);
    let out = git_home_output(&c, home, &["pull", "--no-rebase", "--no-edit"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for dir in [&b, &c] {
        let merged = read(&dir.join("level.sjson"));
        assert!(all_crlf(&merged), "{}", String::from_utf8_lossy(&merged));
        assert_eq!(
            data(&String::from_utf8_lossy(&merged), Dialect::Sjson),
            expected()
        );
        assert!(all_crlf(&read(&dir.join("notes.txt"))));
        assert!(git_home(dir, home, &["status", "--porcelain"]).is_empty());
        let stored = git_home(dir, home, &["cat-file", "-p", "HEAD:level.sjson"]);
        assert!(!stored.contains('\r'));
        assert_eq!(numstat(dir, home), "6\t2\tlevel.sjson\n");
    }
    assert_eq!(read(&b.join("level.sjson")), read(&c.join("level.sjson")));
}
