//! What git's two sides mean in the operation that merges, and the journal's record of a
//! merged file in those terms.

use merge::{Conflict, Policy, Side};

/// What git's two sides mean in the operation that runs a merge: in a merge, a pull or a
/// cherry-pick "ours" is the local branch and "theirs" the upstream; a rebase swaps them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sides {
    /// What git's "ours" and "theirs" are (`local` or `upstream`).
    meanings: store::SideMeanings,
    /// The operation's name: `merge`, `rebase`, `cherry-pick`…
    pub operation: &'static str,
}

impl Sides {
    /// The sides of `operation`.
    pub fn of(operation: &store::Operation) -> Sides {
        Sides {
            meanings: store::SideMeanings::of(operation.swapped),
            operation: operation.kind.name(),
        }
    }

    /// The sides of a merge (`assetvc merge`, `assetvc pull`).
    pub fn merge() -> Sides {
        Sides {
            meanings: store::SideMeanings::MERGE,
            operation: "merge",
        }
    }

    /// What git's sides mean here, as the journal records it.
    pub fn meanings(&self) -> store::SideMeanings {
        self.meanings
    }

    /// What `side` means here: `local` or `upstream`.
    pub fn meaning(&self, side: Side) -> &'static str {
        match side {
            Side::Ours => self.meanings.ours.name(),
            Side::Theirs => self.meanings.theirs.name(),
        }
    }
}

/// The journal's record of one merged file: the policy as configured, what git's sides
/// meant and, per conflict, the side kept by meaning and the place as people name it.
pub fn step_report(
    path: &str,
    configured: Policy,
    sides: &Sides,
    conflicts: &[Conflict],
    places: &[String],
) -> store::FileStep {
    store::FileStep::merged(
        path,
        configured,
        sides.meanings(),
        sides.operation,
        conflicts,
        places,
    )
}

/// The journal's record of a file that could not be merged.
pub fn unresolved_step(path: &str, configured: Policy, reason: &str) -> store::FileStep {
    store::FileStep::unresolved(path, configured, reason)
}
