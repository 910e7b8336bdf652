//! Which files are assets, and in which dialect; compiling glob patterns.

use std::path::Path;

use globset::{Glob, GlobSet, GlobSetBuilder};
use sjson::Dialect;

use crate::{Config, ConfigError, FILE_NAME};

impl Config {
    /// The matcher of asset file names.
    pub fn matcher(&self) -> Result<AssetMatcher, ConfigError> {
        Ok(AssetMatcher {
            sjson: globs(&self.assets.sjson, FILE_NAME)?,
            json: globs(&self.assets.json, FILE_NAME)?,
        })
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
    fn bad_patterns_are_errors() {
        let mut c = Config::default();
        c.assets.sjson = vec!["[".into()];
        assert!(matches!(c.matcher(), Err(ConfigError::Pattern { .. })));
    }
}
