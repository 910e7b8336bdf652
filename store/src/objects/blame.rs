//! `blame`: for each object of a file and each of its leaf properties (nested objects
//! flattened: `light.intensity`), the commit that gave the property its present value,
//! walking commits newest first like `log` (`history.rs`).

use std::collections::{HashMap, HashSet};

use gix::ObjectId;

use super::build::{CommitInfo, ObjectIndex};
use super::history::{parent_infos, Walk};
use super::{Delta, Entry, FileObjects, ObjectChange};
use crate::error::Error;

/// The last change of one property of one object.
#[derive(Debug, Clone)]
pub struct BlameLine {
    /// The property.
    pub property: String,
    /// The commit that gave it its present value.
    pub commit: CommitInfo,
}

/// One object of a blamed file.
#[derive(Debug, Clone)]
pub struct BlameObject {
    /// Its id.
    pub id: String,
    /// Its `name`, if any.
    pub name: Option<String>,
    /// Its JSON Pointer.
    pub pointer: String,
    /// Each property, in document order.
    pub properties: Vec<BlameLine>,
}

/// Properties still looking for their commit, by object: the file the object is in at
/// the commit, and (property, value hash) pairs.
type Pending = HashMap<usize, (String, Vec<(usize, u64)>)>;

/// Adds `more` to `pending` (an object reached from two children keeps both's properties).
fn merge_pending(pending: &mut Pending, more: Pending) {
    for (obj, (here, props)) in more {
        let slot = pending.entry(obj).or_insert_with(|| (here, Vec::new()));
        for p in props {
            if !slot.1.contains(&p) {
                slot.1.push(p);
            }
        }
    }
}

/// For every object of file `path` in `start`'s tree and each of its properties, the
/// commit that gave the property its present value.
pub fn blame(
    index: &mut ObjectIndex<'_>,
    start: ObjectId,
    path: &str,
) -> Result<Vec<BlameObject>, Error> {
    let first = index.commit_info(start)?;
    let tree = index.tree_index(first.tree)?;
    let Some(file) = tree.files.get(path) else {
        return Ok(Vec::new());
    };
    let mut found = Found::of(file);
    let mut walk: Walk<Pending> = Walk::new();
    walk.push(&first, found.pending(path), merge_pending);
    while let Some((commit, pending)) = walk.pop() {
        let info = index.commit_info(commit)?;
        let parents = parent_infos(index, &info)?;
        let mut deltas = Vec::with_capacity(parents.len());
        for p in &parents {
            deltas.push(index.delta(info.tree, p.tree)?);
        }
        if let ([parent], [delta]) = (parents.as_slice(), deltas.as_slice()) {
            if !walk.visited.contains(&parent.id) {
                // One parent: only the objects the commit changed are looked at.
                let pending = found.through_one_parent(&info, &delta.changes, pending);
                if !pending.is_empty() {
                    walk.push(parent, pending, merge_pending);
                }
                continue;
            }
        }
        let passed = found.through_parents(&info, (&parents, &deltas), &walk.visited, pending);
        for (parent, pending) in parents.iter().zip(passed) {
            if !pending.is_empty() {
                walk.push(parent, pending, merge_pending);
            }
        }
    }
    Ok(found.into_objects())
}

/// Where an object comes in a blame: by pointer; the objects of a Cocos graph (at its top
/// level, by `_id` or position) by node path, a node before its children and components.
fn order_key(e: &Entry) -> (bool, &str, &str) {
    let p = e.pointer.as_str();
    let top = (p.starts_with("/[_id=") && p.matches('/').count() == 1)
        || p.strip_prefix('/')
            .is_some_and(|i| !i.is_empty() && i.bytes().all(|c| c.is_ascii_digit()));
    match (top, e.name.as_deref()) {
        (true, Some(name)) => (false, name, p),
        _ => (true, "", p),
    }
}

/// The objects of the blamed file, in document order, and the commit found so far for
/// each of their properties.
struct Found {
    objects: Vec<(String, Entry)>,
    /// Each object's position in `objects`, by id.
    by_id: HashMap<String, usize>,
    commits: Vec<Vec<Option<CommitInfo>>>,
}

