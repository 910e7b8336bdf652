//! What the merger matched, for debugging a surprising merge: the pairings of the elements
//! of arrays without ids (by natural key, equal value or similarity) and the moves each
//! side made. Recording is opt-in ([`trace`]): an ordinary merge records nothing.

use std::fmt::Write as _;

use sjson::{Document, NodeId, Path, Segment};

use crate::merger::{id_display, id_of, Merger};
use crate::pairing;
use crate::{MergeOptions, Side};

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

/// Runs the structural merge of three documents (as [`crate::merge`] does, with the same
/// result) recording what it matched, and returns that record.
pub fn trace(base: &Document, ours: &Document, theirs: &Document, options: &MergeOptions) -> Trace {
    Merger::traced(base, ours, theirs, options).into_trace()
}

impl Merger<'_> {
    /// Records the pairings found in the array at the current path (when tracing).
    pub(crate) fn trace_pairs(&mut self, pairs: Vec<Pairing>) {
        if pairs.is_empty() {
            return;
        }
        let path = self.path.to_string();
        if let Some(trace) = &mut self.trace {
            trace.arrays.push(ArrayPairings { path, pairs });
        }
    }

    /// Records the moves found (when tracing).
    pub(crate) fn trace_moves(&mut self) {
        if self.trace.is_none() {
            return;
        }
        let mut moves = Vec::new();
        for side in [Side::Ours, Side::Theirs] {
            let doc = self.doc(side);
            let mut found: Vec<(NodeId, NodeId)> = self.moves.moved(side);
            found.sort_unstable();
            for (from, to) in found {
                moves.push(Move {
                    side,
                    from: pointer_of(self, self.base, from),
                    to: pointer_of(self, doc, to),
                });
            }
        }
        if let Some(trace) = &mut self.trace {
            trace.moves = moves;
        }
    }
}

/// The JSON Pointer of node `node` of `doc`, elements with ids named by id.
fn pointer_of(m: &Merger<'_>, doc: &Document, node: NodeId) -> String {
    let mut path = Path::root();
    let mut v = doc.root();
    while v.id() != node {
        let Some((i, c)) = v.children().enumerate().find(|(_, c)| c.contains(node)) else {
            break;
        };
        path.push(match (c.key(), id_of(&m.id_keys_lower, c)) {
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

#[cfg(test)]
mod tests {
    use sjson::{Dialect, Document};

    use super::*;

    fn docs(b: &str, o: &str, t: &str) -> [Document; 3] {
        [b, o, t].map(|x| Document::parse(x, Dialect::Sjson).unwrap())
    }

    #[test]
    fn records_the_pairing_of_an_element_both_sides_edited_with_its_score() {
        let [b, o, t] = docs(
            "l = [{ a = 1 b = 1 c = 1 d = 1 } { z = 1 }]",
            "l = [{ a = 2 b = 1 c = 1 d = 1 } { z = 1 }]",
            "l = [{ a = 1 b = 1 c = 1 d = 3 } { z = 1 }]",
        );
        let trace = trace(&b, &o, &t, &MergeOptions::default());
        assert_eq!(trace.arrays.len(), 1, "{trace:?}");
        assert_eq!(trace.arrays[0].path, "/l");
        // Ours and theirs share b, c (2 of 4 members): similarity 0.5.
        assert_eq!(
            trace.arrays[0].pairs[0],
            Pairing {
                base: Some(0),
                ours: Some(0),
                theirs: Some(0),
                basis: Basis::Similar(0.5),
            }
        );
        assert!(trace
            .render()
            .contains("base 0 = ours 0 = theirs 0 (similarity 0.50)"));
        assert!(trace.moves.is_empty());
    }

    #[test]
    fn records_moves_by_pointer_and_nothing_when_off() {
        let [b, o, t] = docs(
            "a = [{ id = 1 } { id = 2 x = 0 }] b = []",
            "a = [{ id = 1 }] b = [{ id = 2 x = 0 }]",
            "a = [{ id = 1 } { id = 2 x = 5 }] b = []",
        );
        let trace = trace(&b, &o, &t, &MergeOptions::default());
        assert_eq!(
            trace.moves,
            [Move {
                side: Side::Ours,
                from: "/a/[id=2]".into(),
                to: "/b/[id=2]".into(),
            }]
        );
        assert!(trace.render().contains("ours moved /a/[id=2] → /b/[id=2]"));
        assert!(Merger::new(&b, &o, &t, &MergeOptions::default())
            .trace
            .is_none());
    }
}
