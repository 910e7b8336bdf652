//! Building the object index: deltas of commits against their parents, parents first,
//! parsing only the blobs a commit changed; full indexes rebuilt from a snapshot and a
//! chain of deltas, or, when the cache has nothing usable, from the tree itself.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, HashSet};

use gix::bstr::ByteSlice;
use gix::ObjectId;

use super::cache::{Cache, SNAPSHOT_EVERY};
use super::delta::delta_of;
use super::incremental::Previous;
use super::memo::Memo;
use super::{index_dir, Delta, Entry, FileObjects, IndexSettings, TreeIndex};
use crate::error::{Error, GitContext, Result};
use crate::Repo;

mod blobs;
mod lazy;
mod packed;
mod reader;

/// A commit as history queries need it.
#[derive(Debug, Clone)]
pub struct CommitInfo {
    /// The commit.
    pub id: ObjectId,
    /// Its tree.
    pub tree: ObjectId,
    /// Its parents, first parent first.
    pub parents: Vec<ObjectId>,
    /// Author name.
    pub author: String,
    /// Author e-mail.
    pub email: String,
    /// Author time, seconds since the epoch.
    pub time: i64,
    /// Committer time, seconds since the epoch (the walk order).
    pub commit_time: i64,
    /// The first line of the message.
    pub summary: String,
}

/// The object index of a repository, built on demand.
pub struct ObjectIndex<'r> {
    repo: &'r gix::Repository,
    /// `repo` with the caches reading history needs (see [`reader`]).
    objects: gix::Repository,
    settings: IndexSettings,
    cache: Cache,
    empty: ObjectId,
    /// Full indexes built in this process, with their chain depth.
    memo: Memo,
    /// What the next commits to index change, worked out ahead (see [`Self::scan_ahead`]).
    ahead: RefCell<Ahead>,
    /// The last version of each asset file scanned, to scan its next version by its
    /// changes (see [`incremental`](super::incremental)).
    previous: RefCell<HashMap<String, Previous>>,
    /// The pack files blobs are read from, opened on the first read (see [`packed`]).
    packs: RefCell<Option<packed::Packs>>,
}

/// A changed asset file: its path and new blob (`None`: removed).
type ChangedPath = (String, Option<ObjectId>);

/// The work of the next commits to index done ahead of their deltas.
#[derive(Default)]
struct Ahead {
    /// The changed asset files of (base tree, tree): path → new blob (`None`: removed).
    changed: HashMap<(ObjectId, ObjectId), Vec<ChangedPath>>,
    /// Their new blobs, scanned in parallel: (path, blob) → objects (`None`: it does not
    /// parse).
    scanned: HashMap<(String, ObjectId), Option<Objects>>,
    /// The bytes of their changed blobs, read ahead in delta order (see
    /// [`reader::in_delta_order`]).
    blobs: HashMap<ObjectId, Vec<u8>>,
}

/// The objects of one file by id.
type Objects = BTreeMap<String, Entry>;

/// Commits whose changed blobs are scanned together, in parallel, before their deltas are
/// computed one after the other (each needs its parent's index). Bounds the memory held.
const SCAN_AHEAD: usize = 8;

impl<'r> ObjectIndex<'r> {
    /// The index of `repo` with `settings` (its cache directory keyed by the settings).
    pub fn open(repo: &'r Repo, settings: IndexSettings) -> ObjectIndex<'r> {
        let repo = repo.gix();
        let cache = Cache::new(index_dir(repo, &settings));
        ObjectIndex {
            repo,
            objects: reader::reader(repo),
            settings,
            cache,
            empty: ObjectId::empty_tree(repo.object_hash()),
            memo: Memo::default(),
            ahead: RefCell::default(),
            previous: RefCell::default(),
            packs: RefCell::default(),
        }
    }

    /// The repository.
    pub(crate) fn repo(&self) -> &'r gix::Repository {
        self.repo
    }

    /// The settings.
    pub fn settings(&self) -> &IndexSettings {
        &self.settings
    }

    /// The commit `rev` names.
    pub fn resolve_commit(&self, rev: &str) -> Result<ObjectId> {
        let unknown = || Error::UnknownRevision(rev.to_string());
        let id = self.objects.rev_parse_single(rev).map_err(|_| unknown())?;
        let commit = id
            .object()
            .map_err(|_| unknown())?
            .peel_to_commit()
            .map_err(|_| unknown())?;
        Ok(commit.id)
    }

