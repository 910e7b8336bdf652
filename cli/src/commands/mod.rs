//! One module per command; each `run` returns the process exit status.

pub mod check;
// pub mod expr; (added when the expr helper lands)
pub mod fmt;
