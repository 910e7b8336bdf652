//! `assetvc diff`: object-level diffs of assets, between two files or between revisions
//! (`HEAD` against the worktree by default), as text, an RFC 6902 JSON Patch or a list of
//! change records; and `assetvc diff-driver`, the external diff command git calls
//! (`diff.assetvc.command = <assetvc> diff-driver`) so that `git diff` and `git log -p
//! --ext-diff` show the same object-level diff.
//!
//! Exit status: 0 whether or not there are differences (like `git diff` without
//! `--exit-code`), 2 on bad input (an unknown revision). An asset a side of which does not
//! parse (half-edited, conflict markers) is shown as a line diff with the reason in one
//! line (`unparsed` and `line_diff` in JSON), and the diff goes on; only the two-file mode
//! with a JSON format, which has no file records, still stops with exit 2.
//!
//! Here: the arguments, the helpers both modes share, and the two-file mode; `revisions`
//! holds the revision mode, `driver` the diff driver, `paint` the colors.

mod changes;
mod driver;
mod grids;
mod html;
mod paint;
mod revisions;

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::exit::Context;
use clap::{Args, ValueEnum};
use merge::diff::{diff, Change, Diff, DiffOptions, PatchOp};
use merge::naming::Names;
use sjson::{Dialect, Document, Kind, ParseOptions, Path as DocPath};

use super::merging::{self, LoadError};
use crate::exit::{Error, Outcome};
use crate::report;
use config::AssetMatcher;

pub use driver::run_driver;
pub(crate) use html::write_page;
pub(crate) use paint::Paint;
use revisions::run_revisions;

/// How differences are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// One line per change: `entities[id=f341].position: [0 0 0] → [1 0 0]`.
    Text,
    /// An RFC 6902 JSON Patch (array indices in paths).
    JsonPatch,
    /// A change set for `assetvc apply`: JSON Lines, one create/destroy/set operation per
    /// line, objects by id, each with the value it replaces.
    Changes,
    /// A JSON list of change records (`--json`, for editors and scripts).
    #[value(skip)]
    Records,
}

/// Arguments of `assetvc diff`.
#[derive(Debug, Args)]
pub struct DiffArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Change records as JSON (for editors and scripts).
    #[arg(long)]
    pub json: bool,
    /// Two files A B; or no, one or two revisions (default: HEAD against the worktree;
    /// one: REV against the worktree; two: REV against REV).
    #[arg(value_name = "A B | REV")]
    pub args: Vec<String>,
    /// Write a review page (one self-contained HTML file: a card per changed object, a
    /// map of each level) to FILE instead of printing the diff.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
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
/// What the diff needs from `assetvc.toml`: how to compare and how to name objects.
struct DiffSettings {
    options: DiffOptions,
    natural_keys: Vec<String>,
}

impl DiffSettings {
    /// The naming of objects in `roots` (the new side first, so that a removed object is
    /// named from the old side).
    fn names<'a>(&self, roots: Vec<sjson::Value<'a>>) -> Names<'a> {
        Names::new(roots, &self.options.id_keys, &self.natural_keys)
    }
}

/// The diff settings of the repository holding `dir` (`assetvc.toml`), with its asset
/// matcher.
fn settings(dir: &Path) -> crate::exit::Result<(DiffSettings, AssetMatcher)> {
    let (options, config) = merging::options(dir, None).map_err(crate::exit::Error::Config)?;
    let matcher = config.matcher()?;
    let settings = DiffSettings {
        options: DiffOptions::from(&options),
        natural_keys: options.natural_keys,
    };
    Ok((settings, matcher))
}

/// The dialect of `path` holding `bytes` (if known): JSON if the asset patterns say so,
/// else by content ([`Dialect::detect`]).
fn dialect(matcher: &AssetMatcher, path: &str, bytes: Option<&[u8]>) -> Dialect {
    match matcher.dialect(Path::new(path)) {
        Some(Dialect::Json) => Dialect::Json,
        configured => match bytes {
            Some(b) => Dialect::detect(path, &String::from_utf8_lossy(b)),
            None => configured.unwrap_or_else(|| Dialect::for_path(path)),
        },
    }
}

