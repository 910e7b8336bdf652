//! Reading the blobs a commit changed (read ahead in delta order, from the packs with
//! their delta bases kept, else through gix) and scanning them: whole, or by their changes
//! from the version scanned before.

use gix::ObjectId;
use rayon::prelude::*;

use super::super::delta::EditedFile;
use super::super::incremental::{scan_edit, scan_full};
use super::super::TreeIndex;
use super::{packed, reader, ObjectIndex, ScannedFile};
use crate::error::{GitContext, Result};

impl ObjectIndex<'_> {
    /// Reads `blobs` (asset blobs the next commits change) in delta order, for
    /// [`Self::read_blob`] to find.
    pub(super) fn read_ahead(&self, blobs: Vec<ObjectId>) {
        for oid in reader::in_delta_order(&self.objects, blobs) {
            // Best effort: a blob that cannot be read is read again, and reported, where
            // it is needed.
            if let Ok(data) = self.read_object(&oid.to_string(), oid) {
                self.ahead.borrow_mut().blobs.insert(oid, data);
            }
        }
    }

    /// The bytes of `path`'s blob `oid` (read ahead, or read now).
    fn read_blob(&self, path: &str, oid: ObjectId) -> Result<Vec<u8>> {
        match self.ahead.borrow_mut().blobs.remove(&oid) {
            Some(data) => Ok(data),
            None => self.read_object(path, oid),
        }
    }

    /// The bytes of `path`'s blob `oid`, from the object database.
    fn read_object(&self, path: &str, oid: ObjectId) -> Result<Vec<u8>> {
        let mut packs = self.packs.borrow_mut();
        let packs = packs.get_or_insert_with(|| packed::Packs::open(&self.objects));
        if let Some(data) = packs.blob(&oid) {
            return Ok(data);
        }
        Ok(self
            .objects
            .find_object(oid)
            .git_err(format!("reading {path}"))?
            .detach()
            .data)
    }

    /// The objects of blobs, (path, blob, objects if it parsed): those scanned ahead, and
    /// the others read and parsed in parallel.
    pub(super) fn scan_blobs(&self, blobs: Vec<(String, ObjectId)>) -> Result<Vec<ScannedFile>> {
        let mut done = Vec::with_capacity(blobs.len());
        let mut missing = Vec::new();
        {
            let mut ahead = self.ahead.borrow_mut();
            for (path, blob) in blobs {
                match ahead.scanned.remove(&(path.clone(), blob)) {
                    Some(objects) => done.push((path, blob, objects)),
                    None => missing.push((path, blob)),
                }
            }
        }
        done.extend(self.read_and_scan(missing, true)?);
        Ok(done)
    }

    /// Reads blobs and parses them in parallel: (path, blob, objects if it parsed); with
    /// `keep`, what is needed to scan each file's next version by its changes is kept.
    pub(super) fn read_and_scan(
        &self,
        blobs: Vec<(String, ObjectId)>,
        keep: bool,
    ) -> Result<Vec<ScannedFile>> {
        let mut read = Vec::with_capacity(blobs.len());
        for (path, oid) in blobs {
            let Some(dialect) = self.asset_dialect(&path) else {
                continue;
            };
            let data = self.read_blob(&path, oid)?;
            read.push((path, oid, dialect, data));
        }
        let keys = &self.settings.id_keys;
        let scanned: Vec<_> = read
            .into_par_iter()
            .map(|(path, oid, dialect, data)| {
                let (objects, previous) = scan_full(oid, data, dialect, keys);
                ((path, oid, objects), previous)
            })
            .collect();
        let mut kept = self.previous.borrow_mut();
        Ok(scanned
            .into_iter()
            .map(|(file, previous)| {
                match previous {
                    Some(previous) if keep => kept.insert(file.0.clone(), previous),
                    _ => kept.remove(&file.0),
                };
                file
            })
            .collect())
    }

    /// The changed objects of `path`'s new blob `oid`, scanned by its changes from the
    /// version `index` has, when that is the version last scanned and the change is one
    /// [`scan_edit`] handles.
    pub(super) fn try_edit(
        &self,
        index: &TreeIndex,
        path: &str,
        oid: ObjectId,
    ) -> Result<Option<EditedFile>> {
        let Some(old) = index.files.get(path).filter(|f| f.parsed) else {
            return Ok(None);
        };
        let Some(dialect) = self.asset_dialect(path) else {
            return Ok(None);
        };
        let Some(previous) = self.previous.borrow_mut().remove(path) else {
            return Ok(None);
        };
        if !previous.blob.to_string().eq(&old.blob) {
            return Ok(None);
        }
        let data = self.read_blob(path, oid)?;
        let keys = &self.settings.id_keys;
        Ok(
            scan_edit(previous, &old.objects, oid, data, dialect, keys).map(|(edit, next)| {
                self.previous.borrow_mut().insert(path.to_string(), next);
                (path.to_string(), oid.to_string(), edit)
            }),
        )
    }
}
