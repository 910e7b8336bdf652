//! A Cocos merge's conflicts as people read them: the keyed form's references in the
//! three values (`{"__ref__": "o5"}`) become the node path of the object they point at
//! (`"@Canvas/Menu/Start"`, the way `diff` shows a reference). Places and referrers are
//! already the result's positions (which the report names by node path), not the keyed
//! form's tokens (`in_result`).

use crate::hashing::SeededMap;
use sjson::{Dialect, Document, ParseOptions, Segment};

use super::names::object_name;
use super::tree::{rewrite_references, J};
use super::{KEY, REF};
use crate::{Conflict, ConflictKind};

/// Where a token's object can be named: the result (by position) and the versions.
pub(crate) struct Namer<'a> {
    /// The merged text, parsed on first use.
    result: &'a str,
    parsed: Option<Option<Document>>,
    /// Each kept object's position in the result, by token.
    positions: &'a SeededMap<String, usize>,
    /// The versions (their documents and keyed forms), ours first.
    versions: [(&'a Document, &'a [J]); 3],
    cache: SeededMap<String, String>,
}

impl<'a> Namer<'a> {
    /// A namer over the merged `result` text, its `positions`, and the `versions` (ours,
    /// theirs, base) with their keyed forms.
    pub(crate) fn new(
        result: &'a str,
        positions: &'a SeededMap<String, usize>,
        versions: [(&'a Document, &'a [J]); 3],
    ) -> Namer<'a> {
        Namer {
            result,
            parsed: None,
            positions,
            versions,
            cache: SeededMap::default(),
        }
    }

    /// The name of the object `token` stands for: its node path (or component, or
    /// referrer) in the result, else in the first version that has it.
    fn name(&mut self, token: &str) -> String {
        if let Some(name) = self.cache.get(token) {
            return name.clone();
        }
        let name = self
            .find(token)
            .unwrap_or_else(|| "(unknown object)".into());
        self.cache.insert(token.to_string(), name.clone());
        name
    }

    fn find(&mut self, token: &str) -> Option<String> {
        if let Some(&at) = self.positions.get(token) {
            let text = self.result;
            let doc = self.parsed.get_or_insert_with(|| {
                Document::parse_with(text.to_string(), ParseOptions::new(Dialect::Json)).ok()
            });
            if let Some(name) = doc.as_ref().and_then(|d| object_name(d.root(), at)) {
                return Some(name);
            }
        }
        self.versions.iter().find_map(|(doc, keyed)| {
            let at = keyed
                .iter()
                .position(|el| el.get(KEY).and_then(J::as_str) == Some(token))?;
            object_name(doc.root(), at)
        })
    }

    /// `value` (compact JSON of the keyed form) with every reference as `"@"` and the
    /// name of the object it points at, and without the keyed form's identity member.
    fn value(&mut self, value: &str) -> String {
        if !value.contains(REF) && !value.contains(KEY) {
            return value.to_string();
        }
        let Ok(doc) = Document::parse_with(value.to_string(), ParseOptions::new(Dialect::Json))
        else {
            return value.to_string();
        };
        let mut j = J::of(doc.root());
        if let J::Obj(members) = &mut j {
            // A whole object's identity in the keyed form is no member of the file's.
            members.retain(|(k, _)| k != KEY);
        }
        let mut named = |target: &J| {
            let token = target.as_str().unwrap_or_default();
            Some(J::string(&format!("@{}", self.name(token))))
        };
        match j.reference(REF) {
            Some(target) => j = named(&target.clone()).unwrap_or(J::Null),
            None => rewrite_references(&mut j, REF, &mut named),
        }
        j.compact()
    }

    /// `value` (compact JSON) with every string in it read as a token and replaced by
    /// `prefix` and the name of its object.
    fn tokens(&mut self, value: &str, prefix: &str) -> String {
        let Ok(doc) = Document::parse_with(value.to_string(), ParseOptions::new(Dialect::Json))
        else {
            return value.to_string();
        };
        let mut named = |j: &J| match j.as_str() {
            Some(token) => J::string(&format!("{prefix}{}", self.name(token))),
            None => j.clone(),
        };
        match J::of(doc.root()) {
            J::Arr(items) => J::Arr(items.iter().map(&mut named).collect()).compact(),
            j => named(&j).compact(),
        }
    }

    /// `conflict` (its place and referrer already in the result's positions) with its
    /// values' references named.
    pub(crate) fn conflict(&mut self, mut conflict: Conflict) -> Conflict {
        // A conflict inside a reference (`/7/_parent/__ref__`) is the reference's: its
        // values are tokens. The order of the whole array lists tokens too.
        let of_reference = matches!(conflict.path.0.last(), Some(Segment::Key(k)) if k == REF);
        if of_reference {
            conflict.path.pop();
        }
        let of_order = conflict.path.0.is_empty() && conflict.kind == ConflictKind::Order;
        for v in [&mut conflict.base, &mut conflict.ours, &mut conflict.theirs] {
            if let Some(text) = v.as_mut() {
                *text = match (of_reference, of_order) {
                    (true, _) => self.tokens(text, "@"),
                    (_, true) => self.tokens(text, ""),
                    _ => self.value(text),
                };
            }
        }
        conflict
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{base_tree, issues, merged, scene};
    use crate::{ConflictKind, Policy};

    #[test]
    fn a_reference_in_a_conflict_value_is_the_node_path_it_points_at() {
        let base = base_tree();
        let (mut ours, mut theirs) = (base.clone(), base.clone());
        // Both move Start: ours under Camera, theirs under Canvas.
        let start = ours[0].children[0].children.remove(0);
        ours[1].children.push(start);
        let start = theirs[0].children[0].children.remove(0);
        theirs[0].children.push(start);
        let (out, outcome) = merged(
            &scene(&base),
            &scene(&ours),
            &scene(&theirs),
            Policy::Theirs,
        );
        assert_eq!(issues(&out), Vec::<String>::new());
        let parent = outcome
            .conflicts
            .iter()
            .find(|c| {
                c.kind == ConflictKind::BothModified && c.path.to_string().ends_with("/_parent")
            })
            .unwrap_or_else(|| panic!("{:?}", outcome.conflicts));
        assert_eq!(parent.base.as_deref(), Some(r#""@Canvas/Menu""#));
        assert_eq!(parent.ours.as_deref(), Some(r#""@Camera""#));
        assert_eq!(parent.theirs.as_deref(), Some(r#""@Canvas""#));
    }
}
