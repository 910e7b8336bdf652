//! The page's data: files, the cards of their changed objects, and their level maps.

/// What happened to an object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Fate {
    /// A true conflict was resolved by policy (or someone else edits it too).
    Conflict,
    /// A coherence repair brought it back (or reverted it).
    Restored,
    /// Created.
    Added,
    /// Destroyed.
    Deleted,
    /// Its position changed or it was reparented.
    Moved,
    /// Some other property changed.
    Modified,
    /// Nothing happened to it.
    Unchanged,
}

impl Fate {
    /// Every fate in the order people review them: what needs a decision, what was
    /// lost, what changed, what is new (the legend's and the card groups' order).
    pub const ALL: [Fate; 7] = [
        Fate::Conflict,
        Fate::Restored,
        Fate::Deleted,
        Fate::Moved,
        Fate::Modified,
        Fate::Added,
        Fate::Unchanged,
    ];

    /// The word people read: `added`, `deleted`, …
    pub fn word(self) -> &'static str {
        match self {
            Fate::Conflict => "conflict",
            Fate::Restored => "restored",
            Fate::Added => "added",
            Fate::Deleted => "deleted",
            Fate::Moved => "moved",
            Fate::Modified => "modified",
            Fate::Unchanged => "unchanged",
        }
    }

    /// The word for `n` objects: `conflicts` for several conflicts, else [`Fate::word`].
    pub fn counted(self, n: usize) -> &'static str {
        match self {
            Fate::Conflict if n != 1 => "conflicts",
            _ => self.word(),
        }
    }

    /// One letter, used in CSS classes and the map's data: `c r a d v m u`.
    pub fn code(self) -> char {
        match self {
            Fate::Conflict => 'c',
            Fate::Restored => 'r',
            Fate::Added => 'a',
            Fate::Deleted => 'd',
            Fate::Moved => 'v',
            Fate::Modified => 'm',
            Fate::Unchanged => 'u',
        }
    }
}

/// A value as the page shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shown {
    /// Not there (the old value of an addition, the new value of a deletion).
    Absent,
    /// A number, boolean or null, as written.
    Scalar(String),
    /// A string (without quotes).
    Text(String),
    /// A short all-number array (position, rotation, colour), its components as written.
    Vector(Vec<String>),
    /// Anything else, summarised on one line.
    Other(String),
}

/// One line of a card.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Row {
    /// A property's old and new value.
    Change {
        /// The property, relative to the object (`position`, `light.color`).
        property: String,
        /// Its value before.
        old: Shown,
        /// Its value after.
        new: Shown,
    },
    /// A true conflict: the three values and the side taken.
    Conflict {
        /// The property, relative to the object.
        property: String,
        /// `both-modified`, `delete-modify`, …
        kind: String,
        /// The common ancestor's value.
        base: Shown,
        /// Ours' value.
        ours: Shown,
        /// Theirs' value.
        theirs: Shown,
        /// `ours` or `theirs`.
        taken: String,
        /// What the page calls ours and theirs: `ours`, `theirs`; a sync's pending
        /// conflict says whose they are (`yours`, `upstream (Carol)`).
        sides: [String; 2],
        /// A sync's pending conflict: what it means and how to take the upstream's value.
        pending: Option<String>,
    },
    /// A coherence repair (or any other report entry), shown field by field.
    Repair {
        /// The property, relative to the object (often empty: the whole object).
        property: String,
        /// `dangling-reference`, `cycle`, `orphan`, …
        kind: String,
        /// The report's other fields, in its order.
        details: Vec<(String, Shown)>,
    },
    /// A sentence.
    Note(String),
}

/// A changed object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Card {
    /// What identifies the object in its file: its id, else its location.
    pub key: String,
    /// Its id, when it has one.
    pub id: Option<String>,
    /// Its `name`, when it has one.
    pub name: Option<String>,
    /// What happened to it.
    pub fate: Fate,
    /// Where it is, for people: `entities[id=6f1c…]`.
    pub location: String,
    /// Its changed properties, conflicts and repairs.
    pub rows: Vec<Row>,
}

/// An object of a level that has a position (a mark on the map).
#[derive(Debug, Clone, PartialEq)]
pub struct Placed {
    /// The same key as its card's.
    pub key: String,
    /// Its id, when it has one.
    pub id: Option<String>,
    /// Its `name`, when it has one.
    pub name: Option<String>,
    /// The first two components of its position.
    pub at: [f64; 2],
    /// Where it was before, when that differs (drawn as a trail).
    pub was: Option<[f64; 2]>,
}

/// One file of the page.
#[derive(Debug, Clone, Default)]
pub struct FileSection {
    /// The file's path.
    pub path: String,
    /// `added`, `deleted`, `modified`, `merged`, … (shown beside the path).
    pub status: String,
    /// Sentences about the whole file (`not merged: …`, `formatting changed only`).
    pub notes: Vec<String>,
    /// A card per changed object, in the order the changes were found.
    pub cards: Vec<Card>,
    /// Every object with a position (changed or not); empty: no map.
    pub objects: Vec<Placed>,
}

/// The whole page.
#[derive(Debug, Clone, Default)]
pub struct Page {
    /// The title: `Review · diff HEAD → worktree`.
    pub title: String,
    /// A line under the title (what was compared).
    pub subtitle: String,
    /// The files, in order.
    pub files: Vec<FileSection>,
}

pub use merge::naming::short_id;
