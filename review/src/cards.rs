//! Cards: changes and report entries gathered by the object they belong to.

use std::collections::HashMap;

use sjson::{Path, Segment};

use crate::model::{Card, Fate, Row};
use crate::objects::LevelObjects;

/// At most this many rows per card; the rest are counted in a note.
pub const MAX_ROWS: usize = 40;

/// Where a change is: its object's key and location, and the property inside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The object's key (its id, else its location).
    pub key: String,
    /// Its id, when the path names it by id.
    pub id: Option<String>,
    /// The object's location for people.
    pub location: String,
    /// The property inside the object (empty: the object itself).
    pub property: Path,
}

/// Splits `path` into its object and property: the innermost element named by id; else
/// the longest prefix that is a known object of `known`; else the first member.
pub fn target(path: &Path, known: &[&LevelObjects]) -> Target {
    let segs = &path.0;
    if let Some(k) = segs.iter().rposition(|s| matches!(s, Segment::Id { .. })) {
        let Segment::Id { value, .. } = &segs[k] else {
            unreachable!("rposition found an id segment")
        };
        return Target {
            key: value.clone(),
            id: Some(value.clone()),
            location: merge::diff::path_text(&Path(segs[..=k].to_vec())),
            property: Path(segs[k + 1..].to_vec()),
        };
    }
    for j in (1..=segs.len()).rev() {
        let location = merge::diff::path_text(&Path(segs[..j].to_vec()));
        if known.iter().any(|o| o.get(&location).is_some()) {
            return Target {
                key: location.clone(),
                id: None,
                location,
                property: Path(segs[j..].to_vec()),
            };
        }
    }
    let j = segs.len().min(1);
    let location = merge::diff::path_text(&Path(segs[..j].to_vec()));
    Target {
        key: location.clone(),
        id: None,
        location,
        property: Path(segs[j..].to_vec()),
    }
}

/// The property's text for people; empty for the object itself.
pub fn property_text(p: &Path) -> String {
    if p.0.is_empty() {
        String::new()
    } else {
        merge::diff::path_text(p)
    }
}

/// Cards being gathered, in the order their objects were first met.
#[derive(Debug, Default)]
pub struct CardSet {
    cards: Vec<Card>,
    hidden_rows: Vec<usize>,
    index: HashMap<String, usize>,
}

impl CardSet {
    /// The card of `t`'s object, created as unchanged when new.
    pub fn card(&mut self, t: &Target) -> &mut Card {
        let i = match self.index.get(&t.key) {
            Some(&i) => i,
            None => {
                self.index.insert(t.key.clone(), self.cards.len());
                self.cards.push(Card {
                    key: t.key.clone(),
                    id: t.id.clone(),
                    name: None,
                    fate: Fate::Unchanged,
                    location: t.location.clone(),
                    rows: Vec::new(),
                });
                self.hidden_rows.push(0);
                i_last(&self.cards)
            }
        };
        &mut self.cards[i]
    }

    /// Adds `row` to `t`'s card and makes its fate at least as telling as `fate`.
    pub fn add(&mut self, t: &Target, fate: Fate, row: Option<Row>) {
        let i = {
            self.card(t);
            self.index[&t.key]
        };
        let card = &mut self.cards[i];
        card.fate = card.fate.min(fate);
        if let Some(row) = row {
            if card.rows.len() < MAX_ROWS {
                card.rows.push(row);
            } else {
                self.hidden_rows[i] += 1;
            }
        }
    }

    /// The cards, names filled in from `objects` (first found wins), rows beyond
    /// [`MAX_ROWS`] counted in a note.
    pub fn finish(mut self, objects: &[&LevelObjects]) -> Vec<Card> {
        for (card, hidden) in self.cards.iter_mut().zip(self.hidden_rows) {
            if card.name.is_none() {
                card.name = objects
                    .iter()
                    .find_map(|o| o.get(&card.key).and_then(|x| x.name.clone()));
            }
            if hidden > 0 {
                card.rows.push(Row::Note(format!(
                    "… and {hidden} more change{}",
                    if hidden == 1 { "" } else { "s" }
                )));
            }
        }
        self.cards
    }
}

fn i_last<T>(v: &[T]) -> usize {
    v.len() - 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_split_at_the_innermost_id() {
        let p = Path(vec![
            Segment::Key("entities".into()),
            Segment::Id {
                key: "id".into(),
                value: "e1".into(),
            },
            Segment::Key("light".into()),
            Segment::Key("color".into()),
        ]);
        let t = target(&p, &[]);
        assert_eq!(t.key, "e1");
        assert_eq!(t.location, "entities[id=e1]");
        assert_eq!(property_text(&t.property), "light.color");
        let q = Path(vec![
            Segment::Key("settings".into()),
            Segment::Key("fog".into()),
        ]);
        let t = target(&q, &[]);
        assert_eq!(
            (t.key.as_str(), property_text(&t.property).as_str()),
            ("settings", "fog")
        );
        let t = target(&Path::root(), &[]);
        assert_eq!(t.key, "(root)");
    }
}
