//! `assetvc resolve FILE [OBJECT | --all] --take ours|theirs|base|upstream|local [--json]`:
//! after a merge (the driver under `git merge`, `pull`, `rebase`, `cherry-pick`, or
//! `assetvc merge`/`pull`), redoes the choice the policy made, from the three versions the
//! merge journal recorded: for the conflicts of one object (an id, a unique id prefix or a
//! unique `name`; in a Cocos scene a node's path, see [`cocos`]) or every conflict of FILE.
//! Only the conflicting nodes change, printed in
//! the file's own style; the file is written atomically, and a file that does not parse
//! is refused untouched.

use std::path::{Path, PathBuf};

use crate::exit::bail;
use clap::{Args, ValueEnum};
use merge::Version;
use sjson::{Dialect, Document, Out, ParseOptions, Segment};
use store::at_path::{find, objects, pick, put as edit, Object};
use store::{FileStep, Journal, Meaning, Recorded, SideMeanings};

mod cocos;

use super::{merging, porcelain};
use crate::exit::Outcome;
use crate::report;
use error::ResolveError;

mod error;

/// The version to take.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Take {
    /// git's "ours" in that merge (%A; the upstream in a rebase).
    Ours,
    /// git's "theirs" in that merge (%B; your replayed commit in a rebase).
    Theirs,
    /// The common ancestor.
    Base,
    /// The upstream's version, whatever git called it.
    Upstream,
    /// Your local version, whatever git called it.
    Local,
}

/// Arguments of `assetvc resolve`.
#[derive(Debug, Args)]
pub struct ResolveArgs {
    /// The merged file in the worktree.
    pub file: PathBuf,
    /// The object: an id, a unique id prefix, or a unique `name`; in a Cocos scene or
    /// prefab a node's path (`Canvas/Menu/Start`), a component
    /// (`Canvas/Menu/Start<cc.Label>`) or a place as `assetvc conflicts` prints it.
    #[arg(required_unless_present = "all", conflicts_with = "all")]
    pub object: Option<String>,
    /// Redo every conflict of FILE.
    #[arg(long)]
    pub all: bool,
    /// The version to take.
    #[arg(long, value_enum)]
    pub take: Take,
    /// Print what was done as JSON.
    #[arg(long)]
    pub json: bool,
}

/// The newest operation that recorded versions for `path`, with its steps for `path` that
/// did (a rebase may have merged the file at several steps).
fn recorded_steps(
    journal: &Journal,
    path: &str,
) -> crate::exit::Result<Option<(Recorded, Vec<usize>)>> {
    for op in journal.operations()?.into_iter().rev() {
        let steps: Vec<usize> = op
            .steps
            .iter()
            .enumerate()
            .filter(|(_, s)| s.path == path && s.versions.is_some())
            .map(|(i, _)| i)
            .collect();
        if !steps.is_empty() {
            return Ok(Some((op, steps)));
        }
    }
    Ok(None)
}

