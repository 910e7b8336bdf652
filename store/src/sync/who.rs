//! `who`: the objects that the other users' fresh WIP commits change against the
//! upstream, and the ones that the local user edits too.

use std::collections::BTreeMap;
use std::time::Duration;

use gix::bstr::ByteSlice;
use gix::ObjectId;
use merge::diff::{diff, Change, DiffOptions};
use sjson::{Dialect, Document, ParseOptions, Path, Segment, Value};

use crate::error::{Error, Result};
use crate::repo;
use crate::worktree::diff_indexes;
use crate::Repo;

/// One object changed by a WIP: an id'd element (the outermost one on the change's path),
/// or, for changes outside any id'd element, the top-level member they are in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectChange {
    /// Repository-relative file.
    pub file: String,
    /// The object's JSON Pointer, keyed elements named by id (`/entities/[id=e1]`);
    /// empty for an object of a Cocos scene, named by node path in `name`.
    pub pointer: String,
    /// Its id, if it has one.
    pub id: Option<String>,
    /// Its `name` member, if it has one.
    pub name: Option<String>,
    /// `added`, `removed`, `moved` or `changed`.
    pub change: &'static str,
    /// The properties changed, as pointers relative to the object (`/position`).
    pub properties: Vec<String>,
}

impl ObjectChange {
    /// How people name it, as every report does: `crate #e1`, `#e1`
    /// ([`merge::naming::object_label`]), `/settings`; a Cocos object (no pointer) by
    /// its node path.
    pub fn label(&self) -> String {
        match (&self.name, &self.id) {
            (Some(n), None) if self.pointer.is_empty() => n.clone(),
            (name, Some(id)) => merge::naming::object_label(name.as_deref(), id),
            (Some(n), None) => format!("{n} ({})", self.pointer),
            (None, None) if self.pointer.is_empty() => "(root)".into(),
            (None, None) => self.pointer.clone(),
        }
    }

    /// What tells it from the file's other objects: its pointer; a Cocos object's node
    /// path.
    pub fn key(&self) -> &str {
        match (&self.name, self.pointer.is_empty()) {
            (Some(name), true) => name,
            _ => &self.pointer,
        }
    }
}

pub use merge::naming::short_id;

/// Another user's WIP and what it changes.
#[derive(Debug, Clone)]
pub struct OtherWip {
    /// The user, as named in the ref.
    pub user: String,
    /// Their branch.
    pub branch: String,
    /// The WIP commit.
    pub commit: ObjectId,
    /// Seconds since it was recorded.
    pub age: i64,
    /// The objects it changes against the upstream, by file then pointer.
    pub objects: Vec<ObjectChange>,
    /// Changed assets that do not parse (being edited).
    pub unparsable: Vec<String>,
}

/// What [`Repo::who`](crate::Repo::who) found.
#[derive(Debug, Clone, Default)]
pub struct WhoReport {
    /// Every other user's fresh WIP, by user.
    pub others: Vec<OtherWip>,
    /// The objects the local user changes against the upstream.
    pub mine: Vec<ObjectChange>,
    /// (other user, object) for each object that both the local user and another change.
    pub overlaps: Vec<(String, ObjectChange)>,
    /// (users, object) for each object that two or more other users change (whether or
    /// not the local user does too), users in the order of [`WhoReport::others`].
    pub shared: Vec<(Vec<String>, ObjectChange)>,
    /// WIP refs skipped because they do not point at a commit: (ref name, why).
    pub skipped: Vec<(String, String)>,
}

/// What [`Repo::who`](crate::Repo::who) looks at.
pub struct WhoRequest<'a> {
    /// Where the fetched WIP refs are: `refs/assetvc/remote-wip/<remote>/`.
    pub wip_prefix: String,
    /// The local user (as a ref component): their own WIP is not listed.
    pub me: String,
    /// The local user's WIP commit (HEAD plus the uncommitted edits), if known.
    pub mine: Option<ObjectId>,
    /// The upstream branch's tip, the reference the changes are measured against.
    pub upstream: Option<ObjectId>,
    /// WIPs older than this are ignored.
    pub stale: Duration,
    /// Only files under these repository-relative paths (all when empty).
    pub paths: Vec<String>,
    /// The dialect of an asset path; `None` for other files.
    pub dialect_of: &'a dyn Fn(&str) -> Option<Dialect>,
    /// How values are compared.
    pub options: DiffOptions,
    /// The current time, seconds since the epoch.
    pub now: i64,
}

