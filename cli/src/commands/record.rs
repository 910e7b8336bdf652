//! Recording a porcelain merge (`assetvc merge`, `assetvc pull`) in the merge journal:
//! one operation, one step per merged or unresolved file, with the three versions of every
//! file resolved by policy (read from the commits), in the driver's step format.

use merge::Policy;
use store::MergeReport;
use store::{self, Journal, Operation, OperationKind};

use super::merging::{self, Sides};

/// Appends `report` (the merge of `label` into HEAD) to the journal as one operation.
pub fn porcelain_merge(
    repo: &store::Repo,
    report: &MergeReport,
    label: &str,
    policy: Policy,
) -> anyhow::Result<()> {
    let ours = report.ours.map(|o| o.to_string()).unwrap_or_default();
    let operation = Operation {
        kind: OperationKind::Porcelain,
        key: format!("assetvc merge {ours} {}", report.theirs),
        label: format!("assetvc merge of {label}"),
        branch: Some(label.to_string()),
        swapped: false,
    };
    let log = Journal::at(repo.git_dir()).begin(&operation)?;
    let sides = Sides::merge();
    let with_conflicts: Vec<&str> = report
        .files
        .iter()
        .filter(|f| !f.conflicts.is_empty())
        .map(|f| f.path.as_str())
        .collect();
    let versions = match report.ours {
        Some(ours) => repo.versions_of_merge(ours, report.theirs, &with_conflicts)?,
        None => Vec::new(),
    };
    let mut versions = with_conflicts.iter().zip(versions);
    for f in &report.files {
        let mut step = merging::step_report(&f.path, policy, &sides, &f.conflicts, &f.places);
        if let Some(u) = report.unresolved.iter().find(|u| u.path == f.path) {
            step["unresolved"] = u.kind.to_string().into();
        }
        if !f.conflicts.is_empty() {
            if let Some((_, Some(v))) = versions.next() {
                step["versions"] = log.save_versions(&v)?.into();
            }
        }
        log.append(&step)?;
    }
    for u in &report.unresolved {
        if report.files.iter().all(|f| f.path != u.path) {
            log.append(&merging::unresolved_step(
                &u.path,
                policy,
                &u.kind.to_string(),
            ))?;
        }
    }
    Ok(())
}

/// A sync cycle's merge of the upstream `upstream` (named `label`) into HEAD `from`.
pub struct SyncMerge<'a> {
    /// HEAD before the merge.
    pub from: store::ObjectId,
    /// The upstream commit brought in.
    pub upstream: store::ObjectId,
    /// The upstream's name (`origin/main`).
    pub label: &'a str,
    /// The policy that resolved conflicts.
    pub policy: Policy,
}

/// Appends a sync cycle's merge to the journal as one operation: `assetvc conflicts` shows
/// it, objects named as the merge named them. The versions are not kept: the
/// edits were never a commit of their own (they are in `refs/assetvc/saved/<branch>` when a
/// conflict took the upstream's value).
pub fn sync_merge(
    repo: &store::Repo,
    sync: &SyncMerge<'_>,
    files: &[store::MergedFile],
) -> anyhow::Result<()> {
    let operation = Operation {
        kind: OperationKind::Porcelain,
        key: format!("assetvc sync {} {}", sync.from, sync.upstream),
        label: format!("assetvc sync with {}", sync.label),
        branch: Some(sync.label.to_string()),
        swapped: false,
    };
    let log = Journal::at(repo.git_dir()).begin(&operation)?;
    let sides = Sides::merge();
    for f in files {
        log.append(&merging::step_report(
            &f.path,
            sync.policy,
            &sides,
            &f.conflicts,
            &f.places,
        ))?;
    }
    Ok(())
}
