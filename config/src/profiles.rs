//! `[profiles]`: engine profiles chosen by file pattern (`"*.fire" = "cocos2"`), read and
//! validated while the file is read.

use std::path::Path;

use globset::{Glob, GlobMatcher};
use merge::profile::Format;
use serde::{Deserialize, Deserializer};

/// Patterns mapped to engine profiles; the longest matching pattern wins.
#[derive(Debug, Clone, Default)]
pub struct Profiles(Vec<(String, GlobMatcher, Format)>);

impl Profiles {
    /// The profile configured for `path` (matched on the file name, then the whole path)
    /// and the pattern that chose it.
    pub fn for_path(&self, path: &Path) -> Option<(Format, &str)> {
        let name = path.file_name().map(Path::new).unwrap_or(path);
        self.0
            .iter()
            .find(|(_, glob, _)| glob.is_match(name) || glob.is_match(path))
            .map(|(pattern, _, format)| (*format, pattern.as_str()))
    }

    /// The engine profile of `path` for a merge: the configured one ([`Profiles::for_path`]),
    /// else the one its file name implies ([`Format::by_file_name`]); `None` leaves it to
    /// the content of ours at the merge. The driver, `merge-file` and the porcelain all
    /// choose by this.
    pub fn format_of(&self, path: &Path) -> Option<Format> {
        match self.for_path(path) {
            Some((format, _)) => Some(format),
            None => Format::by_file_name(&path.to_string_lossy()),
        }
    }

    /// Whether no profile is configured.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// A profile name, validated where it is written (its error has the value's position).
struct FormatName(Format);

impl<'de> Deserialize<'de> for FormatName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<FormatName, D::Error> {
        let name = String::deserialize(d)?;
        name.parse()
            .map(FormatName)
            .map_err(serde::de::Error::custom)
    }
}

impl<'de> Deserialize<'de> for Profiles {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Profiles, D::Error> {
        // The longest (most specific) pattern is tried first.
        let table = std::collections::BTreeMap::<String, FormatName>::deserialize(d)?;
        let mut profiles = Vec::with_capacity(table.len());
        for (pattern, FormatName(format)) in table {
            let glob = Glob::new(&pattern).map_err(|e| {
                serde::de::Error::custom(format!("bad glob {pattern:?}: {}", e.kind()))
            })?;
            profiles.push((pattern, glob.compile_matcher(), format));
        }
        profiles.sort_by_key(|(pattern, _, _)| std::cmp::Reverse(pattern.len()));
        Ok(Profiles(profiles))
    }
}

#[cfg(test)]
mod tests {
    use crate::Config;

    use super::*;

    #[test]
    fn patterns_choose_profiles_and_bad_names_are_errors_at_their_place() {
        let text = "[profiles]\n\"*.fire\" = \"cocos\"\n\"maps/*.json\" = \"tiled\"\n";
        let c = Config::parse(text, Path::new("assetvc.toml")).unwrap();
        assert_eq!(
            c.profiles.for_path(Path::new("a/b.fire")),
            Some((Format::Cocos2, "*.fire"))
        );
        assert_eq!(
            c.profiles.for_path(Path::new("maps/x.json")).map(|p| p.0),
            Some(Format::Tiled)
        );
        assert_eq!(c.profiles.for_path(Path::new("x.json")), None);
        // Configured first, else by file name.
        assert_eq!(
            c.profiles.format_of(Path::new("maps/x.json")),
            Some(Format::Tiled)
        );
        assert_eq!(
            c.profiles.format_of(Path::new("x.ldtk")),
            Format::by_file_name("x.ldtk")
        );
        let e = Config::parse("[profiles]\n\"*.x\" = \"unreal\"\n", Path::new("a")).unwrap_err();
        let shown = e.to_string();
        assert!(
            shown.contains(":2:") && shown.contains("unknown profile"),
            "{shown}"
        );
    }

    proptest::proptest! {
        /// A configured profile wins; any other path gets what its file name implies.
        #[test]
        fn the_profile_of_a_path_is_the_configured_one_else_by_file_name(
            name in "[a-z]{1,8}\\.(fire|prefab|tmx|tmj|ldtk|json|level|sjson)",
            dir in "([a-z]{1,5}/){0,2}",
        ) {
            let text = "[profiles]\n\"*.level\" = \"tiled\"\n";
            let c = Config::parse(text, Path::new("assetvc.toml")).unwrap();
            let path = format!("{dir}{name}");
            let want = match name.ends_with(".level") {
                true => Some(Format::Tiled),
                false => Format::by_file_name(&path),
            };
            proptest::prop_assert_eq!(c.profiles.format_of(Path::new(&path)), want);
            proptest::prop_assert_eq!(
                Profiles::default().format_of(Path::new(&path)),
                Format::by_file_name(&path)
            );
        }
    }
}
