//! The end-to-end tests: the real `assetvc` binary against real git repositories in
//! temporary directories. One test binary (each file below is a module of it), so that
//! the tests link once: 38 binaries took a gigabyte of disk and most of CI's link time.

mod common;
mod review_support;
mod sync_support;

mod apply_changes;
mod apply_patch;
mod bad_input;
mod cli_broken_pipe;
mod coherence_merge;
mod coherence_resources;
mod config_validation;
mod crash_safety;
mod debug_aid;
mod demo;
mod diff_files;
mod diff_git;
mod git_merge_driver;
mod guards_check;
mod guards_pre_commit;
mod guards_pre_receive;
mod merge_cases;
mod merge_journal;
mod migrate;
mod migrate_resume;
mod objects_history;
mod objects_progress;
mod objects_restore;
mod porcelain_commit;
mod porcelain_eol;
mod porcelain_install;
mod porcelain_merge;
mod porcelain_rebase;
mod porcelain_workflow;
mod report_names;
mod review_page;
mod safety_outputs;
mod safety_porcelain;
mod safety_symlinks;
mod safety_terminal;
mod sync_daemon;
mod sync_file;
mod usability;
