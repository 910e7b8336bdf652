//! What the merger matched, for debugging a surprising merge: the pairings of the elements
//! of arrays without ids (by natural key, equal value or similarity) and the moves each
//! side made. Recording is opt-in ([`trace`]): an ordinary merge records nothing.

use sjson::Document;

use crate::merger::Merger;
use crate::MergeOptions;

pub use crate::observe::{ArrayPairings, Basis, Move, Pairing, Trace};

/// Runs the structural merge of three documents (as [`crate::merge`] does, with the same
/// result) recording what it matched, and returns that record.
pub fn trace(base: &Document, ours: &Document, theirs: &Document, options: &MergeOptions) -> Trace {
    Merger::traced(base, ours, theirs, options).into_trace()
}

#[cfg(test)]
mod tests {
    use sjson::{Dialect, Document};

    use super::*;
    use crate::Side;

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
            .st
            .trace
            .is_none());
    }
}
