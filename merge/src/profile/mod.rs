//! Engine profiles: where each engine keeps its identities, counters, grids, sets and
//! references, chosen once per merge (by configuration, file extension, then content).
//!
//! A [`Format`] is a plain enum; what it knows is static data ([`Format::knowledge`]) and
//! the format-specific passes are a `match` on it (see [`crate::gate`] for the result's
//! invariants). A format without special passes merges exactly as the generic one.

use std::fmt;

use sjson::{Document, Kind, Value};

/// An engine file format the merge knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Format {
    /// Stingray/Bitsquid SJSON: levels, units, materials, flow.
    Stingray,
    /// Tiled JSON maps and tilesets (`.tmj`, `.tsj`).
    Tiled,
    /// LDtk projects and levels (`.ldtk`, `.ldtkl`).
    Ldtk,
    /// Cocos Creator 2.x scenes and prefabs (`__type__` objects, `_id` strings).
    Cocos2,
    /// Cocos Creator 3.x scenes and prefabs (`__type__` objects, `_id` and `fileId`).
    Cocos3,
    /// GDevelop projects (`gdVersion`).
    GDevelop,
    /// Plain JSON or JSONC data.
    Json,
    /// Nothing known: the configured id keys and references only.
    #[default]
    Generic,
}

/// Why a profile was chosen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reason {
    /// `assetvc.toml` `[profiles]` maps a pattern matching the path to it.
    Configured(String),
    /// The file's extension.
    Extension(String),
    /// A member of the document marks it (`"tiledversion"`, …).
    Content(&'static str),
    /// The document's dialect (SJSON: Stingray; JSON: plain JSON).
    Dialect,
    /// Nothing marks it.
    Default,
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let safe = sjson::string::terminal_safe;
        match self {
            Reason::Configured(p) => write!(f, "assetvc.toml [profiles] \"{}\"", safe(p)),
            Reason::Extension(e) => write!(f, "extension .{}", safe(e)),
            Reason::Content(marker) => write!(f, "content: {marker}"),
            Reason::Dialect => f.write_str("dialect of the file"),
            Reason::Default => f.write_str("nothing marks it: generic"),
        }
    }
}

/// A format and why it was chosen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Profile {
    /// The format.
    pub format: Format,
    /// Why.
    pub reason: Reason,
}

/// A counter: a member holding the next id to give, which must stay above every id of
/// the arrays it numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counter {
    /// The counter's member name (at any depth).
    pub key: &'static str,
    /// The member names of the ids it numbers (`id` of Tiled objects, …).
    pub numbers: &'static [&'static str],
}

/// How a value refers to another object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReferenceKind {
    /// The member's value is another object's id.
    ById(&'static str),
    /// The member's value is an index into a top-level array (Cocos `__id__`).
    ByIndex(&'static str),
}

impl fmt::Display for ReferenceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReferenceKind::ById(k) => write!(f, "{k} (by id)"),
            ReferenceKind::ByIndex(k) => write!(f, "{k} (by array index)"),
        }
    }
}

/// What a format says about its documents (static data; paths are member names as
/// they occur at any depth, `a[].b` for member `b` of the elements of array `a`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Knowledge {
    /// Id keys, in priority order, tried before the configured ones.
    pub id_keys: &'static [&'static str],
    /// `array[].key` pairs whose member looks like an id but is not an identity (LDtk's
    /// `realEditorValues[].id`, a variant tag): such arrays are merged unkeyed.
    pub not_ids: &'static [(&'static str, &'static str)],
    /// Arrays `migrate` gives no ids (Stingray `editor_metadata`, material connections).
    pub no_migrated_ids: &'static [&'static str],
    /// Counters of the ids given.
    pub counters: &'static [Counter],
    /// Arrays that are grids (their length is fixed by the map's size).
    pub grids: &'static [&'static str],
    /// Arrays that are sets of scalars (merged as sets, whatever their order).
    pub sets: &'static [&'static str],
    /// Members that refer to other objects.
    pub references: &'static [ReferenceKind],
    /// Members the editor derives on every save (a name, or a prefix ending in `*`): when
    /// both sides changed one, ours is kept (`derived.rs`).
    pub editor_derived: &'static [&'static str],
}

const NOTHING: Knowledge = Knowledge {
    id_keys: &[],
    not_ids: &[],
    no_migrated_ids: &[],
    counters: &[],
    grids: &[],
    sets: &[],
    references: &[],
    editor_derived: &[],
};

impl Format {
    /// Every format, in the order the documentation lists them.
    pub const ALL: [Format; 8] = [
        Format::Stingray,
        Format::Tiled,
        Format::Ldtk,
        Format::Cocos2,
        Format::Cocos3,
        Format::GDevelop,
        Format::Json,
        Format::Generic,
    ];

