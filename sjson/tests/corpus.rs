//! Every file of `tests/data/corpus` (real SJSON from Stingray and Vermintide projects)
//! parses and prints back byte for byte.

use std::path::{Path, PathBuf};

use sjson::{Dialect, Document};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/corpus")
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

#[test]
fn corpus_fmt_is_idempotent_and_keeps_values() {
    for path in corpus_files() {
        let text = std::fs::read_to_string(&path).unwrap();
        let doc = Document::parse(text, Dialect::Sjson).unwrap();
        for dialect in [Dialect::Sjson, Dialect::Json] {
            let style = sjson::Style::canonical(dialect);
            let once = sjson::format(&doc, &style);
            let reparsed = Document::parse(once.clone(), dialect)
                .unwrap_or_else(|e| panic!("{} as {dialect:?}: {e}\n{once}", path.display()));
            assert!(
                reparsed.root().same_value(&doc.root()),
                "{} as {dialect:?}: value changed",
                path.display()
            );
            let twice = sjson::format(&reparsed, &style);
            assert_eq!(
                once,
                twice,
                "{} as {dialect:?}: not idempotent",
                path.display()
            );
            if dialect == Dialect::Json {
                let v: Result<serde_json::Value, _> = serde_json::from_str(&once);
                assert!(v.is_ok(), "{}: serde_json rejects the JSON", path.display());
            }
        }
    }
}

#[test]
fn corpus_reference_parser_agrees() {
    for path in corpus_files() {
        let text = std::fs::read_to_string(&path).unwrap();
        let fast = Document::parse(text.as_str(), Dialect::Sjson).unwrap();
        let reference =
            sjson::reference::parse_reference(&text, sjson::ParseOptions::new(Dialect::Sjson))
                .unwrap();
        assert!(fast.same_tree(&reference), "{}", path.display());
    }
}