    /// A commit's tree, parents, author and summary.
    pub fn commit_info(&self, id: ObjectId) -> Result<CommitInfo> {
        let ctx = || format!("reading commit {id}");
        let commit = self.objects.find_commit(id).git_err(ctx())?;
        let tree = commit.tree_id().git_err(ctx())?.detach();
        // A shallow clone's boundary commits have parents that are not in the repository:
        // they are roots here.
        let parents = commit
            .parent_ids()
            .map(|p| p.detach())
            .filter(|p| self.objects.has_object(p))
            .collect();
        let author = commit.author().git_err(ctx())?;
        let (name, email) = (author.name.to_string(), author.email.to_string());
        let time = author.time().map(|t| t.seconds).unwrap_or(0);
        let commit_time = commit.time().map(|t| t.seconds).unwrap_or(time);
        let summary = commit
            .message()
            .map(|m| m.summary().to_str_lossy().into_owned())
            .unwrap_or_default();
        Ok(CommitInfo {
            id,
            tree,
            parents,
            author: name,
            email,
            time,
            commit_time,
            summary,
        })
    }

    /// Indexes every commit reachable from `start` that is not indexed yet, parents first
    /// (a commit is indexed when its deltas against all its parents are stored). What it
    /// stores as it goes stays: an interrupted build resumes where it stopped. A finished
    /// build marks `start`, and later builds stop at marked commits; the ancestors of a
    /// commit indexed by a walk back (`log`, `blame`) are still looked at.
    pub fn ensure(&mut self, start: ObjectId) -> Result<()> {
        let mut todo = Vec::new();
        let mut visited = HashSet::new();
        let mut stack = vec![(start, false)];
        while let Some((id, expanded)) = stack.pop() {
            if expanded {
                todo.push(id);
                continue;
            }
            if !visited.insert(id) || self.cache.is_complete(&id.to_string()) {
                continue;
            }
            let info = self.commit_info(id)?;
            if !self.indexed(&info)? {
                stack.push((id, true));
            }
            for p in info.parents.iter().rev() {
                if !visited.contains(p) {
                    stack.push((*p, false));
                }
            }
        }
        let total = todo.len();
        for (batch, ids) in todo.chunks(SCAN_AHEAD).enumerate() {
            let infos = ids
                .iter()
                .map(|id| self.commit_info(*id))
                .collect::<Result<Vec<_>>>()?;
            self.scan_ahead(&infos)?;
            for (i, info) in infos.iter().enumerate() {
                if let Some(progress) = &self.settings.progress {
                    if total > 1 {
                        progress(batch * SCAN_AHEAD + i, total);
                    }
                }
                self.index_commit(info)?;
            }
            *self.ahead.borrow_mut() = Ahead::default();
        }
        if let Some(progress) = &self.settings.progress {
            progress(total, total);
        }
        // Best effort: without the mark, the next build only walks further.
        let _ = self.cache.put_complete(&start.to_string());
        Ok(())
    }

    /// Scans, in parallel, the blobs that `commits` change against their first parent, for
    /// [`Self::scan_blobs`] to find: parsing is most of the work of indexing a commit, and
    /// unlike the deltas it does not need the parent's index.
    fn scan_ahead(&self, commits: &[CommitInfo]) -> Result<()> {
        let mut wanted = Vec::new();
        let mut seen = HashSet::new();
        let mut blobs = Vec::new();
        for info in commits {
            let Some(parent) = info.parents.first() else {
                continue;
            };
            let base = self.commit_info(*parent)?.tree;
            let changed = self.changed_files(base, info.tree)?;
            let previous = self.previous.borrow();
            for (path, blob) in &changed {
                if let Some(blob) = blob {
                    blobs.push(*blob);
                    // A file scanned before is scanned by its changes, in order.
                    if !previous.contains_key(path) && seen.insert((path.clone(), *blob)) {
                        wanted.push((path.clone(), *blob));
                    }
                }
            }
            drop(previous);
            self.ahead
                .borrow_mut()
                .changed
                .insert((base, info.tree), changed);
        }
        self.read_ahead(blobs);
        let scanned = self.read_and_scan(wanted, false)?;
        let mut ahead = self.ahead.borrow_mut();
        for (path, blob, objects) in scanned {
            ahead.scanned.insert((path, blob), objects);
        }
        Ok(())
    }

    fn parent_trees(&self, info: &CommitInfo) -> Result<Vec<ObjectId>> {
        if info.parents.is_empty() {
            return Ok(vec![self.empty]);
        }
        info.parents
            .iter()
            .map(|p| Ok(self.commit_info(*p)?.tree))
            .collect()
    }

    fn indexed(&self, info: &CommitInfo) -> Result<bool> {
        Ok(self.parent_trees(info)?.iter().all(|base| {
            *base == info.tree
                || self
                    .cache
                    .has_delta(&info.tree.to_string(), &base.to_string())
        }))
    }

