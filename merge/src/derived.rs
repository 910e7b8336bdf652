//! Values the editor derives on every save (a Cocos camera's `_orthoHeight`, recomputed
//! from the window; LDtk's `__`-prefixed fields): when both sides changed one, each
//! side's editor wrote what it computed, and the person merging keeps their own (ours),
//! which their editor writes again anyway. Still reported, as resolved to ours.

use sjson::{Out, Segment, Value};

use crate::merger::Merger;
use crate::{ConflictKind, Side};

/// Whether `key` is one of `derived`'s names; a name ending in `*` is a prefix.
pub(crate) fn is_derived(derived: &[&str], key: &str) -> bool {
    derived.iter().any(|name| match name.strip_suffix('*') {
        Some(prefix) => key.starts_with(prefix),
        None => key == *name,
    })
}

impl<'a> Merger<'a> {
    /// Both sides changed a member the format's editor derives: ours is kept, reported.
    pub(crate) fn editor_derived(
        &mut self,
        b: Option<Value<'a>>,
        o: Value<'a>,
        t: Value<'a>,
    ) -> Option<Out<'a>> {
        let derived = self.cx.format().knowledge().editor_derived;
        if derived.is_empty() {
            return None;
        }
        let Some(Segment::Key(key)) = self.st.path.0.last() else {
            return None;
        };
        if !is_derived(derived, key) {
            return None;
        }
        self.record_conflict(ConflictKind::BothModified, b, Some(o), Some(t), Side::Ours);
        Some(Out::Value(o))
    }
}

#[cfg(test)]
mod tests {
    use super::is_derived;
    use crate::{merge, Inputs, MergeOptions, Side};
    use sjson::Dialect;

    #[test]
    fn names_and_prefixes() {
        assert!(is_derived(&["_orthoHeight"], "_orthoHeight"));
        assert!(!is_derived(&["_orthoHeight"], "_orthoHeightX"));
        assert!(is_derived(&["__*"], "__cWid"));
        assert!(!is_derived(&["__*"], "_cWid"));
    }

    #[test]
    fn a_camera_height_both_editors_recomputed_keeps_ours() {
        let scene = |h: &str, name: &str| {
            format!(
                "[{{\"__type__\": \"cc.SceneAsset\", \"scene\": {{\"__id__\": 1}}}},\n\
                 {{\"__type__\": \"cc.Scene\", \"_name\": \"{name}\", \"_parent\": null, \
                 \"_children\": [], \"_components\": [{{\"__id__\": 2}}], \"_id\": \"s\"}},\n\
                 {{\"__type__\": \"cc.Camera\", \"node\": {{\"__id__\": 1}}, \
                 \"_orthoHeight\": {h}, \"_id\": \"c\"}}]\n"
            )
        };
        let out = merge(
            Inputs::texts(
                scene("375", "a"),
                scene("435.75", "a"),
                scene("394.5", "b"),
                Dialect::Json,
            ),
            &MergeOptions::default(),
        )
        .unwrap();
        assert!(out.text().contains("435.75"), "{}", out.text());
        assert!(
            out.text().contains("\"b\""),
            "theirs' edit kept: {}",
            out.text()
        );
        assert_eq!(out.conflicts.len(), 1, "{:?}", out.conflicts);
        assert_eq!(out.conflicts[0].taken, Side::Ours);
    }
}
