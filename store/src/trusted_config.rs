//! The trusted `assetvc.*` entries of git config: system, global, the repository's own
//! file and `git -c`, never a file from a tree or an untrusted owner's.

use std::path::Path;

use gix::bstr::ByteSlice;

use crate::Repo;

/// One entry of the `assetvc` section of git config, from a fully trusted file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigEntry {
    /// The subsection (`check.glsl` in `assetvc.check.glsl.command`), case kept.
    pub subsection: Option<String>,
    /// The value name, lowercased (git names are case-insensitive).
    pub name: String,
    /// The value; `None` for a bare `name` line, which git reads as `true`.
    pub value: Option<String>,
}

/// The `assetvc.*` entries of a repository's configuration — system, global, the
/// repository's own file and `git -c` — in the order git reads them (later wins). Only
/// fully trusted sources count: never a file from a tree, never an untrusted owner's.
fn trusted_assetvc_config(repo: &gix::Repository) -> Vec<ConfigEntry> {
    let snapshot = repo.config_snapshot();
    let file = snapshot.plumbing();
    let mut out = Vec::new();
    let Some(sections) = file.sections_by_name("assetvc") else {
        return out;
    };
    for section in sections {
        if section.meta().trust != gix::sec::Trust::Full {
            continue;
        }
        let subsection = section
            .header()
            .subsection_name()
            .map(|s| s.to_str_lossy().into_owned());
        let mut names: Vec<String> = section.value_names().collect();
        names.dedup();
        let mut seen = std::collections::HashSet::new();
        for name in names {
            let lower = name.to_ascii_lowercase();
            if !seen.insert(lower.clone()) {
                continue;
            }
            let values = section.values(&name);
            if values.is_empty() {
                if let Some(None) = section.value_implicit(&name) {
                    out.push(ConfigEntry {
                        subsection: subsection.clone(),
                        name: lower.clone(),
                        value: None,
                    });
                }
            }
            for v in values {
                out.push(ConfigEntry {
                    subsection: subsection.clone(),
                    name: lower.clone(),
                    value: Some(v.to_str_lossy().into_owned()),
                });
            }
        }
    }
    out
}

impl Repo {
    /// The trusted `assetvc.*` git config entries (system, global, this repository's).
    pub fn assetvc_config(&self) -> Vec<ConfigEntry> {
        trusted_assetvc_config(&self.git)
    }
}

/// The trusted `assetvc.*` git config of the repository containing `dir`, or nothing
/// when `dir` is in no repository.
pub fn trusted_config(dir: &Path) -> Vec<ConfigEntry> {
    match Repo::discover(dir) {
        Ok(repo) => repo.assetvc_config(),
        Err(_) => Vec::new(),
    }
}
