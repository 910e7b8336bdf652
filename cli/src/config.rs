//! `assetvc.toml`: declarative, safe to read from any clone; it never names a command.

use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};
use serde::Deserialize;
use sjson::Dialect;

/// The file name of the configuration at a repository's root.
pub const FILE_NAME: &str = "assetvc.toml";

/// Asset patterns: which files are SJSON and which JSON.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Assets {
    /// Globs of SJSON files.
    pub sjson: Vec<String>,
    /// Globs of JSON files.
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
    /// `theirs`, `ours` or `fail`.
    pub policy: String,
    /// Keys that give array elements an identity, matched case-insensitively.
    pub id_keys: Vec<String>,
    /// Keys that identify elements when no id key is present.
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
    pub keys: Vec<String>,
    /// Variables the expressions may use.
    pub variables: Vec<String>,
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
}

impl Config {
    /// Parses a configuration text; `path` names it in errors.
    pub fn parse(text: &str, path: &Path) -> anyhow::Result<Config> {
        toml::from_str(text).map_err(|e| anyhow::anyhow!("{}: {}", path.display(), e.message()))
    }

    /// The configuration of the repository containing `dir` (searching upwards for
    /// `assetvc.toml` up to the repository root), or the defaults.
    pub fn discover(dir: &Path) -> anyhow::Result<Config> {
        match find_config(dir) {
            Some(path) => {
                let text = std::fs::read_to_string(&path)
                    .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
                Config::parse(&text, &path)
            }
            None => Ok(Config::default()),
        }
    }

    /// The matcher of asset file names.
    pub fn matcher(&self) -> anyhow::Result<AssetMatcher> {
        Ok(AssetMatcher {
            sjson: globs(&self.assets.sjson)?,
            json: globs(&self.assets.json)?,
        })
    }
}

fn find_config(dir: &Path) -> Option<PathBuf> {
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

fn globs(patterns: &[String]) -> anyhow::Result<GlobSet> {
    let mut b = GlobSetBuilder::new();
    for p in patterns {
        b.add(Glob::new(p).map_err(|e| anyhow::anyhow!("assetvc.toml: pattern {p:?}: {e}"))?);
    }
    Ok(b.build()?)
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
    fn unknown_fields_are_errors() {
        let e = Config::parse(
            "[merge]\ndriver = \"rm -rf /\"\n",
            Path::new("assetvc.toml"),
        );
        assert!(e.is_err());
        let c = Config::parse("[merge]\npolicy = \"ours\"\n", Path::new("assetvc.toml")).unwrap();
        assert_eq!(c.merge.policy, "ours");
        assert_eq!(c.merge.atomic_max, 16);
    }
}
