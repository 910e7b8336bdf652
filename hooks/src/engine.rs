//! Checks many blobs of a repository at once: each distinct blob (with what its path
//! asks to check) exactly once, in parallel across cores, a crash in one check turned
//! into a problem for that file instead of a crash of the hook.

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};

use rayon::prelude::*;
use store::{ObjectId, Readers};

use crate::checks::check_classified;
use crate::policy::{FileClass, Policy};
use crate::problem::{Check, Problem};

/// Stack size of the checking threads: the Lua parser recurses on nesting.
pub const STACK_SIZE: usize = 64 * 1024 * 1024;

/// A blob to check at a path, with the blob it replaced there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Job {
    /// The path in the tree.
    pub path: String,
    /// The blob.
    pub id: ObjectId,
    /// The previous blob at the path (used by `check.require_ids`).
    pub base: Option<ObjectId>,
}

/// The results, in the order of the jobs.
#[derive(Debug, Default)]
pub struct Outcome {
    /// The problems of each job (named by the job's path).
    pub problems: Vec<Vec<Problem>>,
    /// How many distinct blobs were read and checked.
    pub blobs_checked: usize,
}

#[derive(Clone, PartialEq, Eq, Hash)]
struct Key {
    id: ObjectId,
    base: Option<ObjectId>,
    class: FileClass,
}

/// Runs `f` on a pool whose threads have [`STACK_SIZE`] stacks (the global pool if such
/// a pool cannot be built).
pub fn in_pool<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    match rayon::ThreadPoolBuilder::new()
        .stack_size(STACK_SIZE)
        .thread_name(|i| format!("assetvc-check-{i}"))
        .build()
    {
        Ok(pool) => pool.install(f),
        Err(_) => f(),
    }
}

/// Checks every job's blob; blobs shared by several jobs (same content, same checks)
/// are read and checked once. Unreadable blobs and crashed checks are problems.
pub fn check_jobs(jobs: &[Job], policy: &Policy, readers: &Readers) -> Outcome {
    let mut keys: HashMap<Key, usize> = HashMap::new();
    let mut unique: Vec<(Key, &str)> = Vec::new();
    let job_keys: Vec<usize> = jobs
        .iter()
        .map(|job| {
            let class = policy.classify(&job.path);
            let base = job
                .base
                .filter(|_| policy.require_ids && class.dialect.is_some());
            let key = Key {
                id: job.id,
                base,
                class,
            };
            *keys.entry(key.clone()).or_insert_with(|| {
                unique.push((key, &job.path));
                unique.len() - 1
            })
        })
        .collect();
    let results: Vec<Vec<Problem>> = in_pool(|| {
        unique
            .par_iter()
            .map_init(
                || readers.reader(),
                |reader, (key, path)| {
                    let run = || -> Vec<Problem> {
                        let bytes = match reader.read(key.id) {
                            Ok(b) => b,
                            Err(e) => {
                                return vec![Problem::whole_file(path, Check::Read, e.to_string())]
                            }
                        };
                        let base = match key.base.map(|b| reader.read(b)) {
                            None => None,
                            Some(Ok(b)) => Some(b),
                            Some(Err(e)) => {
                                return vec![Problem::whole_file(path, Check::Read, e.to_string())]
                            }
                        };
                        check_classified(path, &bytes, base.as_deref(), &key.class, policy)
                    };
                    catch_unwind(AssertUnwindSafe(run)).unwrap_or_else(|_| {
                        vec![Problem::whole_file(
                            path,
                            Check::Internal,
                            "a check crashed on this file; rejected to be safe",
                        )]
                    })
                },
            )
            .collect()
    });
    let problems = jobs
        .iter()
        .zip(&job_keys)
        .map(|(job, &k)| {
            results[k]
                .iter()
                .map(|p| Problem {
                    path: job.path.clone(),
                    ..p.clone()
                })
                .collect()
        })
        .collect();
    Outcome {
        problems,
        blobs_checked: unique.len(),
    }
}
