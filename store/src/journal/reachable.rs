//! Keeping the journal's blobs reachable: the versions of resolved files are blobs no ref
//! names, so `git gc --prune=now` (or a plain `git gc` after its two-week grace period)
//! would delete them and `assetvc resolve` on that step would find its versions gone. The
//! ref [`REF`] points at a commit (no parent, a fixed date: one object per state of the
//! journal, never a growing history) whose tree holds every live step's blobs, one entry
//! `NNNNNN-NAME-SIDE` each. It is rewritten whenever a step that kept versions is appended
//! and when old operations are removed; the blobs of removed operations become garbage.

use gix::objs::tree::{Entry, EntryKind};
use gix::ObjectId;

use super::{stored, Journal, OperationLog};

/// The ref that keeps the journal's blobs reachable.
pub const REF: &str = "refs/assetvc/journal";

impl OperationLog {
    /// Rewrites [`REF`] for the journal this log belongs to (best effort: a journal outside
    /// a repository, or a repository that cannot be written, keeps its blobs loose).
    pub(super) fn keep_reachable(&self) {
        if let Some(journal) = self.dir.parent() {
            let journal = Journal {
                dir: journal.to_path_buf(),
            };
            journal.keep_reachable();
        }
    }
}

impl Journal {
    /// Rewrites [`REF`]: a commit whose tree names every blob the live operations keep.
    pub(super) fn keep_reachable(&self) {
        let Some(repo) = stored::open_repo(&self.dir.join("0")) else {
            return;
        };
        let Ok(numbers) = self.numbers() else { return };
        let mut entries: Vec<Entry> = Vec::new();
        for n in numbers {
            for (name, ids) in stored::blob_ids(&self.op_dir(n).join("versions")) {
                for (side, id) in merge::Version::ALL.into_iter().zip(ids) {
                    entries.push(Entry {
                        mode: EntryKind::Blob.into(),
                        filename: format!("{n:06}-{name}-{side}").into(),
                        oid: id,
                    });
                }
            }
        }
        let _ = write_ref(&repo, entries);
    }
}

/// Writes the tree of `entries`, its commit and [`REF`] (removed when there is nothing
/// to keep).
fn write_ref(repo: &gix::Repository, mut entries: Vec<Entry>) -> Option<()> {
    if entries.is_empty() {
        if let Ok(Some(r)) = repo.try_find_reference(REF) {
            let _ = r.delete();
        }
        return Some(());
    }
    entries.sort_by(|a, b| a.filename.cmp(&b.filename));
    entries.dedup_by(|a, b| a.filename == b.filename);
    let tree = repo
        .write_object(&gix::objs::Tree { entries })
        .ok()?
        .detach();
    // A fixed identity and date: the commit depends on the journal alone, never the clock.
    let signature = gix::actor::Signature {
        name: "assetvc".into(),
        email: "assetvc@localhost".into(),
        time: gix::date::Time::new(0, 0),
    };
    let commit = gix::objs::Commit {
        tree,
        parents: Default::default(),
        author: signature.clone(),
        committer: signature,
        encoding: None,
        message: "assetvc merge journal: the versions its steps keep\n".into(),
        extra_headers: Vec::new(),
    };
    let id: ObjectId = repo.write_object(&commit).ok()?.detach();
    repo.reference(
        REF,
        id,
        gix::refs::transaction::PreviousValue::Any,
        "assetvc journal",
    )
    .ok()?;
    Some(())
}
