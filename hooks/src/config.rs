//! `assetvc.toml`: declarative, safe to read from any clone; it never names a command.
//!
//! Unknown fields are errors, so a file that tries to name a program (`command = …`) is
//! rejected instead of silently ignored. Commands for external checkers come only from
//! git config of the machine that runs the checks (see [`crate::external`]).

use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};
use serde::Deserialize;
use sjson::Dialect;

/// The file name of the configuration at a repository's root.
pub const FILE_NAME: &str = "assetvc.toml";

/// Why a configuration cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// The file cannot be read.
    #[error("{path}: {message}")]
    Read {
        /// The file.
        path: String,
        /// The I/O error.
        message: String,
    },
    /// The text is not a valid configuration (bad TOML, unknown field, wrong type).
    #[error("{path}:{line}:{col}: {message}")]
    Invalid {
        /// The file.
        path: String,
        /// 1-based line (1 when the error has no position).
        line: usize,
        /// 1-based column.
        col: usize,
        /// What is wrong.
        message: String,
    },
    /// A setting (from git config or a derived value) is invalid.
    #[error("{setting}: {message}")]
    Setting {
        /// The setting, e.g. `assetvc.check.glsl.command`.
        setting: String,
        /// What is wrong.
        message: String,
    },
    /// A glob pattern does not compile.
    #[error("{path}: pattern {pattern:?}: {message}")]
    Pattern {
        /// The file (or setting) the pattern comes from.
        path: String,
        /// The pattern.
        pattern: String,
        /// What is wrong.
        message: String,
    },
}

/// Asset patterns: which files are SJSON and which JSON.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Assets {
    /// Globs of SJSON files.
    #[serde(deserialize_with = "crate::config_values::globs")]
    pub sjson: Vec<String>,
    /// Globs of JSON files.
    #[serde(deserialize_with = "crate::config_values::globs")]
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

/// Merge settings.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MergeSettings {
    /// One of [`crate::config_values::POLICY_NAMES`] (validated when read).
    #[serde(deserialize_with = "crate::config_values::policy")]
    pub policy: String,
    /// Keys that give array elements an identity, matched case-insensitively.
    #[serde(deserialize_with = "crate::config_values::key_names")]
    pub id_keys: Vec<String>,
    /// Keys that identify elements when no id key is present.
    #[serde(deserialize_with = "crate::config_values::key_names")]
    pub natural_keys: Vec<String>,
    /// All-number arrays up to this length merge as one value.
    pub atomic_max: usize,
}

