//! The shared sample cases (`/work/shared/cases`, next to the workspace): each merged
//! with the default policy must equal its `expected.json` as data. Skipped where the
//! folder is absent (the inline tests in `arrays.rs` and `objects.rs` cover the same
//! seeds).

mod common;

use std::path::{Path, PathBuf};

use common::{equal_unordered, merge3, parse};
use sjson::Dialect;

fn cases_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/cases");
    dir.is_dir().then_some(dir)
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
    let Some(root) = cases_dir() else {
        eprintln!("no shared cases directory; skipped");
        return;
    };
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
        let got = parse(dialect, &out.text);
        let want = parse(Dialect::Json, &expected);
        assert!(
            equal_unordered(got.root(), want.root()),
            "{}: got\n{}",
            dir.display(),
            out.text
        );
        count += 1;
    }
    assert!(count > 0);
}
