//! The end-to-end tests: the real `assetvc` binary against real git repositories in
//! temporary directories. One test binary (each file below is a module of it), so that
//! the tests link once: 38 binaries took a gigabyte of disk and most of CI's link time.

mod common;
mod review_support;
mod sync_support;
mod workflow_support;

mod apply_changes;
mod apply_patch;
mod bad_input;
mod check_merge_agree;
mod cli_broken_pipe;
mod cli_snapshots;
mod cocos_graph;
mod cocos_objects;
mod coherence_merge;
mod coherence_resources;
mod config_validation;
mod crash_points;
mod crash_safety;
mod debug_aid;
mod demo;
mod diff_files;
mod diff_git;
mod engine_terms;
mod gate_merge;
mod git_merge_driver;
mod guards_check;
mod guards_pre_commit;
mod guards_pre_receive;
mod install_attributes;
mod install_engines;
mod install_survives;
mod journal_typed;
mod map_editors;
mod merge_cases;
mod merge_journal;
mod merge_strategy;
mod merge_tree_objects;
mod migrate;
mod migrate_resume;
mod objects_history;
mod objects_lazy;
mod objects_leaves;
mod objects_progress;
mod objects_restore;
mod porcelain_commit;
mod porcelain_eol;
mod porcelain_install;
mod porcelain_merge;
mod porcelain_rebase;
mod porcelain_workflow;
mod pr_forks;
mod pr_merge_queue;
mod profiles_explain;
mod profiles_porcelain;
mod repeated_keys;
mod report_names;
mod review_page;
mod safety_changesets;
mod safety_lines;
mod safety_locks;
mod safety_outputs;
mod safety_porcelain;
mod safety_symlinks;
mod safety_terminal;
mod safety_wip;
mod stingray_level;
mod strategy_git;
mod strategy_interrupt;
mod sync_daemon;
mod sync_file;
mod sync_pending;
mod sync_races;
mod sync_remote;
mod sync_soak;
mod sync_swap;
mod usability;
mod workflows_github;
mod workflows_gitlab;

/// Every file of `tests/` and `merge/tests/` (the two test binaries with
/// `autotests = false`) is a module of its `main.rs`: a file added without its `mod` line
/// would never run, and nothing would say so.
#[test]
fn every_test_file_is_a_module_of_its_binary() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for dir in ["tests", "merge/tests"] {
        let main = std::fs::read_to_string(root.join(dir).join("main.rs")).unwrap();
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
            let module = path.extension().is_some_and(|e| e == "rs") && stem != "main"
                || path.join("mod.rs").is_file();
            assert!(
                !module || main.contains(&format!("\nmod {stem};\n")),
                "{dir}/{stem} is not declared in {dir}/main.rs: `mod {stem};`"
            );
        }
    }
}
