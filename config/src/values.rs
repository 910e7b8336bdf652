//! Validation of `assetvc.toml` values while the file is read, so that a bad value is
//! reported at its own `line:col` (the TOML reader attaches the value's position to the
//! error) instead of failing later, at merge time, without a position.

use serde::{Deserialize, Deserializer};

/// The message for a policy name that is not one of [`merge::Policy::ALL`]'s.
pub fn unknown_policy(name: &str) -> String {
    let names: Vec<&str> = merge::Policy::ALL.iter().map(|p| p.name()).collect();
    format!("unknown policy \"{name}\" (expected {})", names.join(", "))
}

/// Reads `merge.policy`: the name of one of [`merge::Policy::ALL`].
pub fn policy<'de, D: Deserializer<'de>>(d: D) -> Result<merge::Policy, D::Error> {
    let name = String::deserialize(d)?;
    merge::Policy::ALL
        .into_iter()
        .find(|p| p.name() == name)
        .ok_or_else(|| serde::de::Error::custom(unknown_policy(&name)))
}

/// Why `pattern` is not a glob, if it is not one.
pub fn glob_error(pattern: &str) -> Option<String> {
    globset::Glob::new(pattern)
        .err()
        .map(|e| format!("bad glob {pattern:?}: {}", e.kind()))
}

/// One glob pattern, validated as it is read (the error names the pattern; its position
/// is the list's).
struct GlobPattern(String);

impl<'de> Deserialize<'de> for GlobPattern {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<GlobPattern, D::Error> {
        let pattern = String::deserialize(d)?;
        match glob_error(&pattern) {
            None => Ok(GlobPattern(pattern)),
            Some(message) => Err(serde::de::Error::custom(message)),
        }
    }
}

/// Reads a list of glob patterns, each of which must compile.
pub fn globs<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    let patterns = Vec::<GlobPattern>::deserialize(d)?;
    Ok(patterns.into_iter().map(|GlobPattern(p)| p).collect())
}

/// One member name (`id_keys`, `natural_keys`): not empty.
struct KeyName(String);

impl<'de> Deserialize<'de> for KeyName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<KeyName, D::Error> {
        let name = String::deserialize(d)?;
        if name.trim().is_empty() {
            return Err(serde::de::Error::custom(
                "an empty key name matches nothing",
            ));
        }
        Ok(KeyName(name))
    }
}

/// Reads a list of member names, none empty.
pub fn key_names<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    let names = Vec::<KeyName>::deserialize(d)?;
    Ok(names.into_iter().map(|KeyName(n)| n).collect())
}

/// One expression variable: an identifier, as the expression language spells names.
struct Variable(String);

impl<'de> Deserialize<'de> for Variable {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Variable, D::Error> {
        let name = String::deserialize(d)?;
        let mut chars = name.chars();
        let identifier = chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !identifier {
            return Err(serde::de::Error::custom(format!(
                "bad variable name {name:?} (expected letters, digits and _, not starting with a digit)"
            )));
        }
        Ok(Variable(name))
    }
}

/// Reads a list of expression variable names.
pub fn variables<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    let names = Vec::<Variable>::deserialize(d)?;
    Ok(names.into_iter().map(|Variable(n)| n).collect())
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use proptest::prelude::*;

    use merge::Policy;

    use crate::{Config, ConfigError};

    fn invalid(text: &str) -> (usize, usize, String) {
        match Config::parse(text, Path::new("assetvc.toml")) {
            Err(ConfigError::Invalid {
                line, col, message, ..
            }) => (line, col, message),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn unknown_policy_is_reported_at_its_value() {
        let (line, col, message) = invalid("[merge]\npolicy = \"ourz\"\n");
        assert_eq!((line, col), (2, 10));
        assert_eq!(
            message,
            "unknown policy \"ourz\" (expected theirs, ours, fail, upstream, local)"
        );
    }

    #[test]
    fn every_policy_name_is_accepted() {
        for p in Policy::ALL {
            let text = format!("[merge]\npolicy = \"{}\"\n", p.name());
            let c = Config::parse(&text, Path::new("a")).unwrap();
            assert_eq!(c.merge.policy, p);
        }
    }

    #[test]
    fn bad_glob_is_reported_at_its_element() {
        let (line, col, message) = invalid("[assets]\nsjson = [\"*.level\", \"[a\"]\n");
        assert_eq!(line, 2);
        assert_eq!(col, 9, "{message}"); // the list holding it
        assert!(message.contains("bad glob \"[a\""), "{message}");
        let (line, _, message) =
            invalid("[[expressions]]\nkeys = [\"x\"]\n\n[[expressions]]\nkeys = [\"{a\"]\n");
        assert_eq!(line, 5, "{message}");
    }

    #[test]
    fn empty_keys_and_bad_variable_names_are_errors() {
        let (line, _, message) = invalid("[merge]\nid_keys = [\"id\", \"\"]\n");
        assert_eq!(line, 2);
        assert!(message.contains("empty key name"), "{message}");
        let (line, _, message) =
            invalid("[[expressions]]\nkeys = [\"*_expr\"]\nvariables = [\"1t\"]\n");
        assert_eq!(line, 3);
        assert!(message.contains("bad variable name \"1t\""), "{message}");
        let ok = "[merge]\nnatural_keys = [\"name\", \"title\"]\n[[expressions]]\nvariables = [\"t\", \"_dt2\"]\n";
        assert!(Config::parse(ok, Path::new("assetvc.toml")).is_ok());
    }

    proptest! {
        /// A name is accepted exactly when it is a policy name, and a rejected one is
        /// always reported on the policy's line.
        #[test]
        fn policy_accepted_iff_known(name in "[a-z]{0,8}") {
            let text = format!("[merge]\npolicy = \"{name}\"\n");
            let result = Config::parse(&text, Path::new("assetvc.toml"));
            let known = Policy::ALL.into_iter().find(|p| p.name() == name);
            match result {
                Ok(c) => prop_assert!(known == Some(c.merge.policy)),
                Err(ConfigError::Invalid { line, .. }) => prop_assert!(known.is_none() && line == 2),
                Err(e) => prop_assert!(false, "{e}"),
            }
        }
    }
}
