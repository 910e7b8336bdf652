//! The one-shot migration's document edit: an id member added to every element of every
//! array of objects that has no identity yet, as a new first line in the neighbours'
//! style; nothing else in the file changes (pure: ids come from the caller).

use std::borrow::Cow;

use sjson::{Document, Kind, Out, OutItem, Value};

/// What the migration adds ids to.
#[derive(Debug, Clone)]
pub struct MigrateOptions {
    /// The member written, e.g. `id`.
    pub id_key: String,
    /// Member names already giving an identity (case-insensitive), e.g. `id`, `guid`.
    pub id_keys: Vec<String>,
    /// Natural keys: an array whose elements all carry one, unique, has an identity.
    pub natural_keys: Vec<String>,
    /// Add ids to arrays with a natural key too.
    pub all: bool,
}

/// The edited text and what changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Migration {
    /// The document with ids added.
    pub text: String,
    /// Arrays that got ids.
    pub arrays: usize,
    /// Elements that got ids.
    pub elements: usize,
    /// Each array that got ids, in document order: its JSON Pointer (elements by index)
    /// and how many of its elements got one.
    pub places: Vec<(String, usize)>,
}

/// Adds ids where needed; `None` when the document needs none. `new_id` makes each id
/// (its text, unquoted).
pub fn add_ids(
    doc: &Document,
    options: &MigrateOptions,
    new_id: &mut dyn FnMut() -> String,
) -> Option<Migration> {
    let format = crate::profile::Profile::by_content(doc).format;
    let mut m = Migrator {
        options,
        untouched: format.knowledge().no_migrated_ids,
        new_id,
        arrays: 0,
        elements: 0,
        path: sjson::Path::root(),
        places: Vec::new(),
    };
    let out = m.rewrite(doc.root())?;
    Some(Migration {
        text: sjson::print(doc, &out),
        arrays: m.arrays,
        elements: m.elements,
        places: m.places,
    })
}

struct Migrator<'o> {
    options: &'o MigrateOptions,
    /// Members whose subtree gets no ids, by the document's profile (Stingray's
    /// `editor_metadata` and material `connections`).
    untouched: &'static [&'static str],
    new_id: &'o mut dyn FnMut() -> String,
    arrays: usize,
    elements: usize,
    /// Where the value being rewritten is.
    path: sjson::Path,
    /// Arrays that got ids and how many of their elements did.
    places: Vec<(String, usize)>,
}

impl Migrator<'_> {
    fn has_id(&self, v: Value<'_>) -> bool {
        v.members().any(|(k, _)| {
            self.options
                .id_keys
                .iter()
                .chain(std::iter::once(&self.options.id_key))
                .any(|id| k.eq_ignore_ascii_case(id))
        })
    }

    /// Whether `arr` is an array of objects some of whose elements lack an identity.
    fn needs_ids(&self, arr: Value<'_>) -> bool {
        if arr.kind() != Kind::Array
            || arr.is_empty()
            || !arr.children().all(|c| c.kind() == Kind::Object)
            || arr.children().all(|c| self.has_id(c))
        {
            return false;
        }
        if self.options.all {
            return true;
        }
        !self.options.natural_keys.iter().any(|k| {
            let mut seen = std::collections::HashSet::new();
            arr.children().all(|c| {
                c.get(k)
                    .filter(|v| matches!(v.kind(), Kind::String | Kind::Number))
                    .is_some_and(|v| seen.insert(v.text()))
            })
        })
    }

    /// The id key some elements of `arr` already carry, as written there.
    fn sibling_id_key(&self, arr: Value<'_>) -> Option<String> {
        arr.children().find_map(|c| {
            c.members().find_map(|(k, _)| {
                self.options
                    .id_keys
                    .iter()
                    .chain(std::iter::once(&self.options.id_key))
                    .any(|id| k.eq_ignore_ascii_case(id))
                    .then(|| k.into_owned())
            })
        })
    }

    /// The rewritten value, or `None` if nothing inside it changes.
    fn rewrite<'a>(&mut self, v: Value<'a>) -> Option<Out<'a>> {
        if !v.is_container() || v.key().is_some_and(|k| self.untouched.contains(&&*k)) {
            return None;
        }
        let needs = self.needs_ids(v);
        let place = needs.then(|| {
            self.arrays += 1;
            self.places.push((self.path.to_string(), 0));
            self.places.len() - 1
        });
        let mut changed = needs;
        // Elements that lack an id get the key their siblings already use, if any.
        let key = if needs {
            self.sibling_id_key(v)
                .unwrap_or_else(|| self.options.id_key.clone())
        } else {
            String::new()
        };
        let mut items = Vec::with_capacity(v.len());
        for (i, child) in v.children().enumerate() {
            // The element's own id is made before those of arrays inside it.
            let id = (needs && !self.has_id(child)).then(|| (self.new_id)());
            self.path.push(match child.key() {
                Some(k) => sjson::Segment::Key(k.into_owned()),
                None => sjson::Segment::Index(i),
            });
            let mut value = self.rewrite(child);
            self.path.pop();
            if let Some(id) = id {
                self.elements += 1;
                if let Some(at) = place {
                    self.places[at].1 += 1;
                }
                value = Some(with_id(&key, child, value, &id));
            }
            changed |= value.is_some();
            items.push(OutItem {
                key: child.key(),
                ours: Some(child),
                origin: None,
                value: value.unwrap_or(Out::Value(child)),
            });
        }
        changed.then_some(Out::Container {
            kind: v.kind(),
            ours: Some(v),
            items,
        })
    }
}

