//! Objects as first-class: `show`, `log`, `blame` and `restore` over the object index of
//! `store::objects`. Here: what the four commands share — opening the repository and its
//! index with the settings of `assetvc.toml`, resolving OBJECT specs, naming objects and
//! commits for people and for `--json`.
//!
//! Exit status: 0 success; 2 bad input (unknown revision, no or several matching
//! objects, an unparsable file) with a message on stderr.

pub mod blame;
pub mod index;
pub mod log;
pub mod restore;
pub mod show;

use std::hash::{Hash, Hasher};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::json;
use store::{Candidate, Commit, IndexSettings, ObjectIndex, TreeIndex};

use config::{AssetMatcher, Config};

/// A repository opened for the object commands.
pub struct Repo {
    /// The repository.
    pub repo: store::Repo,
    /// Its worktree root, if any.
    pub root: Option<PathBuf>,
    /// The configuration.
    pub config: Config,
    /// Which files are assets.
    pub matcher: AssetMatcher,
}

/// Opens the repository of the current directory and its configuration.
pub fn open() -> crate::exit::Result<Repo> {
    let cwd = std::env::current_dir()?;
    let repo = store::Repo::discover(&cwd)?;
    let root = repo.workdir().map(Path::to_path_buf);
    let config = crate::repo_config::at_root(root.as_deref().unwrap_or(repo.git_dir()))?;
    let matcher = config.matcher()?;
    Ok(Repo {
        repo,
        root,
        config,
        matcher,
    })
}

impl Repo {
    /// The object index with this repository's settings (a progress bar on a terminal).
    pub fn index(&self) -> ObjectIndex<'_> {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (
            &self.config.assets.sjson,
            &self.config.assets.json,
            &self.config.merge.id_keys,
        )
            .hash(&mut h);
        let matcher = self.matcher.clone();
        let settings = IndexSettings {
            dialect: Arc::new(move |p: &str| matcher.dialect(Path::new(p))),
            id_keys: self.config.merge.id_keys.clone(),
            fingerprint: h.finish(),
            progress: progress_bar(),
        };
        ObjectIndex::open(&self.repo, settings)
    }

    /// A path given on the command line (relative to the current directory) as a
    /// repository path; as given when there is no worktree or it is outside.
    pub fn rela(&self, path: &str) -> String {
        self.root
            .as_deref()
            .and_then(|root| store::rela_path(root, Path::new(path)))
            .map(|p| p.to_string())
            .unwrap_or_else(|| path.trim_start_matches("./").to_string())
    }

    /// `FILE#ID` with FILE made repository-relative; other specs unchanged.
    pub fn spec(&self, spec: &str) -> String {
        match spec.rsplit_once('#') {
            Some((file, id)) if !file.is_empty() => format!("{}#{id}", self.rela(file)),
            _ => spec.to_string(),
        }
    }
}

/// An indexing progress bar on stderr when it is a terminal.
fn progress_bar() -> Option<store::IndexProgress> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar =
        indicatif::ProgressBar::with_draw_target(Some(0), indicatif::ProgressDrawTarget::stderr());
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "assetvc: indexing objects [{bar:40}] {pos}/{len} commits {elapsed_precise}",
    ) {
        bar.set_style(style.progress_chars("=> "));
    }
    Some(Arc::new(move |done, total| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
        if done >= total {
            bar.finish_and_clear();
        }
    }))
}

/// An object as people name it, as every report does: `door #3f2a9c1e`, or `#3f2a9c1e`
/// without a name ([`merge::naming::object_label`]; escaped for terminals).
pub fn object_name(name: Option<&str>, id: &str) -> String {
    merge::naming::object_label(name, id)
}

/// A commit line's author and summary, escaped for terminals within one line.
pub fn commit_text(c: &Commit) -> (String, String) {
    let safe = crate::report::safe_line;
    (safe(&c.author).into_owned(), safe(&c.summary).into_owned())
}

/// Resolves `spec` in `index`; an ambiguous spec lists its candidates.
pub fn resolve(index: &TreeIndex, spec: &str) -> crate::exit::Result<Candidate> {
    index.resolve(spec).map_err(|e| match &e {
        store::Error::AmbiguousObject { candidates, .. } => {
            let mut msg = format!("{e}; say which with FILE#ID:");
            for c in candidates {
                msg.push_str(&format!(
                    "\n    {}  {}#{}",
                    object_name(c.name.as_deref(), &c.id),
                    crate::report::safe_line(&c.path),
                    crate::report::safe_line(&c.id)
                ));
            }
            crate::exit::failure!(msg)
        }
        _ => e.into(),
    })
}

/// A commit's author time in UTC, ISO 8601.
pub fn date(seconds: i64) -> String {
    store::iso_time(seconds)
}

/// A commit's author day in UTC: `2026-11-24`.
pub fn day(seconds: i64) -> String {
    store::day(seconds)
}

/// A commit's short id.
pub fn short_commit(c: &Commit) -> String {
    c.id.to_hex_with_len(7).to_string()
}

/// A commit for `--json`.
pub fn commit_json(c: &Commit) -> serde_json::Value {
    json!({
        "commit": c.id.to_string(),
        "author": c.author,
        "email": c.email,
        "date": date(c.time),
        "summary": c.summary,
    })
}

/// Prints a JSON value on stdout.
pub fn print_json(v: &serde_json::Value) -> std::io::Result<()> {
    use std::io::Write;
    let text = serde_json::to_string_pretty(v).unwrap_or_default();
    let mut out = crate::output::stdout();
    writeln!(out, "{text}")?;
    out.flush()
}
