//! `assetvc merge BRANCH`: merges a branch into HEAD as the merge strategy does — assets
//! by structure in process, every other path by git's own merge-ort (`git merge-tree`:
//! renames, binary files, modes as `git merge` leaves them; with a git older than 2.41,
//! gix's tree merge instead, said in a note) — then updates the worktree and the index and
//! writes the merge commit, whose message lists every conflict resolved by policy.
//! Fast-forwards when it can.
//!
//! What a merge leaves for the user is left the way git leaves it: unmerged index entries
//! (stages 1–3), `MERGE_HEAD` and `MERGE_MSG`, so `git status`, `git commit`,
//! `git merge --abort` and `assetvc commit` all work on it. An asset with a side that does
//! not parse is not merged: ours stays in the worktree, nothing is lost, exit status 1.

use clap::Args;
use merge::Policy;
use store::ObjectId;
use store::{self, MergeResult};

use super::merge_file::parse_policy;
use super::porcelain;
use crate::exit::Outcome;
use crate::report;

/// Arguments of `assetvc merge`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// How true conflicts in assets are resolved: theirs (default from assetvc.toml), ours,
    /// fail (theirs, but the path is left conflicted), upstream (= theirs here) or local
    /// (= ours here).
    #[arg(long, value_parser = parse_policy)]
    pub policy: Option<Policy>,
    /// Print the merge report as JSON on stdout.
    #[arg(long)]
    pub json: bool,
    /// The branch (or any commit) to merge into HEAD.
    pub branch: String,
}

/// Runs `assetvc merge`: 0 merged (or up to date, or fast-forwarded), 1 paths left for the
/// user (conflicts, or files saved while the merge wrote them: left as saved, one line
/// each, `left_alone` in `--json`), 2 nothing done (unknown revision, local changes in the way, merge in progress…).
pub fn run(args: &MergeArgs) -> crate::exit::Result<Outcome> {
    crate::interrupt::remove_locks_on_termination();
    let (repo, _root) = porcelain::open_worktree()?;
    let theirs = repo.resolve_commit(&args.branch).map_err(porcelain::fail)?;
    let title = merge_title(&repo, &args.branch);
    merge_into_head(&repo, theirs, &args.branch, &title, args.policy, args.json)
}

/// git's title for merging `name`: `Merge branch 'b'`, `Merge remote-tracking branch
/// 'origin/b'`, `Merge tag 'v1'`, `Merge commit 'abc'`, with ` into X` unless X is main or
/// master.
pub fn merge_title(repo: &store::Repo, name: &str) -> String {
    let exists = |r: String| repo.has_reference(&r);
    let what = if exists(format!("refs/heads/{name}")) {
        format!("Merge branch '{name}'")
    } else if exists(format!("refs/remotes/{name}")) {
        format!("Merge remote-tracking branch '{name}'")
    } else if exists(format!("refs/tags/{name}")) {
        format!("Merge tag '{name}'")
    } else {
        format!("Merge commit '{name}'")
    };
    with_into(repo, what)
}

/// Appends ` into BRANCH` unless the current branch is `main` or `master` (as git does).
pub fn with_into(repo: &store::Repo, title: String) -> String {
    match repo.current_branch() {
        Ok(Some(b)) if b != "main" && b != "master" => format!("{title} into {b}"),
        _ => title,
    }
}

