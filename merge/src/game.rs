//! Map editors' files merged with their own rules: Tiled maps (`.tmj`, `.json`) and LDtk
//! projects and levels (`.ldtk`, `.ldtkl`), recognised by content. Their ids come from
//! per-file counters ([`crate::counters`]) and their tile layers are grids
//! ([`crate::grid`]): both are handled around the structural merge, which only sees
//! theirs with its clashing new ids renumbered, and whose result gets its grids merged
//! cell by cell and its counters set above every id. Files of any other kind are not
//! touched (one look at the root's members).

use std::ops::Range;

use sjson::{Document, Kind, ParseOptions, Path, Segment, Value};

use crate::profile::Format;
use crate::MergeOptions;

/// The map editor a document was saved by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Game {
    /// A Tiled map in JSON (`"tiledversion"` at the root).
    Tiled,
    /// An LDtk project (`"jsonVersion"` with `"iid"` or `"nextUid"`) or level file
    /// (`"__header__"` by the app `LDtk`).
    Ldtk,
}

impl Game {
    /// The editor that saved `doc`, by the profiles' content rules
    /// ([`crate::profile::Profile::by_content`]); `None` for anything else.
    pub(crate) fn of(doc: &Document) -> Option<Game> {
        Game::of_format(crate::profile::Profile::by_content(doc).format)
    }

    /// The map editor a format names, if it names one.
    pub(crate) fn of_format(format: Format) -> Option<Game> {
        match format {
            Format::Tiled => Some(Game::Tiled),
            Format::Ldtk => Some(Game::Ldtk),
            _ => None,
        }
    }

    /// The editor of a merge's sides: ours', else theirs'.
    pub(crate) fn of_sides(ours: &Document, theirs: &Document) -> Option<Game> {
        Game::of(ours).or_else(|| Game::of(theirs))
    }

    /// The merge settings for this editor's files: LDtk records are paired by `iid`, then
    /// by `uid`, and named by their identifier.
    pub(crate) fn options(self, options: &MergeOptions) -> MergeOptions {
        let mut options = options.clone();
        if self == Game::Ldtk {
            let mut keys: Vec<String> = vec!["iid".into(), "uid".into()];
            let rest = options
                .id_keys
                .iter()
                .filter(|k| *k != "iid" && *k != "uid");
            keys.extend(rest.cloned().collect::<Vec<_>>());
            options.id_keys = keys;
            for name in ["identifier", "__identifier"] {
                if !options.natural_keys.iter().any(|k| k == name) {
                    options.natural_keys.push(name.into());
                }
            }
        }
        options
    }
}

/// A replacement of a span of a document's text.
pub(crate) type Edit = (Range<usize>, String);

/// `doc` with `edits` (spans that do not overlap) applied, parsed again.
pub(crate) fn spliced(doc: &Document, mut edits: Vec<Edit>) -> Result<Document, sjson::ParseError> {
    edits.sort_by_key(|(span, _)| span.start);
    edits.dedup_by_key(|(span, _)| span.start);
    let text = doc.text();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (span, replacement) in edits {
        if span.start < at {
            continue;
        }
        out.push_str(&text[at..span.start]);
        out.push_str(&replacement);
        at = span.end;
    }
    out.push_str(&text[at..]);
    Document::parse_with(out, ParseOptions::new(doc.dialect()))
}

/// The id keys that name a map editor's array elements in report pointers, in priority
/// order (as [`Game::options`] orders them).
const POINTER_KEYS: [&str; 3] = ["iid", "uid", "id"];

/// The step from an array to its element `el` at `index`, as the merge's reports write
/// it: by its id when it has one (`[id=12]`), else by position.
pub(crate) fn element_step(index: usize, el: Value<'_>) -> Segment {
    let keys = POINTER_KEYS.map(String::from);
    match crate::id_member(&keys, el) {
        Some((key, id, _)) => Segment::Id {
            key: key.into_owned(),
            value: crate::id::id_display(&id),
        },
        None => Segment::Index(index),
    }
}

/// Calls `visit` on every value below and at `v` with its report path, parents first.
pub(crate) fn walk<'d>(v: Value<'d>, path: &mut Path, visit: &mut impl FnMut(Value<'d>, &Path)) {
    visit(v, path);
    match v.kind() {
        Kind::Object => {
            for (key, child) in v.members() {
                path.push(Segment::Key(key.into_owned()));
                walk(child, path, visit);
                path.pop();
            }
        }
        Kind::Array => {
            for (i, child) in v.children().enumerate() {
                path.push(element_step(i, child));
                walk(child, path, visit);
                path.pop();
            }
        }
        _ => {}
    }
}

/// An integer number value.
pub(crate) fn int(v: Option<Value<'_>>) -> Option<i64> {
    v.filter(|v| v.kind() == Kind::Number)?
        .as_number_lexeme()?
        .parse()
        .ok()
}

#[cfg(test)]
mod chunk_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tileset_tests;
