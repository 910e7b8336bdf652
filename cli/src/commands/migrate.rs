//! `assetvc migrate [--dry-run] [--rev REV] [-m MSG] [--id-key KEY] [--all] [--json]`:
//! one-shot, an id (a fresh UUID) into every element of every array of objects that has
//! no identity yet, in every asset of REV's tree, as new lines in the neighbours' style;
//! one commit, and the branch moves to it (the index and the worktree too, for HEAD).
//! Works in a bare repository. Files that do not parse are reported and left as they
//! were; the others are migrated (exit 1). A second run finds nothing to do.

use std::io::IsTerminal;
use std::path::Path;

use crate::exit::bail;
use clap::Args;
use serde_json::json;
use store::ObjectId;
use store::{Destination, MigrateProgress as Progress, MigrateRules, Outcome, ProblemKind};

use super::porcelain;
use crate::exit;
use crate::report;
use config::{Config, FILE_NAME};

/// Arguments of `assetvc migrate`.
#[derive(Debug, Args)]
pub struct MigrateArgs {
    /// Print per file how many arrays and elements would get ids; write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// The revision whose tree is migrated. HEAD moves HEAD's branch (and the index and
    /// the worktree along); a branch name moves that branch; for any other revision the
    /// new commit's id is printed and nothing moves.
    #[arg(long, value_name = "REV", default_value = "HEAD")]
    pub rev: String,
    /// The commit message (default: `assetvc migrate: ids for N arrays in M files`);
    /// several are joined as paragraphs.
    #[arg(short = 'm', long = "message", value_name = "MSG")]
    pub message: Vec<String>,
    /// The member written into each element. The id keys of assetvc.toml `[merge]` (REV's
    /// own, else the repository's) already count as identities, as do its natural keys.
    #[arg(long, value_name = "KEY", default_value = "id")]
    pub id_key: String,
    /// Also give ids to arrays whose elements a natural key (`name`) already identifies.
    #[arg(long)]
    pub all: bool,
    /// Print the report as JSON on stdout (files, problems, commit).
    #[arg(long)]
    pub json: bool,
}

/// A progress bar over files on stderr.
struct Bar(indicatif::ProgressBar);

impl Progress for Bar {
    fn start(&self, files: usize) {
        self.0.set_length(files as u64);
        self.0.reset();
    }

    fn advance(&self) {
        self.0.inc(1);
    }

    fn finish(&self) {
        self.0.finish_and_clear();
    }
}

/// A progress bar when stderr is a terminal, in colour unless `NO_COLOR` is set.
fn progress_bar() -> Option<Bar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let colour = std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let template = if colour {
        "assetvc: migrating {bar:40.cyan/blue} {pos}/{len} files {elapsed_precise}"
    } else {
        "assetvc: migrating [{bar:40}] {pos}/{len} files {elapsed_precise}"
    };
    let bar =
        indicatif::ProgressBar::with_draw_target(Some(0), indicatif::ProgressDrawTarget::stderr());
    if let Ok(style) = indicatif::ProgressStyle::with_template(template) {
        bar.set_style(style.progress_chars("=> "));
    }
    Some(Bar(bar))
}

/// The configuration that applies: the `assetvc.toml` committed at the root of `commit`'s
/// tree; without one, the repository's own (found from the worktree, or in a bare
/// repository's directory, as the pre-receive hook does), else the defaults.
fn config_at(repo: &store::Repo, commit: ObjectId, rev: &str) -> crate::exit::Result<Config> {
    let tree = repo.commit_tree(commit)?;
    let blob = repo.blob_in(tree, FILE_NAME)?;
    if let Some(blob) = blob {
        let text = String::from_utf8_lossy(&blob);
        let shown = format!("{rev}:{FILE_NAME}");
        return Config::parse(&text, Path::new(&shown)).map_err(Into::into);
    }
    match repo.workdir() {
        Some(root) => crate::repo_config::at_root(root).map_err(Into::into),
        None => {
            let path = repo.git_dir().join(FILE_NAME);
            if path.is_file() {
                Config::load(&path).map_err(Into::into)
            } else {
                Ok(Config::default())
            }
        }
    }
}

