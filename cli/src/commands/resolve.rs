//! `assetvc resolve FILE [OBJECT | --all] --take ours|theirs|base|upstream|local [--json]`:
//! after a merge (the driver under `git merge`, `pull`, `rebase`, `cherry-pick`, or
//! `assetvc merge`/`pull`), redoes the choice the policy made, from the three versions the
//! merge journal recorded: for the conflicts of one object (an id, a unique id prefix or a
//! unique `name`) or every conflict of FILE. Only the conflicting nodes change, printed in
//! the file's own style; the file is written atomically, and a file that does not parse
//! is refused untouched.

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use sjson::{Dialect, Document, Kind, Out, OutItem, ParseOptions, Value};
use store::journal::{Journal, Recorded};

use super::{merging, porcelain};
use crate::{files, report};

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
    /// The object: an id, a unique id prefix, or a unique `name`.
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

/// One segment of a conflict's JSON Pointer.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Seg {
    Name(String),
    Id { key: String, value: String },
}

fn unescape(s: &str) -> String {
    s.replace("~1", "/").replace("~0", "~")
}

/// Parses a report's pointer: `/entities/[id=e1]/position`.
fn parse_pointer(pointer: &str) -> Vec<Seg> {
    pointer
        .split('/')
        .skip(1)
        .map(|s| {
            match s
                .strip_prefix('[')
                .and_then(|r| r.strip_suffix(']'))
                .and_then(|r| r.split_once('='))
            {
                Some((k, v)) => Seg::Id {
                    key: unescape(k),
                    value: unescape(v),
                },
                None => Seg::Name(unescape(s)),
            }
        })
        .collect()
}

/// The text of a scalar as the reports write ids: a string's content, a number's lexeme.
fn scalar_text(v: Value<'_>) -> Option<String> {
    match v.kind() {
        Kind::String => v.as_str().map(|s| s.into_owned()),
        Kind::Number => v.as_number_lexeme().map(str::to_string),
        _ => None,
    }
}

/// The child of `node` that `seg` names, with its position.
fn child<'d>(node: Value<'d>, seg: &Seg) -> Option<(usize, Value<'d>)> {
    match (seg, node.kind()) {
        (Seg::Name(k), Kind::Object) => node
            .children()
            .enumerate()
            .find(|(_, c)| c.key().is_some_and(|ck| ck == k.as_str())),
        (Seg::Name(i), Kind::Array) => {
            let i: usize = i.parse().ok()?;
            node.children().nth(i).map(|c| (i, c))
        }
        (Seg::Id { key, value }, Kind::Array) => node.children().enumerate().find(|(_, c)| {
            c.kind() == Kind::Object
                && c.members().any(|(k, v)| {
                    k.eq_ignore_ascii_case(key) && scalar_text(v).as_deref() == Some(value)
                })
        }),
        _ => None,
    }
}

fn find<'d>(root: Value<'d>, segs: &[Seg]) -> Option<(usize, Value<'d>)> {
    let mut at = (0, root);
    for s in segs {
        at = child(at.1, s)?;
    }
    Some(at)
}

/// The edit that puts `new` (a node of another document, with its position there; `None`:
/// absent) at `segs` under `node`; `None` when a container on the way is missing.
fn edit<'a>(node: Value<'a>, segs: &[Seg], new: Option<(usize, Value<'a>)>) -> Option<Out<'a>> {
    let (seg, rest) = segs.split_first()?;
    if !node.is_container() {
        return None;
    }
    let mut items: Vec<OutItem<'a>> = node
        .children()
        .map(|c| OutItem {
            key: c.key(),
            ours: Some(c),
            origin: None,
            value: Out::Value(c),
        })
        .collect();
    let found = child(node, seg);
    match (found, rest.is_empty(), new) {
        (Some((i, c)), false, _) => items[i].value = edit(c, rest, new)?,
        (None, false, _) => return None,
        (Some((i, _)), true, Some((_, v))) => items[i].value = Out::Value(v),
        (Some((i, _)), true, None) => {
            items.remove(i);
        }
        (None, true, Some((at, v))) => {
            let key = match seg {
                Seg::Name(k) if node.kind() == Kind::Object => Some(k.clone().into()),
                _ => None,
            };
            let at = if node.kind() == Kind::Object {
                items.len()
            } else {
                at.min(items.len())
            };
            items.insert(
                at,
                OutItem {
                    key,
                    ours: None,
                    origin: Some(v),
                    value: Out::Value(v),
                },
            );
        }
        (None, true, None) => return Some(Out::Value(node)),
    }
    Some(Out::Container {
        kind: node.kind(),
        ours: Some(node),
        items,
    })
}

/// An object named in the conflicts' pointers: its id key and id, and its name.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Object {
    key: String,
    id: String,
    name: Option<String>,
}

