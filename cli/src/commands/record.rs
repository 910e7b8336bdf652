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
) -> crate::exit::Result<()> {
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
    let merged_from = match report.ours {
        Some(ours) => vec![(ours, report.theirs); report.files.len()],
        None => Vec::new(),
    };
    for (f, step) in report.files.iter().zip(steps(
        repo,
        &log,
        policy,
        &sides,
        &report.files,
        &merged_from,
    )?) {
        let mut step = step;
        if let Some(u) = report.unresolved.iter().find(|u| u.path == f.path) {
            step.unresolved = Some(u.kind.to_string());
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
    /// For each merged file, the commits it was merged from: (ours, theirs). The
    /// uncommitted edits are ours as the WIP commit that recorded them.
    pub sides: &'a [(store::ObjectId, store::ObjectId)],
}

/// Appends a sync cycle's merge to the journal as one operation, with the three versions
/// of every file resolved by policy: `assetvc conflicts` shows it and `assetvc resolve`
/// can take another side, objects named as the merge named them. Every conflict is marked
/// `pending` (the local value kept in the worktree) with who made the upstream value, from
/// `pending` (the cycle's report: `file` and `by` of each).
pub fn sync_merge(
    repo: &store::Repo,
    sync: &SyncMerge<'_>,
    files: &[store::MergedFile],
    pending: &[serde_json::Value],
) -> crate::exit::Result<()> {
    let by_file = |path: &str| {
        pending
            .iter()
            .find(|p| p["file"] == path)
            .and_then(|p| p["by"].as_str())
            .map(str::to_string)
    };
    let operation = Operation {
        kind: OperationKind::Porcelain,
        key: format!("assetvc sync {} {}", sync.from, sync.upstream),
        label: format!("assetvc sync with {}", sync.label),
        branch: Some(sync.label.to_string()),
        swapped: false,
    };
    let log = Journal::at(repo.git_dir()).begin(&operation)?;
    let sides = Sides::merge();
    for mut step in steps(repo, &log, sync.policy, &sides, files, sync.sides)? {
        let by = by_file(&step.path);
        for c in &mut step.conflicts {
            c.pending = true;
            c.by.clone_from(&by);
        }
        log.append(&step)?;
    }
    Ok(())
}

/// The journal step of each merged file, with the three versions of the files that had
/// conflicts saved (read from the commits in `merged_from`, one pair per file; none
/// when it is empty).
fn steps(
    repo: &store::Repo,
    log: &store::OperationLog,
    policy: Policy,
    sides: &Sides,
    files: &[store::MergedFile],
    merged_from: &[(store::ObjectId, store::ObjectId)],
) -> crate::exit::Result<Vec<store::FileStep>> {
    // The versions of the files with conflicts, read once per pair of commits.
    let mut versions: Vec<Option<store::Versions>> = files.iter().map(|_| None).collect();
    let mut pairs: Vec<(store::ObjectId, store::ObjectId)> = merged_from.to_vec();
    pairs.dedup();
    for pair in pairs {
        let wanted: Vec<usize> = (0..files.len())
            .filter(|&i| merged_from.get(i) == Some(&pair) && !files[i].conflicts.is_empty())
            .collect();
        let paths: Vec<&str> = wanted.iter().map(|&i| files[i].path.as_str()).collect();
        if paths.is_empty() {
            continue;
        }
        for (i, v) in wanted
            .into_iter()
            .zip(repo.versions_of_merge(pair.0, pair.1, &paths)?)
        {
            versions[i] = v;
        }
    }
    let mut out = Vec::with_capacity(files.len());
    for (f, v) in files.iter().zip(versions) {
        let mut step = merging::step_report(&f.path, policy, sides, &f.conflicts, &f.places)
            .with_referrers(&f.referrers);
        if let Some(v) = v {
            step.versions = Some(log.save_versions(&v)?);
        }
        out.push(step);
    }
    Ok(out)
}
