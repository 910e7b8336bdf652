//! OBJECT specs: `FILE#ID`, an id, a unique id prefix, or a unique `name` (a Cocos node's
//! path, `Canvas/Menu/Start`, or a component's, `Canvas/Menu/Start<cc.Label>`), looked
//! up in a tree's object index. Shared by `show`, `log`, `blame`, `restore` and `resolve`.

use super::TreeIndex;
use crate::error::{Error, Result};

/// An object a spec may mean.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// The file, repository-relative.
    pub path: String,
    /// The object's id.
    pub id: String,
    /// Its `name`, if any.
    pub name: Option<String>,
}

/// The object `spec` names in `index`: `FILE#ID` (the id, a unique name or a unique
/// prefix of the id in that file), else an exact id, else an exact `name`, else a unique id prefix.
pub(crate) fn resolve_spec(index: &TreeIndex, spec: &str) -> Result<Candidate> {
    let candidate = |path: &str, id: &str| Candidate {
        path: path.to_string(),
        id: id.to_string(),
        name: index.get(path, id).and_then(|e| e.name.clone()),
    };
    let pick = |found: Vec<Candidate>| -> Option<Result<Candidate>> {
        match found.len() {
            0 => None,
            1 => found.into_iter().next().map(Ok),
            _ => Some(Err(Error::AmbiguousObject {
                spec: spec.to_string(),
                candidates: found,
            })),
        }
    };
    if let Some((file, id)) = spec.rsplit_once('#') {
        let file = file.trim_start_matches("./");
        if let Some(f) = index.files.get(file) {
            if f.objects.contains_key(id) {
                return Ok(candidate(file, id));
            }
            // A Cocos node by its path: `scene.fire#Canvas/Menu/Start`.
            let named = f
                .objects
                .iter()
                .filter(|(_, e)| e.name.as_deref() == Some(id))
                .map(|(k, _)| candidate(file, k))
                .collect();
            if let Some(r) = pick(named) {
                return r;
            }
            let found = f
                .objects
                .keys()
                .filter(|k| !id.is_empty() && k.starts_with(id))
                .map(|k| candidate(file, k))
                .collect();
            if let Some(r) = pick(found) {
                return r;
            }
        }
        return Err(Error::NoSuchObject(spec.to_string()));
    }
    let all = || index.objects();
    let exact = all()
        .filter(|(_, id, _)| *id == spec)
        .map(|(p, id, _)| candidate(p, id))
        .collect();
    if let Some(r) = pick(exact) {
        return r;
    }
    let named = all()
        .filter(|(_, _, e)| e.name.as_deref() == Some(spec))
        .map(|(p, id, _)| candidate(p, id))
        .collect();
    if let Some(r) = pick(named) {
        return r;
    }
    let prefixed = all()
        .filter(|(_, id, _)| !spec.is_empty() && id.starts_with(spec))
        .map(|(p, id, _)| candidate(p, id))
        .collect();
    pick(prefixed).unwrap_or_else(|| Err(Error::NoSuchObject(spec.to_string())))
}

#[cfg(test)]
mod tests {
    use super::super::scan::scan_document;
    use super::super::FileObjects;
    use super::*;

    fn index() -> TreeIndex {
        let mut index = TreeIndex::default();
        for (path, text) in [
            (
                "a.level",
                "e = [ { id = \"f341aa\" name = \"door\" } { id = \"f342bb\" name = \"gate\" } ]",
            ),
            (
                "b.level",
                "e = [ { id = \"f341aa\" name = \"door\" } { id = \"c9\" name = \"f3\" } ]",
            ),
        ] {
            let doc = sjson::Document::parse(text, sjson::Dialect::Sjson).unwrap();
            index.files.insert(
                path.into(),
                FileObjects {
                    blob: String::new(),
                    parsed: true,
                    objects: scan_document(&doc, &["id".to_string()]),
                },
            );
        }
        index
    }

    #[test]
    fn resolves_files_ids_names_and_prefixes() {
        let index = index();
        let ok = |spec: &str| resolve_spec(&index, spec).map(|c| (c.path, c.id)).ok();
        assert_eq!(
            ok("b.level#f341aa"),
            Some(("b.level".into(), "f341aa".into()))
        );
        assert_eq!(
            ok("a.level#f342"),
            Some(("a.level".into(), "f342bb".into()))
        );
        assert_eq!(ok("f342bb"), Some(("a.level".into(), "f342bb".into())));
        assert_eq!(ok("gate"), Some(("a.level".into(), "f342bb".into())));
        assert_eq!(ok("c"), Some(("b.level".into(), "c9".into())));
        // A name wins over an id prefix.
        assert_eq!(ok("f3"), Some(("b.level".into(), "c9".into())));
        match resolve_spec(&index, "door") {
            Err(Error::AmbiguousObject { candidates, .. }) => {
                assert_eq!(candidates.len(), 2);
                assert_eq!(candidates[0].name.as_deref(), Some("door"));
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            resolve_spec(&index, "f34"),
            Err(Error::AmbiguousObject { .. })
        ));
        assert!(matches!(
            resolve_spec(&index, "zz"),
            Err(Error::NoSuchObject(_))
        ));
        assert!(matches!(
            resolve_spec(&index, "a.level#zz"),
            Err(Error::NoSuchObject(_))
        ));
    }
}
