//! Staging and committing through gix: `git add` of paths or of every tracked file, the
//! changes against HEAD (for the asset checks), then tree, commit, ref and index.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use gix::bstr::{BStr, BString, ByteSlice};
use gix::index::entry::{Flags, Mode, Stage};
use gix::ObjectId;

use crate::error::{Error, Result};
use crate::repo;
use crate::worktree::{self, IndexLock, PathChange, Worktree};
use crate::Repo;

/// The index being prepared for a commit, under the repository's index lock from
/// [`Staging::open`] until the commit is written or the staging is dropped.
pub struct Staging<'r> {
    repo: &'r gix::Repository,
    lock: IndexLock,
    wt: Worktree<'r>,
    index: gix::index::File,
    head: Option<ObjectId>,
    head_index: gix::index::File,
    /// New stage-0 entries, pushed all at once by `flush` (the index stays sorted for
    /// lookups until then).
    pending: BTreeMap<BString, (ObjectId, Mode, gix::index::entry::Stat)>,
    /// Paths whose entries (all stages) are to be removed by `flush`.
    removed: HashSet<BString>,
}

/// A commit that was written.
#[derive(Debug, Clone)]
pub struct Committed {
    /// The new commit.
    pub id: ObjectId,
    /// Its parents (two or more when it concludes a merge).
    pub parents: Vec<ObjectId>,
    /// The paths it changed against the first parent.
    pub changes: Vec<PathChange>,
}

impl<'r> Staging<'r> {
    /// Takes the index lock, then reads the index of `repo`'s worktree and HEAD's tree under
    /// it (git's order: a concurrent commit either waits for us or is refused).
    pub fn open(repo: &'r Repo) -> Result<Self> {
        let repo = repo.gix();
        let wt = Worktree::new(repo)?;
        // A merge or sync killed midway is finished first: never committed over.
        crate::head_journal::resume(repo)?;
        let lock = IndexLock::acquire(repo)?;
        let index = lock.index().clone();
        let head = repo::head_commit(repo)?;
        let head_index = repo.index_from_tree(&repo::tree_of(repo, head)?)?;
        Ok(Staging {
            repo,
            lock,
            wt,
            index,
            head,
            head_index,
            pending: BTreeMap::new(),
            removed: HashSet::new(),
        })
    }

    /// The worktree's root.
    pub fn root(&self) -> &Path {
        self.wt.root()
    }

    /// Stages every tracked file that changed on disk, and the removal of tracked files that
    /// are gone (`git commit -a`).
    pub fn add_tracked(&mut self) -> Result<()> {
        self.refresh_tracked(b"".as_bstr())
    }

    /// Stages the tracked files under directory `prefix` (`""`: all) that changed or are gone,
    /// and resolves the conflicted ones with what is on disk (as `git add -u` does).
    fn refresh_tracked(&mut self, prefix: &BStr) -> Result<()> {
        let under = |p: &[u8]| {
            prefix.is_empty()
                || p.starts_with(prefix.as_bytes()) && p.get(prefix.len()) == Some(&b'/')
        };
        let conflicted: Vec<BString> = worktree::unmerged_paths(&self.index)
            .into_iter()
            .map(BString::from)
            .filter(|p| under(p))
            .collect();
        for path in conflicted {
            self.stage_file(path.as_bstr(), true)?;
        }
        let paths: Vec<BString> = self
            .index
            .entries()
            .iter()
            .filter(|e| e.stage() == Stage::Unconflicted && e.mode != Mode::COMMIT)
            .map(|e| e.path(&self.index))
            .filter(|p| under(p))
            .map(|p| p.to_owned())
            .collect();
        for path in paths {
            let entry = self
                .index
                .entry_by_path_and_stage(path.as_bstr(), Stage::Unconflicted)
                .expect("listed above")
                .clone();
            if entry.flags.contains(Flags::INTENT_TO_ADD)
                || !self.wt.is_unchanged(path.as_bstr(), &entry, &self.index)?
            {
                self.stage_file(path.as_bstr(), true)?;
            }
        }
        Ok(())
    }