impl Repo {
    /// Lists the other users' fresh WIPs with the objects they change against the upstream
    /// (from the merge base of the WIP and the upstream), and the objects the local user
    /// changes too.
    pub fn who(&self, request: &WhoRequest<'_>) -> Result<WhoReport> {
        let repo = &self.git;
        let mut report = WhoReport::default();
        let refs = repo.references().map_err(Error::git)?;
        let prefixed = refs
            .prefixed(request.wip_prefix.as_str())
            .map_err(Error::git)?;
        let mut found = Vec::new();
        for r in prefixed {
            let mut r = r.map_err(Error::git)?;
            let name = r.name().as_bstr().to_str_lossy().into_owned();
            let Some(rest) = name.strip_prefix(&request.wip_prefix) else {
                continue;
            };
            let Some((user, branch)) = rest.split_once('/') else {
                continue;
            };
            if user == request.me {
                continue;
            }
            let id = match r.peel_to_id() {
                Ok(id) => id.detach(),
                Err(e) => {
                    report.skipped.push((name.clone(), e.to_string()));
                    continue;
                }
            };
            found.push((user.to_string(), branch.to_string(), id, name));
        }
        for (user, branch, id, name) in found {
            // One bad ref (a blob, a tree) must not hide everyone else's work (#30 item 6).
            let Ok(commit) = repo.find_commit(id) else {
                let why = format!("{} is not a commit", short_id(&id.to_string()));
                report.skipped.push((name, why));
                continue;
            };
            let time = commit.time().map_err(Error::git)?.seconds;
            let age = (request.now - time).max(0);
            if age as u64 > request.stale.as_secs() {
                continue;
            }
            let (objects, unparsable) = changed_objects(repo, id, request)?;
            report.others.push(OtherWip {
                user,
                branch,
                commit: id,
                age,
                objects,
                unparsable,
            });
        }
        if let Some(mine) = request.mine {
            report.mine = changed_objects(repo, mine, request)?.0;
        }
        // Found in a set, not by scanning mine per object: both may hold 100 000 objects.
        let mine: std::collections::HashSet<(&str, &str)> = report
            .mine
            .iter()
            .map(|m| (m.file.as_str(), m.key()))
            .collect();
        let mut overlaps = Vec::new();
        for other in &report.others {
            for o in &other.objects {
                if mine.contains(&(o.file.as_str(), o.key())) {
                    overlaps.push((other.user.clone(), o.clone()));
                }
            }
        }
        report.overlaps = overlaps;
        report.shared = shared_objects(&report.others);
        Ok(report)
    }
}

/// The objects that two or more of `others` change, each with its users, in the order
/// the first of them lists it.
fn shared_objects(others: &[OtherWip]) -> Vec<(Vec<String>, ObjectChange)> {
    let mut shared: Vec<(Vec<String>, ObjectChange)> = Vec::new();
    // Found by key, not by scanning: a WIP may change 100 000 objects (#30 item 8).
    let mut at: std::collections::HashMap<(&str, &str), usize> = std::collections::HashMap::new();
    for other in others {
        for o in &other.objects {
            match at.entry((o.file.as_str(), o.key())) {
                std::collections::hash_map::Entry::Occupied(e) => {
                    let users = &mut shared[*e.get()].0;
                    if !users.contains(&other.user) {
                        users.push(other.user.clone());
                    }
                }
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert(shared.len());
                    shared.push((vec![other.user.clone()], o.clone()));
                }
            }
        }
    }
    shared.retain(|(users, _)| users.len() > 1);
    shared
}

