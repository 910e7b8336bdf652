//! The sections of `assetvc.toml`; every field is optional (the defaults are docs/design.md's).

use serde::Deserialize;

/// Asset patterns: which files are SJSON and which JSON.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Assets {
    /// Globs of SJSON files.
    #[serde(deserialize_with = "crate::values::globs")]
    pub sjson: Vec<String>,
    /// Globs of JSON files.
    #[serde(deserialize_with = "crate::values::globs")]
    pub json: Vec<String>,
}

impl Default for Assets {
    fn default() -> Self {
        Assets {
            sjson: [
                "*.sjson",
                "*.level",
                "*.unit",
                "*.package",
                "*.material",
                "*.particles",
                "*.entity",
                "*.config",
                "*.settings",
                "*.physics_properties",
                "*.shading_environment",
                "*.flow",
            ]
            .map(String::from)
            .to_vec(),
            json: vec!["*.json".into()],
        }
    }
}

/// Merge settings; the defaults are [`merge::MergeOptions`]'s.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MergeSettings {
    /// How true conflicts are resolved (a name of [`merge::Policy::ALL`], validated when
    /// read).
    #[serde(deserialize_with = "crate::values::policy")]
    pub policy: merge::Policy,
    /// Keys that give array elements an identity, matched case-insensitively.
    #[serde(deserialize_with = "crate::values::key_names")]
    pub id_keys: Vec<String>,
    /// Keys that identify elements when no id key is present.
    #[serde(deserialize_with = "crate::values::key_names")]
    pub natural_keys: Vec<String>,
    /// All-number arrays up to this length merge as one value.
    pub atomic_max: usize,
}

impl Default for MergeSettings {
    fn default() -> Self {
        let d = merge::MergeOptions::default();
        MergeSettings {
            policy: d.policy,
            id_keys: d.id_keys,
            natural_keys: d.natural_keys,
            atomic_max: d.atomic_max,
        }
    }
}

/// Check settings.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CheckSettings {
    /// New arrays of objects must carry an id key.
    pub require_ids: bool,
}

/// Properties whose string values are expressions.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Expressions {
    /// Globs on property names.
    #[serde(deserialize_with = "crate::values::globs")]
    pub keys: Vec<String>,
    /// Variables the expressions may use.
    #[serde(deserialize_with = "crate::values::variables")]
    pub variables: Vec<String>,
}

/// Live collaboration settings (`assetvc sync`, `assetvc who`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SyncSettings {
    /// WIP refs older than this are not shown by `who`: `900`, `90s`, `15m`, `1h`.
    pub stale: String,
}

impl Default for SyncSettings {
    fn default() -> Self {
        SyncSettings {
            stale: "15m".into(),
        }
    }
}

/// What counts as a reference (docs/design.md "Level coherence"); the defaults are
/// [`merge::coherence::ReferenceOptions`]'s.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct References {
    /// Globs on property names under which ids shorter than 8 characters are references.
    pub keys: Vec<String>,
    /// Globs on property names whose reference makes the referrer a child.
    pub parent: Vec<String>,
    /// Property name → asset type (file extension): `type = "unit"` makes
    /// `type = "units/crate"` name `units/crate.unit`. Empty (off) by default.
    pub resources: std::collections::BTreeMap<String, String>,
}

impl Default for References {
    fn default() -> Self {
        let d = merge::coherence::ReferenceOptions::default();
        References {
            keys: d.keys,
            parent: d.parent,
            resources: Default::default(),
        }
    }
}

/// Review page settings (`--html`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ReviewSettings {
    /// Members holding an object's position, in priority order; the map uses the first
    /// two components of the first one present.
    pub position_keys: Vec<String>,
}

impl Default for ReviewSettings {
    fn default() -> Self {
        ReviewSettings {
            position_keys: ["pos", "position", "translation"]
                .map(String::from)
                .to_vec(),
        }
    }
}
