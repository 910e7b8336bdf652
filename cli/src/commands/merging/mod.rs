//! What `merge-file`, `merge-driver` and the porcelain share, by what it presents: the
//! settings and the dialect and profile of a path (here), reading the three versions
//! ([`load`]), the JSON report ([`json`]), the lines people read ([`text`]) and what git's
//! sides mean in the operation that merges ([`sides`]).

mod json;
mod load;
mod sides;
mod text;

use std::path::Path;

use config::{Config, ConfigError};
use merge::{MergeOptions, Policy};
use sjson::{Detected, Dialect};

use crate::repo_config;

pub use json::{file_report, violations_json, FileReport};
pub use load::{load, load_bytes, load_three, LoadError, Loaded};
pub use sides::{step_report, unresolved_step, Sides};
pub use text::{conflict_line, summary, summary_in};

/// Merge settings from the `assetvc.toml` at the repository root `root`, with an optional
/// policy given on the command line.
pub fn options(root: &Path, policy: Option<Policy>) -> Result<(MergeOptions, Config), ConfigError> {
    let config = repo_config::at_root(root)?;
    let mut options = config.merge_options();
    if let Some(p) = policy {
        options.policy = p;
    }
    Ok((options, config))
}

/// [`merge::merge`] on versions read from files, given up to it ([`merge::Inputs::Owned`]):
/// a large base is freed during the merge and read again from its file only if a repair
/// needs it.
pub fn merge_loaded(
    loaded: Loaded,
    options: &MergeOptions,
) -> Result<merge::Merged, merge::MergeError> {
    let Loaded {
        ours,
        base,
        theirs,
        base_file,
    } = loaded;
    let read_again = base_file.map(|file| move || file.read());
    let base_again = read_again
        .as_ref()
        .map(|read| read as merge::coherence::BaseAgain<'_>);
    let inputs = merge::Inputs::Owned {
        base,
        ours,
        theirs,
        base_again,
    };
    merge::merge(inputs, options)
}

/// The dialect of a path by the asset patterns of `config`, else by its extension.
pub fn dialect_of(config: &Config, path: &Path) -> Dialect {
    config
        .matcher()
        .ok()
        .and_then(|m| m.dialect(path))
        .unwrap_or_else(|| Dialect::for_path(&path.to_string_lossy()))
}

/// The dialect of the file at `path` holding `text`: what `assetvc.toml`'s own asset
/// patterns say (JSON patterns, or SJSON patterns the file sets), else by its content
/// ([`Dialect::detect_parsed`]: a Cocos `.fire` starting with `[` is JSON), with the
/// document where finding it parsed `text`.
fn detect_text(config: &Config, path: &Path, text: &str) -> Detected {
    let configured = config.matcher().ok().and_then(|m| m.dialect(path));
    let explicit =
        |d: &Dialect| *d == Dialect::Json || config.assets.sjson != config::Assets::default().sjson;
    match configured.filter(explicit) {
        Some(d) => Detected::Dialect(d),
        None => Dialect::detect_parsed(&path.to_string_lossy(), text),
    }
}

/// How much of a file [`detect_file`] reads first: enough for the first significant
/// character and for a small file whole.
const HEAD: u64 = 64 << 10;

/// The dialect of the file at `path` (read from `file`; by name alone if it cannot be
/// read, which loading then reports), with its document when finding the dialect parsed
/// the whole file (a braced JSON file not named `.json`), for [`load_three`]. Only its
/// head is read, unless a large file opens with `{` or a comment and is not named
/// `.json`: whether it is JSON then takes its whole text.
pub fn detect_file(config: &Config, path: &Path, file: &Path) -> Detected {
    use std::io::Read;
    let mut head = Vec::new();
    let read = std::fs::File::open(file).and_then(|f| f.take(HEAD).read_to_end(&mut head));
    if read.is_err() {
        return Detected::Dialect(dialect_of(config, path));
    }
    let whole = (head.len() as u64) < HEAD;
    let text = String::from_utf8_lossy(&head);
    let found = detect_text(config, path, &text);
    let opens = text.trim_start_matches('\u{FEFF}').trim_start();
    let whole_needed = !whole
        && found.dialect() == Dialect::Sjson
        && (opens.starts_with('{') || opens.starts_with('/'));
    if whole_needed {
        return match std::fs::read(file) {
            Ok(bytes) => {
                let text = String::from_utf8_lossy(&bytes);
                let exact = matches!(text, std::borrow::Cow::Borrowed(_));
                keep_if(exact, detect_text(config, path, &text))
            }
            Err(_) => found,
        };
    }
    // A document of the head is the file's only when the head is the whole file, and its
    // text the file's bytes (no invalid UTF-8 replaced).
    let exact = whole && matches!(text, std::borrow::Cow::Borrowed(_));
    keep_if(exact, found)
}

/// `found`, without its document unless `exact` (the document's text is the file's).
fn keep_if(exact: bool, found: Detected) -> Detected {
    match exact {
        true => found,
        false => Detected::Dialect(found.dialect()),
    }
}