impl Found {
    fn of(file: &FileObjects) -> Found {
        let mut objects: Vec<(String, Entry)> = file
            .objects
            .iter()
            .map(|(id, e)| (id.clone(), e.clone()))
            .collect();
        objects.sort_by(|a, b| order_key(&a.1).cmp(&order_key(&b.1)));
        let by_id = objects
            .iter()
            .enumerate()
            .map(|(i, (id, _))| (id.clone(), i))
            .collect();
        let commits = objects
            .iter()
            .map(|(_, e)| vec![None; e.props.len()])
            .collect();
        Found {
            objects,
            by_id,
            commits,
        }
    }

    /// Every property of every object, all in file `path`, to find a commit for.
    fn pending(&self, path: &str) -> Pending {
        self.objects
            .iter()
            .enumerate()
            .map(|(i, (_, e))| {
                let props = e
                    .props
                    .iter()
                    .enumerate()
                    .map(|(j, (_, h))| (j, *h))
                    .collect();
                (i, (path.to_string(), props))
            })
            .collect()
    }

    /// Commit `info`, whose only parent is not walked yet, with the object `changes`
    /// against it: the properties it changed are found; the rest go on to the parent.
    fn through_one_parent(
        &mut self,
        info: &CommitInfo,
        changes: &[ObjectChange],
        mut pending: Pending,
    ) -> Pending {
        let touched: Vec<(usize, &ObjectChange)> = changes
            .iter()
            .filter_map(|c| {
                let new = c.new.as_ref()?;
                let obj = *self.by_id.get(&c.id)?;
                let (here, _) = pending.get(&obj)?;
                (*here == new.path).then_some((obj, c))
            })
            .collect();
        for (obj, change) in touched {
            let Some((here, props)) = pending.get_mut(&obj) else {
                continue;
            };
            let old = change.old.as_ref();
            let (objects, commits) = (&self.objects, &mut self.commits);
            props.retain(|(prop, hash)| {
                let name = &objects[obj].1.props[*prop].0;
                let kept = old.and_then(|o| o.entry.prop_near(*prop, name)) == Some(*hash);
                if !kept {
                    commits[obj][*prop] = Some(info.clone());
                }
                kept
            });
            if let Some(o) = old {
                *here = o.path.clone();
            }
            if props.is_empty() {
                pending.remove(&obj);
            }
        }
        pending
    }

    /// Commit `info` with several parents (or one already walked), and its object changes
    /// against each (`deltas`): each property goes to the first parent that holds the same
    /// value, unless that parent was walked; else `info` changed it. The pending
    /// properties for each parent.
    fn through_parents(
        &mut self,
        info: &CommitInfo,
        (parents, deltas): (&[CommitInfo], &[Delta]),
        visited: &HashSet<ObjectId>,
        pending: Pending,
    ) -> Vec<Pending> {
        let mut passed: Vec<Pending> = vec![Pending::new(); parents.len()];
        for (obj, (here, props)) in pending {
            let id = &self.objects[obj].0;
            let records: Vec<Option<&ObjectChange>> =
                deltas.iter().map(|d| d.find(&here, id, true)).collect();
            let mut to_parent: Vec<Vec<(usize, u64)>> = vec![Vec::new(); parents.len()];
            for (prop, hash) in props {
                let name = &self.objects[obj].1.props[prop].0;
                let same = records.iter().position(|r| match r {
                    None => true,
                    Some(r) => {
                        r.old.as_ref().and_then(|o| o.entry.prop_near(prop, name)) == Some(hash)
                    }
                });
                match same {
                    Some(i) if !visited.contains(&parents[i].id) => to_parent[i].push((prop, hash)),
                    _ => self.commits[obj][prop] = Some(info.clone()),
                }
            }
            for (i, props) in to_parent.into_iter().enumerate() {
                if !props.is_empty() {
                    let there = records[i]
                        .and_then(|r| r.old.as_ref())
                        .map_or(here.clone(), |o| o.path.clone());
                    passed[i].insert(obj, (there, props));
                }
            }
        }
        passed
    }

    /// Each object with the commits found for its properties (those with none left out).
    fn into_objects(self) -> Vec<BlameObject> {
        self.objects
            .into_iter()
            .zip(self.commits)
            .map(|((id, entry), commits)| BlameObject {
                id,
                name: entry.name.clone(),
                properties: entry
                    .props
                    .iter()
                    .zip(commits)
                    .filter_map(|((k, _), c)| {
                        c.map(|commit| BlameLine {
                            property: k.clone(),
                            commit,
                        })
                    })
                    .collect(),
                pointer: entry.pointer,
            })
            .collect()
    }
}