    fn index_commit(&mut self, info: &CommitInfo) -> Result<()> {
        for (i, base) in self.parent_trees(info)?.into_iter().enumerate() {
            let (tree_hex, base_hex) = (info.tree.to_string(), base.to_string());
            if base == info.tree || (i > 0 && self.cache.has_delta(&tree_hex, &base_hex)) {
                continue;
            }
            let (mut index, depth) = if i == 0 {
                self.take(base)?
            } else {
                self.load(base)?
            };
            let mut delta = self.compute_delta(&index, base, info.tree)?;
            delta.depth = depth + 1;
            if i == 0 {
                index.apply(&delta);
                if delta.depth >= SNAPSHOT_EVERY {
                    // Best effort: without the file, the chain is only longer.
                    let _ = self.cache.put_snapshot(&tree_hex, &index);
                    delta.depth = 0;
                }
                let depth = delta.depth;
                let _ = self.cache.put_delta(&tree_hex, &delta);
                self.remember(info.tree, index, depth);
            } else {
                let _ = self.cache.put_delta(&tree_hex, &delta);
            }
        }
        Ok(())
    }

    fn remember(&mut self, tree: ObjectId, index: TreeIndex, depth: u32) {
        self.memo.put(tree, index, depth);
    }

    /// The full index of `tree` and its chain depth, removed from the memo if there.
    fn take(&mut self, tree: ObjectId) -> Result<(TreeIndex, u32)> {
        match self.memo.take(&tree) {
            Some(hit) => Ok(hit),
            None => self.load(tree),
        }
    }

    /// The full index of `tree`, from the cache or, when the cache has nothing usable,
    /// from the tree's own blobs: never from the history before it.
    pub fn tree_index(&mut self, tree: ObjectId) -> Result<TreeIndex> {
        let (index, depth) = self.load(tree)?;
        self.remember(tree, index.clone(), depth);
        Ok(index)
    }

    /// The full index of the tree of commit `commit`, indexing its history first.
    pub fn commit_index(&mut self, commit: ObjectId) -> Result<TreeIndex> {
        self.ensure(commit)?;
        let tree = self.commit_info(commit)?.tree;
        self.tree_index(tree)
    }

    fn load(&mut self, tree: ObjectId) -> Result<(TreeIndex, u32)> {
        if tree == self.empty {
            return Ok((TreeIndex::default(), 0));
        }
        if let Some((index, depth)) = self.memo.get(&tree) {
            return Ok((index.clone(), depth));
        }
        let mut chain = Vec::new();
        let mut at = tree;
        let mut base = loop {
            let hex = at.to_string();
            if at == self.empty {
                break TreeIndex::default();
            }
            if let Some(snapshot) = self.cache.snapshot(&hex) {
                break snapshot;
            }
            match self.cache.any_delta(&hex) {
                Some(delta) if chain.len() <= 2 * SNAPSHOT_EVERY as usize => {
                    at = ObjectId::from_hex(delta.base.as_bytes())
                        .git_err(format!("object index of {hex}"))?;
                    chain.push(delta);
                }
                _ => {
                    // Nothing usable: index this tree from its blobs and keep a snapshot.
                    chain.clear();
                    let index = self.scan_tree(tree)?;
                    let _ = self.cache.put_snapshot(&tree.to_string(), &index);
                    break index;
                }
            }
        };
        let depth = chain.len() as u32;
        for delta in chain.iter().rev() {
            base.apply(delta);
        }
        Ok((base, depth))
    }

    /// The delta of `tree` against `base` (read from the cache, or computed and stored).
    pub fn delta(&mut self, tree: ObjectId, base: ObjectId) -> Result<Delta> {
        if tree == base {
            return Ok(Delta {
                base: base.to_string(),
                ..Delta::default()
            });
        }
        if let Some(d) = self.cache.delta(&tree.to_string(), &base.to_string()) {
            return Ok(d);
        }
        if !self.memo.contains(&base) {
            // Walking back from `tree`: its parent's index is derived from its own.
            return self.delta_back(tree, base);
        }
        let (index, depth) = self.load(base)?;
        let mut delta = self.compute_delta(&index, base, tree)?;
        delta.depth = depth + 1;
        if delta.depth < SNAPSHOT_EVERY {
            let _ = self.cache.put_delta(&tree.to_string(), &delta);
        }
        Ok(delta)
    }

    fn asset_dialect(&self, path: &str) -> Option<sjson::Dialect> {
        (self.settings.dialect)(path)
    }

