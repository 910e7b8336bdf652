//! The compiled checking policy: which files are assets, id keys, expression keys,
//! `require_ids`, and the external checkers from trusted git config.

use std::path::Path;

use globset::GlobSet;
use sjson::Dialect;

use crate::external::ExternalChecker;
use config::{globs, AssetMatcher, Config, ConfigError, FILE_NAME};

/// Properties whose string values are expressions over some variables.
#[derive(Debug, Clone)]
pub(crate) struct ExpressionRule {
    pub keys: GlobSet,
    pub variables: Vec<String>,
}

/// What to check in one file, decided by its path.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FileClass {
    /// The asset dialect, if the file is an asset.
    pub dialect: Option<Dialect>,
    /// A Lua script (`*.lua`).
    pub lua: bool,
    /// An `assetvc.toml` (must parse as a configuration).
    pub config_file: bool,
    /// Indices of the external checkers that apply.
    pub checkers: Vec<usize>,
}

/// Everything the checks need to know; build it once, share it across threads.
#[derive(Debug, Clone)]
pub struct Policy {
    pub(crate) matcher: AssetMatcher,
    /// Id keys, lowercased, in order of preference.
    pub(crate) id_keys: Vec<String>,
    pub(crate) require_ids: bool,
    pub(crate) expressions: Vec<ExpressionRule>,
    pub(crate) checkers: Vec<ExternalChecker>,
    /// `[references] resources`: property name → asset type.
    pub(crate) resources: Vec<(String, String)>,
    /// The tree resource references are checked against (none: not checked).
    pub(crate) tree: Option<crate::checks::resources::TreePaths>,
}

impl Policy {
    /// The policy of a configuration, without external checkers.
    pub fn new(config: &Config) -> Result<Policy, ConfigError> {
        let mut expressions = Vec::new();
        for (i, e) in config.expressions.iter().enumerate() {
            let variables: Vec<&str> = e.variables.iter().map(String::as_str).collect();
            if let Err(err) = expr::compile("0", &variables) {
                return Err(ConfigError::Setting {
                    setting: format!("{FILE_NAME}: expressions[{i}].variables"),
                    message: err.kind.to_string(),
                });
            }
            expressions.push(ExpressionRule {
                keys: globs(&e.keys, FILE_NAME)?,
                variables: e.variables.clone(),
            });
        }
        Ok(Policy {
            matcher: config.matcher()?,
            id_keys: config
                .merge
                .id_keys
                .iter()
                .map(|k| k.to_ascii_lowercase())
                .collect(),
            require_ids: config.check.require_ids,
            expressions,
            checkers: Vec::new(),
            resources: config
                .references
                .resources
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            tree: None,
        })
    }

    /// The same policy checking resource references against `tree`.
    pub fn with_tree(mut self, tree: crate::checks::resources::TreePaths) -> Policy {
        self.tree = Some(tree);
        self
    }

    /// Whether resource references are configured (`[references] resources`).
    pub fn checks_resources(&self) -> bool {
        !self.resources.is_empty()
    }

    /// The same policy with these external checkers.
    pub fn with_checkers(mut self, checkers: Vec<ExternalChecker>) -> Policy {
        self.checkers = checkers;
        self
    }

    /// The external checkers.
    pub fn checkers(&self) -> &[ExternalChecker] {
        &self.checkers
    }

    /// Whether new arrays of objects must carry ids.
    pub fn require_ids(&self) -> bool {
        self.require_ids
    }

    /// What to check in the file at `path`. Every file not binary is also searched
    /// for conflict markers, whatever its class.
    pub fn classify(&self, path: &str) -> FileClass {
        let p = Path::new(path);
        FileClass {
            dialect: self.matcher.dialect(p),
            lua: p.extension().is_some_and(|e| e.eq_ignore_ascii_case("lua")),
            config_file: p.file_name().is_some_and(|n| n == FILE_NAME),
            checkers: (0..self.checkers.len())
                .filter(|&i| self.checkers[i].matches(path))
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use config::Expressions;

    #[test]
    fn classifies_by_path() {
        let p = Policy::new(&Config::default()).unwrap();
        let c = p.classify("levels/a.level");
        assert_eq!(c.dialect, Some(Dialect::Sjson));
        assert!(!c.lua && !c.config_file && c.checkers.is_empty());
        assert!(p.classify("scripts/x.LUA").lua);
        assert!(p.classify("sub/assetvc.toml").config_file);
        assert_eq!(p.classify("loc.json").dialect, Some(Dialect::Json));
        assert_eq!(p.classify("readme.md").dialect, None);
    }

    #[test]
    fn bad_expression_variables_are_config_errors() {
        let mut c = Config::default();
        c.expressions.push(Expressions {
            keys: vec!["*_expr".into()],
            variables: vec!["sin".into()],
        });
        assert!(matches!(Policy::new(&c), Err(ConfigError::Setting { .. })));
    }
}
