//! The `git-merge-assetvc` binary: the merge strategy git runs once per merge step with
//! `pull.twohead = assetvc` (or `-s assetvc`): `git-merge-assetvc BASE... -- HEAD REMOTE`.
//! It merges the whole tree in process (assets by structure) and writes the worktree and
//! the index; git commits.

#[global_allocator]
static ALLOCATOR: assetvc_cli::HugePages = assetvc_cli::HugePages;

fn main() -> std::process::ExitCode {
    assetvc_cli::merge_strategy_main()
}