    /// The full index of a tree from its blobs.
    fn scan_tree(&self, tree: ObjectId) -> Result<TreeIndex> {
        let ctx = || format!("listing tree {tree}");
        let entries = self
            .objects
            .find_object(tree)
            .git_err(ctx())?
            .into_tree()
            .traverse()
            .breadthfirst
            .files()
            .git_err(ctx())?;
        let blobs = entries
            .into_iter()
            .filter(|e| e.mode.is_blob())
            .map(|e| (e.filepath.to_str_lossy().into_owned(), e.oid))
            .collect();
        let mut index = TreeIndex::default();
        for (path, oid, objects) in self.scan_blobs(blobs)? {
            index.files.insert(
                path,
                FileObjects {
                    blob: oid.to_string(),
                    parsed: objects.is_some(),
                    objects: objects.unwrap_or_default(),
                },
            );
        }
        Ok(index)
    }

    /// The asset files that differ between two trees: path → new blob (`None`: removed).
    fn changed_files(&self, base: ObjectId, tree: ObjectId) -> Result<Vec<ChangedPath>> {
        use gix::diff::tree::recorder::Change;
        let ctx = || format!("comparing trees {base} and {tree}");
        let old = self.objects.find_tree(base).git_err(ctx())?;
        let new = self.objects.find_tree(tree).git_err(ctx())?;
        let mut recorder = gix::diff::tree::Recorder::default();
        gix::diff::tree(
            gix::objs::TreeRefIter::from_bytes(&old.data, base.kind()),
            gix::objs::TreeRefIter::from_bytes(&new.data, tree.kind()),
            &mut gix::diff::tree::State::default(),
            &self.objects.objects,
            &mut recorder,
        )
        .git_err(ctx())?;
        let mut out = BTreeMap::new();
        for change in recorder.records {
            let (path, removed, added) = match change {
                Change::Addition {
                    entry_mode,
                    oid,
                    path,
                    ..
                } => (path, None, entry_mode.is_blob().then_some(oid)),
                Change::Deletion {
                    entry_mode, path, ..
                } => (path, Some(entry_mode.is_blob()), None),
                Change::Modification {
                    previous_entry_mode,
                    entry_mode,
                    oid,
                    path,
                    ..
                } => (
                    path,
                    Some(previous_entry_mode.is_blob()),
                    entry_mode.is_blob().then_some(oid),
                ),
            };
            let path = path.to_str_lossy().into_owned();
            if self.asset_dialect(&path).is_none() {
                continue;
            }
            match added {
                Some(oid) => {
                    out.insert(path, Some(oid));
                }
                None if removed == Some(true) => {
                    out.entry(path).or_insert(None);
                }
                None => {}
            }
        }
        Ok(out.into_iter().collect())
    }

    /// The delta of `tree` against `base`, whose full index is `index` (depth left 0).
    fn compute_delta(&self, index: &TreeIndex, base: ObjectId, tree: ObjectId) -> Result<Delta> {
        if base == self.empty {
            return self.delta_from_scan(index, base, tree);
        }
        let ahead = self.ahead.borrow_mut().changed.remove(&(base, tree));
        let changed = match ahead {
            Some(changed) => changed,
            None => self.changed_files(base, tree)?,
        };
        let mut added = Vec::new();
        let mut edited = Vec::new();
        for (path, oid) in &changed {
            let Some(oid) = oid else { continue };
            match self.try_edit(index, path, *oid)? {
                Some(edit) => edited.push(edit),
                None => added.push((path.clone(), *oid)),
            }
        }
        let mut scanned: HashMap<String, ScannedFile> = self
            .scan_blobs(added)?
            .into_iter()
            .map(|f| (f.0.clone(), f))
            .collect();
        let files = changed
            .into_iter()
            .filter(|(path, _)| !edited.iter().any(|e| &e.0 == path))
            .map(|(path, _)| {
                let new = scanned
                    .remove(&path)
                    .map(|(_, oid, objects)| (oid.to_string(), objects));
                (path, new)
            })
            .collect();
        Ok(delta_of(index, base.to_string(), files, edited))
    }

    /// A root commit's delta: every object of the tree, created.
    fn delta_from_scan(&self, index: &TreeIndex, base: ObjectId, tree: ObjectId) -> Result<Delta> {
        let full = self.scan_tree(tree)?;
        let files = full
            .files
            .into_iter()
            .map(|(path, f)| {
                let objects = f.parsed.then_some(f.objects);
                (path, Some((f.blob, objects)))
            })
            .collect();
        Ok(delta_of(index, base.to_string(), files, Vec::new()))
    }
}

/// A scanned blob: path, blob id, objects (`None`: it does not parse).
type ScannedFile = (String, ObjectId, Option<Objects>);