/// The objects `commit` changes against its merge base with the upstream (its first
/// parent when there is no upstream), and the changed assets that do not parse.
fn changed_objects(
    repo: &gix::Repository,
    commit: ObjectId,
    request: &WhoRequest<'_>,
) -> Result<(Vec<ObjectChange>, Vec<String>)> {
    let base = match request.upstream {
        Some(up) => repo
            .merge_base(commit, up)
            .ok()
            .flatten()
            .map(|b| b.detach()),
        None => None,
    };
    let base = match base {
        Some(b) => Some(b),
        None => repo
            .find_commit(commit)?
            .parent_ids()
            .next()
            .map(|p| p.detach()),
    };
    let old = repo.index_from_tree(&repo::tree_of(repo, base)?)?;
    let new = repo.index_from_tree(&repo::tree_of(repo, Some(commit))?)?;
    let mut objects = Vec::new();
    let mut unparsable = Vec::new();
    for change in diff_indexes(&old, &new) {
        let file = change.path.to_str_lossy().into_owned();
        if !request.paths.is_empty() && !request.paths.iter().any(|p| under(&file, p)) {
            continue;
        }
        let Some(dialect) = (request.dialect_of)(&file) else {
            continue;
        };
        let load = |side: Option<(ObjectId, gix::index::entry::Mode)>| -> Result<Option<Document>> {
            let data = match side {
                Some((id, _)) => repo.find_blob(id)?.take_data(),
                None => return Ok(None),
            };
            Ok(Document::parse_bytes(data, ParseOptions::new(dialect)).ok())
        };
        let (Some(old_doc), Some(new_doc)) = (
            load(change.old)?.or_else(|| empty(dialect)),
            load(change.new)?.or_else(|| empty(dialect).filter(|_| change.new.is_none())),
        ) else {
            unparsable.push(file);
            continue;
        };
        objects.extend(objects_of(&file, &old_doc, &new_doc, &request.options));
    }
    Ok((objects, unparsable))
}

fn under(file: &str, prefix: &str) -> bool {
    let prefix = prefix.trim_end_matches('/');
    prefix.is_empty() || prefix == "." || file == prefix || file.starts_with(&format!("{prefix}/"))
}

fn empty(dialect: Dialect) -> Option<Document> {
    let text = match dialect {
        Dialect::Json => "{}",
        _ => "",
    };
    Document::parse(text, dialect).ok()
}

/// Groups the changes between two versions of `file` by object, in pointer order.
pub(super) fn objects_of(
    file: &str,
    old: &Document,
    new: &Document,
    options: &DiffOptions,
) -> Vec<ObjectChange> {
    if let Some(changes) = merge::cocos::diff::graph_changes(old, new, options) {
        return graph_objects(file, changes);
    }
    let d = diff(old.root(), new.root(), options);
    let mut by_pointer: BTreeMap<String, ObjectChange> = BTreeMap::new();
    // Each array's elements indexed by id once, not scanned per object (#30 item 8).
    let (mut in_new, mut in_old) = (IdIndex::new(new.root()), IdIndex::new(old.root()));
    for change in &d.changes {
        // A whole array of id'd objects added or removed (a new file, a new layer): each
        // of its objects is added or removed.
        if let Change::Added { path, value } | Change::Removed { path, value } = change {
            let inside_object = path.0.iter().any(|s| matches!(s, Segment::Id { .. }));
            let elements = match inside_object {
                true => Vec::new(),
                false => keyed_elements(*value, &options.id_keys),
            };
            if !elements.is_empty() {
                for (key, id, element) in elements {
                    let mut object = path.clone();
                    object.push(Segment::Id {
                        key,
                        value: id.clone(),
                    });
                    let pointer = object.to_string();
                    by_pointer.entry(pointer.clone()).or_insert(ObjectChange {
                        file: file.to_string(),
                        pointer,
                        id: Some(id),
                        name: name_of(element),
                        change: change.kind_name(),
                        properties: Vec::new(),
                    });
                }
                continue;
            }
        }
        let path = change.path();
        let cut = path
            .0
            .iter()
            .position(|s| matches!(s, Segment::Id { .. }))
            .map(|i| i + 1)
            .unwrap_or_else(|| path.0.len().saturating_sub(1).min(1));
        let object = Path(path.0[..cut].to_vec());
        let property = Path(path.0[cut..].to_vec()).to_string();
        let pointer = object.to_string();
        let at_object = property.is_empty();
        let kind = match change {
            Change::Added { .. } if at_object => "added",
            Change::Removed { .. } if at_object => "removed",
            Change::Moved { .. } if at_object => "moved",
            _ => "changed",
        };
        let entry = by_pointer.entry(pointer.clone()).or_insert_with(|| {
            let value = in_new
                .resolve(&object.0)
                .or_else(|| in_old.resolve(&object.0));
            ObjectChange {
                file: file.to_string(),
                pointer: pointer.clone(),
                id: object.0.last().and_then(|s| match s {
                    Segment::Id { value, .. } => Some(value.clone()),
                    _ => None,
                }),
                name: value.and_then(name_of),
                change: kind,
                properties: Vec::new(),
            }
        });
        if entry.change == "changed" && kind != "changed" || kind == "added" || kind == "removed" {
            entry.change = kind;
        }
        if !at_object && !entry.properties.contains(&property) {
            entry.properties.push(property);
        }
    }
    by_pointer.into_values().collect()
}

