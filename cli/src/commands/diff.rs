//! `assetvc diff`: object-level diffs of assets, between two files or between revisions
//! (`HEAD` against the worktree by default), as text, an RFC 6902 JSON Patch or a list of
//! change records; and `assetvc diff-driver`, the external diff command git calls
//! (`diff.assetvc.command = <assetvc> diff-driver`) so that `git diff` and `git log -p
//! --ext-diff` show the same object-level diff.
//!
//! Exit status: 0 whether or not there are differences (like `git diff` without
//! `--exit-code`), 2 on bad input (an unparsable asset, an unknown revision).

use std::io::{IsTerminal, Write};
use std::path::{Component, Path, PathBuf};

use clap::{Args, ValueEnum};
use merge::diff::{diff, Change, Diff, DiffOptions, PatchOp};
use serde::Serialize;
use serde_json::value::RawValue;
use sjson::{Dialect, Document, Kind, ParseOptions, Path as DocPath};

use super::merging;
use crate::config::AssetMatcher;
use crate::report;

/// How differences are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// One line per change: `entities[id=f341].position: [0 0 0] → [1 0 0]`.
    Text,
    /// An RFC 6902 JSON Patch (array indices in paths).
    JsonPatch,
    /// A JSON list of change records (keyed elements named by id in paths).
    Changes,
}

/// Arguments of `assetvc diff`.
#[derive(Debug, Args)]
pub struct DiffArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// The same as `--format changes`.
    #[arg(long)]
    pub json: bool,
    /// Two files A B; or no, one or two revisions (default: HEAD against the worktree;
    /// one: REV against the worktree; two: REV against REV).
    #[arg(value_name = "A B | REV")]
    pub args: Vec<String>,
    /// Only these paths (given after `--`).
    #[arg(last = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
}

/// Arguments of `assetvc diff-driver`, as git passes them to an external diff command.
#[derive(Debug, Args)]
pub struct DiffDriverArgs {
    /// The path of the file in the repository.
    pub path: String,
    /// old-file old-hex old-mode new-file new-hex new-mode [new-path rename-info]
    /// (`/dev/null` for a missing side; nothing for an unmerged path).
    #[arg(allow_hyphen_values = true, value_name = "ARG")]
    pub rest: Vec<String>,
}

/// ANSI colors, on only when writing to a terminal and `NO_COLOR` is not set.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Paint {
    on: bool,
}

impl Paint {
    /// Colors if stdout is a terminal and `NO_COLOR` is unset or empty.
    pub(crate) fn stdout() -> Paint {
        Paint {
            on: std::io::stdout().is_terminal() && !no_color(),
        }
    }

    fn for_git() -> Paint {
        // git pipes an external diff's output into its pager (which shows colors).
        let pager = std::env::var_os("GIT_PAGER_IN_USE").is_some_and(|v| v == "true" || v == "1");
        Paint {
            on: (std::io::stdout().is_terminal() || pager) && !no_color(),
        }
    }

