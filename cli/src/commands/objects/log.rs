//! `assetvc log OBJECT [PROPERTY] [--rev REV] [--json] [-n N]`: the commits that changed
//! an object (or one property of it, down to a leaf: `light.intensity`), newest first:
//! author, date, the properties changed; across arrays, files and renames; at a merge,
//! the parent whose version was taken.

use clap::Args;
use serde_json::json;
use store::{close_names, find_deleted, log, log_each, Followed, LogEntry, LogKind, TreeIndex};

use super::{commit_json, commit_text, day, object_name, open, print_json, resolve, short_commit};
use crate::exit::Outcome;
use crate::report::safe_line;

/// Arguments of `assetvc log`.
#[derive(Debug, Args)]
pub struct LogArgs {
    /// FILE#ID, an id, a unique id prefix, or a unique name (a Cocos node by its path,
    /// `Canvas/Menu/Start`, a component as `Canvas/Menu/Start<cc.Label>`); FILE#ID also
    /// finds an object that was deleted from FILE.
    pub object: String,
    /// Only the commits that changed this property of the object or a leaf below it:
    /// `light`, `light.intensity`, or a JSON Pointer below the object (`/light/intensity`).
    pub property: Option<String>,
    /// Start from this revision.
    #[arg(long, default_value = "HEAD")]
    pub rev: String,
    /// At most N commits.
    #[arg(short = 'n', long = "max-count", value_name = "N")]
    pub max_count: Option<usize>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// Runs `assetvc log`.
pub fn run(args: &LogArgs) -> crate::exit::Result<Outcome> {
    run_log(args)?;
    Ok(Outcome::Done)
}

fn run_log(args: &LogArgs) -> crate::exit::Result<()> {
    let repo = open()?;
    let mut index = repo.index();
    let commit = index.resolve_commit(&args.rev)?;
    let tree = index.tree_index(index.commit_info(commit)?.tree)?;
    let spec = repo.spec(&args.object);
    let (path, id, name, present) = match resolve(&tree, &spec) {
        Ok(c) => (c.path, c.id, c.name, true),
        // A deleted object, named by file and exact id.
        Err(e) => match spec.rsplit_once('#') {
            Some((file, id)) if !id.is_empty() => (file.to_string(), id.to_string(), None, false),
            _ if !is_no_such_object(&e) => return Err(e),
            // A deleted object, named by name or id: the newest deletion in history.
            _ => match find_deleted(&mut index, commit, &spec, DELETED_SEARCH)? {
                Some(c) => (c.path, c.id, c.name, false),
                None => return Err(not_found(&tree, &spec)),
            },
        },
    };
    let property = args.property.as_deref().map(merge::objects::property_name);
    if present {
        warn_unknown_property(&tree, (&path, &id), property.as_deref());
    }
    let followed = Followed {
        path: &path,
        id: &id,
        present,
        property: property.as_deref(),
    };
    if args.json {
        let entries = log(&mut index, commit, followed, args.max_count)?;
        let name = name.or_else(|| entries.iter().find_map(entry_name));
        print_json(&json!({
            "id": id,
            "name": name,
            "path": path,
            "property": property,
            "commits": entries.iter().map(entry_json).collect::<Vec<_>>(),
        }))?;
        return Ok(());
    }
    // Each line as soon as the walk back finds it; the heading first (its name from the
    // first entry when the object is deleted).
    let of = property
        .as_deref()
        .map_or(String::new(), |p| format!(" {}", safe_line(p)));
    let heading = |name: Option<&str>| -> std::io::Result<()> {
        outln!("{}{of} in {}", object_name(name, &id), safe_line(&path));
        Ok(())
    };
    let mut headed = false;
    log_each(&mut index, commit, followed, args.max_count, &mut |e| {
        let mut print = || -> std::io::Result<()> {
            if !headed {
                heading(name.as_deref().or(entry_name(e).as_deref()))?;
                headed = true;
            }
            let (author, summary) = commit_text(&e.commit);
            outln!(
                "{} {} {author} {}  {summary}",
                short_commit(&e.commit),
                day(e.commit.time),
                describe(e),
            );
            Ok(())
        };
        print().map_err(|source| store::Error::Io {
            context: "writing the log".to_string(),
            source,
        })
    })?;
    if !headed {
        heading(name.as_deref())?;
    }
    Ok(())
}

/// A property the object does not have in the tree (a typo, or one removed since): said
/// on stderr with the properties it has; the log still looks for it in the past.
fn warn_unknown_property(tree: &TreeIndex, (path, id): (&str, &str), property: Option<&str>) {
    let (Some(property), Some(entry)) = (property, tree.get(path, id)) else {
        return;
    };
    let has = |k: &str| merge::objects::property_covers(property, k);
    if entry.props.iter().any(|(k, _)| has(k)) {
        return;
    }
    let names: Vec<&str> = entry
        .props
        .iter()
        .map(|(k, _)| k.as_str())
        .take(12)
        .collect();
    eprintln!(
        "assetvc: {} has no property {} now (it has: {}); looking for it in its history",
        object_name(entry.name.as_deref(), id),
        safe_line(property),
        safe_line(&names.join(", "))
    );
}

/// How many commits `log NAME` looks back for a deletion of an object not in the tree.
const DELETED_SEARCH: usize = 100_000;

fn is_no_such_object(e: &crate::exit::Error) -> bool {
    matches!(e, crate::exit::Error::Store(store::Error::NoSuchObject(_)))
}

/// A spec that matches nothing, now or deleted: close names, and the `FILE#ID` form.
fn not_found(tree: &TreeIndex, spec: &str) -> crate::exit::Error {
    let mut msg = format!("no object matches \"{spec}\", in the tree or deleted in its history");
    let close = close_names(tree, spec, 5);
    if !close.is_empty() {
        msg.push_str("; close names:");
        for c in &close {
            msg.push_str(&format!(
                "\n    {}  {}#{}",
                object_name(c.name.as_deref(), &c.id),
                c.path,
                c.id
            ));
        }
    }
    msg.push_str(
        "\n  name an object as FILE#ID (an id or its prefix), an id, or its `name` (a Cocos node: its path)",
    );
    crate::exit::failure!(msg)
}

/// The `name` of the object in a log entry, after or before the commit.
fn entry_name(e: &LogEntry) -> Option<String> {
    e.new.as_ref().or(e.old.as_ref())?.entry.name.clone()
}

/// `changed position, rotation`, `moved a.level → b.level`, `merged from parent 2 …`.
fn describe(e: &LogEntry) -> String {
    let props = if e.properties.is_empty() {
        String::new()
    } else {
        format!(" {}", safe_line(&e.properties.join(", ")))
    };
    let path =
        |l: Option<&store::Located>| l.map_or(String::new(), |l| safe_line(&l.path).into_owned());
    match e.kind {
        LogKind::Created => format!("created in {}", path(e.new.as_ref())),
        LogKind::Deleted => format!("deleted from {}", path(e.old.as_ref())),
        LogKind::Changed => match (e.properties.is_empty(), renamed_from(e)) {
            // Only its name changed: a Cocos object whose node or a node above it was
            // renamed.
            (true, Some(old)) => format!("renamed from {}", safe_line(old)),
            _ => format!("changed{props}"),
        },
        LogKind::Moved => {
            let (o, n) = (e.old.as_ref(), e.new.as_ref());
            let place = |l: Option<&store::Located>| {
                l.map_or(String::new(), |l| {
                    safe_line(&format!("{}:{}", l.path, l.entry.pointer)).into_owned()
                })
            };
            format!("moved {} → {}{props}", place(o), place(n))
        }
        LogKind::Merged => match &e.parent {
            Some((number, p)) => format!(
                "merged from parent {number} {} ({}){props}",
                short_commit(p),
                safe_line(&p.summary)
            ),
            None => format!("merged{props}"),
        },
    }
}

/// The object's name before the commit, when the commit changed it.
fn renamed_from(e: &LogEntry) -> Option<&str> {
    let old = e.old.as_ref()?.entry.name.as_deref()?;
    let new = e.new.as_ref()?.entry.name.as_deref();
    (new != Some(old)).then_some(old)
}

fn entry_json(e: &LogEntry) -> serde_json::Value {
    let mut v = commit_json(&e.commit);
    v["kind"] = json!(e.kind.name());
    v["properties"] = json!(e.properties);
    v["path"] = json!(e.new.as_ref().map(|n| &n.path));
    v["pointer"] = json!(e.new.as_ref().map(|n| &n.entry.pointer));
    v["old_path"] = json!(e.old.as_ref().map(|o| &o.path));
    v["old_pointer"] = json!(e.old.as_ref().map(|o| &o.entry.pointer));
    v["parent"] = match &e.parent {
        Some((number, p)) => json!({"number": number, "commit": p.id.to_string()}),
        None => serde_json::Value::Null,
    };
    v
}