/// Merges `theirs` into HEAD and reports; shared by `merge` and `pull`.
pub fn merge_into_head(
    repo: &store::Repo,
    theirs: ObjectId,
    label: &str,
    title: &str,
    policy: Option<Policy>,
    json: bool,
) -> crate::exit::Result<Outcome> {
    let root = repo.workdir().unwrap_or(repo.git_dir()).to_path_buf();
    let (options, config) = porcelain::settings(&root, policy)?;
    let policy = options.policy;
    let resources_config = config.clone();
    let rules = porcelain::asset_rules(&config, options)?;
    let report = repo
        .merge_into_head(theirs, label, title, &rules, tree_merger())
        .map_err(porcelain::fail)?;
    if report.result != MergeResult::UpToDate {
        if let Err(e) = super::record::porcelain_merge(repo, &report, label, policy) {
            eprintln!("assetvc: warning: could not record the merge: {e}");
        }
    }
    if json {
        outln!("{}", json_report(&report, policy));
        porcelain::print_left_alone(&report.left_alone);
    } else {
        porcelain::print_merge(&report, policy);
    }
    if matches!(
        report.result,
        MergeResult::Merged { .. } | MergeResult::Conflicted
    ) {
        for line in super::resources::created_by_merge(repo, &root, report.ours, &resources_config)
        {
            eprintln!("assetvc: {line} (created by this merge)");
        }
    }
    let short = |id: &ObjectId| id.to_hex_with_len(7).to_string();
    let line = match &report.result {
        MergeResult::UpToDate => "Already up to date.".to_string(),
        MergeResult::FastForward { from } => format!(
            "Fast-forward {}..{}",
            from.as_ref().map(short).unwrap_or_else(|| "(none)".into()),
            short(&report.theirs)
        ),
        MergeResult::Merged { commit } => {
            let n: usize = report.files.iter().map(|f| f.conflicts.len()).sum();
            if n == 0 {
                format!("Merge made: {}", short(commit))
            } else {
                format!(
                    "Merge made: {}; {n} conflict{} resolved by policy (see `assetvc conflicts` or `git log`)",
                    short(commit),
                    if n == 1 { "" } else { "s" }
                )
            }
        }
        MergeResult::Conflicted => {
            "Automatic merge failed; fix the conflicts, then commit the result \
             (`git commit` or `assetvc commit`), or abort with `git merge --abort`."
                .to_string()
        }
    };
    if json {
        eprintln!("assetvc: {line}");
    } else if report.result == MergeResult::Conflicted {
        report::error(line);
    } else {
        outln!("{line}");
    }
    Ok(porcelain::merge_status(&report))
}

/// The tree merge the installed git allows: git's merge-ort, as the merge strategy (git
/// 2.41 or later), else gix's, said in a note.
fn tree_merger() -> store::TreeMerger {
    match super::git_version::merge_tree_git("the merge of the tree by merge-ort") {
        Ok(_) => store::TreeMerger::GitOrt,
        Err(reason) => {
            eprintln!(
                "assetvc: note: {}; the tree is merged by gix instead (renames and binary \
                 files may end unlike `git merge`)",
                crate::report::safe_line(&reason.to_string())
            );
            store::TreeMerger::Gix
        }
    }
}

fn json_report(report: &store::MergeReport, policy: Policy) -> String {
    let result = match &report.result {
        MergeResult::UpToDate => serde_json::json!({"status": "up-to-date"}),
        MergeResult::FastForward { .. } => serde_json::json!({"status": "fast-forward"}),
        MergeResult::Merged { commit } => {
            serde_json::json!({"status": "merged", "commit": commit.to_string()})
        }
        MergeResult::Conflicted => serde_json::json!({"status": "conflicted"}),
    };
    let files: Vec<serde_json::Value> = report
        .files
        .iter()
        .map(|f| {
            let report = super::merging::file_report(&f.path, policy, &f.conflicts);
            let mut value = serde_json::to_value(report).unwrap_or_default();
            value["violations"] = super::merging::violations_json(&f.violations);
            value
        })
        .collect();
    let unresolved: Vec<serde_json::Value> = report
        .unresolved
        .iter()
        .map(|u| serde_json::json!({"path": u.path, "reason": u.kind.to_string()}))
        .collect();
    let mut value = result;
    value["theirs"] = serde_json::Value::String(report.theirs.to_string());
    value["files"] = serde_json::Value::Array(files);
    value["unresolved"] = serde_json::Value::Array(unresolved);
    value["left_alone"] = serde_json::json!(report.left_alone);
    serde_json::to_string_pretty(&value).unwrap_or_default()
}
