//! The review page: one self-contained HTML page (inline CSS and script; nothing fetched)
//! showing what happened to the objects of game levels — a card per changed object,
//! grouped by file, and a top-down map of each level with a mark per placed object,
//! shaped and coloured by its fate.
//!
//! Pure: data in, one HTML string out. [`diff_section`] and [`report_section`] build a
//! file's section from a diff or from a merge report entry; [`who::render_who`] builds
//! the page of `assetvc who`; [`render`] writes any [`Page`].

#![warn(missing_docs)]
#![forbid(unsafe_code)]

mod cards;
mod engine;
mod escape;
mod from_diff;
mod from_report;
mod html;
mod map;
mod model;
pub mod objects;
mod shown;
pub mod who;

pub use engine::graph_section;
pub use from_diff::{cards_from_changes, diff_section, placed};
pub use from_report::{cards_from_report, parse_pointer, report_section};
pub use html::{render, MAX_CARDS};
pub use map::{CHANGED_SVG_LIMIT, SVG_LIMIT};
pub use model::{short_id, Card, Fate, FileSection, Page, Placed, Row, Shown};
pub use objects::{LevelObject, LevelObjects, ObjectKeys, DEFAULT_POSITION_KEYS};
