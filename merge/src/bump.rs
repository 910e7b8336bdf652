//! Both sides bumped a version (`"version": "1.2.0"` in a manifest, each side its own
//! release; or raised a requirement such as `"MinimumVersion"`): the greater version is taken, reported as a conflict resolved that way.

use std::cmp::Ordering;

use sjson::{Kind, Out, Segment, Value};

use crate::merger::Merger;
use crate::{ConflictKind, Side};

/// The numeric parts of a semver-like version (`1.2.10`, `v2.0`, `1.2.0-beta.1`: the
/// pre-release part compared as text, lower than none); `None` for anything else.
fn parts(text: &str) -> Option<(Vec<u64>, Option<&str>)> {
    let text = text.strip_prefix(['v', 'V']).unwrap_or(text);
    let (core, pre) = match text.split_once(['-', '+']) {
        Some((core, pre)) => (core, Some(pre)),
        None => (text, None),
    };
    let numbers: Option<Vec<u64>> = core.split('.').map(|p| p.parse().ok()).collect();
    let numbers = numbers.filter(|n| n.len() >= 2)?;
    Some((numbers, pre))
}

/// How two semver-like versions compare, if both are ones.
fn compare(a: &str, b: &str) -> Option<Ordering> {
    let (an, ap) = parts(a)?;
    let (bn, bp) = parts(b)?;
    let len = an.len().max(bn.len());
    let pad = |n: &[u64]| {
        (0..len)
            .map(|i| n.get(i).copied().unwrap_or(0))
            .collect::<Vec<_>>()
    };
    Some(pad(&an).cmp(&pad(&bn)).then(match (ap, bp) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Greater,
        (Some(_), None) => Ordering::Less,
        (Some(x), Some(y)) => x.cmp(y),
    }))
}

impl<'a> Merger<'a> {
    /// Both sides changed a `…version` member's semver-like string from base's, each
    /// upwards, or both added one: the greater is taken, and the conflict reported as
    /// resolved to its side.
    pub(crate) fn greater_version(
        &mut self,
        b: Option<Value<'a>>,
        o: Value<'a>,
        t: Value<'a>,
    ) -> Option<Out<'a>> {
        let Some(Segment::Key(key)) = self.st.path.0.last() else {
            return None;
        };
        // `version`, `Version`, and requirements such as `MinimumVersion`: both raised.
        if !key.to_ascii_lowercase().ends_with("version") {
            return None;
        }
        let text = |v: Value<'a>| (v.kind() == Kind::String).then(|| v.as_str()).flatten();
        let (os, ts) = (text(o)?, text(t)?);
        let kind = match b {
            // Both moved forward from base: a bump each, not a revert.
            Some(b) => {
                let bs = text(b)?;
                if compare(&os, &bs)? != Ordering::Greater
                    || compare(&ts, &bs)? != Ordering::Greater
                {
                    return None;
                }
                ConflictKind::BothModified
            }
            // Both added one (a new dependency's `MinimumVersion`): the greater
            // satisfies both.
            None => ConflictKind::BothAdded,
        };
        let side = match compare(&os, &ts)? {
            Ordering::Greater => Side::Ours,
            _ => Side::Theirs,
        };
        self.record_conflict(kind, b, Some(o), Some(t), side);
        Some(Out::Value(match side {
            Side::Ours => o,
            Side::Theirs => t,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::compare;
    use crate::{merge, Inputs, MergeOptions, Side};
    use sjson::Dialect;
    use std::cmp::Ordering;

    #[test]
    fn versions_compare_by_their_numbers() {
        assert_eq!(compare("1.10.0", "1.9.3"), Some(Ordering::Greater));
        assert_eq!(compare("v2.0", "2.0.0"), Some(Ordering::Equal));
        assert_eq!(compare("1.2.0-beta", "1.2.0"), Some(Ordering::Less));
        assert_eq!(compare("1", "2"), None);
        assert_eq!(compare("1.x", "1.2"), None);
    }

    #[test]
    fn both_sides_bumping_a_version_take_the_greater_reported() {
        let doc = |v: &str| format!("{{\"name\": \"m\", \"version\": \"{v}\"}}");
        let opts = MergeOptions::default();
        let out = merge(
            Inputs::texts(doc("1.2.0"), doc("1.3.0"), doc("1.2.1"), Dialect::Json),
            &opts,
        )
        .unwrap();
        assert_eq!(out.text(), doc("1.3.0"));
        assert_eq!(out.conflicts.len(), 1);
        assert_eq!(out.conflicts[0].taken, Side::Ours);
        // A version that went down on one side is a plain conflict (policy: theirs).
        let out = merge(
            Inputs::texts(doc("1.2.0"), doc("1.3.0"), doc("1.1.0"), Dialect::Json),
            &opts,
        )
        .unwrap();
        assert_eq!(out.text(), doc("1.1.0"));
    }

    #[test]
    fn a_raised_requirement_takes_the_greater_and_other_keys_do_not() {
        let doc = |k: &str, v: &str| format!("{{\"{k}\": \"{v}\"}}");
        let opts = MergeOptions::default();
        let run = |k: &str| {
            let (b, o, t) = (doc(k, "0.1.0"), doc(k, "0.1.2"), doc(k, "0.1.1"));
            merge(Inputs::texts(&b, &o, &t, Dialect::Json), &opts)
                .unwrap()
                .into_text()
        };
        assert_eq!(run("MinimumVersion"), doc("MinimumVersion", "0.1.2"));
        // Not a version: the policy (theirs) decides.
        assert_eq!(run("name"), doc("name", "0.1.1"));
    }

    /// Both sides added the same dependency's requirement (StardewMods e1e7118964's
    /// manifest): the greater is taken, whichever side wrote it.
    #[test]
    fn both_adding_a_requirement_take_the_greater() {
        let base = r#"{"Dependencies": [{"UniqueID": "a.Core"}]}"#;
        let dep = |v: &str| {
            format!(r#"{{"Dependencies": [{{"UniqueID": "a.Core", "MinimumVersion": "{v}"}}]}}"#)
        };
        let opts = MergeOptions::default();
        for (ours, theirs) in [("0.1.2", "0.1.1"), ("0.1.1", "0.1.2")] {
            let out = merge(
                Inputs::texts(base, dep(ours), dep(theirs), Dialect::Json),
                &opts,
            )
            .unwrap();
            assert_eq!(out.text(), dep("0.1.2"));
            assert_eq!(out.conflicts.len(), 1);
        }
        // Not versions both: the policy decides.
        let out = merge(
            Inputs::texts(base, dep("0.1.2"), dep("latest"), Dialect::Json),
            &opts,
        )
        .unwrap();
        assert_eq!(out.text(), dep("latest"));
    }
}
