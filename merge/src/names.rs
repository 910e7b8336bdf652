//! The one name table of each kind the reports and the journal write: a [`Policy`], a
//! [`Side`], a [`ConflictKind`] by its name (`both-modified`) and back. Every reader (the
//! journal, `conflicts`, the review page) goes through these, never a copy of the list.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::{ConflictKind, Policy, Side};

impl ConflictKind {
    /// Every kind, true conflicts first, then the coherence repairs and the format passes'.
    pub const ALL: [ConflictKind; 11] = [
        ConflictKind::BothModified,
        ConflictKind::DeleteModify,
        ConflictKind::ModifyDelete,
        ConflictKind::BothAdded,
        ConflictKind::Order,
        ConflictKind::DanglingReference,
        ConflictKind::Cycle,
        ConflictKind::Orphan,
        ConflictKind::Renumbered,
        ConflictKind::Cells,
        ConflictKind::RepeatedKey,
    ];

    /// The kind [`ConflictKind::name`] names.
    pub fn from_name(name: &str) -> Option<ConflictKind> {
        ConflictKind::ALL.into_iter().find(|k| k.name() == name)
    }
}

impl Side {
    /// Both sides.
    pub const ALL: [Side; 2] = [Side::Ours, Side::Theirs];

    /// The side [`Side::name`] names.
    pub fn from_name(name: &str) -> Option<Side> {
        Side::ALL.into_iter().find(|s| s.name() == name)
    }
}

/// One of a merge's three inputs: base (the common ancestor), ours (the current version)
/// or theirs (the other version); an error names the input it comes from by this.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Version {
    /// The common ancestor.
    Base,
    /// The current version.
    Ours,
    /// The other version.
    Theirs,
}

impl Version {
    /// The three, in the order a merge's inputs are given (base, ours, theirs).
    pub const ALL: [Version; 3] = [Version::Base, Version::Ours, Version::Theirs];

    /// `"base"`, `"ours"` or `"theirs"`.
    pub fn name(self) -> &'static str {
        match self {
            Version::Base => "base",
            Version::Ours => "ours",
            Version::Theirs => "theirs",
        }
    }

    /// Its place in [`Version::ALL`]: 0 base, 1 ours, 2 theirs.
    pub fn index(self) -> usize {
        match self {
            Version::Base => 0,
            Version::Ours => 1,
            Version::Theirs => 2,
        }
    }

    /// The version [`Version::name`] names.
    pub fn from_name(name: &str) -> Option<Version> {
        Version::ALL.into_iter().find(|v| v.name() == name)
    }
}

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl From<Side> for Version {
    fn from(side: Side) -> Version {
        match side {
            Side::Ours => Version::Ours,
            Side::Theirs => Version::Theirs,
        }
    }
}

impl Policy {
    /// The policy [`Policy::name`] names.
    pub fn from_name(name: &str) -> Option<Policy> {
        Policy::ALL.into_iter().find(|p| p.name() == name)
    }
}

/// Serialises and reads back a name-table type as its name.
macro_rules! by_name {
    ($ty:ty, $what:literal) => {
        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.name())
            }
        }

        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let name = std::borrow::Cow::<'de, str>::deserialize(d)?;
                <$ty>::from_name(&name).ok_or_else(|| {
                    serde::de::Error::custom(format!(concat!("unknown ", $what, " {:?}"), name))
                })
            }
        }
    };
}

by_name!(ConflictKind, "conflict kind");
by_name!(Side, "side");
by_name!(Policy, "policy");
by_name!(Version, "version");

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn every_name_reads_back_as_its_value() {
        for k in ConflictKind::ALL {
            assert_eq!(ConflictKind::from_name(k.name()), Some(k));
        }
        for p in Policy::ALL {
            assert_eq!(Policy::from_name(p.name()), Some(p));
        }
        for s in Side::ALL {
            assert_eq!(Side::from_name(s.name()), Some(s));
        }
        for (i, v) in Version::ALL.into_iter().enumerate() {
            assert_eq!(Version::from_name(v.name()), Some(v));
            assert_eq!(v.index(), i);
        }
        assert_eq!(Version::from(Side::Ours), Version::Ours);
        assert_eq!(Version::from(Side::Theirs), Version::Theirs);
        assert_eq!(ConflictKind::from_name("both modified"), None);
    }

    #[test]
    fn every_kind_is_in_the_table() {
        // A new kind must be listed in `ALL`, or its name never reads back: this match is
        // exhaustive, so a new variant fails to compile here until it is placed.
        let position = |k: ConflictKind| match k {
            ConflictKind::BothModified
            | ConflictKind::DeleteModify
            | ConflictKind::ModifyDelete
            | ConflictKind::BothAdded
            | ConflictKind::Order
            | ConflictKind::DanglingReference
            | ConflictKind::Cycle
            | ConflictKind::Orphan
            | ConflictKind::Renumbered
            | ConflictKind::Cells
            | ConflictKind::RepeatedKey => ConflictKind::ALL.iter().position(|x| *x == k),
        };
        assert!(ConflictKind::ALL.into_iter().all(|k| position(k).is_some()));
        assert!(position(ConflictKind::RepeatedKey).is_some());
    }

    #[test]
    fn names_are_json_strings() {
        let text = serde_json::to_string(&ConflictKind::Renumbered).unwrap();
        assert_eq!(text, "\"renumbered\"");
        let back: ConflictKind = serde_json::from_str(&text).unwrap();
        assert_eq!(back, ConflictKind::Renumbered);
        assert!(serde_json::from_str::<Side>("\"left\"").is_err());
    }

    proptest! {
        #[test]
        fn any_text_is_a_name_or_refused(text in ".{0,20}") {
            // Never panics; a name read back names itself.
            if let Some(k) = ConflictKind::from_name(&text) { prop_assert_eq!(k.name(), text.as_str()); }
            if let Some(p) = Policy::from_name(&text) { prop_assert_eq!(p.name(), text.as_str()); }
            if let Some(s) = Side::from_name(&text) { prop_assert_eq!(s.name(), text.as_str()); }
        }
    }
}
