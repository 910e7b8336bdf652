//! Reading and parsing the three versions of a merge, with diagnostics.

use std::path::Path;

use sjson::{Detected, Dialect, Document, ParseOptions};

use crate::files::FileAgain;
use crate::report;

/// Why a version could not be loaded; its `Display` is the diagnostic people read
/// (`level.sjson:3:4: reason` and the offending line for a parse error).
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The path is a directory.
    #[error("{shown}: is a directory")]
    Directory {
        /// The file as people name it.
        shown: String,
    },
    /// The file could not be read.
    #[error("{shown}: {source}")]
    Read {
        /// The file as people name it.
        shown: String,
        /// Why.
        source: std::io::Error,
    },
    /// The file does not parse.
    #[error("{}", report::parse_error(.shown, .text, .error))]
    Parse {
        /// The file as people name it.
        shown: String,
        /// Its text (read again for the offending line; invalid UTF-8 replaced).
        text: String,
        /// Where and why.
        error: sjson::ParseError,
    },
    /// A reading thread failed (a bug).
    #[error("internal error while reading")]
    Internal,
}

/// Reads and parses one version.
pub fn load(path: &Path, shown_as: &str, dialect: Dialect) -> Result<Document, LoadError> {
    if path.is_dir() {
        let shown = shown_as.to_string();
        return Err(LoadError::Directory { shown });
    }
    let read_error = |source| LoadError::Read {
        shown: shown_as.to_string(),
        source,
    };
    let mut file = std::fs::File::open(path).map_err(read_error)?;
    // A large version is parsed from its mapping, not copied (see `crate::mapped`).
    if let Some(mapped) = crate::mapped::MappedText::of(&file) {
        let options = ParseOptions::new(dialect);
        return Document::parse_backed(mapped, options)
            .map_err(|error| parse_error(path, shown_as, error));
    }
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut file, &mut bytes).map_err(read_error)?;
    load_bytes(path, bytes, shown_as, dialect)
}

/// A parse error of the version at `path`, with its text read again for the offending
/// line (errors are rare).
fn parse_error(path: &Path, shown_as: &str, error: sjson::ParseError) -> LoadError {
    let text = std::fs::read(path).unwrap_or_default();
    LoadError::Parse {
        shown: shown_as.to_string(),
        text: String::from_utf8_lossy(&text).into_owned(),
        error,
    }
}

/// [`load`] of `bytes`, already read from `path`.
pub fn load_bytes(
    path: &Path,
    bytes: Vec<u8>,
    shown_as: &str,
    dialect: Dialect,
) -> Result<Document, LoadError> {
    Document::parse_bytes(bytes, ParseOptions::new(dialect))
        .map_err(|error| parse_error(path, shown_as, error))
}

/// Below this many bytes in all, the three versions are read one after the other: a
/// thread costs more than parsing them.
const PARALLEL_FROM: u64 = 1 << 20;

/// The three versions of a merge, read and parsed.
pub struct Loaded {
    /// The current version (git's %A).
    pub ours: Document,
    /// The common ancestor.
    pub base: Document,
    /// The other version.
    pub theirs: Document,
    /// Base's file, to read again if a large merge frees base and a repair needs it.
    pub base_file: Option<FileAgain>,
}

/// Reads and parses the three versions (ours, base, theirs), in parallel when they are
/// large; the first error, in that order, is returned.
/// The dialect is given as such, or as [`detect_file`] found it: ours is then not parsed
/// again when finding its dialect parsed it.
pub fn load_three(
    paths: [(&Path, String); 3],
    detected: impl Into<Detected>,
) -> Result<Loaded, LoadError> {
    let detected = detected.into();
    let dialect = detected.dialect();
    let mut ours_parsed = detected.into_document();
    let [o, b, t] = paths;
    let load_ours = |parsed: Option<Document>| match parsed {
        Some(doc) => Ok(doc),
        None => load(o.0, &o.1, dialect),
    };
    let size: u64 = [o.0, b.0, t.0]
        .iter()
        .map(|p| std::fs::metadata(p).map_or(0, |m| m.len()))
        .sum();
    // Base's file is hashed (when it is large) as soon as it is read, beside the others.
    let load_base = || {
        load(b.0, &b.1, dialect).map(|doc| {
            let file = FileAgain::of(b.0, doc.text());
            (doc, file)
        })
    };
    if size < PARALLEL_FROM {
        let ours = load_ours(ours_parsed.take())?;
        let (base, base_file) = load_base()?;
        let theirs = load(t.0, &t.1, dialect)?;
        return Ok(Loaded {
            ours,
            base,
            theirs,
            base_file,
        });
    }
    // One thread each: on two cores the three parses take one and a half parse's time,
    // where two threads (one parsing two versions) took two.
    let (ours, base, theirs) = std::thread::scope(|s| {
        let base = s.spawn(load_base);
        let theirs = s.spawn(|| load(t.0, &t.1, dialect));
        let ours = load_ours(ours_parsed.take());
        let base = base.join().unwrap_or(Err(LoadError::Internal));
        let theirs = theirs.join().unwrap_or(Err(LoadError::Internal));
        (ours, base, theirs)
    });
    let (ours, (base, base_file), theirs) = (ours?, base?, theirs?);
    Ok(Loaded {
        ours,
        base,
        theirs,
        base_file,
    })
}
