//! Who made the upstream value of a pending conflict: the author of the newest upstream
//! commit that changed that property (or, when no commit looked at can be read that
//! closely, the newest that changed the file).

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use gix::ObjectId;
use sjson::{Dialect, Document, Kind, Segment, Value};

use crate::error::{Error, Result};
use crate::Repo;

/// How many upstream commits are looked at, newest first, before giving up.
const LOOK_BACK: usize = 200;

/// How many of them that changed the file are read property by property (each one means
/// parsing the file twice): beyond, the answer is the newest that changed the file.
const READ_BACK: usize = 32;

impl Repo {
    /// The author name of the newest commit reachable from `upstream` but not from `from`
    /// that changed `path` (its blob differs from its first parent's); `None` when none of
    /// the newest commits did.
    pub fn upstream_author(
        &self,
        from: ObjectId,
        upstream: ObjectId,
        path: &str,
    ) -> Result<Option<String>> {
        let mut authors = self.upstream_authors(from, upstream, path, &[])?;
        Ok(authors.pop().flatten())
    }

    /// For each of `properties` (places in `path` as conflicts name them,
    /// `/entities/[id=e1]/tint`), the author name of the newest commit reachable from `upstream` but
    /// not from `from` that changed the value there; for a property no commit looked at
    /// changed (or that cannot be found in the file), the author of the newest commit that
    /// changed the file. The answer has one entry per property, then one for the file.
    /// Bounded: the newest 200 commits, 32 of them (those that changed the file) read closely.
    pub fn upstream_authors(
        &self,
        from: ObjectId,
        upstream: ObjectId,
        path: &str,
        properties: &[&sjson::Path],
    ) -> Result<Vec<Option<String>>> {
        let repo = &self.git;
        let walk = repo
            .rev_walk([upstream])
            .with_hidden([from])
            .all()
            .map_err(Error::git)?;
        let mut found: Vec<Option<String>> = vec![None; properties.len()];
        let mut file_author = None;
        let mut values = Values::new(repo, path, properties);
        let mut read = 0;
        for info in walk.take(LOOK_BACK) {
            let info = info.map_err(Error::git)?;
            let commit = repo.find_commit(info.id)?;
            let tree = commit.tree_id().map_err(Error::git)?.detach();
            let parent_blob = match commit.parent_ids().next() {
                Some(p) => blob_at(repo, crate::repo::tree_of(repo, Some(p.detach()))?, path)?,
                None => None,
            };
            let blob = blob_at(repo, tree, path)?;
            if blob == parent_blob {
                continue;
            }
            let author =
                || -> Result<String> { Ok(commit.author().map_err(Error::git)?.name.to_string()) };
            if file_author.is_none() {
                file_author = Some(author()?);
            }
            if found.iter().all(Option::is_some) || read == READ_BACK {
                break;
            }
            read += 1;
            let (now, before) = (values.of(blob), values.of(parent_blob));
            for (i, slot) in found.iter_mut().enumerate() {
                let changed = match (now.as_ref(), before.as_ref()) {
                    (Some(now), Some(before)) => now[i] != before[i],
                    _ => false, // a version that does not parse says nothing
                };
                if slot.is_none() && changed {
                    *slot = Some(author()?);
                }
            }
        }
        let mut out: Vec<Option<String>> = found
            .into_iter()
            .map(|f| f.or_else(|| file_author.clone()))
            .collect();
        out.push(file_author);
        Ok(out)
    }
}

/// The blob at `path` in `tree`, if any.
fn blob_at(repo: &gix::Repository, tree: ObjectId, path: &str) -> Result<Option<ObjectId>> {
    let tree = repo.find_tree(tree)?;
    Ok(tree.lookup_entry_by_path(path)?.map(|e| e.object_id()))
}

/// The value at each place of one file, by blob: a hash of each value (`None`: not there),
/// or `None` for a version that does not parse. Each blob is parsed once.
struct Values<'a> {
    repo: &'a gix::Repository,
    path: &'a str,
    places: &'a [&'a sjson::Path],
    seen: HashMap<Option<ObjectId>, Option<Vec<Option<u64>>>>,
}