    /// Stages `rela` (repository-relative): a file, a removed tracked file, or a directory
    /// (its untracked files not ignored by `.gitignore`, and its tracked files).
    pub fn add_path(&mut self, rela: &str) -> Result<()> {
        let rela = rela.as_bytes().as_bstr();
        let abs = self.wt.path(rela);
        let meta = std::fs::symlink_metadata(&abs);
        if rela.is_empty() || meta.as_ref().is_ok_and(|m| m.is_dir()) {
            self.refresh_tracked(rela)?;
            let root = self.wt.root().to_path_buf();
            let walk = ignore::WalkBuilder::new(&abs)
                .hidden(false)
                .parents(true)
                .require_git(false)
                .filter_entry(|e| e.file_name() != ".git")
                .build();
            for entry in walk {
                let entry = entry.map_err(|e| Error::Usage(e.to_string()))?;
                if entry.file_type().is_some_and(|t| !t.is_dir()) {
                    if let Some(path) = repo::rela_bpath(&root, entry.path()) {
                        if self.index.entry_range(path.as_bstr()).is_none() {
                            self.stage_file(path.as_bstr(), false)?;
                        }
                    }
                }
            }
            return Ok(());
        }
        let tracked = self.index.entry_range(rela).is_some();
        if meta.is_err() && !tracked {
            return Err(Error::Usage(format!(
                "{rela}: no such file in the worktree or the index"
            )));
        }
        self.stage_file(rela, true)
    }

    /// Puts the file at `rela` into the index (or removes its entry when the file is gone),
    /// resolving a conflict there.
    fn stage_file(&mut self, rela: &BStr, remove_if_missing: bool) -> Result<()> {
        let added = self.wt.add(rela, &self.index)?;
        let range = self.index.entry_range(rela);
        let single_stage0 = range.as_ref().and_then(|r| {
            (r.len() == 1 && self.index.entries()[r.start].stage() == Stage::Unconflicted)
                .then_some(r.start)
        });
        match added {
            Some((id, mode, stat)) => {
                if let Some(i) = single_stage0 {
                    let e = &mut self.index.entries_mut()[i];
                    e.id = id;
                    e.mode = mode;
                    e.stat = stat;
                    e.flags.remove(Flags::INTENT_TO_ADD);
                } else {
                    if range.is_some() {
                        self.removed.insert(rela.to_owned());
                    }
                    self.pending.insert(rela.to_owned(), (id, mode, stat));
                }
            }
            None if remove_if_missing => {
                if range.is_some() {
                    self.removed.insert(rela.to_owned());
                }
                self.pending.remove(rela);
            }
            None => {}
        }
        Ok(())
    }

    /// Applies the pending removals and additions to the index, sorting it once.
    fn flush(&mut self) {
        if !self.removed.is_empty() {
            let removed = std::mem::take(&mut self.removed);
            self.index.remove_entries(|_, p, _| removed.contains(p));
        }
        if !self.pending.is_empty() {
            for (path, (id, mode, stat)) in std::mem::take(&mut self.pending) {
                self.index
                    .dangerously_push_entry(stat, id, Flags::empty(), mode, path.as_bstr());
            }
            self.index.sort_entries();
        }
    }

    /// The paths whose staged entries differ from HEAD.
    pub fn changes(&mut self) -> Vec<PathChange> {
        self.flush();
        worktree::diff_indexes(&self.head_index, &self.index)
    }

    /// The contents of a staged blob.
    pub fn blob(&self, id: &ObjectId) -> Result<Vec<u8>> {
        Ok(self.repo.find_blob(*id)?.take_data())
    }

