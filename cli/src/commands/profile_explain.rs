//! `assetvc check --explain FILE…`: each file's engine profile, as the merge would choose
//! it (`assetvc.toml` `[profiles]`, then the extension, then the content), and what the
//! profile knows about the file's identities, counters, grids, sets and references.

use std::path::{Path, PathBuf};

use merge::profile::Profile;

use crate::commands::merging;
use crate::exit::{Error, Outcome};
use crate::{repo_config, report};

/// Prints the profile of each of `paths` (files): 0, or 2 when one cannot be read or
/// parsed (`file:line:col: reason`).
pub fn run(paths: &[PathBuf]) -> crate::exit::Result<Outcome> {
    if paths.is_empty() {
        return Err(Error::Usage("check --explain needs a file".into()));
    }
    let root = repo_config::root_for(Path::new("."));
    let (options, config) = merging::options(&root, None).map_err(crate::exit::Error::Config)?;
    for path in paths {
        let shown = path.display().to_string();
        let dialect = merging::dialect_of(&config, path);
        let doc = merging::load(path, &shown, dialect).map_err(Error::Load)?;
        let configured = config.profiles.for_path(path);
        let profile = Profile::choose(configured, Some(&path.to_string_lossy()), &doc);
        outln!("{}:", report::safe(&shown));
        for line in profile.explain(&options.id_keys).lines() {
            outln!("  {}", report::safe(line));
        }
    }
    Ok(Outcome::Done)
}