impl<'a> Values<'a> {
    fn new(repo: &'a gix::Repository, path: &'a str, places: &'a [&'a sjson::Path]) -> Self {
        Values {
            repo,
            path,
            places,
            seen: HashMap::new(),
        }
    }

    /// The hashes of the values at the places in `blob` (`None`: the file is absent).
    fn of(&mut self, blob: Option<ObjectId>) -> Option<Vec<Option<u64>>> {
        if let Some(v) = self.seen.get(&blob) {
            return v.clone();
        }
        let values = self.read(blob);
        self.seen.insert(blob, values.clone());
        values
    }

    fn read(&self, blob: Option<ObjectId>) -> Option<Vec<Option<u64>>> {
        let Some(blob) = blob else {
            return Some(vec![None; self.places.len()]);
        };
        let data = self.repo.find_blob(blob).ok()?.data.clone();
        let text = String::from_utf8(data).ok()?;
        let doc = parse_either(text, Dialect::for_path(self.path))?;
        Some(
            self.places
                .iter()
                .map(|p| {
                    let value = value_at(doc.root(), p)?;
                    let mut h = std::collections::hash_map::DefaultHasher::new();
                    value.hash_value(&mut h);
                    value.kind().hash(&mut h);
                    Some(h.finish())
                })
                .collect(),
        )
    }
}

/// `text` parsed in `dialect`, else in the other one (a JSON file named otherwise).
fn parse_either(text: String, dialect: Dialect) -> Option<Document> {
    let other = match dialect {
        Dialect::Json => Dialect::Sjson,
        Dialect::Sjson => Dialect::Json,
    };
    match Document::parse(text.clone(), dialect) {
        Ok(doc) => Some(doc),
        Err(_) => Document::parse(text, other).ok(),
    }
}

/// The value at `path` under `root`: object members by key, array elements by position
/// (a number step is either, by the container it meets, as its pointer reads) or, for
/// `[key=value]`, the element whose `key` member (case-insensitive) has that value.
pub(crate) fn value_at<'d>(root: Value<'d>, path: &sjson::Path) -> Option<Value<'d>> {
    let mut at = root;
    for seg in &path.0 {
        at = match seg {
            Segment::Key(k) if at.kind() == Kind::Object => at.get(k)?,
            Segment::Key(k) if at.kind() == Kind::Array => at.children().nth(k.parse().ok()?)?,
            Segment::Index(i) if at.kind() == Kind::Array => at.children().nth(*i)?,
            Segment::Index(i) => at.get(&i.to_string())?,
            Segment::Id { key, value } => at.children().find(|e| {
                e.kind() == Kind::Object
                    && e.members().any(|(k, v)| {
                        k.eq_ignore_ascii_case(key)
                            && (v.as_str().is_some_and(|s| s == *value)
                                || v.as_number_lexeme() == Some(value.as_str()))
                    })
            })?,
            Segment::Key(_) => return None,
        };
    }
    Some(at)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn places_are_found_by_key_position_and_id() {
        let doc = Document::parse(
            "entities = [ { id = \"a\" pos = [1 2] } { id = 7 pos = [3 4] } ]\n",
            Dialect::Sjson,
        )
        .unwrap();
        let at = |p: &str| value_at(doc.root(), &sjson::Path::parse(p).unwrap()).map(|v| v.text());
        assert_eq!(at("/entities/[id=a]/pos"), Some("[1 2]"));
        assert_eq!(at("/entities/[id=7]/pos"), Some("[3 4]"));
        assert_eq!(at("/entities/1/pos/0"), Some("3"));
        assert_eq!(at("/entities/[id=b]/pos"), None);
        assert_eq!(at("/nothing"), None);
    }

    proptest! {
        /// Looking a place up never panics, whatever the document and the pointer.
        #[test]
        fn a_lookup_never_panics(text in "[a-z0-9=\\[\\]{} \"]{0,40}", pointer in "(/[a-z0-9\\[\\]=]{0,6}){0,4}") {
            if let (Ok(doc), Ok(path)) = (Document::parse(text, Dialect::Sjson), sjson::Path::parse(&pointer)) {
                let _ = value_at(doc.root(), &path);
            }
        }
    }
}