/// The changes of a Cocos scene by object, each named by node path
/// (`Canvas/Menu/Start<cc.Label>`) with no pointer (its position is no name: it changes
/// when the scene is renumbered, which is no change), its properties as pointers below
/// it (`/_lpos/x`; a list's element by the list, `/_children`).
fn graph_objects(file: &str, changes: Vec<merge::cocos::diff::GraphChange>) -> Vec<ObjectChange> {
    use merge::cocos::diff::GraphChangeKind as Kind;
    let mut by_object: BTreeMap<String, ObjectChange> = BTreeMap::new();
    for c in changes {
        let kind = match (c.kind, c.property.is_empty()) {
            (Kind::Added, true) => "added",
            (Kind::Removed, true) => "removed",
            (Kind::Moved, true) => "moved",
            _ => "changed",
        };
        let entry = by_object
            .entry(c.object.clone())
            .or_insert_with(|| ObjectChange {
                file: file.to_string(),
                pointer: String::new(),
                id: None,
                name: Some(c.object.clone()),
                change: kind,
                properties: Vec::new(),
            });
        if kind != "changed" {
            entry.change = kind;
        }
        let member = c.property.split('[').next().unwrap_or_default();
        if !member.is_empty() {
            let pointer: String = member
                .split('.')
                .map(|step| format!("/{}", step.replace('~', "~0").replace('/', "~1")))
                .collect();
            if !entry.properties.contains(&pointer) {
                entry.properties.push(pointer);
            }
        }
    }
    by_object.into_values().collect()
}

/// The `name` member of an object.
fn name_of(v: Value<'_>) -> Option<String> {
    v.get("name")
        .and_then(|n| n.as_str().map(|s| s.into_owned()))
}

/// The elements of an array of objects that all carry an id (`(id key, id, element)`),
/// or nothing.
fn keyed_elements<'d>(v: Value<'d>, id_keys: &[String]) -> Vec<(String, String, Value<'d>)> {
    if v.kind() != sjson::Kind::Array || v.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for element in v.children() {
        let found = id_keys.iter().find_map(|wanted| {
            element.members().find_map(|(k, m)| {
                if !k.eq_ignore_ascii_case(wanted) {
                    return None;
                }
                let id = m
                    .as_str()
                    .map(|s| s.into_owned())
                    .or_else(|| m.as_number_lexeme().map(str::to_string))?;
                Some((k.into_owned(), id))
            })
        });
        match found {
            Some((key, id)) => out.push((key, id, element)),
            None => return Vec::new(),
        }
    }
    out
}

/// The values of a document at paths, keyed elements found by their id member through an
/// index of each array built the first time it is searched: linear in the document, not
/// in the number of objects times the array's length.
struct IdIndex<'d> {
    root: Value<'d>,
    /// Per array (its path): (lowercased member name, id) → the first element holding it.
    arrays: rustc_hash::FxHashMap<String, rustc_hash::FxHashMap<(String, String), Value<'d>>>,
}

impl<'d> IdIndex<'d> {
    fn new(root: Value<'d>) -> Self {
        IdIndex {
            root,
            arrays: Default::default(),
        }
    }

    /// The value at `path`, if there is one.
    fn resolve(&mut self, path: &[Segment]) -> Option<Value<'d>> {
        let mut v = self.root;
        for (i, seg) in path.iter().enumerate() {
            v = match seg {
                Segment::Key(k) => v.get(k)?,
                Segment::Index(n) => v.children().nth(*n)?,
                Segment::Id { key, value } => {
                    let array = Path(path[..i].to_vec()).to_string();
                    let index = self.arrays.entry(array).or_insert_with(|| index_of(v));
                    *index.get(&(key.to_ascii_lowercase(), value.clone()))?
                }
            };
        }
        Some(v)
    }
}

/// Every element of `array` by each (lowercased member name, string or number value) it
/// holds; the first element wins, as a scan would find it.
fn index_of(array: Value<'_>) -> rustc_hash::FxHashMap<(String, String), Value<'_>> {
    let mut index = rustc_hash::FxHashMap::default();
    for element in array.children() {
        for (k, m) in element.members() {
            let id = m
                .as_str()
                .map(|s| s.into_owned())
                .or_else(|| m.as_number_lexeme().map(str::to_string));
            if let Some(id) = id {
                index.entry((k.to_ascii_lowercase(), id)).or_insert(element);
            }
        }
    }
    index
}