    fn wrap(self, code: &str, s: &str) -> String {
        if self.on {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }

    pub(crate) fn bold(self, s: &str) -> String {
        self.wrap("1", s)
    }
    pub(crate) fn red(self, s: &str) -> String {
        self.wrap("31", s)
    }
    pub(crate) fn green(self, s: &str) -> String {
        self.wrap("32", s)
    }
    pub(crate) fn yellow(self, s: &str) -> String {
        self.wrap("33", s)
    }
    pub(crate) fn cyan(self, s: &str) -> String {
        self.wrap("36", s)
    }
    pub(crate) fn dim(self, s: &str) -> String {
        self.wrap("2", s)
    }

    /// A change's line, colored by its kind.
    pub(crate) fn change(self, c: &Change<'_>) -> String {
        let text = c.text();
        match c {
            Change::Added { .. } => self.green(&text),
            Change::Removed { .. } => self.red(&text),
            Change::Moved { .. } => self.cyan(&text),
            Change::Changed { .. } => text,
        }
    }
}

fn no_color() -> bool {
    std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
}

/// The diff settings of the repository holding `dir` (`assetvc.toml`), with its asset
/// matcher.
fn settings(dir: &Path) -> Result<(DiffOptions, AssetMatcher), String> {
    let (options, config) = merging::options(dir, None)?;
    let matcher = config.matcher().map_err(|e| e.to_string())?;
    Ok((DiffOptions::from(&options), matcher))
}

fn dialect(matcher: &AssetMatcher, path: &str) -> Dialect {
    matcher
        .dialect(Path::new(path))
        .unwrap_or_else(|| Dialect::for_path(path))
}

/// Parses one side; the error is a ready-to-print diagnostic naming `shown`.
fn parse(bytes: &[u8], shown: &str, dialect: Dialect) -> Result<Document, String> {
    Document::parse_bytes(bytes.to_vec(), ParseOptions::new(dialect))
        .map_err(|e| report::parse_error(shown, &String::from_utf8_lossy(bytes), &e))
}

/// An empty container like `doc`'s root (`{}` or `[]`), to diff an added or deleted
/// document against; `None` for a scalar root.
fn empty_like(doc: &Document) -> Option<Document> {
    let text = match doc.root().kind() {
        Kind::Object => "{}",
        Kind::Array => "[]",
        _ => return None,
    };
    Document::parse(text, doc.dialect()).ok()
}

/// The diff of two optional documents (a missing side is an added or deleted file).
fn diff_docs<'a>(
    old: Option<&'a Document>,
    new: Option<&'a Document>,
    empty_old: Option<&'a Document>,
    empty_new: Option<&'a Document>,
    options: &DiffOptions,
) -> Diff<'a> {
    match (old, new) {
        (Some(o), Some(n)) => diff(o.root(), n.root(), options),
        (None, Some(n)) => match empty_old {
            Some(e) => diff(e.root(), n.root(), options),
            None => Diff {
                changes: vec![Change::Added {
                    path: DocPath::root(),
                    value: n.root(),
                }],
                patch: vec![PatchOp::Replace {
                    path: DocPath::root(),
                    value: n.root(),
                }],
            },
        },
        (Some(o), None) => match empty_new {
            Some(e) => diff(o.root(), e.root(), options),
            None => Diff {
                changes: vec![Change::Removed {
                    path: DocPath::root(),
                    value: o.root(),
                }],
                patch: Vec::new(),
            },
        },
        (None, None) => Diff::default(),
    }
}

/// What became of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    Added,
    Deleted,
    Modified,
}

impl Status {
    fn of(old: Option<&[u8]>, new: Option<&[u8]>) -> Status {
        match (old, new) {
            (None, _) => Status::Added,
            (_, None) => Status::Deleted,
            _ => Status::Modified,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Status::Added => "added",
            Status::Deleted => "deleted",
            Status::Modified => "modified",
        }
    }
}

/// One file's difference, rendered.
struct Rendered {
    /// Text lines (for `Format::Text`), without the header.
    lines: Vec<String>,
    /// The JSON array (for the JSON formats).
    json: String,
}

/// Diffs one asset given the bytes of both sides. `shown_old`/`shown_new` name the
/// sides in diagnostics.
#[allow(clippy::too_many_arguments)]
fn render_asset(
    old: Option<&[u8]>,
    new: Option<&[u8]>,
    shown_old: &str,
    shown_new: &str,
    dialect: Dialect,
    options: &DiffOptions,
    format: Format,
    paint: Paint,
) -> Result<Rendered, String> {
    let od = old.map(|b| parse(b, shown_old, dialect)).transpose()?;
    let nd = new.map(|b| parse(b, shown_new, dialect)).transpose()?;
    let eo = nd.as_ref().and_then(empty_like);
    let en = od.as_ref().and_then(empty_like);
    let d = diff_docs(od.as_ref(), nd.as_ref(), eo.as_ref(), en.as_ref(), options);
    let mut lines = Vec::new();
    let json = match format {
        Format::Text => {
            match Status::of(old, new) {
                Status::Added => lines.push(paint.bold("new file")),
                Status::Deleted => lines.push(paint.bold("deleted file")),
                Status::Modified if d.changes.is_empty() => {
                    lines.push(paint.dim("formatting changed, no value changed"))
                }
                Status::Modified => {}
            }
            lines.extend(d.changes.iter().map(|c| paint.change(c)));
            String::new()
        }
        Format::JsonPatch => d.patch_json(),
        Format::Changes => d.changes_json(),
    };
    Ok(Rendered { lines, json })
}

fn is_binary(bytes: &[u8]) -> bool {
    bytes.iter().take(8000).any(|&b| b == 0)
}

