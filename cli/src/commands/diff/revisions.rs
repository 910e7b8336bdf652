//! `assetvc diff [REV [REV]] [-- PATH...]`: the revision mode, `HEAD` against the worktree
//! by default.

use std::path::{Path, PathBuf};

use crate::exit::bail;

use serde::Serialize;
use serde_json::value::RawValue;

use super::{changes, header, is_binary, print_out, render_asset, settings};
use super::{DiffArgs, Format, Paint, Status};
use crate::exit::Outcome;
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

/// `assetvc diff [REV [REV]] [-- PATH...]`.
pub(super) fn run_revisions(args: &DiffArgs, format: Format) -> crate::exit::Result<Outcome> {
    let cwd = std::env::current_dir().and_then(|d| d.canonicalize())?;
    let repo = store::Repo::discover(&cwd)?;
    let request = Request::of(args, &repo, &cwd)?;
    let (settings, matcher) = settings(&request.root)?;
    let tree_a = repo.tree(request.rev_a)?;
    let tree_b = request.rev_b.map(|b| repo.tree(b)).transpose()?;
    let paths = match tree_b {
        Some(tb) => repo.changed_between(tree_a, tb),
        None => repo.changed_in_worktree(tree_a),
    }?;
    let page = match &args.html {
        Some(_) => Some(super::html::ReviewPage::new(
            &request.root,
            &settings.options,
        )?),
        None => None,
    };
    let mut out = Output::new(format, page);
    for path in paths.iter().filter(|p| request.wants(p)) {
        let (old, new) = match read_pair(&repo, tree_a, tree_b, path) {
            Ok(pair) => pair,
            Err(e) => {
                report::error(e);
                out.status = Outcome::ErrorsReported;
                continue;
            }
        };
        if old == new {
            continue;
        }
        let (old, new) = (old.as_deref(), new.as_deref());
        let file_status = Status::of(old, new);
        match matcher.dialect(Path::new(path)) {
            None => out.other_file(path, file_status, [old, new]),
            Some(dialect) => {
                let shown_old = format!("{}:{path}", request.rev_a);
                let shown_new = match request.rev_b {
                    Some(b) => format!("{b}:{path}"),
                    None => path.clone(),
                };
                let shown = (shown_old.as_str(), shown_new.as_str());
                out.asset(path, file_status, [old, new], shown, dialect, &settings);
            }
        }
    }
    out.finish(args, &request)
}

/// What the revision mode compares: a revision and another (or the worktree), under the
/// paths asked for.
struct Request<'a> {
    rev_a: &'a str,
    /// `None`: the worktree.
    rev_b: Option<&'a str>,
    /// The worktree's root (or the current folder, for two revisions of a bare repository).
    root: PathBuf,
    /// The paths asked for, relative to the root, `/`-separated (none: every path).
    prefixes: Vec<String>,
}

impl<'a> Request<'a> {
    /// Reads the arguments: revisions first, then (as git allows without `--`) existing
    /// paths, then the paths after `--`.
    fn of(args: &'a DiffArgs, repo: &store::Repo, cwd: &Path) -> crate::exit::Result<Request<'a>> {
        // An option given after `--` is a path to clap; one that names nothing is a
        // mistake (`diff -- a.level --format changes`), not a filter that silently
        // matches nothing.
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
            None if rev_b.is_some() => cwd.to_path_buf(),
            None => {
                bail!("the repository has no worktree: give two revisions");
            }
        };
        let mut prefixes: Vec<String> = Vec::new();
        for f in &filters {
            let Some(rel) = store::rela_path(&root, &cwd.join(f)) else {
                bail!("{}: outside the repository", f.display());
            };
            prefixes.push(rel);
        }
        Ok(Request {
            rev_a,
            rev_b,
            root,
            prefixes,
        })
    }

    /// Whether `path` is asked for: it is, or lies under, one of the prefixes.
    fn wants(&self, path: &str) -> bool {
        self.prefixes.is_empty()
            || self.prefixes.iter().any(|f| {
                f.is_empty()
                    || path == f
                    || path
                        .strip_prefix(f.as_str())
                        .is_some_and(|r| r.starts_with('/'))
            })
    }
}

/// A file's two versions: at `tree_a`, and at `tree_b` or in the worktree (`None`: absent).
type Pair = (Option<Vec<u8>>, Option<Vec<u8>>);

