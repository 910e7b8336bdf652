//! The whole configuration: reading and parsing the one file.
//!
//! Unknown fields are errors, so a file that tries to name a program (`command = …`) is
//! rejected instead of silently ignored. Commands for external checkers come only from
//! git config of the machine that runs the checks (the `hooks` crate's `external`).

use std::path::Path;

use serde::Deserialize;

use crate::{
    Assets, CheckSettings, ConfigError, Expressions, MergeSettings, References, ReviewSettings,
    SyncSettings,
};

/// The file name of the configuration at a repository's root.
pub const FILE_NAME: &str = "assetvc.toml";

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
    /// Engine profiles by file pattern.
    pub profiles: crate::Profiles,
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

    /// The configuration of the repository whose root (worktree, or git directory of a
    /// bare repository) is `root`: its [`FILE_NAME`] if there is one, else the defaults.
    pub fn at_root(root: &Path) -> Result<Config, ConfigError> {
        let path = root.join(FILE_NAME);
        if path.is_file() {
            Config::load(&path)
        } else {
            Ok(Config::default())
        }
    }

    /// The merge options these settings give (policy, keys, `atomic_max`, references).
    pub fn merge_options(&self) -> merge::MergeOptions {
        merge::MergeOptions {
            policy: self.merge.policy,
            id_keys: self.merge.id_keys.clone(),
            natural_keys: self.merge.natural_keys.clone(),
            atomic_max: self.merge.atomic_max,
            references: merge::coherence::ReferenceOptions {
                keys: self.references.keys.clone(),
                parent: self.references.parent.clone(),
            },
            profile: None,
            threads: merge::Threads::Auto,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(c.merge.policy, merge::Policy::Ours);
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
    fn defaults_are_the_merge_defaults() {
        let d = merge::MergeOptions::default();
        let o = Config::default().merge_options();
        assert_eq!(o.policy, d.policy);
        assert_eq!(o.id_keys, d.id_keys);
        assert_eq!(o.natural_keys, d.natural_keys);
        assert_eq!(o.atomic_max, d.atomic_max);
        assert_eq!(o.references.keys, d.references.keys);
        assert_eq!(o.references.parent, d.references.parent);
    }

    #[test]
    fn settings_reach_the_merge_options() {
        let text = "[merge]\npolicy = \"fail\"\nid_keys = [\"serial\"]\natomic_max = 3\n\
                    [references]\nkeys = [\"link\"]\n";
        let o = Config::parse(text, Path::new("a")).unwrap().merge_options();
        assert_eq!(o.policy, merge::Policy::Fail);
        assert_eq!(o.id_keys, ["serial"]);
        assert_eq!(o.natural_keys, ["name"]);
        assert_eq!(o.atomic_max, 3);
        assert_eq!(o.references.keys, ["link"]);
    }

    #[test]
    fn at_root_reads_the_file_there_or_gives_the_defaults() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        assert_eq!(
            Config::at_root(dir).unwrap().merge.policy,
            merge::Policy::Theirs
        );
        std::fs::write(dir.join(FILE_NAME), "[merge]\npolicy = \"local\"\n").unwrap();
        let read = Config::at_root(dir).map(|c| c.merge.policy);
        std::fs::write(dir.join(FILE_NAME), "[merge]\npolicy = 1\n").unwrap();
        let bad = Config::at_root(dir);
        assert_eq!(read, Ok(merge::Policy::Local));
        assert!(
            matches!(bad, Err(ConfigError::Invalid { line: 2, .. })),
            "{bad:?}"
        );
    }
}
