//! The record of what a merge matched ([`Trace`]), kept by the merger when asked
//! ([`crate::trace::trace`]): an observer of the merge, which reads the merge's context
//! and is written to from its state, never the other way round.

use std::fmt::Write as _;

use sjson::{Document, NodeId, Path, Segment};

use crate::context::Context;
use crate::id::{id_display, id_of};
use crate::pairing;
use crate::Side;

/// Why versions of one array element were taken as one element.
#[derive(Debug, Clone, PartialEq)]
pub enum Basis {
    /// The value of this natural key (a member such as `name`, unique in every version).
    NaturalKey(String),
    /// Equal values.
    Equal,
    /// Similar objects: the share of their members with equal values (at least
    /// one half).
    Similar(f64),
    /// Both sides' versions paired with the same base element.
    ThroughBase,
    /// Objects with the same keys at the same position of a changed stretch.
    Position,
}

impl Basis {
    /// The basis for people: `natural key name`, `equal`, `similarity 0.67`, …
    pub fn describe(&self) -> String {
        match self {
            Basis::NaturalKey(key) => format!("natural key {key}"),
            Basis::Equal => "equal".into(),
            Basis::Similar(score) => format!("similarity {score:.2}"),
            Basis::ThroughBase => "through the base".into(),
            Basis::Position => "same keys, same position".into(),
        }
    }
}

impl From<pairing::Basis<'_>> for Basis {
    fn from(b: pairing::Basis<'_>) -> Basis {
        match b {
            pairing::Basis::NaturalKey(key) => Basis::NaturalKey(key.to_string()),
            pairing::Basis::Equal => Basis::Equal,
            pairing::Basis::Similar(score) => Basis::Similar(score),
        }
    }
}

/// The versions of one element of an array: its index in each version (`None`: not
/// matched in that version), and why they were matched.
#[derive(Debug, Clone, PartialEq)]
pub struct Pairing {
    /// The index in the base's array.
    pub base: Option<usize>,
    /// The index in ours' array.
    pub ours: Option<usize>,
    /// The index in theirs' array.
    pub theirs: Option<usize>,
    /// Why they were matched.
    pub basis: Basis,
}

/// The pairings found in one array.
#[derive(Debug, Clone, PartialEq)]
pub struct ArrayPairings {
    /// The array's JSON Pointer (keyed elements named by id).
    pub path: String,
    /// Its elements' pairings, in the order they were found.
    pub pairs: Vec<Pairing>,
}

/// A value one side moved: removed at one place of the base, added at another.
#[derive(Debug, Clone, PartialEq)]
pub struct Move {
    /// The side that moved it.
    pub side: Side,
    /// Its JSON Pointer in the base.
    pub from: String,
    /// Its JSON Pointer in that side's version.
    pub to: String,
}

/// What one merge matched.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Trace {
    /// The pairings of unkeyed elements, array by array.
    pub arrays: Vec<ArrayPairings>,
    /// The moves of both sides, ours' first, each side's in base order.
    pub moves: Vec<Move>,
}

impl Trace {
    /// The trace for people: a `pairings:` and a `moves:` section, each only when not
    /// empty (`base 0 = ours 1 = theirs -` per pairing).
    pub fn render(&self) -> String {
        let mut out = String::new();
        if !self.arrays.is_empty() {
            out.push_str("pairings of elements without ids:\n");
        }
        let index = |i: Option<usize>| i.map_or("-".to_string(), |i| i.to_string());
        for array in &self.arrays {
            let path = if array.path.is_empty() {
                "/"
            } else {
                &array.path
            };
            let _ = writeln!(out, "  {}", sjson::string::terminal_safe(path));
            for p in &array.pairs {
                let _ = writeln!(
                    out,
                    "    base {} = ours {} = theirs {} ({})",
                    index(p.base),
                    index(p.ours),
                    index(p.theirs),
                    p.basis.describe()
                );
            }
        }
        if !self.moves.is_empty() {
            out.push_str("moves:\n");
        }
        for m in &self.moves {
            let _ = writeln!(
                out,
                "  {} moved {} → {}",
                m.side.name(),
                sjson::string::terminal_safe(&m.from),
                sjson::string::terminal_safe(&m.to)
            );
        }
        out
    }
}

impl Trace {
    /// Records the pairings found in the array at `path`.
    pub(crate) fn record_pairs(&mut self, path: &Path, pairs: Vec<Pairing>) {
        if pairs.is_empty() {
            return;
        }
        let path = path.to_string();
        self.arrays.push(ArrayPairings { path, pairs });
    }

    /// Records the moves the merge of `cx` found.
    pub(crate) fn record_moves(&mut self, cx: &Context<'_>) {
        let mut moves = Vec::new();
        for side in [Side::Ours, Side::Theirs] {
            let doc = cx.doc(side);
            for (from, to) in cx.moves().moved(side) {
                moves.push(Move {
                    side,
                    from: pointer_of(cx, cx.base(), from),
                    to: pointer_of(cx, doc, to),
                });
            }
        }
        self.moves = moves;
    }
}

/// The JSON Pointer of node `node` of `doc`, elements with ids named by id.
fn pointer_of(cx: &Context<'_>, doc: &Document, node: NodeId) -> String {
    let mut path = Path::root();
    let mut v = doc.root();
    while v.id() != node {
        let Some((i, c)) = v.children().enumerate().find(|(_, c)| c.contains(node)) else {
            break;
        };
        path.push(match (c.key(), id_of(cx.id_keys_lower(), c)) {
            (Some(k), _) => Segment::Key(k.into_owned()),
            (None, Some((key, id))) => Segment::Id {
                key: key.into_owned(),
                value: id_display(&id),
            },
            (None, None) => Segment::Index(i),
        });
        v = c;
    }
    path.to_string()
}
