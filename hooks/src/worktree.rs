//! Checking files on disk, for `assetvc check`.

use std::io::Read;
use std::path::PathBuf;

use rayon::prelude::*;

use crate::checks::{check_classified, is_binary};
use crate::engine::in_pool;
use crate::policy::Policy;
use crate::problem::{Check, Problem};

/// Checks `files` (each a new file: see [`crate::check_blob`]) in parallel; problems
/// come in the order of `files`. A file that is only searched for conflict markers is
/// read past its first 8,000 bytes only if it is text.
pub fn check_files(files: &[PathBuf], policy: &Policy) -> Vec<Problem> {
    in_pool(|| {
        files
            .par_iter()
            .map(|file| {
                let name = file.display().to_string();
                let class = policy.classify(&name);
                let markers_only = class.dialect.is_none()
                    && !class.lua
                    && !class.config_file
                    && class.checkers.is_empty();
                match read(file, markers_only) {
                    Ok(Some(bytes)) => check_classified(&name, &bytes, None, &class, policy),
                    Ok(None) => Vec::new(),
                    Err(e) => vec![Problem::whole_file(&name, Check::Read, e.to_string())],
                }
            })
            .flatten()
            .collect()
    })
}

/// The file's bytes, or `None` when `skip_binary` and it is binary.
fn read(file: &PathBuf, skip_binary: bool) -> std::io::Result<Option<Vec<u8>>> {
    let mut f = std::fs::File::open(file)?;
    let mut bytes = Vec::new();
    (&mut f).take(8000).read_to_end(&mut bytes)?;
    if skip_binary && is_binary(&bytes) {
        return Ok(None);
    }
    f.read_to_end(&mut bytes)?;
    Ok(Some(bytes))
}