fn header(paint: Paint, a: &str, b: &str) -> String {
    paint.bold(&format!("diff --assetvc a/{a} b/{b}"))
}

fn print_out(text: &str) -> i32 {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => 0,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => 0,
        Err(e) => {
            report::error(e);
            2
        }
    }
}

/// Runs `assetvc diff`.
pub fn run(args: &DiffArgs) -> i32 {
    let format = if args.json {
        Format::Changes
    } else {
        args.format
    };
    if args.args.len() == 2
        && args.paths.is_empty()
        && args.args.iter().all(|a| Path::new(a).is_file())
    {
        return run_files(Path::new(&args.args[0]), Path::new(&args.args[1]), format);
    }
    run_revisions(args, format)
}

/// `assetvc diff A B`: two files.
fn run_files(a: &Path, b: &Path, format: Format) -> i32 {
    let dir = a
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let (options, matcher) = match settings(dir) {
        Ok(s) => s,
        Err(e) => {
            report::error(e);
            return 2;
        }
    };
    let read = |p: &Path| std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()));
    let (ba, bb) = match read(a).and_then(|x| Ok((x, read(b)?))) {
        Ok(x) => x,
        Err(e) => {
            report::error(e);
            return 2;
        }
    };
    let (sa, sb) = (a.display().to_string(), b.display().to_string());
    // Both files in the dialect of A (by the asset patterns, else by extension), unless
    // B's name says otherwise.
    let (da, db) = (dialect(&matcher, &sa), dialect(&matcher, &sb));
    let od = match parse(&ba, &sa, da) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("{e}");
            return 2;
        }
    };
    let nd = match parse(&bb, &sb, db) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("{e}");
            return 2;
        }
    };
    let d = diff(od.root(), nd.root(), &options);
    let paint = Paint::stdout();
    let text = match format {
        Format::Text => d
            .changes
            .iter()
            .map(|c| format!("{}\n", paint.change(c)))
            .collect(),
        Format::JsonPatch => format!("{}\n", d.patch_json()),
        Format::Changes => format!("{}\n", d.changes_json()),
    };
    print_out(&text)
}

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
fn run_revisions(args: &DiffArgs, format: Format) -> i32 {
    let cwd = match std::env::current_dir().and_then(|d| d.canonicalize()) {
        Ok(d) => d,
        Err(e) => {
            report::error(e);
            return 2;
        }
    };
    let repo = match store::read::open(&cwd) {
        Ok(r) => r,
        Err(e) => {
            report::error(e);
            return 2;
        }
    };
    // Arguments: revisions first, then (as git allows without `--`) existing paths.
    let mut revs: Vec<&str> = Vec::new();
    let mut filters: Vec<PathBuf> = args.paths.clone();
    for a in &args.args {
        if filters.len() == args.paths.len() && revs.len() < 2 && repo.is_revision(a) {
            revs.push(a);
        } else if cwd.join(a).exists() {
            filters.push(PathBuf::from(a));
        } else {
            report::error(format!("unknown revision or path not in the worktree: {a}"));
            return 2;
        }
    }
    let rev_a = revs.first().copied().unwrap_or("HEAD");
    let rev_b = revs.get(1).copied();
    let root = match repo.workdir() {
        Some(w) => w.canonicalize().unwrap_or_else(|_| w.to_path_buf()),
        None if rev_b.is_some() => cwd.clone(),
        None => {
            report::error("the repository has no worktree: give two revisions");
            return 2;
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
                report::error(format!("{}: outside the repository", f.display()));
                return 2;
            }
        }
    }
    let (options, matcher) = match settings(&root) {
        Ok(s) => s,
        Err(e) => {
            report::error(e);
            return 2;
        }
    };
    let tree_a = match repo.tree(rev_a) {
        Ok(t) => t,
        Err(e) => {
            report::error(e);
            return 2;
        }
    };
    let tree_b = match rev_b.map(|b| repo.tree(b)).transpose() {
        Ok(t) => t,
        Err(e) => {
            report::error(e);
            return 2;
        }
    };
    let paths = match tree_b {
        Some(tb) => repo.changed_between(tree_a, tb),
        None => repo.changed_in_worktree(tree_a),
    };
    let paths = match paths {
        Ok(p) => p,
        Err(e) => {
            report::error(e);
            return 2;
        }
    };
    let wanted = |p: &str| {
        prefixes.is_empty()
            || prefixes.iter().any(|f| {
                f.is_empty()
                    || p == f
                    || p.strip_prefix(f.as_str())
                        .is_some_and(|r| r.starts_with('/'))
            })
    };
    let paint = Paint::stdout();
    let mut status = 0;
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
            match format {
                Format::Text => {
                    text.push_str(&header(paint, path, path));
                    text.push('\n');
                    text.push_str(&paint.dim(&format!("{kind} file {}", file_status.name())));
                    text.push('\n');
                }
                _ => records.push(FileRecord {
                    path: path.clone(),
                    status: file_status.name(),
                    asset: false,
                    binary: Some(binary),
                    changes: None,
                    patch: None,
                }),
            }
            continue;
        };
        let shown_old = format!("{rev_a}:{path}");
        let shown_new = match rev_b {
            Some(b) => format!("{b}:{path}"),
            None => path.clone(),
        };
        let rendered = render_asset(
            old.as_deref(),
            new.as_deref(),
            &shown_old,
            &shown_new,
            asset_dialect,
            &options,
            format,
            paint,
        );
        match rendered {
            Ok(r) => match format {
                Format::Text => {
                    text.push_str(&header(paint, path, path));
                    text.push('\n');
                    for l in r.lines {
                        text.push_str(&l);
                        text.push('\n');
                    }
                }
                _ => {
                    let raw = RawValue::from_string(r.json).ok();
                    let (changes, patch) = if format == Format::Changes {
                        (raw, None)
                    } else {
                        (None, raw)
                    };
                    records.push(FileRecord {
                        path: path.clone(),
                        status: file_status.name(),
                        asset: true,
                        binary: None,
                        changes,
                        patch,
                    });
                }
            },
            Err(e) => {
                eprintln!("{e}");
                status = 2;
            }
        }
    }
    if format != Format::Text {
        text = match serde_json::to_string_pretty(&records) {
            Ok(j) => format!("{j}\n"),
            Err(e) => {
                report::error(e);
                return 2;
            }
        };
    }
    let printed = print_out(&text);
    status.max(printed)
}