    /// The parents a commit gets now: HEAD, then `MERGE_HEAD`'s commits when a merge is
    /// being concluded.
    pub fn parents(&self) -> Result<Vec<ObjectId>> {
        let mut parents: Vec<ObjectId> = self.head.into_iter().collect();
        parents.extend(merge_heads(self.repo)?);
        Ok(parents)
    }

    /// Writes the tree and the commit, the new index into the lock file, moves HEAD's ref
    /// from the HEAD read under the lock (refusing if it moved since), then replaces the
    /// index: git's order, so that a failure at any step leaves HEAD and the index as they
    /// were. `Ok(None)` when there is nothing to commit. Refuses while the index has unmerged
    /// paths.
    pub fn commit(mut self, message: &str) -> Result<Option<Committed>> {
        self.flush();
        let unmerged = worktree::unmerged_paths(&self.index);
        if !unmerged.is_empty() {
            return Err(Error::Refused {
                message: "committing is not possible because you have unmerged paths; \
                          fix them and stage them first"
                    .into(),
                paths: unmerged,
            });
        }
        let changes = self.changes();
        let parents = self.parents()?;
        if changes.is_empty() && parents.len() < 2 {
            return Ok(None);
        }
        if self.repo.committer().is_none() || self.repo.author().is_none() {
            return Err(Error::Usage(
                "who are you? set user.name and user.email (git config user.name …)".into(),
            ));
        }
        let head_tree = repo::tree_of(self.repo, self.head)?;
        let tree = if changes.is_empty() {
            head_tree
        } else {
            let mut editor = self.repo.edit_tree(head_tree)?;
            for c in &changes {
                match c.new {
                    Some((id, mode)) => {
                        let kind = entry_kind(mode);
                        editor.upsert(c.path.as_bstr(), kind, id)?;
                    }
                    None => {
                        editor.remove(c.path.as_bstr())?;
                    }
                }
            }
            editor.write()?.detach()
        };
        let message = if message.ends_with('\n') {
            message.to_string()
        } else {
            format!("{message}\n")
        };
        self.lock.stage(&mut self.index)?;
        let id = self
            .repo
            .commit("HEAD", &message, tree, parents.iter().copied())?
            .detach();
        self.lock.commit()?;
        for name in ["MERGE_HEAD", "MERGE_MSG", "MERGE_MODE"] {
            let _ = std::fs::remove_file(self.repo.git_dir().join(name));
        }
        Ok(Some(Committed {
            id,
            parents,
            changes,
        }))
    }
}

/// The commits of `MERGE_HEAD` in `repo`.
fn merge_heads(repo: &gix::Repository) -> Result<Vec<ObjectId>> {
    let path = repo.git_dir().join("MERGE_HEAD");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(Vec::new());
    };
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            ObjectId::from_hex(l.trim().as_bytes())
                .map_err(|e| Error::git_in(path.display().to_string(), e))
        })
        .collect()
}

impl Repo {
    /// The commits of `MERGE_HEAD`, if a merge is being concluded.
    pub fn merge_heads(&self) -> Result<Vec<ObjectId>> {
        merge_heads(&self.git)
    }
    /// The message git prepared for concluding a merge (`MERGE_MSG` without comment lines).
    pub fn merge_message(&self) -> Option<String> {
        let repo = &self.git;
        let text = std::fs::read_to_string(repo.git_dir().join("MERGE_MSG")).ok()?;
        let kept: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
        let message = kept.join("\n").trim_end().to_string();
        (!message.is_empty()).then_some(message)
    }
}

/// The tree entry kind of an index mode.
pub fn entry_kind(mode: Mode) -> gix::objs::tree::EntryKind {
    use gix::objs::tree::EntryKind;
    match mode {
        Mode::FILE_EXECUTABLE => EntryKind::BlobExecutable,
        Mode::SYMLINK => EntryKind::Link,
        Mode::COMMIT => EntryKind::Commit,
        Mode::DIR => EntryKind::Tree,
        _ => EntryKind::Blob,
    }
}