/// Runs `assetvc resolve`: 0 done (also when nothing needed to change), 2 bad input (no
/// recorded merge for FILE, unknown or ambiguous OBJECT, FILE does not parse).
pub fn run(args: &ResolveArgs) -> crate::exit::Result<Outcome> {
    let (repo, root) = porcelain::open_worktree()?;
    let absolute = std::env::current_dir()
        .map(|d| d.join(&args.file))
        .unwrap_or_else(|_| args.file.clone());
    let Some(rela) = store::rela_path(&root, &absolute) else {
        bail!(
            "{}: not a file of this repository's worktree",
            args.file.display()
        );
    };
    let rela = rela.to_string();
    let shown = args.file.display().to_string();
    let Some((op, steps)) = recorded_steps(&Journal::at(repo.git_dir()), &rela)? else {
        bail!("{shown}: no recorded merge resolved conflicts in this file by policy");
    };
    let (_, config) = porcelain::settings(&root, None)?;
    let dialect = merging::dialect_of(&config, Path::new(&rela));
    let steps: Vec<&FileStep> = steps.iter().map(|i| &op.steps[*i]).collect();
    let done = resolve_in(
        args,
        &op,
        &steps,
        &absolute,
        &shown,
        dialect,
        &config.merge.natural_keys,
    )
    .map_err(|e| crate::exit::failure!(e))?;
    clear_pending(&op, &steps, &done.1);
    let done = done.0;
    if args.json {
        outln!(
            "{}",
            serde_json::to_string_pretty(&done).unwrap_or_default()
        );
    } else {
        for line in done["changed"].as_array().into_iter().flatten() {
            outln!("{}", line["line"].as_str().unwrap_or_default());
        }
        if done["changed"].as_array().is_none_or(|c| c.is_empty()) {
            eprintln!("assetvc: {shown}: already as asked; nothing changed");
        }
    }
    Ok(Outcome::Done)
}

/// Clears the pending mark of every conflict resolved (`resolved`: the step's index and
/// the conflict's pointer): a sync's pending conflict is settled once the user chose a
/// side, whichever. The step is appended again without the marks (it replaces the earlier
/// one); a journal that cannot be written only costs a warning.
fn clear_pending(op: &Recorded, steps: &[&FileStep], resolved: &[(usize, String)]) {
    for (i, step) in steps.iter().enumerate() {
        let mut step = (*step).clone();
        let mut cleared = false;
        for c in step.conflicts.iter_mut().filter(|c| c.pending) {
            if resolved
                .iter()
                .any(|(s, p)| *s == i && *p == c.path.to_string())
            {
                c.pending = false;
                cleared = true;
            }
        }
        if cleared {
            if let Err(e) = op.log().append(&step) {
                eprintln!("assetvc: warning: could not record the resolution: {e}");
            }
        }
    }
}

/// The version `take` takes in `step` (a step that did not record its sides was a merge:
/// ours is local).
fn side_of(take: Take, step: &FileStep) -> Version {
    let sides = step.sides.unwrap_or(SideMeanings::MERGE);
    match take {
        Take::Ours => Version::Ours,
        Take::Theirs => Version::Theirs,
        Take::Base => Version::Base,
        Take::Upstream => sides.side(Meaning::Upstream).into(),
        Take::Local => sides.side(Meaning::Local).into(),
    }
}

/// A recorded conflict of the file: its pointer, parsed, and the step that recorded it.
struct StepConflict {
    pointer: String,
    segs: Vec<Segment>,
    step: usize,
    /// The place as the merge named it for people.
    name: Option<String>,
}

/// The three recorded versions of one step, parsed.
struct StepVersions {
    base: Document,
    ours: Document,
    theirs: Document,
}

impl StepVersions {
    fn get(&self, version: Version) -> &Document {
        match version {
            Version::Base => &self.base,
            Version::Ours => &self.ours,
            Version::Theirs => &self.theirs,
        }
    }
}

