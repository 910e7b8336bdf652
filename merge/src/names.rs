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
