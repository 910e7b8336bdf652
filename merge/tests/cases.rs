//! The sample cases (`tests/data/cases` of the workspace): each merged with the default
//! policy must equal its `expected.json` as data.

use crate::common;

use std::path::{Path, PathBuf};

use common::{equal_unordered, merge3, parse};
use sjson::Dialect;

fn cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/cases")
}

fn read(dir: &Path, stem: &str) -> (String, Dialect) {
    for (ext, dialect) in [("sjson", Dialect::Sjson), ("json", Dialect::Json)] {
        if let Ok(text) = std::fs::read_to_string(dir.join(format!("{stem}.{ext}"))) {
            return (text, dialect);
        }
    }
    panic!("no {stem}.* in {}", dir.display());
}

#[test]
fn shared_cases_merge_to_their_expected_documents() {
    let root = cases_dir();
    let mut count = 0;
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for dir in dirs {
        let (base, dialect) = read(&dir, "base");
        let (ours, _) = read(&dir, "ours");
        let (theirs, _) = read(&dir, "theirs");
        let expected = std::fs::read_to_string(dir.join("expected.json")).unwrap();
        let out = merge3(dialect, &base, &ours, &theirs);
        let got = parse(dialect, out.text());
        let want = parse(Dialect::Json, &expected);
        assert!(
            equal_unordered(got.root(), want.root()),
            "{}: got\n{}",
            dir.display(),
            out.text()
        );
        count += 1;
    }
    assert_eq!(count, 8, "the eight sample cases of tests/data/cases");
}
