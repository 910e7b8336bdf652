//! `assetvc demo`: two designers edit the same level at once; git's line merge against
//! assetvc's structured merge, in a throwaway repository.
//!
//! The sample project is compiled into the binary, so the demo runs from any directory.
//! Repository operations use the `git` executable with the user's and the system's git
//! configuration switched off, so the outcome is the same on every machine.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::exit::{bail, failure, Context, Result};
use clap::Args;
use merge::diff::{diff, DiffOptions};
use sjson::{Dialect, Document};

use super::diff::Paint;
use super::install::sh_quote;
use super::merge_hooks;
use crate::exit::{Error, Outcome};

mod script;

use script::{alice, bob, entity_lines, id, lines};

/// The sample project, embedded.
const FILES: [(&str, &str); 5] = [
    (
        "assetvc.toml",
        include_str!("../../../examples/sample_project/assetvc.toml"),
    ),
    (
        "levels/arena.level",
        include_str!("../../../examples/sample_project/levels/arena.level"),
    ),
    (
        "units/barrel.unit",
        include_str!("../../../examples/sample_project/units/barrel.unit"),
    ),
    (
        "localization/strings.json",
        include_str!("../../../examples/sample_project/localization/strings.json"),
    ),
    (
        "scripts/arena.lua",
        include_str!("../../../examples/sample_project/scripts/arena.lua"),
    ),
];

const LEVEL: &str = "levels/arena.level";

/// The common prefix of the sample level's entity ids, shortened in the output.
const ID_PREFIX: &str = "6f1c2a40-1f43-4c8e-9a57-0d1e2f3a";

/// Arguments of `assetvc demo`.
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Keep the temporary repository and print its path.
    #[arg(long)]
    pub keep: bool,
}

/// Runs the demo: 0 when both merges behaved as shown, 1 if something went wrong.
pub fn run(args: &DemoArgs) -> crate::exit::Result<Outcome> {
    demo(args).map_err(|e| Error::Failed(format!("demo: {}", crate::exit::alternate(&e))))?;
    Ok(Outcome::Done)
}

/// `git` in the demo repository, isolated from the user's configuration.
struct Git {
    dir: PathBuf,
    global_config: PathBuf,
}

impl Git {
    fn command(&self, args: &[&str], who: &str) -> Command {
        let mut cmd = Command::new("git");
        cmd.args(args)
            .current_dir(&self.dir)
            .env("GIT_CONFIG_GLOBAL", &self.global_config)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", who)
            .env(
                "GIT_AUTHOR_EMAIL",
                format!("{}@example.com", who.to_lowercase()),
            )
            .env("GIT_COMMITTER_NAME", who)
            .env(
                "GIT_COMMITTER_EMAIL",
                format!("{}@example.com", who.to_lowercase()),
            )
            .env("GIT_MERGE_AUTOEDIT", "no")
            .env("LC_ALL", "C");
        for var in [
            "GIT_DIR",
            "GIT_WORK_TREE",
            "GIT_INDEX_FILE",
            "GIT_OBJECT_DIRECTORY",
            "GIT_ALTERNATE_OBJECT_DIRECTORIES",
            "GIT_COMMON_DIR",
            "GIT_NAMESPACE",
            "GIT_PREFIX",
        ] {
            cmd.env_remove(var);
        }
        cmd
    }

    /// Runs git as `who` and returns its output, whatever its status.
    fn output(&self, args: &[&str], who: &str) -> Result<Output> {
        self.command(args, who)
            .output()
            .with_context(|| format!("cannot run git {}: is git installed?", args.join(" ")))
    }

