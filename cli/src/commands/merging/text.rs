//! The lines people read about a merge: the one-line summary and one line per conflict,
//! with what a workflow policy meant in this operation.

use merge::{Conflict, Policy, Side};

use super::Sides;

/// The one-line summary: `level.sjson: merged, 2 conflicts resolved (theirs)`.
pub fn summary(path: &str, conflicts: &[Conflict], policy: Policy) -> String {
    let path = crate::report::safe_line(path);
    let (n, repairs) = split_repairs(conflicts);
    match n {
        0 if repairs.is_empty() => format!("{path}: merged cleanly"),
        0 => format!("{path}: merged{repairs}"),
        1 => format!(
            "{path}: merged, 1 conflict resolved ({}){repairs}",
            taken_name(policy)
        ),
        n => format!(
            "{path}: merged, {n} conflicts resolved ({}){repairs}",
            taken_name(policy)
        ),
    }
}

/// The number of true conflicts among `conflicts`, and the repairs (coherence, repeated
/// keys) counted apart for the summary: `, 1 repair` (empty for none). A repair is not a
/// conflict resolved by policy; each is listed on its own line below the summary.
fn split_repairs(conflicts: &[Conflict]) -> (usize, String) {
    let repairs = conflicts.iter().filter(|c| c.kind.is_repair()).count();
    let text = match repairs {
        0 => String::new(),
        1 => ", 1 repair".to_string(),
        r => format!(", {r} repairs"),
    };
    (conflicts.len() - repairs, text)
}

/// The side a policy took, for the summary: the policy's name, and for `fail` the side
/// it took before failing.
fn taken_name(policy: Policy) -> &'static str {
    match policy {
        Policy::Fail => "theirs; policy fail",
        other => other.name(),
    }
}

/// Whether a policy names the workflow's sides (reports then say what it meant).
fn by_meaning(policy: Policy) -> bool {
    matches!(policy, Policy::Upstream | Policy::Local)
}

/// `kept local (ours in this rebase)`, or git's `took theirs` for side-naming policies.
fn taken_phrase(taken: Side, configured: Policy, sides: &Sides) -> String {
    if by_meaning(configured) {
        format!(
            "kept {} ({} in this {})",
            sides.meaning(taken),
            taken.name(),
            sides.operation
        )
    } else {
        format!("took {}", taken.name())
    }
}

/// One conflict for people: `/settings/fog: both modified, kept local (theirs in this rebase)`.
/// A coherence repair reads as the merge reports it (kind, object, referrer, side); `place`
/// names the conflict's place the way people do (`entities[lamp_01 #6f1c…4b03].light`),
/// `referrer` a repair's referrer (`flow[spawn #node-spawn].unit`).
pub fn conflict_line(
    c: &Conflict,
    configured: Policy,
    sides: &Sides,
    (place, referrer): (Option<&str>, Option<&str>),
) -> String {
    if c.kind.is_repair() {
        // The object and its referrer named like every other place; the line says the
        // side it came from.
        return c.line_with(place, referrer);
    }
    let path = match place {
        Some(place) => place.to_string(),
        None if c.path.0.is_empty() => "/".to_string(),
        None => sjson::string::terminal_safe_line(&c.path.to_string()).into_owned(),
    };
    format!(
        "{path}: {}, {}",
        c.kind.describe(),
        taken_phrase(c.taken, configured, sides)
    )
}

/// The one-line summary, with the meaning of a workflow policy:
/// `level.sjson: merged, 1 conflict resolved (kept local: theirs in this rebase)`.
pub fn summary_in(path: &str, conflicts: &[Conflict], configured: Policy, sides: &Sides) -> String {
    if !by_meaning(configured) || conflicts.is_empty() {
        return summary(path, conflicts, configured);
    }
    let side = configured
        .for_operation(sides.meanings() == store::SideMeanings::SWAPPED)
        .side();
    let (n, repairs) = split_repairs(conflicts);
    if n == 0 {
        return summary(path, conflicts, configured);
    }
    let path = crate::report::safe_line(path);
    format!(
        "{path}: merged, {n} conflict{} resolved (kept {}: {} in this {}){repairs}",
        if n == 1 { "" } else { "s" },
        sides.meaning(side),
        side.name(),
        sides.operation
    )
}
