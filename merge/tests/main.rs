//! The merge crate's integration and property tests. One test binary (each file below is
//! a module of it), so that they link once.

mod common;

mod arrays;
mod cases;
mod changeset_laws;
mod coherence;
mod determinism;
mod entry;
mod fuzz_loop;
mod gate_law;
mod laws;
mod long_arrays;
mod lost_edits;
mod module_graph;
mod moves;
mod numbers;
mod objects;
mod printing;
mod real_cases;
mod repeated_keys;
mod sequences;
mod unkeyed_pairs;