impl Object {
    fn shown(&self) -> String {
        match &self.name {
            Some(n) => format!("{n} #{}", self.id),
            None => format!("#{}", self.id),
        }
    }
}

/// The objects on the way to each conflict, named from the first version that has them.
fn objects(pointers: &[Vec<Seg>], versions: &[&Document], names: &[String]) -> Vec<Object> {
    let mut out: Vec<Object> = Vec::new();
    for segs in pointers {
        for (n, seg) in segs.iter().enumerate() {
            let Seg::Id { key, value } = seg else {
                continue;
            };
            if out.iter().any(|o| o.key == *key && o.id == *value) {
                continue;
            }
            let name = versions.iter().find_map(|d| {
                let (_, node) = find(d.root(), &segs[..=n])?;
                names
                    .iter()
                    .find_map(|k| node.get(k).and_then(|v| v.as_str()).map(|s| s.into_owned()))
            });
            out.push(Object {
                key: key.clone(),
                id: value.clone(),
                name,
            });
        }
    }
    out
}

/// The object `wanted` names: an exact id, else a unique id prefix, else a unique name.
fn pick<'o>(all: &'o [Object], wanted: &str) -> Result<&'o Object, Vec<&'o Object>> {
    let by = |f: &dyn Fn(&Object) -> bool| all.iter().filter(|o| f(o)).collect::<Vec<_>>();
    for matches in [
        by(&|o| o.id == wanted),
        by(&|o| o.id.starts_with(wanted)),
        by(&|o| o.name.as_deref() == Some(wanted)),
    ] {
        match matches.len() {
            0 => continue,
            1 => return Ok(matches[0]),
            _ => return Err(matches),
        }
    }
    Err(Vec::new())
}

/// The newest operation that recorded versions for `path`, with its steps for `path` that
/// did (a rebase may have merged the file at several steps).
fn recorded_steps(journal: &Journal, path: &str) -> anyhow::Result<Option<(Recorded, Vec<usize>)>> {
    for op in journal.operations()?.into_iter().rev() {
        let steps: Vec<usize> = op
            .steps
            .iter()
            .enumerate()
            .filter(|(_, s)| s["path"] == path && s["versions"].is_string())
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
pub fn run(args: &ResolveArgs) -> i32 {
    let (repo, root) = match porcelain::open_worktree() {
        Ok(r) => r,
        Err(status) => return status,
    };
    let absolute = std::env::current_dir()
        .map(|d| d.join(&args.file))
        .unwrap_or_else(|_| args.file.clone());
    let Some(rela) = store::repo::rela_path(&root, &absolute) else {
        report::error(format!(
            "{}: not a file of this repository's worktree",
            args.file.display()
        ));
        return 2;
    };
    let rela = rela.to_string();
    let shown = args.file.display().to_string();
    let (op, steps) = match recorded_steps(&Journal::at(repo.git_dir()), &rela) {
        Ok(Some(found)) => found,
        Ok(None) => {
            report::error(format!(
                "{shown}: no recorded merge resolved conflicts in this file by policy"
            ));
            return 2;
        }
        Err(e) => {
            report::error(e);
            return 2;
        }
    };
    let (_, config) = match porcelain::settings(&root, None) {
        Ok(s) => s,
        Err(status) => return status,
    };
    let dialect = merging::dialect_of(&config, Path::new(&rela));
    let steps: Vec<&serde_json::Value> = steps.iter().map(|i| &op.steps[*i]).collect();
    match resolve_in(
        args,
        &op,
        &steps,
        &absolute,
        &shown,
        dialect,
        &config.merge.natural_keys,
    ) {
        Ok(done) => {
            if args.json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&done).unwrap_or_default()
                );
            } else {
                for line in done["changed"].as_array().into_iter().flatten() {
                    println!("{}", line["line"].as_str().unwrap_or_default());
                }
                if done["changed"].as_array().is_none_or(|c| c.is_empty()) {
                    eprintln!("assetvc: {shown}: already as asked; nothing changed");
                }
            }
            0
        }
        Err(message) => {
            report::error(message);
            2
        }
    }
}

