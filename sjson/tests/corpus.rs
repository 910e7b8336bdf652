//! Every file of `../shared/corpus` (real SJSON from Stingray and Vermintide projects)
//! parses and prints back byte for byte.

use std::path::{Path, PathBuf};

use sjson::{Dialect, Document};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus")
}

fn corpus_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out);
            } else if p.file_name().is_some_and(|n| n != "MANIFEST.tsv") {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(&corpus_dir(), &mut out);
    out
}

#[test]
fn corpus_round_trips_byte_for_byte() {
    let files = corpus_files();
    assert_eq!(files.len(), 47, "the corpus has 47 files");
    let mut failures = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        match Document::parse(text.clone(), Dialect::Sjson) {
            Ok(doc) => assert_eq!(doc.text(), text, "{}", path.display()),
            Err(e) => failures.push(format!("{}:{e}", path.display())),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
