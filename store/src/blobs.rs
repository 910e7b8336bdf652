//! Reading blobs from worker threads: [`Repo::readers`] hands out one reader per thread.

use gix::ObjectId;

use crate::error::{Error, Result};
use crate::Repo;

/// Hands out blob readers, one per thread (it is `Sync`; readers are not).
#[derive(Clone)]
pub struct Readers {
    pub(crate) repo: gix::ThreadSafeRepository,
}

impl Readers {
    /// A reader for the current thread.
    pub fn reader(&self) -> BlobReader {
        BlobReader {
            repo: self.repo.to_thread_local(),
        }
    }
}

/// Reads blobs; create one per thread with [`Readers::reader`].
pub struct BlobReader {
    repo: gix::Repository,
}

impl BlobReader {
    /// The content of blob `id`; an error if it is missing or not a blob.
    pub fn read(&self, id: ObjectId) -> Result<Vec<u8>> {
        let mut object = self.repo.find_object(id).map_err(|e| Error::Object {
            id,
            source: e.into(),
        })?;
        if object.kind != gix::object::Kind::Blob {
            return Err(Error::Object {
                id,
                source: format!("a {}, not a blob", object.kind).into(),
            });
        }
        Ok(std::mem::take(&mut object.data))
    }
}

impl Repo {
    /// Blob readers for worker threads.
    pub fn readers(&self) -> Readers {
        Readers {
            repo: self.shared.clone(),
        }
    }
}
