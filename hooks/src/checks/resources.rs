//! Resource references (`[references] resources` in assetvc.toml): a property mapped to an
//! asset type names another asset by its path from the repository root without extension
//! (`type = "units/crate"` with `type = "unit"` names `units/crate.unit`). A reference to
//! a file that is not in the tree is a problem: `levels/a.level:12:9: unit
//! units/crate.unit does not exist`.

use std::fmt;
use std::sync::Arc;

use sjson::{Document, Kind, Value};

use crate::problem::{Check, Problem};

/// Tells whether a path (from the repository root, `/`-separated) is in the tree the
/// checked files belong to: the worktree, the index, or a pushed commit's tree.
#[derive(Clone)]
pub struct TreePaths(Arc<dyn Fn(&str) -> bool + Send + Sync>);

impl TreePaths {
    /// Wraps a membership test.
    pub fn new(contains: impl Fn(&str) -> bool + Send + Sync + 'static) -> TreePaths {
        TreePaths(Arc::new(contains))
    }

    /// Whether `path` is in the tree.
    pub fn contains(&self, path: &str) -> bool {
        (self.0)(path)
    }
}

impl fmt::Debug for TreePaths {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("TreePaths")
    }
}

/// One resource reference of a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceRef {
    /// Byte offset of the value.
    pub offset: usize,
    /// The asset type (the file extension), e.g. `unit`.
    pub kind: String,
    /// The named file, e.g. `units/crate.unit`.
    pub file: String,
}

/// The resource references of `doc` under `resources` (property name → asset type).
pub fn resource_references(doc: &Document, resources: &[(String, String)]) -> Vec<ResourceRef> {
    let mut out = Vec::new();
    if !resources.is_empty() {
        walk(doc.root(), resources, &mut out);
    }
    out
}

fn walk(v: Value<'_>, resources: &[(String, String)], out: &mut Vec<ResourceRef>) {
    match v.kind() {
        Kind::Object => {
            for (k, c) in v.members() {
                if let Some((_, kind)) = resources.iter().find(|(key, _)| *key == k) {
                    if let Some(s) = c.as_str().filter(|s| !s.is_empty()) {
                        let suffix = format!(".{kind}");
                        let file = if s.ends_with(&suffix) {
                            s.into_owned()
                        } else {
                            format!("{s}{suffix}")
                        };
                        out.push(ResourceRef {
                            offset: c.span().start,
                            kind: kind.clone(),
                            file,
                        });
                        continue;
                    }
                }
                if c.is_container() {
                    walk(c, resources, out);
                }
            }
        }
        Kind::Array => {
            for c in v.children().filter(|c| c.is_container()) {
                walk(c, resources, out);
            }
        }
        _ => {}
    }
}

/// Problems for the resource references of `doc` (the file `path`) whose file `tree`
/// does not hold.
pub(crate) fn check_resources(
    path: &str,
    doc: &Document,
    resources: &[(String, String)],
    tree: &TreePaths,
    out: &mut Vec<Problem>,
) {
    for r in resource_references(doc, resources) {
        if !tree.contains(&r.file) {
            out.push(Problem::at(
                path,
                doc.text(),
                r.offset,
                Check::Resource,
                format!("{} {} does not exist", r.kind, r.file),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_to_missing_files_are_reported_with_their_position() {
        let doc = Document::parse(
            "units = [\n\t{ type = \"units/crate\" material = \"m/wood\" }\n\t{ type = \"units/lamp.unit\" }\n]\nname = \"units/crate\"\n",
            sjson::Dialect::Sjson,
        )
        .unwrap();
        let map = vec![
            ("type".to_string(), "unit".to_string()),
            ("material".to_string(), "material".to_string()),
        ];
        let refs = resource_references(&doc, &map);
        let files: Vec<_> = refs.iter().map(|r| r.file.as_str()).collect();
        assert_eq!(
            files,
            ["units/crate.unit", "m/wood.material", "units/lamp.unit"]
        );
        let tree = TreePaths::new(|p| p == "m/wood.material" || p == "units/lamp.unit");
        let mut out = Vec::new();
        check_resources("levels/a.level", &doc, &map, &tree, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(
            out[0].to_string().lines().next().unwrap(),
            "levels/a.level:2:11: unit units/crate.unit does not exist"
        );
        assert!(resource_references(&doc, &[]).is_empty());
    }
}