    /// Runs git as `who`; fails unless git succeeds.
    fn run(&self, args: &[&str], who: &str) -> Result<String> {
        let out = self.output(args, who)?;
        if !out.status.success() {
            bail!(
                "git {} failed: {}",
                args.join(" "),
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    fn write(&self, path: &str, text: &str) -> Result<()> {
        let p = self.dir.join(path);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&p, text).with_context(|| p.display().to_string())
    }

    fn read(&self, path: &str) -> Result<String> {
        let p = self.dir.join(path);
        std::fs::read_to_string(&p).with_context(|| p.display().to_string())
    }

    fn commit_level(&self, branch: &str, who: &str, text: &str, message: &str) -> Result<()> {
        self.run(&["checkout", "-q", "-b", branch, "main"], who)?;
        self.write(LEVEL, text)?;
        self.run(&["commit", "-q", "-am", message], who)?;
        Ok(())
    }
}

/// Shortens the sample's long entity ids for display.
fn short(line: &str) -> String {
    line.replace(ID_PREFIX, "…")
}

/// The conflict regions of a text merge, as (first line, last line) indices.
fn conflict_regions(ls: &[&str]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, l) in ls.iter().enumerate() {
        if l.starts_with("<<<<<<< ") {
            start = Some(i);
        } else if l.starts_with(">>>>>>> ") {
            if let Some(s) = start.take() {
                out.push((s, i));
            }
        }
    }
    out
}

/// A line for display: tabs as two spaces, ids shortened.
fn shown(line: &str) -> String {
    short(&line.trim_end_matches(['\n', '\r']).replace('\t', "  "))
}

/// Prints a conflict region (markers in red), each side cut to a few lines, with the
/// line before it for context.
fn show_region(ls: &[&str], start: usize, end: usize, paint: Paint, say: &mut impl FnMut(String)) {
    const SIDE: usize = 4;
    if start > 0 {
        say(format!("   {:>4} | {}", start, shown(ls[start - 1])));
    }
    let mut side = 0;
    let mut i = start;
    while i <= end {
        let l = ls[i];
        let marker =
            l.starts_with("<<<<<<< ") || l.starts_with("=======") || l.starts_with(">>>>>>> ");
        if marker {
            side = 0;
            say(format!("   {:>4} | {}", i + 1, paint.red(&shown(l))));
        } else if side < SIDE {
            side += 1;
            say(format!("   {:>4} | {}", i + 1, shown(l)));
        } else {
            let rest = ls[i..end]
                .iter()
                .take_while(|l| !l.starts_with("=======") && !l.starts_with(">>>>>>> "))
                .count();
            say(paint.dim(&format!("        | … {rest} more lines")));
            i += rest;
            continue;
        }
        i += 1;
    }
}

fn demo(args: &DemoArgs) -> Result<()> {
    let paint = Paint::stdout();
    let tmp = tempfile::Builder::new()
        .prefix("assetvc-demo-")
        .tempdir()
        .context("cannot create a temporary directory")?;
    let global_config = tmp.path().join("gitconfig");
    std::fs::write(&global_config, "")?;
    let g = Git {
        dir: tmp.path().join("arena-project"),
        global_config,
    };
    std::fs::create_dir_all(&g.dir)?;
    let exe = std::env::current_exe().context("cannot find the assetvc executable")?;
    let edits = set_up(&g)?;

    let mut out: Vec<String> = Vec::new();
    let mut say = |s: String| out.push(s);
    say(paint.bold(&format!(
        "assetvc demo: two designers edit {LEVEL} at the same time"
    )));
    say(
        "  alice: moves gate_north, renames barrel_01, deletes spawn_player, torch_right 4.5 → 2.0"
            .into(),
    );
    say("  bob:   adds brazier_center, torch_left 4.5 → 6.0, torch_right 4.5 → 8.0".into());
    say(paint.dim("  (torch_right's intensity is the one true conflict; ids shown as …4b01)"));
    say(String::new());
    let line_merge = line_merge(&g, paint, &mut say)?;
    say(String::new());
    let result = driver_merge(&g, &exe, &edits, paint, &mut say)?;
    say(String::new());
    outcome(&edits, &result, &line_merge, paint, &mut say)?;
    if args.keep {
        let path = tmp.keep();
        say(String::new());
        say(format!(
            "repository kept: {}",
            path.join("arena-project").display()
        ));
        say(format!(
            "  try: git -C {} diff alice assetvc-merge",
            sh_quote(&path.join("arena-project").to_string_lossy())?
        ));
    }
    outln!("{}", out.join("\n"));
    Ok(())
}

/// The sample level and the two designers' versions of it.
struct Edits {
    base: &'static str,
    alice: String,
    bob: String,
}

/// The shared project on `main`, and the two designers' branches `alice` and `bob`.
fn set_up(g: &Git) -> Result<Edits> {
    g.run(&["init", "-q", "-b", "main"], "Setup")?;
    g.run(&["config", "core.autocrlf", "false"], "Setup")?;
    g.run(&["config", "commit.gpgsign", "false"], "Setup")?;
    for (path, text) in FILES {
        g.write(path, text)?;
    }
    g.run(&["add", "."], "Setup")?;
    g.run(&["commit", "-q", "-m", "Arena: first layout"], "Setup")?;
    let base = FILES[1].1;
    let (a_text, b_text) = (alice(base)?, bob(base)?);
    g.commit_level(
        "alice",
        "Alice",
        &a_text,
        "Arena: gate, barrel, no spawn, dim torch",
    )?;
    g.commit_level("bob", "Bob", &b_text, "Arena: brazier, brighter torches")?;
    Ok(Edits {
        base,
        alice: a_text,
        bob: b_text,
    })
}

/// What git's line merge left.
struct LineMerge {
    status: i32,
    regions: usize,
    parses: bool,
}

/// Step 1: git's line merge of `bob` into `alice`, shown, then aborted.
fn line_merge(g: &Git, paint: Paint, say: &mut impl FnMut(String)) -> Result<LineMerge> {
    say(paint.bold("1. plain git merge (line by line, no merge driver)"));
    g.run(&["checkout", "-q", "-b", "git-merge", "alice"], "Alice")?;
    let merged = g.output(&["merge", "--no-edit", "bob"], "Alice")?;
    let git_status = merged.status.code().unwrap_or(-1);
    say(format!("   $ git merge bob   → exit {git_status}"));
    for l in String::from_utf8_lossy(&merged.stdout).lines() {
        if l.starts_with("CONFLICT") || l.starts_with("Automatic merge failed") {
            say(format!("   {}", paint.yellow(l)));
        }
    }
    let text_merged = g.read(LEVEL)?;
    let ls = lines(&text_merged);
    let regions = conflict_regions(&ls);
    say(format!(
        "   {} conflict region{} left in {LEVEL}:",
        regions.len(),
        if regions.len() == 1 { "" } else { "s" },
    ));
    for &(s, e) in &regions {
        show_region(&ls, s, e, paint, say);
    }
    if regions
        .iter()
        .any(|&(s, e)| ls[s + 1..e].iter().position(|l| l.starts_with("=======")) == Some(0))
    {
        say(paint.dim("   (a deletion next to an addition is a conflict too, for a line merge)"));
    }
    let git_parse_error = Document::parse(text_merged.as_str(), Dialect::Sjson).err();
    match &git_parse_error {
        Some(e) => {
            say("   the level no longer loads:".into());
            let name = Path::new(LEVEL)
                .file_name()
                .map_or(LEVEL.into(), |n| n.to_string_lossy());
            say(format!(
                "   {}",
                paint.red(&format!("{name}:{}:{}: {}", e.line, e.col, e.kind))
            ));
        }
        None => say("   (the text merge happens to parse)".into()),
    }
    g.run(&["merge", "--abort"], "Alice")?;
    Ok(LineMerge {
        status: git_status,
        regions: regions.len(),
        parses: git_parse_error.is_none(),
    })
}

/// Step 2: the same merge with assetvc (`exe`) as git's merge driver: the merged level, and
/// what each designer's version gained. Returns the merged level.
fn driver_merge(
    g: &Git,
    exe: &Path,
    edits: &Edits,
    paint: Paint,
    say: &mut impl FnMut(String),
) -> Result<String> {
    say(paint.bold("2. git merge with assetvc as the merge driver"));
    let info = g.dir.join(".git/info");
    std::fs::create_dir_all(&info)?;
    std::fs::write(
        info.join("attributes"),
        "*.level merge=assetvc diff=assetvc\n",
    )?;
    let exe_q = sh_quote(&exe.to_string_lossy())?;
    g.run(
        &["config", "merge.assetvc.name", "assetvc structured merge"],
        "Setup",
    )?;
    g.run(
        &[
            "config",
            "merge.assetvc.driver",
            &merge_hooks::driver_command(exe)?.command,
        ],
        "Setup",
    )?;
    g.run(
        &[
            "config",
            "diff.assetvc.command",
            &format!("{exe_q} diff-driver"),
        ],
        "Setup",
    )?;
    g.run(&["checkout", "-q", "-b", "assetvc-merge", "alice"], "Alice")?;
    let merged = g.output(&["merge", "--no-edit", "bob"], "Alice")?;
    let status = merged.status.code().unwrap_or(-1);
    say(format!("   $ git merge bob   → exit {status}"));
    for l in String::from_utf8_lossy(&merged.stderr).lines() {
        if l.starts_with("assetvc:") {
            say(format!("   {}", paint.cyan(&short(l))));
        }
    }
    if status != 0 {
        bail!(
            "the merge with assetvc failed:\n{}{}",
            String::from_utf8_lossy(&merged.stdout),
            String::from_utf8_lossy(&merged.stderr)
        );
    }
    let result = g.read(LEVEL)?;
    let result_doc = Document::parse(result.as_str(), Dialect::Sjson)
        .map_err(|e| failure!("the merged level does not parse: {LEVEL}:{e}"))?;
    let entities = result_doc.root().get("entities").map_or(0, |e| e.len());
    let markers = lines(&result)
        .iter()
        .filter(|l| l.starts_with("<<<<<<< "))
        .count();
    let head = g.run(&["rev-parse", "--short", "HEAD"], "Alice")?;
    say(format!(
        "   merge commit {}; {LEVEL} parses: {entities} entities, {markers} conflict markers",
        head.trim()
    ));
    show_torch_light(&result, say);
    let options = DiffOptions::default();
    for (label, parent) in [
        ("merged in from bob (alice → result):", &edits.alice),
        ("kept from alice (bob → result):", &edits.bob),
    ] {
        let pd = Document::parse(parent.as_str(), Dialect::Sjson)
            .map_err(|e| failure!("{LEVEL}: {e}"))?;
        let d = diff(pd.root(), result_doc.root(), &options);
        say(format!("   {label}"));
        let defaults = merge::MergeOptions::default();
        let names = merge::naming::Names::new(
            vec![result_doc.root(), pd.root()],
            &defaults.id_keys,
            &defaults.natural_keys,
        );
        for c in &d.changes {
            say(format!("     {}", short(&paint.change(c, &names))));
        }
    }
    Ok(result)
}

/// torch_right's `light` block in the merged level `result`, with line numbers.
fn show_torch_light(result: &str, say: &mut impl FnMut(String)) {
    let Ok(range) = entity_lines(result, &id(3)) else {
        return;
    };
    let ls = lines(result);
    if let Some(open) = (range.start..range.end).find(|&i| ls[i].trim() == "light = {") {
        let close = (open..range.end)
            .find(|&i| ls[i].trim() == "}")
            .unwrap_or(open);
        say("   torch_right's light in the merged level:".into());
        for (i, l) in ls.iter().enumerate().take(close + 1).skip(open) {
            say(format!("   {:>4} | {}", i + 1, shown(l)));
        }
    }
}

/// The outcome of both merges side by side; the conflicts from the same engine the
/// driver ran (which must have given `result`).
fn outcome(
    edits: &Edits,
    result: &str,
    line_merge: &LineMerge,
    paint: Paint,
    say: &mut impl FnMut(String),
) -> Result<()> {
    let inputs = merge::Inputs::texts(
        edits.base,
        edits.alice.as_str(),
        edits.bob.as_str(),
        Dialect::Sjson,
    );
    let outcome =
        merge::merge(inputs, &merge::MergeOptions::default()).map_err(|e| failure!("{e}"))?;
    if outcome.text() != result {
        bail!("the driver's result differs from the structured merge");
    }
    say(paint.bold("outcome"));
    say(format!(
        "   git:     {} conflict regions, {}, merge stopped (exit {})",
        line_merge.regions,
        if line_merge.parses {
            "level parses"
        } else {
            "level does not parse"
        },
        line_merge.status
    ));
    say(format!(
        "   assetvc: merge committed, level parses, {} conflict{} resolved by policy (took theirs)",
        outcome.conflicts.len(),
        if outcome.conflicts.len() == 1 {
            ""
        } else {
            "s"
        }
    ));
    for c in &outcome.conflicts {
        say(format!(
            "            {}",
            paint.yellow(&short(&c.to_string()))
        ));
    }
    Ok(())
}