fn resolve_in(
    args: &ResolveArgs,
    op: &Recorded,
    steps: &[&FileStep],
    absolute: &Path,
    shown: &str,
    dialect: Dialect,
    names: &[String],
) -> Result<(serde_json::Value, Vec<(usize, String)>), ResolveError> {
    let parse = |bytes: Vec<u8>, what: &str| {
        let text = String::from_utf8_lossy(&bytes).into_owned();
        Document::parse_bytes(bytes, ParseOptions::new(dialect))
            .map_err(|e| report::parse_error(what, &text, &e))
    };
    let shown_ = || shown.to_string();
    let current = std::fs::read(absolute).map_err(|source| ResolveError::Read {
        shown: shown_(),
        source,
    })?;
    let read = current.clone();
    let mut doc = parse(current, shown).map_err(|report| ResolveError::DoesNotParse {
        shown: shown_(),
        report,
    })?;
    let mut loaded = Vec::new();
    for step in steps {
        let v = op
            .versions(step.versions.as_deref().unwrap_or_default())
            .map_err(|source| ResolveError::Store {
                shown: shown_(),
                source,
            })?;
        let recorded = |bytes: Vec<u8>, name: &str| {
            parse(bytes, &format!("{shown} ({name})")).map_err(ResolveError::RecordedDoesNotParse)
        };
        loaded.push(StepVersions {
            base: recorded(v.base, "base")?,
            ours: recorded(v.ours, "ours")?,
            theirs: recorded(v.theirs, "theirs")?,
        });
    }
    let conflicts = file_conflicts(steps);
    let wanted = args.object.as_deref();
    let chosen = if merge::cocos::is_cocos(&doc) {
        select_cocos(wanted, &conflicts, &doc, shown)?
    } else {
        let chosen = select(wanted, &conflicts, &doc, &loaded, names, shown)?;
        chosen.into_iter().map(|c| (c, None)).collect()
    };
    let resolved: Vec<(usize, String)> = chosen
        .iter()
        .map(|(c, _)| (c.step, c.pointer.clone()))
        .collect();
    let mut changed = Vec::new();
    let mut took = Vec::new();
    for (conflict, located) in chosen {
        let step = steps[conflict.step];
        let side = side_of(args.take, step);
        took.push(side);
        let source = loaded[conflict.step].get(side);
        let redone = match &located {
            Some(l) => cocos::redo(&doc, l, source, side, shown),
            None => redo(&doc, conflict, source, shown),
        };
        let Some((edited, value)) = redone else {
            continue;
        };
        doc = Document::parse_with(edited, ParseOptions::new(dialect)).map_err(|error| {
            ResolveError::EditedDoesNotParse {
                shown: shown_(),
                error,
            }
        })?;
        let pointer = &conflict.pointer;
        // A Cocos object by its name: its position means nothing to a person.
        let at = match &located {
            Some(l) => l.place.as_str(),
            None if pointer.is_empty() => "/",
            None => pointer,
        };
        let step_name = match step.step.as_deref() {
            Some(s) => format!(" (step {s})"),
            None => String::new(),
        };
        changed.push(serde_json::json!({
            "path": pointer,
            "took": side,
            "value": value,
            "line": format!(
                "{} {at}: took {side}{step_name}: {}",
                step.path,
                value.as_deref().unwrap_or("deleted")
            ),
        }));
    }
    if !changed.is_empty() {
        // Compare-and-swap: a file saved since it was read is left alone.
        store::write_atomic_if_unchanged(absolute, &read, doc.text().as_bytes()).map_err(
            |source| ResolveError::Store {
                shown: shown_(),
                source,
            },
        )?;
    }
    took.dedup();
    let done = serde_json::json!({
        "file": steps.first().map(|s| s.path.clone()),
        "operation": op.operation.label,
        "took": took,
        "changed": changed,
    });
    Ok((done, resolved))
}

/// Every conflict the steps recorded for the file, the last step's where steps share a
/// pointer.
fn file_conflicts(steps: &[&FileStep]) -> Vec<StepConflict> {
    let mut conflicts: Vec<StepConflict> = Vec::new();
    for (i, step) in steps.iter().enumerate() {
        for c in &step.conflicts {
            let p = c.path.to_string();
            conflicts.retain(|c| c.pointer != p);
            conflicts.push(StepConflict {
                pointer: p,
                // Number steps as keys: they name an element where they meet an array.
                segs: merge::changeset::reported_indices(&c.path, |_| false).0,
                step: i,
                name: c.name.clone(),
            });
        }
    }
    conflicts
}