impl Default for MergeSettings {
    fn default() -> Self {
        MergeSettings {
            policy: "theirs".into(),
            id_keys: ["id", "_id", "guid", "_guid", "uuid"]
                .map(String::from)
                .to_vec(),
            natural_keys: vec!["name".into()],
            atomic_max: 16,
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
    #[serde(deserialize_with = "crate::config_values::globs")]
    pub keys: Vec<String>,
    /// Variables the expressions may use.
    #[serde(deserialize_with = "crate::config_values::variables")]
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

/// What counts as a reference (DESIGN.md "Level coherence").
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

/// The whole configuration; every field is optional.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// Asset patterns.
    pub assets: Assets,
    /// Merge settings.
    pub merge: MergeSettings,
    /// Check settings.
    pub check: CheckSettings,
    /// Expression-valued properties.
    pub expressions: Vec<Expressions>,
    /// Live collaboration settings.
    pub sync: SyncSettings,
    /// References between objects and to other assets.
    pub references: References,
    /// Review page settings.
    pub review: ReviewSettings,
}

impl Config {
    /// Parses a configuration text; `path` names it in errors.
    pub fn parse(text: &str, path: &Path) -> Result<Config, ConfigError> {
        toml::from_str(text).map_err(|e| {
            let (line, col) = match e.span() {
                Some(span) => sjson::line_col(text, span.start),
                None => (1, 1),
            };
            ConfigError::Invalid {
                path: path.display().to_string(),
                line,
                col,
                message: e.message().to_string(),
            }
        })
    }

    /// Reads and parses the configuration file at `path`.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError::Read {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        Config::parse(&text, path)
    }

    /// The configuration of the repository containing `dir` (searching upwards for
    /// `assetvc.toml` up to the repository root), or the defaults.
    pub fn discover(dir: &Path) -> Result<Config, ConfigError> {
        match find_config(dir) {
            Some(path) => Config::load(&path),
            None => Ok(Config::default()),
        }
    }

    /// The matcher of asset file names.
    pub fn matcher(&self) -> Result<AssetMatcher, ConfigError> {
        Ok(AssetMatcher {
            sjson: globs(&self.assets.sjson, FILE_NAME)?,
            json: globs(&self.assets.json, FILE_NAME)?,
        })
    }
}

/// The `assetvc.toml` that applies to `dir`: the nearest one upwards, stopping at the
/// repository root (the directory holding `.git`).
pub fn find_config(dir: &Path) -> Option<PathBuf> {
    let mut dir = dir.canonicalize().ok()?;
    loop {
        let candidate = dir.join(FILE_NAME);
        if candidate.is_file() {
            return Some(candidate);
        }
        if dir.join(".git").exists() || !dir.pop() {
            return None;
        }
    }
}

/// Compiles glob patterns; `origin` names where they come from in errors.
pub fn globs(patterns: &[String], origin: &str) -> Result<GlobSet, ConfigError> {
    let pattern_error = |pattern: &str, message: String| ConfigError::Pattern {
        path: origin.to_string(),
        pattern: pattern.to_string(),
        message,
    };
    let mut b = GlobSetBuilder::new();
    for p in patterns {
        b.add(Glob::new(p).map_err(|e| pattern_error(p, e.to_string()))?);
    }
    b.build().map_err(|e| pattern_error("", e.to_string()))
}

/// Tells which files are assets, and in which dialect.
#[derive(Debug, Clone)]
pub struct AssetMatcher {
    sjson: GlobSet,
    json: GlobSet,
}

impl AssetMatcher {
    /// The dialect of `path` if it is an asset (patterns match the file name or the path).
    pub fn dialect(&self, path: &Path) -> Option<Dialect> {
        let name = path.file_name().map(Path::new).unwrap_or(path);
        if self.json.is_match(name) || self.json.is_match(path) {
            Some(Dialect::Json)
        } else if self.sjson.is_match(name) || self.sjson.is_match(path) {
            Some(Dialect::Sjson)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_match_levels_and_json() {
        let m = Config::default().matcher().unwrap();
        assert_eq!(m.dialect(Path::new("a/b/x.level")), Some(Dialect::Sjson));
        assert_eq!(m.dialect(Path::new("loc.json")), Some(Dialect::Json));
        assert_eq!(m.dialect(Path::new("script.lua")), None);
    }

    #[test]
    fn unknown_fields_are_errors_with_a_position() {
        let e = Config::parse(
            "[merge]\ndriver = \"rm -rf /\"\n",
            Path::new("assetvc.toml"),
        )
        .unwrap_err();
        match e {
            ConfigError::Invalid { line, message, .. } => {
                assert_eq!(line, 2);
                assert!(message.contains("driver"), "{message}");
            }
            other => panic!("{other:?}"),
        }
        let e = Config::parse("[[checkers]]\ncommand = \"touch x\"\n", Path::new("a.toml"));
        assert!(e.is_err());
        let c = Config::parse("[merge]\npolicy = \"ours\"\n", Path::new("assetvc.toml")).unwrap();
        assert_eq!(c.merge.policy, "ours");
        assert_eq!(c.merge.atomic_max, 16);
        assert_eq!(c.review.position_keys, ["pos", "position", "translation"]);
        let c = Config::parse(
            "[review]\nposition_keys = [\"origin\"]\n",
            Path::new("a.toml"),
        )
        .unwrap();
        assert_eq!(c.review.position_keys, ["origin"]);
    }

    #[test]
    fn bad_patterns_are_errors() {
        let mut c = Config::default();
        c.assets.sjson = vec!["[".into()];
        assert!(matches!(c.matcher(), Err(ConfigError::Pattern { .. })));
    }
}