/// `element` (already rewritten inside as `inner`) with the member `key = id` on a line
/// of its own: first when the first member starts a line, else last when the closing
/// brace starts one (so the edit only adds a line), else first on the object's line.
fn with_id<'a>(key: &str, element: Value<'a>, inner: Option<Out<'a>>, id: &str) -> Out<'a> {
    let mut quoted = String::new();
    sjson::string::write_quoted(&mut quoted, id);
    let id_item = OutItem {
        key: Some(Cow::Owned(key.to_string())),
        ours: None,
        origin: None,
        value: Out::Lexeme(Cow::Owned(quoted)),
    };
    let mut items = match inner {
        Some(Out::Container { items, .. }) => items,
        _ => element
            .children()
            .map(|c| OutItem {
                key: c.key(),
                ours: Some(c),
                origin: None,
                value: Out::Value(c),
            })
            .collect(),
    };
    let doc = element.doc();
    let layout = doc.layout(element.id());
    let text = doc.text();
    let first_on_own_line = layout
        .items
        .first()
        .is_none_or(|l| text[l.lead.clone()].contains('\n'));
    let close_on_own_line = text[layout.close.clone()].contains('\n');
    if !first_on_own_line && close_on_own_line {
        items.push(id_item);
    } else {
        items.insert(0, id_item);
    }
    Out::Container {
        kind: Kind::Object,
        ours: Some(element),
        items,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sjson::Dialect;

    fn options() -> MigrateOptions {
        MigrateOptions {
            id_key: "id".into(),
            id_keys: ["id", "_id", "guid", "_guid", "uuid"]
                .map(String::from)
                .to_vec(),
            natural_keys: vec!["name".into()],
            all: false,
        }
    }

    fn counter() -> impl FnMut() -> String {
        let mut n = 0;
        move || {
            n += 1;
            format!("id-{n}")
        }
    }

    #[test]
    fn adds_ids_as_new_first_lines_and_changes_nothing_else() {
        let text = "// passes\npasses = [\n\t{\n\t\tlayer = \"opaque\"\n\t\tsort = 1\n\t}\n\t{\n\t\tlayer = \"alpha\" // blended\n\t\tsort = 2\n\t}\n]\nother = [1 2 3]\n";
        let doc = Document::parse(text, Dialect::Sjson).unwrap();
        let m = add_ids(&doc, &options(), &mut counter()).unwrap();
        assert_eq!(
            m.text,
            "// passes\npasses = [\n\t{\n\t\tid = \"id-1\"\n\t\tlayer = \"opaque\"\n\t\tsort = 1\n\t}\n\t{\n\t\tid = \"id-2\"\n\t\tlayer = \"alpha\" // blended\n\t\tsort = 2\n\t}\n]\nother = [1 2 3]\n"
        );
        assert_eq!((m.arrays, m.elements), (1, 2));
        assert_eq!(m.places, [("/passes".to_string(), 2)]);
        // Idempotent: the migrated document needs nothing more.
        let again = Document::parse(m.text, Dialect::Sjson).unwrap();
        assert_eq!(add_ids(&again, &options(), &mut counter()), None);
    }

    #[test]
    fn puts_the_id_where_it_only_adds_a_line_and_reuses_the_siblings_key() {
        let text = "a = [\n\t{ x = 1\n\t\ty = 2\n\t}\n\t{ guid = \"g\"\n\t\tx = 3\n\t}\n]\n";
        let doc = Document::parse(text, Dialect::Sjson).unwrap();
        let m = add_ids(&doc, &options(), &mut counter()).unwrap();
        assert_eq!(
            m.text,
            "a = [\n\t{ x = 1\n\t\ty = 2\n\t\tguid = \"id-1\"\n\t}\n\t{ guid = \"g\"\n\t\tx = 3\n\t}\n]\n"
        );
        assert_eq!((m.arrays, m.elements), (1, 1));
    }

    /// Stingray's `editor_metadata` and a material's shader `connections` are the
    /// editor's: `migrate` gives them no ids (they have none in any engine file).
    #[test]
    fn leaves_stingray_editor_metadata_and_connections_alone() {
        let text = "editor_metadata = { Groups = [ { n = 1 } ] }
shader = { connections = [ { a = 1 } { a = 2 } ] }
units = [ { n = 1 } ]
";
        let doc = Document::parse(text, Dialect::Sjson).unwrap();
        let m = add_ids(&doc, &options(), &mut counter()).unwrap();
        assert_eq!((m.arrays, m.elements), (1, 1));
        assert!(m.text.starts_with("editor_metadata = { Groups = [ { n = 1 } ] }\nshader = { connections = [ { a = 1 } { a = 2 } ] }\n"), "{}", m.text);
        // Plain JSON knows no such thing.
        let json = r#"{"connections": [{"a": 1}]}"#;
        let doc = Document::parse(json, Dialect::Json).unwrap();
        assert!(add_ids(&doc, &options(), &mut counter()).is_some());
    }

    #[test]
    fn leaves_arrays_with_an_identity_alone_unless_all() {
        let text = "a = [ {name = \"x\" v = 1} {name = \"y\" v = 2} ]\nb = [ {id = 1} {id = 2} ]\n";
        let doc = Document::parse(text, Dialect::Sjson).unwrap();
        assert_eq!(add_ids(&doc, &options(), &mut counter()), None);
        let all = MigrateOptions {
            all: true,
            ..options()
        };
        let m = add_ids(&doc, &all, &mut counter()).unwrap();
        assert_eq!(
            m.text,
            "a = [ {id = \"id-1\" name = \"x\" v = 1} {id = \"id-2\" name = \"y\" v = 2} ]\nb = [ {id = 1} {id = 2} ]\n"
        );
    }

    #[test]
    fn json_gets_quoted_keys_and_commas_and_nested_arrays_too() {
        let text = "{\n  \"lines\": [\n    {\n      \"en\": \"Play\",\n      \"parts\": [{\"t\": 1}, {\"t\": 2}]\n    }\n  ]\n}\n";
        let doc = Document::parse(text, Dialect::Json).unwrap();
        let m = add_ids(&doc, &options(), &mut counter()).unwrap();
        let v: serde_json::Value = serde_json::from_str(&m.text).unwrap();
        assert_eq!(v["lines"][0]["id"], "id-1");
        assert_eq!(v["lines"][0]["parts"][1]["id"], "id-3");
        assert_eq!(v["lines"][0]["parts"][0]["id"], "id-2");
        assert!(
            m.text.starts_with(
                "{\n  \"lines\": [\n    {\n      \"id\": \"id-1\",\n      \"en\": \"Play\","
            ),
            "{}",
            m.text
        );
        assert_eq!((m.arrays, m.elements), (2, 3));
    }

    proptest::proptest! {
        /// Each array that got ids is listed once with its count: as many places as
        /// arrays, their counts adding up to the elements.
        #[test]
        fn places_account_for_every_array_and_element(
            shape in proptest::collection::vec(
                (proptest::bool::ANY, proptest::collection::vec(proptest::bool::ANY, 0..4)),
                1..5,
            )
        ) {
            let mut text = String::from("units = [\n");
            for (has_id, inner) in &shape {
                text.push_str(if *has_id { "\t{ id = \"x\"" } else { "\t{ n = 1" });
                text.push_str(" parts = [");
                for p in inner {
                    text.push_str(if *p { " { id = \"p\" }" } else { " { k = 2 }" });
                }
                text.push_str(" ] }\n");
            }
            text.push_str("]\n");
            let doc = Document::parse(&text, Dialect::Sjson).unwrap();
            if let Some(m) = add_ids(&doc, &options(), &mut counter()) {
                proptest::prop_assert_eq!(m.places.len(), m.arrays);
                proptest::prop_assert_eq!(m.places.iter().map(|p| p.1).sum::<usize>(), m.elements);
                proptest::prop_assert!(m.places.iter().all(|p| p.0.starts_with("/units")));
            }
        }
    }
}