/// Parses one side; the error's diagnostic names `shown`.
fn parse(bytes: &[u8], shown: &str, dialect: Dialect) -> Result<Document, LoadError> {
    Document::parse_bytes(bytes.to_vec(), ParseOptions::new(dialect)).map_err(|error| {
        LoadError::Parse {
            shown: shown.to_string(),
            text: String::from_utf8_lossy(bytes).into_owned(),
            error,
        }
    })
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
    /// The JSON array (for the JSON formats; `null` when a side does not parse).
    json: String,
    /// Why the file was shown as a line diff: the first line of the parse error of a side
    /// that does not parse (half-edited, or holding conflict markers).
    unparsed: Option<String>,
    /// The line diff shown instead of the object-level one (when `unparsed`).
    line_diff: Vec<String>,
}

/// Diffs one asset given the bytes of both sides. `shown_old`/`shown_new` name the
/// sides in diagnostics. A side that does not parse does not stop the diff: the file is
/// shown as a line diff, with the reason in one line.
#[allow(clippy::too_many_arguments)]
fn render_asset(
    old: Option<&[u8]>,
    new: Option<&[u8]>,
    shown_old: &str,
    shown_new: &str,
    dialect: Dialect,
    settings: &DiffSettings,
    format: Format,
    paint: Paint,
) -> Rendered {
    let parsed = old
        .map(|b| parse(b, shown_old, dialect))
        .transpose()
        .and_then(|od| Ok((od, new.map(|b| parse(b, shown_new, dialect)).transpose()?)));
    let (od, nd) = match parsed {
        Ok(sides) => sides,
        Err(e) => return render_lines(old, new, &e.to_string(), paint),
    };
    let eo = nd.as_ref().and_then(empty_like);
    let en = od.as_ref().and_then(empty_like);
    let d = diff_docs(
        od.as_ref(),
        nd.as_ref(),
        eo.as_ref(),
        en.as_ref(),
        &settings.options,
    );
    let names = settings.names(nd.iter().chain(od.iter()).map(Document::root).collect());
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
            // A Cocos scene or prefab: objects by identity and node path, as `diff A B`.
            let cocos = match (od.as_ref(), nd.as_ref()) {
                (Some(o), Some(n)) if !d.changes.is_empty() => {
                    merge::cocos::diff::diff_lines(o, n, &settings.options)
                }
                _ => None,
            };
            match cocos {
                Some(engine) if engine.is_empty() => {
                    lines.push(paint.dim("objects renumbered, no value changed"))
                }
                Some(engine) => lines.extend(engine),
                None => lines.extend(grids::change_lines(
                    &d,
                    (od.as_ref(), nd.as_ref()),
                    &names,
                    paint,
                )),
            }
            String::new()
        }
        Format::JsonPatch => d.patch_json(),
        Format::Records => d.changes_json(),
        Format::Changes => changes::change_lines(
            od.as_ref().or(eo.as_ref()),
            nd.as_ref().or(en.as_ref()),
            &d,
            &settings.options,
            None,
        ),
    };
    Rendered {
        lines,
        json,
        unparsed: None,
        line_diff: Vec::new(),
    }
}

/// The fallback for a file a side of which does not parse: the reason (the first line
/// of `diagnostic`, `path:line:col: reason`) and a line diff.
fn render_lines(
    old: Option<&[u8]>,
    new: Option<&[u8]>,
    diagnostic: &str,
    paint: Paint,
) -> Rendered {
    let reason = diagnostic.lines().next().unwrap_or_default().to_string();
    let text = |b: Option<&[u8]>| String::from_utf8_lossy(b.unwrap_or_default()).into_owned();
    let diff = merge::diff::line_diff(&text(old), &text(new));
    let mut lines = vec![paint.yellow(&format!("does not parse, line diff: {reason}"))];
    lines.extend(diff.iter().map(|l| paint.line(l)));
    Rendered {
        lines,
        json: "null".into(),
        unparsed: Some(reason),
        line_diff: diff.iter().map(|l| l.text()).collect(),
    }
}

fn is_binary(bytes: &[u8]) -> bool {
    bytes.iter().take(8000).any(|&b| b == 0)
}

fn header(paint: Paint, a: &str, b: &str) -> String {
    let (a, b) = (report::safe_line(a), report::safe_line(b));
    paint.bold(&format!("diff --assetvc a/{a} b/{b}"))
}

