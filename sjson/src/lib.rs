//! Lossless SJSON and JSON documents.
//!
//! [`Document::parse`] reads Bitsquid/Stingray SJSON or strict JSON into a document that
//! prints back byte for byte ([`Document::text`]), offers a value view ([`Value`]) with
//! exact numbers, and renders new or edited values in the style of their neighbours.
//! The pest grammars in `grammar/` specify the syntax; `reference::parse_reference`
//! (behind the `reference` feature, for tests and fuzzing) parses with them and the fast
//! production parser must agree with it.

#![warn(missing_docs)]
#![forbid(unsafe_code)]

mod detect;
mod doc;
mod dups;
mod error;
mod lexeme;
mod number;
mod parse;
#[cfg(feature = "reference")]
pub mod reference;
mod split;
pub mod string;
mod text;
mod value;

pub use detect::Detected;
pub use doc::{Dialect, Document, Kind, NodeId};
pub use error::{line_col, source_line, ErrorKind, ParseError};
pub use number::{lexemes_equal, NumberKey, NumberValue};
pub use parse::{ParseOptions, Tables, DEFAULT_MAX_DEPTH};
pub use split::Split;
pub use string::Quoting;
pub use text::{Backing, Text};
pub use value::{Children, Value};
mod layout;
mod render;

pub use layout::{comments, ContainerLayout, ItemLayout};
pub use render::{format, render_key, render_value, write_item, Style};
mod edit;
mod path;
mod rebind;

pub use edit::{print, print_with_split, Out, OutItem};
pub use path::{unescape_token, Path, Segment};
