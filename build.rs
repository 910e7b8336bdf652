//! Gives both binaries (`assetvc`, `assetvc-merge-driver`) the identity of the source
//! they were built from, `ASSETVC_SOURCE_ID`: a hash of the workspace's Rust sources,
//! manifests and lock file. `assetvc install` registers the lean driver beside `assetvc`
//! only when the two identities match: `cargo run -- install` rebuilds `assetvc` alone,
//! and would otherwise register a driver built from older code.

use std::path::{Path, PathBuf};

/// The crates both binaries are built from (beside `cli`, the root package's own code):
/// their `src` and `Cargo.toml` decide the build, with the root's manifest and lock file.
const CRATES: &[&str] = &[
    "sjson", "merge", "expr", "config", "store", "hooks", "review",
];

/// 64-bit FNV-1a over `bytes`, continuing from `hash`.
fn fnv1a(mut hash: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

/// Appends the files under `dir`, recursively, in the order the file system lists them.
fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files_under(&path, out);
        } else {
            out.push(path);
        }
    }
}

fn main() {
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let mut watched = vec!["cli".to_string(), "Cargo.toml".into(), "Cargo.lock".into()];
    for krate in CRATES {
        watched.push(format!("{krate}/src"));
        watched.push(format!("{krate}/Cargo.toml"));
    }
    let mut files = Vec::new();
    for path in &watched {
        println!("cargo:rerun-if-changed={path}");
        let path = root.join(path);
        if path.is_dir() {
            files_under(&path, &mut files);
        } else {
            files.push(path);
        }
    }
    // Sorted, so that the hash does not depend on the order directories are listed in.
    files.sort();
    let mut hash = 0xcbf2_9ce4_8422_2325;
    for file in &files {
        let name = file.strip_prefix(&root).unwrap_or(file);
        hash = fnv1a(hash, name.to_string_lossy().as_bytes());
        hash = fnv1a(hash, &std::fs::read(file).unwrap_or_default());
    }
    println!("cargo:rustc-env=ASSETVC_SOURCE_ID={hash:016x}");
}
