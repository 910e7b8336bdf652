//! `assetvc diff [REV [REV]] [-- PATH...]`: the revision mode, `HEAD` against the worktree
//! by default.

use std::path::{Component, Path, PathBuf};
use std::process::ExitCode;

use anyhow::bail;

use serde::Serialize;
use serde_json::value::RawValue;

use super::{changes, header, is_binary, print_out, render_asset, settings};
use super::{DiffArgs, Format, Paint, Status};
use crate::report;

/// One file's record in the JSON output of the revision mode.
#[derive(Serialize)]
struct FileRecord {
    path: String,
    status: &'static str,
    asset: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    binary: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    changes: Option<Box<RawValue>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    patch: Option<Box<RawValue>>,
    /// Why a side does not parse (`path:line:col: reason`): the file is a line diff.
    #[serde(skip_serializing_if = "Option::is_none")]
    unparsed: Option<String>,
    /// The unified line diff shown instead of the changes (when `unparsed`).
    #[serde(skip_serializing_if = "Option::is_none")]
    line_diff: Option<Vec<String>>,
}

/// Lexically normalizes a path (`.` and `..` resolved without the file system).
fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// `assetvc diff [REV [REV]] [-- PATH...]`.
pub(super) fn run_revisions(args: &DiffArgs, format: Format) -> anyhow::Result<ExitCode> {
    let cwd = std::env::current_dir().and_then(|d| d.canonicalize())?;
    let repo = store::Repo::discover(&cwd)?;
    // An option given after `--` is a path to clap; one that names nothing is a mistake
    // (`diff -- a.level --format changes`), not a filter that silently matches nothing.
    if let Some(p) = args
        .paths
        .iter()
        .find(|p| p.to_string_lossy().starts_with('-') && !cwd.join(p).exists())
    {
        bail!(
            "{}: an option after `--` is taken as a path, and no such path exists; \
             put options before `--`",
            p.display()
        );
    }
    // Arguments: revisions first, then (as git allows without `--`) existing paths.
    let mut revs: Vec<&str> = Vec::new();
    let mut filters: Vec<PathBuf> = args.paths.clone();
    for a in &args.args {
        if filters.len() == args.paths.len() && revs.len() < 2 && repo.is_revision(a) {
            revs.push(a);
        } else if cwd.join(a).exists() {
            filters.push(PathBuf::from(a));
        } else {
            bail!("unknown revision or path not in the worktree: {a}");
        }
    }
    let rev_a = revs.first().copied().unwrap_or("HEAD");
    let rev_b = revs.get(1).copied();
    let root = match repo.workdir() {
        Some(w) => w.canonicalize().unwrap_or_else(|_| w.to_path_buf()),
        None if rev_b.is_some() => cwd.clone(),
        None => {
            bail!("the repository has no worktree: give two revisions");
        }
    };
    let mut prefixes: Vec<String> = Vec::new();
    for f in &filters {
        let abs = normalize(&cwd.join(f));
        match abs.strip_prefix(&root) {
            Ok(rel) => prefixes.push(
                rel.components()
                    .map(|c| c.as_os_str().to_string_lossy())
                    .collect::<Vec<_>>()
                    .join("/"),
            ),
            Err(_) => {
                bail!("{}: outside the repository", f.display());
            }
        }
    }
    let (settings, matcher) = settings(&root)?;
    let tree_a = repo.tree(rev_a)?;
    let tree_b = rev_b.map(|b| repo.tree(b)).transpose()?;
    let paths = match tree_b {
        Some(tb) => repo.changed_between(tree_a, tb),
        None => repo.changed_in_worktree(tree_a),
    };
    let paths = paths?;
    let wanted = |p: &str| {
        prefixes.is_empty()
            || prefixes.iter().any(|f| {
                f.is_empty()
                    || p == f
                    || p.strip_prefix(f.as_str())
                        .is_some_and(|r| r.starts_with('/'))
            })
    };
    let mut page = match &args.html {
        Some(_) => Some(super::html::ReviewPage::new(&root, &settings.options)?),
        None => None,
    };
    let paint = Paint::stdout();
    let mut status = 0u8;
    let mut text = String::new();
    let mut records: Vec<FileRecord> = Vec::new();
    for path in paths.iter().filter(|p| wanted(p)) {
        let old = match repo.blob_in(tree_a, path) {
            Ok(b) => b,
            Err(e) => {
                report::error(e);
                status = 2;
                continue;
            }
        };
        let new = match tree_b {
            Some(tb) => repo.blob_in(tb, path),
            None => repo.worktree_file(path),
        };
        let new = match new {
            Ok(b) => b,
            Err(e) => {
                report::error(e);
                status = 2;
                continue;
            }
        };
        if old == new {
            continue;
        }
        let file_status = Status::of(old.as_deref(), new.as_deref());
        let Some(asset_dialect) = matcher.dialect(Path::new(path)) else {
            let binary =
                old.as_deref().is_some_and(is_binary) || new.as_deref().is_some_and(is_binary);
            let kind = if binary { "binary" } else { "text" };
            if let Some(p) = page.as_mut() {
                let note = format!("A {kind} file, not an asset: no objects to show.");
                p.add_note(path, file_status.name(), note);
                continue;
            }
            match format {
                Format::Text => {
                    text.push_str(&header(paint, path, path));
                    text.push('\n');
                    text.push_str(&paint.dim(&format!("{kind} file {}", file_status.name())));
                    text.push('\n');
                }
                Format::Changes => {
                    eprintln!("assetvc: {path}: not an asset, left out of the change set")
                }
                _ => records.push(FileRecord {
                    path: path.clone(),
                    status: file_status.name(),
                    asset: false,
                    binary: Some(binary),
                    changes: None,
                    patch: None,
                    unparsed: None,
                    line_diff: None,
                }),
            }
            continue;
        };
        let shown_old = format!("{rev_a}:{path}");
        let shown_new = match rev_b {
            Some(b) => format!("{b}:{path}"),
            None => path.clone(),
        };
        if let Some(p) = page.as_mut() {
            let shown = (shown_old.as_str(), shown_new.as_str());
            let dialects = (asset_dialect, asset_dialect);
            if let Err(e) = p.add_asset(path, old.as_deref(), new.as_deref(), shown, dialects) {
                eprintln!("{e}");
                p.add_note(
                    path,
                    file_status.name(),
                    "Does not parse: see the message of assetvc diff.".into(),
                );
                status = 2;
            }
            continue;
        }
        let rendered = render_asset(
            old.as_deref(),
            new.as_deref(),
            &shown_old,
            &shown_new,
            asset_dialect,
            &settings,
            format,
            paint,
        );
        match format {
            Format::Text => {
                text.push_str(&header(paint, path, path));
                text.push('\n');
                for l in rendered.lines {
                    text.push_str(&l);
                    text.push('\n');
                }
            }
            Format::Changes => match &rendered.unparsed {
                Some(why) => {
                    eprintln!("assetvc: {path}: {why}: left out of the change set");
                    status = 2;
                }
                None => text.push_str(&changes::name_file(&rendered.json, path)),
            },
            _ => {
                let raw = RawValue::from_string(rendered.json).ok();
                let (changes, patch) = if format == Format::Records {
                    (raw, None)
                } else {
                    (None, raw)
                };
                let line_diff = rendered.unparsed.is_some().then_some(rendered.line_diff);
                records.push(FileRecord {
                    path: path.clone(),
                    status: file_status.name(),
                    asset: true,
                    binary: None,
                    changes,
                    patch,
                    unparsed: rendered.unparsed,
                    line_diff,
                });
            }
        }
    }
    if let (Some(p), Some(out)) = (page, &args.html) {
        let subtitle = format!("{rev_a} → {}", rev_b.unwrap_or("worktree"));
        p.write(out, "Review · diff".into(), subtitle)?;
        return Ok(ExitCode::from(status));
    }
    if !matches!(format, Format::Text | Format::Changes) {
        text = format!("{}\n", serde_json::to_string_pretty(&records)?);
    }
    print_out(&text)?;
    Ok(ExitCode::from(status))
}