/// Runs `assetvc migrate`: 0 migrated (or nothing to do), 1 some files do not parse (the
/// others were migrated), 2 nothing done (bad revision, local changes in the way…).
pub fn run(args: &MigrateArgs) -> crate::exit::Result<exit::Outcome> {
    let repo = store::Repo::discover(Path::new(".")).map_err(porcelain::fail)?;
    let commit = repo.resolve_commit(&args.rev).map_err(porcelain::fail)?;
    let config = config_at(&repo, commit, &args.rev)?;
    let rules = porcelain::asset_rules(&config, config.merge_options())?;
    let dialect_of = |path: &str| rules.dialect_of(path);
    if args.id_key.is_empty() {
        bail!("--id-key: the key must not be empty");
    }
    let rules = MigrateRules {
        dialect_of: &dialect_of,
        options: merge::migrate::MigrateOptions {
            id_key: args.id_key.clone(),
            id_keys: config.merge.id_keys.clone(),
            natural_keys: config.merge.natural_keys.clone(),
            all: args.all,
        },
        new_id: &store::new_uuid,
    };
    let message = (!args.message.is_empty()).then(|| args.message.join("\n\n"));
    let bar = progress_bar();
    let progress: &dyn Progress = match &bar {
        Some(b) => b,
        None => &store::NoProgress,
    };
    let outcome = match repo.migrate(
        &args.rev,
        &rules,
        args.dry_run,
        message.as_deref(),
        progress,
    ) {
        Ok(o) => o,
        Err(e) => {
            if let Some(b) = &bar {
                b.0.finish_and_clear();
            }
            return Err(porcelain::fail(e));
        }
    };
    if outcome.resumed {
        eprintln!(
            "assetvc: an interrupted migration was found and finished (its commit and ids are kept)"
        );
    }
    if args.json {
        print_problems(&outcome);
        outln!("{}", json_report(args, &outcome));
    } else {
        let moved = moved_name(&repo, &outcome.destination);
        print_report(args, &outcome, moved.as_deref())?;
    }
    Ok(exit::Outcome::done_unless(
        !outcome.plan.problems.is_empty(),
        exit::Outcome::Problems,
    ))
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// What moves, for people: `main` (the branch), `HEAD` (detached), or `None`.
fn moved_name(repo: &store::Repo, destination: &Destination) -> Option<String> {
    match destination {
        Destination::Worktree => Some(
            repo.current_branch()
                .ok()
                .flatten()
                .unwrap_or_else(|| "HEAD".into()),
        ),
        Destination::Ref(name) if name == "HEAD" => Some(
            repo.current_branch()
                .ok()
                .flatten()
                .unwrap_or_else(|| "HEAD".into()),
        ),
        Destination::Ref(name) => Some(
            name.strip_prefix("refs/heads/")
                .unwrap_or(name.as_str())
                .to_string(),
        ),
        Destination::Nothing => None,
    }
}

/// Prints each file left as it was: `path:line:col: reason` and the offending line.
fn print_problems(outcome: &Outcome) {
    for p in &outcome.plan.problems {
        match &p.kind {
            ProblemKind::Unparsable { error, text } => {
                eprintln!("{}", report::parse_error(&p.path, text, error));
            }
            _ => eprintln!("{p}"),
        }
    }
}

fn print_report(args: &MigrateArgs, outcome: &Outcome, moved: Option<&str>) -> std::io::Result<()> {
    let plan = &outcome.plan;
    print_problems(outcome);
    if args.dry_run {
        for f in &plan.files {
            outln!(
                "{}: {} array{}, {} element{}",
                f.path,
                f.arrays,
                plural(f.arrays),
                f.elements,
                plural(f.elements)
            );
            for (pointer, count) in &f.places {
                let pointer = if pointer.is_empty() { "/" } else { pointer };
                outln!(
                    "  {}: {count} element{}",
                    report::safe(pointer),
                    plural(*count)
                );
            }
        }
    }
    let (files, arrays, elements) = (plan.files.len(), plan.arrays(), plan.elements());
    if files == 0 {
        eprintln!(
            "assetvc: nothing to migrate: every array of objects in the {} asset{} of {} \
             already has an identity{}",
            plan.assets,
            plural(plan.assets),
            args.rev,
            if plan.problems.is_empty() {
                ""
            } else {
                " (except in the files that do not parse)"
            }
        );
    } else if args.dry_run {
        eprintln!(
            "assetvc: dry run: {files} file{} of {} would get ids: {arrays} array{}, \
             {elements} element{}; nothing was written",
            plural(files),
            plan.assets,
            plural(arrays),
            plural(elements)
        );
    } else if let Some(commit) = outcome.commit {
        let short = commit.to_hex_with_len(7);
        let place = match moved {
            Some(name) if outcome.destination == Destination::Worktree => {
                format!("; {name} moved, the index and the worktree updated")
            }
            Some(name) => format!("; {name} moved"),
            None => format!("; {} not moved (not a branch)", args.rev),
        };
        eprintln!(
            "assetvc: migrated {files} file{}: {arrays} array{}, {elements} element{} got ids; \
             commit {short}{place}",
            plural(files),
            plural(arrays),
            plural(elements)
        );
        if outcome.destination == Destination::Nothing {
            outln!("{commit}");
        }
    }
    if !plan.problems.is_empty() {
        let n = plan.problems.len();
        report::error(format!(
            "{n} file{} left as {} (see above); fix {} and run `assetvc migrate` again",
            plural(n),
            if n == 1 { "it was" } else { "they were" },
            if n == 1 { "it" } else { "them" }
        ));
    }
    Ok(())
}

fn json_report(args: &MigrateArgs, outcome: &Outcome) -> String {
    let plan = &outcome.plan;
    let files: Vec<serde_json::Value> = plan
        .files
        .iter()
        .map(|f| {
            let places: Vec<_> = f
                .places
                .iter()
                .map(|(pointer, count)| json!({"pointer": pointer, "elements": count}))
                .collect();
            json!({"path": f.path, "arrays": f.arrays, "elements": f.elements, "places": places})
        })
        .collect();
    let problems: Vec<serde_json::Value> = plan
        .problems
        .iter()
        .map(|p| match &p.kind {
            ProblemKind::Unparsable { error, .. } => json!({
                "path": p.path,
                "line": error.line,
                "col": error.col,
                "reason": error.kind.to_string(),
            }),
            ProblemKind::Read(e) | ProblemKind::Internal(e) => {
                json!({"path": p.path, "line": null, "col": null, "reason": e})
            }
        })
        .collect();
    let moved_ref = match (&outcome.destination, outcome.commit) {
        (_, None) => None,
        (Destination::Worktree, Some(_)) => Some("HEAD".to_string()),
        (Destination::Ref(name), Some(_)) => Some(name.clone()),
        (Destination::Nothing, Some(_)) => None,
    };
    let value = json!({
        "rev": args.rev,
        "base": plan.commit.to_string(),
        "dry_run": args.dry_run,
        "assets": plan.assets,
        "arrays": plan.arrays(),
        "elements": plan.elements(),
        "files": files,
        "problems": problems,
        "commit": outcome.commit.map(|c| c.to_string()),
        "moved": moved_ref,
    });
    serde_json::to_string_pretty(&value).unwrap_or_default()
}