/// Reads `path` in `tree_a` and in `tree_b` (the worktree when `None`).
fn read_pair(
    repo: &store::Repo,
    tree_a: store::TreeId,
    tree_b: Option<store::TreeId>,
    path: &str,
) -> store::Result<Pair> {
    let old = repo.blob_in(tree_a, path)?;
    let new = match tree_b {
        Some(tb) => repo.blob_in(tb, path)?,
        None => repo.worktree_file(path)?,
    };
    Ok((old, new))
}

/// The revision mode's output, built file by file: the review page, or text, or records.
struct Output {
    format: Format,
    paint: Paint,
    page: Option<super::html::ReviewPage>,
    text: String,
    records: Vec<FileRecord>,
    /// [`Outcome::ErrorsReported`] once a file could not be read or parsed.
    status: Outcome,
}

impl Output {
    fn new(format: Format, page: Option<super::html::ReviewPage>) -> Output {
        Output {
            format,
            paint: Paint::stdout(),
            page,
            text: String::new(),
            records: Vec::new(),
            status: Outcome::Done,
        }
    }

    /// A changed file that is not an asset: named, with whether it is text or binary.
    fn other_file(&mut self, path: &str, file_status: Status, [old, new]: [Option<&[u8]>; 2]) {
        let binary = old.is_some_and(is_binary) || new.is_some_and(is_binary);
        let kind = if binary { "binary" } else { "text" };
        if let Some(p) = self.page.as_mut() {
            let note = format!("A {kind} file, not an asset: no objects to show.");
            p.add_note(path, file_status.name(), note);
            return;
        }
        let paint = self.paint;
        match self.format {
            Format::Text => {
                self.text.push_str(&header(paint, path, path));
                self.text.push('\n');
                let line = paint.dim(&format!("{kind} file {}", file_status.name()));
                self.text.push_str(&line);
                self.text.push('\n');
            }
            Format::Changes => {
                eprintln!("assetvc: {path}: not an asset, left out of the change set")
            }
            _ => self.records.push(FileRecord {
                path: path.to_string(),
                status: file_status.name(),
                asset: false,
                binary: Some(binary),
                changes: None,
                patch: None,
                unparsed: None,
                line_diff: None,
            }),
        }
    }

    /// A changed asset: its objects' changes (or a line diff when a version does not
    /// parse), shown as `shown` (old, new).
    fn asset(
        &mut self,
        path: &str,
        file_status: Status,
        [old, new]: [Option<&[u8]>; 2],
        shown: (&str, &str),
        dialect: sjson::Dialect,
        settings: &super::DiffSettings,
    ) {
        if let Some(p) = self.page.as_mut() {
            if let Err(e) = p.add_asset(path, old, new, shown, (dialect, dialect)) {
                eprintln!("{e}");
                p.add_note(
                    path,
                    file_status.name(),
                    "Does not parse: see the message of assetvc diff.".into(),
                );
                self.status = Outcome::ErrorsReported;
            }
            return;
        }
        let (format, paint) = (self.format, self.paint);
        let rendered = render_asset(old, new, shown.0, shown.1, dialect, settings, format, paint);
        match format {
            Format::Text => {
                self.text.push_str(&header(paint, path, path));
                self.text.push('\n');
                for l in rendered.lines {
                    self.text.push_str(&l);
                    self.text.push('\n');
                }
            }
            Format::Changes => match &rendered.unparsed {
                Some(why) => {
                    eprintln!("assetvc: {path}: {why}: left out of the change set");
                    self.status = Outcome::ErrorsReported;
                }
                None => self
                    .text
                    .push_str(&changes::name_file(&rendered.json, path)),
            },
            _ => {
                let raw = RawValue::from_string(rendered.json).ok();
                let (changes, patch) = if format == Format::Records {
                    (raw, None)
                } else {
                    (None, raw)
                };
                let line_diff = rendered.unparsed.is_some().then_some(rendered.line_diff);
                self.records.push(FileRecord {
                    path: path.to_string(),
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

    /// Writes the review page, or prints the text or the records; the exit status.
    fn finish(self, args: &DiffArgs, request: &Request<'_>) -> crate::exit::Result<Outcome> {
        if let (Some(p), Some(out)) = (self.page, &args.html) {
            let subtitle = format!(
                "{} → {}",
                request.rev_a,
                request.rev_b.unwrap_or("worktree")
            );
            p.write(out, "Review · diff".into(), subtitle)?;
            return Ok(self.status);
        }
        let text = match self.format {
            Format::Text | Format::Changes => self.text,
            _ => format!(
                "{}\n",
                serde_json::to_string_pretty(&self.records)
                    .map_err(|e| crate::exit::failure!(e))?
            ),
        };
        print_out(&text)?;
        Ok(self.status)
    }
}