    /// The format's name in `assetvc.toml` and reports.
    pub fn name(self) -> &'static str {
        match self {
            Format::Stingray => "stingray",
            Format::Tiled => "tiled",
            Format::Ldtk => "ldtk",
            Format::Cocos2 => "cocos2",
            Format::Cocos3 => "cocos3",
            Format::GDevelop => "gdevelop",
            Format::Json => "json",
            Format::Generic => "generic",
        }
    }

    /// What the format says about its documents.
    pub fn knowledge(self) -> Knowledge {
        match self {
            Format::Stingray => Knowledge {
                no_migrated_ids: &["editor_metadata", "connections"],
                references: &[ReferenceKind::ById("parent"), ReferenceKind::ById("*_id")],
                ..NOTHING
            },
            Format::Tiled => Knowledge {
                counters: &[
                    Counter {
                        key: "nextobjectid",
                        numbers: &["objects[].id"],
                    },
                    Counter {
                        key: "nextlayerid",
                        numbers: &["layers[].id"],
                    },
                ],
                grids: &["layers[].data", "chunks[].data"],
                references: &[
                    ReferenceKind::ById("properties[].value (type object)"),
                    ReferenceKind::ById("firstgid (tile gids)"),
                ],
                ..NOTHING
            },
            Format::Ldtk => Knowledge {
                id_keys: &["iid", "uid"],
                not_ids: &[("realEditorValues", "id")],
                counters: &[Counter {
                    key: "nextUid",
                    numbers: &["defs.*[].uid"],
                }],
                grids: &["intGridCsv"],
                sets: &["tags"],
                references: &[
                    ReferenceKind::ById("defUid"),
                    ReferenceKind::ById("layerDefUid"),
                    ReferenceKind::ById("entityIid"),
                    ReferenceKind::ById("levelIid"),
                ],
                editor_derived: &["__*"],
                ..NOTHING
            },
            Format::Cocos2 | Format::Cocos3 => Knowledge {
                references: &[
                    ReferenceKind::ByIndex("__id__"),
                    ReferenceKind::ById("__uuid__"),
                ],
                editor_derived: &["_orthoHeight"],
                ..NOTHING
            },
            Format::GDevelop => Knowledge {
                id_keys: &["persistentUuid"],
                ..NOTHING
            },
            Format::Json | Format::Generic => NOTHING,
        }
    }

    /// The format a specific file extension (without the dot, any case) names, if any;
    /// `.json` and `.sjson` name none (their content decides).
    pub fn by_extension(extension: &str) -> Option<Format> {
        Some(match extension.to_ascii_lowercase().as_str() {
            "level"
            | "unit"
            | "material"
            | "flow_editor"
            | "script_flow_nodes"
            | "package"
            | "particles"
            | "physics_properties"
            | "shading_environment" => Format::Stingray,
            "tmj" | "tsj" => Format::Tiled,
            "ldtk" | "ldtkl" => Format::Ldtk,
            "fire" => Format::Cocos2,
            "scene" | "prefab" | "anim" | "mtl" | "effect" | "pmtl" => return None,
            _ => return None,
        })
    }

    /// The format the document's content marks, if any: a top-level array of
    /// `"__type__"` objects (Cocos: 3.x when an object has `"fileId"` or `"_lpos"`),
    /// `"jsonVersion"` with `"iid"` (LDtk), `"tiledversion"` (Tiled), `"gdVersion"`
    /// (GDevelop). Reads the root's members only (cheap on any size).
    pub fn by_content(doc: &Document) -> Option<(Format, &'static str)> {
        let root = doc.root();
        match root.kind() {
            Kind::Array => cocos(root),
            Kind::Object => map_editor(root),
            _ => None,
        }
    }
}

/// Cocos by a top-level array of `__type__` objects; 3.x by the members only it writes.
/// A Tiled map, an LDtk project or level, or a GDevelop project, by its root's members
/// (read once).
fn map_editor(root: Value<'_>) -> Option<(Format, &'static str)> {
    let (mut tiled, mut json_version, mut ids, mut header, mut gdevelop) =
        (false, false, false, false, false);
    for (key, value) in root.members() {
        match &*key {
            "tiledversion" => tiled = true,
            "jsonVersion" => json_version = true,
            "iid" | "nextUid" => ids = true,
            "__header__" => {
                header = value.get("app").and_then(|a| a.as_str()).as_deref() == Some("LDtk")
            }
            "gdVersion" => gdevelop = true,
            _ => {}
        }
    }
    if tiled {
        Some((Format::Tiled, "\"tiledversion\""))
    } else if json_version && ids {
        Some((Format::Ldtk, "\"jsonVersion\" with \"iid\" or \"nextUid\""))
    } else if header {
        Some((Format::Ldtk, "an LDtk \"__header__\""))
    } else if gdevelop {
        Some((Format::GDevelop, "\"gdVersion\""))
    } else {
        None
    }
}