/// `doc`'s text with the value at `conflict`'s pointer as in `source` (the side taken):
/// the edited text and the value taken (compact JSON; `None`: deleted). `None` when
/// `doc` already holds that value, or the value's container is no longer in the file.
fn redo(
    doc: &Document,
    conflict: &StepConflict,
    source: &Document,
    shown: &str,
) -> Option<(String, Option<String>)> {
    let segs = &conflict.segs;
    let new = find(source.root(), segs);
    let current = find(doc.root(), segs);
    let same = match (&new, &current) {
        (Some((_, a)), Some((_, b))) => a.same_value(b),
        (None, None) => true,
        _ => false,
    };
    if same {
        return None;
    }
    let text = if segs.is_empty() {
        match new {
            Some((_, v)) => Some(sjson::print(doc, &Out::Value(v))),
            None => return None,
        }
    } else {
        edit(doc.root(), segs, new).map(|out| sjson::print(doc, &out))
    };
    let Some(text) = text else {
        eprintln!(
            "assetvc: warning: {shown} {}: its container is no longer in the file; left as it is",
            conflict.pointer
        );
        return None;
    };
    Some((text, new.map(|(_, v)| merge::compact_json(v))))
}

/// The conflicts of a Cocos graph to redo, each found in the file ([`cocos`]): all, or
/// those of the object `wanted` names; a conflict whose object is no longer in the file
/// is said on stderr and left.
fn select_cocos<'c>(
    wanted: Option<&str>,
    conflicts: &'c [StepConflict],
    doc: &Document,
    shown: &str,
) -> Result<Chosen<'c>, ResolveError> {
    let mut chosen = Vec::new();
    let mut objects: Vec<String> = Vec::new();
    for (c, l) in conflicts.iter().zip(cocos::locate_all(doc, conflicts)) {
        let Some(l) = l else {
            let place = c.name.as_deref().unwrap_or(&c.pointer);
            eprintln!("assetvc: warning: {shown} {place}: no longer in the file; left as it is");
            continue;
        };
        if !objects.contains(&l.object) {
            objects.push(l.object.clone());
        }
        if wanted.is_none_or(|w| cocos::names(w, c, &l)) {
            chosen.push((c, Some(l)));
        }
    }
    match wanted {
        Some(w) if chosen.is_empty() => Err(ResolveError::NoSuchObject {
            shown: shown.to_string(),
            wanted: w.to_string(),
            listed: objects,
        }),
        _ => Ok(chosen),
    }
}

/// The conflicts to redo, each with where it is in a Cocos graph.
type Chosen<'c> = Vec<(&'c StepConflict, Option<cocos::Located>)>;

/// The conflicts to redo: all, or those on the way to the object `wanted` names.
fn select<'c>(
    wanted: Option<&str>,
    conflicts: &'c [StepConflict],
    doc: &Document,
    loaded: &[StepVersions],
    names: &[String],
    shown: &str,
) -> Result<Vec<&'c StepConflict>, ResolveError> {
    let Some(wanted) = wanted else {
        return Ok(conflicts.iter().collect());
    };
    let pointers: Vec<Vec<Segment>> = conflicts.iter().map(|c| c.segs.clone()).collect();
    let mut docs: Vec<&Document> = vec![doc];
    for l in loaded.iter().rev() {
        docs.extend([&l.ours, &l.theirs, &l.base]);
    }
    let all = objects(&pointers, &docs, names);
    let object = pick(&all, wanted).map_err(|candidates| {
        let (shown, wanted) = (shown.to_string(), wanted.to_string());
        if candidates.is_empty() {
            let listed = all.iter().map(Object::shown).collect();
            ResolveError::NoSuchObject {
                shown,
                wanted,
                listed,
            }
        } else {
            let candidates = candidates.iter().map(|o| o.shown()).collect();
            ResolveError::Ambiguous {
                shown,
                wanted,
                candidates,
            }
        }
    })?;
    let seg = Segment::Id {
        key: object.key.clone(),
        value: object.id.clone(),
    };
    Ok(conflicts.iter().filter(|c| c.segs.contains(&seg)).collect())
}