/// The side's version name (`base`, `ours`, `theirs`) for `take` in `step`.
fn side_of(take: Take, step: &serde_json::Value) -> &'static str {
    let meaning = |m: &str| {
        if step["sides"]["ours"] == m {
            "ours"
        } else {
            "theirs"
        }
    };
    match take {
        Take::Ours => "ours",
        Take::Theirs => "theirs",
        Take::Base => "base",
        Take::Upstream => meaning("upstream"),
        Take::Local => meaning("local"),
    }
}

/// The three recorded versions of one step, parsed.
struct StepVersions {
    base: Document,
    ours: Document,
    theirs: Document,
}

impl StepVersions {
    fn get(&self, side: &str) -> &Document {
        match side {
            "base" => &self.base,
            "ours" => &self.ours,
            _ => &self.theirs,
        }
    }
}

fn resolve_in(
    args: &ResolveArgs,
    op: &Recorded,
    steps: &[&serde_json::Value],
    absolute: &Path,
    shown: &str,
    dialect: Dialect,
    names: &[String],
) -> Result<serde_json::Value, String> {
    let parse = |bytes: Vec<u8>, what: &str| {
        let text = String::from_utf8_lossy(&bytes).into_owned();
        Document::parse_bytes(bytes, ParseOptions::new(dialect))
            .map_err(|e| report::parse_error(what, &text, &e))
    };
    let current = std::fs::read(absolute).map_err(|e| format!("{shown}: {e}"))?;
    let mut doc = parse(current, shown)
        .map_err(|e| format!("{e}\nassetvc: {shown} does not parse; nothing changed"))?;
    let mut loaded = Vec::new();
    for step in steps {
        let v = op
            .versions(step["versions"].as_str().unwrap_or_default())
            .map_err(|e| format!("{shown}: {e}"))?;
        let recorded = |bytes: Vec<u8>, name: &str| parse(bytes, &format!("{shown} ({name})"));
        loaded.push(StepVersions {
            base: recorded(v.base, "base")?,
            ours: recorded(v.ours, "ours")?,
            theirs: recorded(v.theirs, "theirs")?,
        });
    }
    // Every conflict of the file, the last step's where steps share a pointer.
    let mut conflicts: Vec<(String, Vec<Seg>, usize)> = Vec::new();
    for (i, step) in steps.iter().enumerate() {
        for c in step["conflicts"].as_array().into_iter().flatten() {
            let Some(p) = c["path"].as_str() else {
                continue;
            };
            conflicts.retain(|(q, _, _)| q != p);
            conflicts.push((p.to_string(), parse_pointer(p), i));
        }
    }
    let pointers: Vec<Vec<Seg>> = conflicts.iter().map(|c| c.1.clone()).collect();
    let chosen: Vec<&(String, Vec<Seg>, usize)> = match &args.object {
        None => conflicts.iter().collect(),
        Some(wanted) => {
            let mut docs: Vec<&Document> = vec![&doc];
            for l in loaded.iter().rev() {
                docs.extend([&l.ours, &l.theirs, &l.base]);
            }
            let all = objects(&pointers, &docs, names);
            let object = pick(&all, wanted).map_err(|candidates| {
                if candidates.is_empty() {
                    let listed: Vec<String> = all.iter().map(Object::shown).collect();
                    format!(
                        "{shown}: no object {wanted:?} among the recorded conflicts (objects with conflicts: {})",
                        if listed.is_empty() { "none".into() } else { listed.join(", ") }
                    )
                } else {
                    let listed: Vec<String> = candidates.iter().map(|o| o.shown()).collect();
                    format!(
                        "{shown}: {wanted:?} is ambiguous; candidates: {}",
                        listed.join(", ")
                    )
                }
            })?;
            let seg = Seg::Id {
                key: object.key.clone(),
                value: object.id.clone(),
            };
            conflicts.iter().filter(|c| c.1.contains(&seg)).collect()
        }
    };
    let mut changed = Vec::new();
    let mut took = Vec::new();
    for (pointer, segs, i) in chosen {
        let side = side_of(args.take, steps[*i]);
        took.push(side);
        let source = loaded[*i].get(side);
        let new = find(source.root(), segs);
        let current = find(doc.root(), segs);
        let same = match (&new, &current) {
            (Some((_, a)), Some((_, b))) => a.same_value(b),
            (None, None) => true,
            _ => false,
        };
        if same {
            continue;
        }
        let text = if segs.is_empty() {
            Some(match new {
                Some((_, v)) => sjson::print(&doc, &Out::Value(v)),
                None => continue,
            })
        } else {
            edit(doc.root(), segs, new).map(|out| sjson::print(&doc, &out))
        };
        let Some(text) = text else {
            eprintln!(
                "assetvc: warning: {shown} {pointer}: its container is no longer in the file; left as it is"
            );
            continue;
        };
        let value = new.map(|(_, v)| merge::compact_json(v));
        doc = Document::parse_with(text, ParseOptions::new(dialect)).map_err(|e| {
            format!("internal error: the edited {shown} does not parse ({e}); nothing changed")
        })?;
        let at = if pointer.is_empty() { "/" } else { pointer };
        let step = match steps[*i]["step"].as_str() {
            Some(s) => format!(" (step {s})"),
            None => String::new(),
        };
        changed.push(serde_json::json!({
            "path": pointer,
            "took": side,
            "value": value,
            "line": format!(
                "{} {at}: took {side}{step}: {}",
                steps[*i]["path"].as_str().unwrap_or(shown),
                value.as_deref().unwrap_or("deleted")
            ),
        }));
    }
    if !changed.is_empty() {
        files::write_atomic(absolute, doc.text().as_bytes())
            .map_err(|e| format!("{shown}: {e}"))?;
    }
    took.dedup();
    Ok(serde_json::json!({
        "file": steps.first().map(|s| s["path"].clone()),
        "operation": op.operation.label,
        "took": took,
        "changed": changed,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers_parse_with_ids_and_escapes() {
        assert_eq!(
            parse_pointer("/entities/[id=e1]/a~1b"),
            vec![
                Seg::Name("entities".into()),
                Seg::Id {
                    key: "id".into(),
                    value: "e1".into()
                },
                Seg::Name("a/b".into())
            ]
        );
        assert!(parse_pointer("").is_empty());
    }

    #[test]
    fn an_edit_changes_only_the_node_it_names() {
        let doc = Document::parse(
            "// keep\nentities = [\n\t{ id = \"e1\" x = 1 }\n\t{ id = \"e2\" x = 2 }\n]\n",
            Dialect::Sjson,
        )
        .unwrap();
        let other =
            Document::parse("entities = [ { id = \"e2\" x = 7 } ]", Dialect::Sjson).unwrap();
        let segs = parse_pointer("/entities/[id=e2]/x");
        let out = edit(doc.root(), &segs, find(other.root(), &segs)).unwrap();
        assert_eq!(
            sjson::print(&doc, &out),
            "// keep\nentities = [\n\t{ id = \"e1\" x = 1 }\n\t{ id = \"e2\" x = 7 }\n]\n"
        );
        let gone = edit(doc.root(), &segs, None).unwrap();
        assert_eq!(
            sjson::print(&doc, &gone),
            "// keep\nentities = [\n\t{ id = \"e1\" x = 1 }\n\t{ id = \"e2\" }\n]\n"
        );
    }

    #[test]
    fn objects_are_picked_by_id_prefix_or_unique_name() {
        let o = |id: &str, name: Option<&str>| Object {
            key: "id".into(),
            id: id.into(),
            name: name.map(String::from),
        };
        let all = vec![
            o("6f1c2a", Some("lamp")),
            o("6f9d00", Some("lamp")),
            o("a1", Some("crate")),
        ];
        assert_eq!(pick(&all, "6f1").unwrap().id, "6f1c2a");
        assert_eq!(pick(&all, "crate").unwrap().id, "a1");
        assert_eq!(pick(&all, "6f").unwrap_err().len(), 2);
        assert_eq!(pick(&all, "lamp").unwrap_err().len(), 2);
        assert!(pick(&all, "zz").unwrap_err().is_empty());
    }

    proptest::proptest! {
        /// Taking a value from another version at one pointer changes exactly that line
        /// of the file: every other byte stays.
        #[test]
        fn an_edit_rewrites_only_its_own_line(
            values in proptest::collection::vec(0u32..1000, 1..8),
            pick in 0usize..8,
            new in 0u32..1000,
        ) {
            let pick = pick % values.len();
            let text: String = values
                .iter()
                .enumerate()
                .map(|(i, v)| format!("k{i} = {v}\n"))
                .collect();
            let doc = Document::parse(&text, Dialect::Sjson).unwrap();
            let other = Document::parse(format!("k{pick} = {new}\n"), Dialect::Sjson).unwrap();
            let segs = vec![Seg::Name(format!("k{pick}"))];
            let out = edit(doc.root(), &segs, find(other.root(), &segs)).unwrap();
            let want: String = values
                .iter()
                .enumerate()
                .map(|(i, v)| format!("k{i} = {}\n", if i == pick { new } else { *v }))
                .collect();
            proptest::prop_assert_eq!(sjson::print(&doc, &out), want);
        }
    }
}