/// Writes `text` to stdout.
fn print_out(text: &str) -> std::io::Result<()> {
    let mut out = crate::output::stdout();
    out.write_all(text.as_bytes())?;
    out.flush()
}

/// Runs `assetvc diff`.
pub fn run(args: &DiffArgs) -> crate::exit::Result<Outcome> {
    let format = if args.json {
        Format::Records
    } else {
        args.format
    };
    if args.args.len() == 2
        && args.paths.is_empty()
        && args.args.iter().all(|a| Path::new(a).is_file())
    {
        let (a, b) = (Path::new(&args.args[0]), Path::new(&args.args[1]));
        return run_files(a, b, format, args.html.as_deref());
    }
    run_revisions(args, format)
}

/// `assetvc diff A B`: two files.
fn run_files(
    a: &Path,
    b: &Path,
    format: Format,
    html_out: Option<&Path>,
) -> crate::exit::Result<Outcome> {
    let dir = a
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let (settings, matcher) = settings(dir)?;
    let read = |p: &Path| std::fs::read(p).with_context(|| p.display().to_string());
    let (ba, bb) = (read(a)?, read(b)?);
    let (sa, sb) = (a.display().to_string(), b.display().to_string());
    // Both files in the dialect of A (by the asset patterns, else by extension), unless
    // B's name says otherwise.
    let (da, db) = (
        dialect(&matcher, &sa, Some(&ba)),
        dialect(&matcher, &sb, Some(&bb)),
    );
    if let Some(out) = html_out {
        return html_files(
            dir,
            out,
            (&ba, &bb),
            (&sa, &sb),
            (da, db),
            &settings.options,
        );
    }
    let paint = Paint::stdout();
    let (od, nd) = match parse(&ba, &sa, da).and_then(|od| Ok((od, parse(&bb, &sb, db)?))) {
        Ok(sides) => sides,
        // Text: a line diff with the reason; the JSON formats have no changes to give.
        Err(e) if format == Format::Text => {
            let r = render_lines(Some(&ba), Some(&bb), &e.to_string(), paint);
            print_out(&r.lines.iter().map(|l| format!("{l}\n")).collect::<String>())?;
            return Ok(Outcome::Done);
        }
        Err(e) => return Err(Error::Load(e)),
    };
    // A Cocos scene or prefab: objects by identity and node path, not array position.
    let cocos = (format == Format::Text)
        .then(|| merge::cocos::diff::diff_lines(&od, &nd, &settings.options))
        .flatten();
    if let Some(lines) = cocos {
        print_out(&lines.iter().map(|l| format!("{l}\n")).collect::<String>())?;
        return Ok(Outcome::Done);
    }
    let d = diff(od.root(), nd.root(), &settings.options);
    let names = settings.names(vec![nd.root(), od.root()]);
    let text = match format {
        Format::Text => grids::change_lines(&d, (Some(&od), Some(&nd)), &names, paint)
            .iter()
            .map(|line| format!("{line}\n"))
            .collect(),
        Format::JsonPatch => format!("{}\n", d.patch_json()),
        Format::Records => format!("{}\n", d.changes_json()),
        Format::Changes => changes::change_lines(Some(&od), Some(&nd), &d, &settings.options, None),
    };
    print_out(&text)?;
    Ok(Outcome::Done)
}

/// `assetvc diff A B --html OUT`.
fn html_files(
    dir: &Path,
    out: &Path,
    bytes: (&[u8], &[u8]),
    shown: (&str, &str),
    dialects: (Dialect, Dialect),
    options: &DiffOptions,
) -> crate::exit::Result<Outcome> {
    let mut page = html::ReviewPage::new(dir, options)?;
    let path = if shown.0 == shown.1 {
        shown.1.to_string()
    } else {
        format!("{} → {}", shown.0, shown.1)
    };
    page.add_asset(&path, Some(bytes.0), Some(bytes.1), shown, dialects)
        .map_err(Error::Load)?;
    let subtitle = format!("{} → {}", shown.0, shown.1);
    page.write(out, "Review · diff".into(), subtitle)?;
    Ok(Outcome::Done)
}