/// A Cocos Creator object graph ([`crate::cocos::is_graph`]), 3.x when an element holds
/// `"_lpos"` or `"fileId"`.
fn cocos(root: Value<'_>) -> Option<(Format, &'static str)> {
    if !crate::naming::cocos::is_graph(root) {
        return None;
    }
    let v3 = root
        .children()
        .take(64)
        .any(|c| c.get("_lpos").is_some() || c.get("fileId").is_some());
    Some(match v3 {
        true => (
            Format::Cocos3,
            "top-level array of \"__type__\" objects with \"_lpos\"/\"fileId\"",
        ),
        false => (Format::Cocos2, "top-level array of \"__type__\" objects"),
    })
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Format {
    type Err = String;

    fn from_str(s: &str) -> Result<Format, String> {
        let wanted = match s {
            "cocos" => "cocos2",
            "bitsquid" => "stingray",
            "jsonc" => "json",
            other => other,
        };
        Format::ALL
            .into_iter()
            .find(|f| f.name() == wanted)
            .ok_or_else(|| {
                let names: Vec<_> = Format::ALL.iter().map(|f| f.name()).collect();
                format!("unknown profile \"{s}\" (expected {})", names.join(", "))
            })
    }
}

impl Profile {
    /// The profile of a document: `configured` (from `assetvc.toml`, with its pattern)
    /// first, then `path`'s extension, then the content, then the dialect.
    pub fn choose(
        configured: Option<(Format, &str)>,
        path: Option<&str>,
        doc: &Document,
    ) -> Profile {
        if let Some((format, pattern)) = configured {
            return Profile {
                format,
                reason: Reason::Configured(pattern.to_string()),
            };
        }
        let extension = path.and_then(extension);
        if let Some(format) = extension.and_then(Format::by_extension) {
            let extension = extension.unwrap_or_default().to_string();
            return Profile {
                format,
                reason: Reason::Extension(extension),
            };
        }
        Profile::by_content(doc)
    }

    /// The profile the document's content (then dialect) marks.
    pub fn by_content(doc: &Document) -> Profile {
        if let Some((format, marker)) = Format::by_content(doc) {
            return Profile {
                format,
                reason: Reason::Content(marker),
            };
        }
        match doc.dialect() {
            sjson::Dialect::Sjson => Profile {
                format: Format::Stingray,
                reason: Reason::Dialect,
            },
            _ => Profile {
                format: Format::Json,
                reason: Reason::Dialect,
            },
        }
    }

    /// What `assetvc check --explain` prints: the format, why, and what it knows (its
    /// own id keys first, then the configured ones).
    pub fn explain(&self, configured_id_keys: &[String]) -> String {
        let k = self.format.knowledge();
        let list = |items: Vec<String>| match items.is_empty() {
            true => "none".to_string(),
            false => items.join(", "),
        };
        let strs = |items: &[&str]| list(items.iter().map(|s| s.to_string()).collect());
        let own = k.id_keys.iter().map(|s| s.to_string());
        let id_keys = list(own.chain(configured_id_keys.iter().cloned()).collect());
        let not_ids = k.not_ids.iter().map(|(a, key)| format!("{a}[].{key}"));
        let counters = k
            .counters
            .iter()
            .map(|c| format!("{} > {}", c.key, c.numbers.join(", ")));
        let lines = [
            ("format", self.format.name().to_string()),
            ("chosen by", self.reason.to_string()),
            ("id keys", id_keys),
            ("not identities", list(not_ids.collect())),
            ("no ids from migrate", strs(k.no_migrated_ids)),
            ("counters", list(counters.collect())),
            ("grids", strs(k.grids)),
            (
                "sets",
                format!("{} (and any sorted array of unique scalars)", strs(k.sets)),
            ),
            (
                "references",
                list(k.references.iter().map(|r| r.to_string()).collect()),
            ),
            ("editor-derived", strs(k.editor_derived)),
        ];
        let mut out = String::new();
        for (label, value) in lines {
            out.push_str(&format!("{label}: {value}\n"));
        }
        out
    }
}

/// The file extension of `path` (`/` or `\\`-separated), without the dot.
impl Format {
    /// The format the extension of the file at `path` names, if any ([`Format::by_extension`]).
    pub fn by_file_name(path: &str) -> Option<Format> {
        extension(path).and_then(Format::by_extension)
    }
}

fn extension(path: &str) -> Option<&str> {
    let name = path.rsplit(['/', '\\']).next()?;
    name.rsplit_once('.').map(|(_, e)| e)
}

/// The id keys a merge of `format` uses, lower-cased: the profile's, then the options'.
pub(crate) fn id_keys_lower(format: Format, options: &crate::MergeOptions) -> Vec<String> {
    let own = format
        .knowledge()
        .id_keys
        .iter()
        .map(|k| k.to_ascii_lowercase());
    own.chain(options.id_keys.iter().map(|k| k.to_ascii_lowercase()))
        .collect()
}

/// The format a merge of `ours` works with: the options' if set, else by content.
pub(crate) fn resolve(profile: Option<Format>, ours: &Document) -> Format {
    profile.unwrap_or_else(|| Profile::by_content(ours).format)
}

#[cfg(test)]
mod tests;