/// Runs `assetvc diff-driver path old-file old-hex old-mode new-file new-hex new-mode`:
/// prints `diff --assetvc a/path b/path` and the changes. 0 on success, 2 if a side
/// does not parse (`path:line:col: reason` on stderr).
pub fn run_driver(args: &DiffDriverArgs) -> i32 {
    let paint = Paint::for_git();
    let path = args.path.as_str();
    if args.rest.len() < 6 {
        // git calls an external diff with the path alone for an unmerged path.
        return print_out(&format!(
            "{}\n{}\n",
            header(paint, path, path),
            paint.yellow("unmerged")
        ));
    }
    let new_path = args.rest.get(6).map_or(path, String::as_str);
    let read = |f: &str| -> Result<Option<Vec<u8>>, String> {
        if f == "/dev/null" {
            return Ok(None);
        }
        std::fs::read(f).map(Some).map_err(|e| format!("{f}: {e}"))
    };
    let sides = read(&args.rest[0]).and_then(|o| Ok((o, read(&args.rest[3])?)));
    let (old, new) = match sides {
        Ok(s) => s,
        Err(e) => {
            report::error(e);
            return 2;
        }
    };
    let (options, matcher) = match settings(Path::new(".")) {
        Ok(s) => s,
        Err(e) => {
            report::error(e);
            return 2;
        }
    };
    let mut text = header(paint, path, new_path);
    text.push('\n');
    let binary = old.as_deref().is_some_and(is_binary) || new.as_deref().is_some_and(is_binary);
    if binary {
        text.push_str(&paint.dim(&format!(
            "binary file {}",
            Status::of(old.as_deref(), new.as_deref()).name()
        )));
        text.push('\n');
        return print_out(&text);
    }
    let rendered = render_asset(
        old.as_deref(),
        new.as_deref(),
        path,
        new_path,
        dialect(&matcher, new_path),
        &options,
        Format::Text,
        paint,
    );
    match rendered {
        Ok(r) => {
            for l in r.lines {
                text.push_str(&l);
                text.push('\n');
            }
            print_out(&text)
        }
        Err(e) => {
            eprintln!("{e}");
            2
        }
    }
}
