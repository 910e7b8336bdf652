//! Finding what breaks the invariants in a merged document and planning the repairs.

use crate::hashing::SeededSet;
use sjson::{Document, NodeId, Path, Segment, Value};

use super::apply::Edit;
use super::index::{resolve, DocIndex, Matchers, Named, Reference};
use super::sides::{present, Detached, SideIds};
use super::versions::Versions;
use super::SideWalk;

mod cycle;
mod restore;
use crate::id::id_display;
use crate::{both, Conflict, ConflictKind, Policy, Side, Version};

/// What a round reads of the result (see [`State::survey`]).
pub(crate) struct Survey<'m> {
    /// The result's index.
    pub im: DocIndex<'m>,
    /// Ours' and theirs' ids against `im`.
    pub sides: [SideIds<'m>; 2],
    /// The strings of the result that can be references ([`DocIndex::build_with_strings`]).
    pub strings: Vec<(NodeId, NodeId)>,
}

/// The three inputs, their full indexes (each built when a repair first needs it: the
/// common merge needs none) and what persists between rounds.
pub(crate) struct State<'s, 'o> {
    base_index: std::cell::OnceCell<DocIndex<'s>>,
    ours_index: std::cell::OnceCell<DocIndex<'s>>,
    theirs_index: std::cell::OnceCell<DocIndex<'s>>,
    versions: &'s Versions<'s>,
    m: &'o Matchers<'o>,
    winner: Side,
}

/// `name #short id` of an object, or `#short id` alone, the way other reports name it
/// ([`crate::naming::object_label`]).
fn label(v: Value<'_>, id: &str) -> String {
    let name = v.get("name").and_then(|n| n.as_str());
    crate::naming::object_label(name.as_deref(), &id_display(id))
}

fn other(side: Side) -> Side {
    match side {
        Side::Ours => Side::Theirs,
        Side::Theirs => Side::Ours,
    }
}

impl<'s, 'o> State<'s, 'o> {
    pub(crate) fn new(versions: &'s Versions<'s>, m: &'o Matchers<'o>, policy: Policy) -> Self {
        State {
            base_index: std::cell::OnceCell::new(),
            ours_index: std::cell::OnceCell::new(),
            theirs_index: std::cell::OnceCell::new(),
            versions,
            m,
            winner: policy.side(),
        }
    }

    /// A version's document, parsed on first use when only its text is kept; `None` if
    /// that fails (a bug, or a freed base that cannot be read again: the pass then reads
    /// the version as empty and fails at the end, see [`Versions::failed`]).
    fn doc(&self, which: Version) -> Option<&'s Document> {
        self.versions.doc(which)
    }

    /// The full index of a version (empty if it cannot be read, see [`State::doc`]).
    fn index_of(&self, which: Version) -> DocIndex<'s> {
        self.doc(which)
            .map_or_else(DocIndex::default, |doc| DocIndex::build(doc.root(), self.m))
    }

    /// Where a side's full index is kept once built.
    fn index_cell(&self, side: Side) -> &std::cell::OnceCell<DocIndex<'s>> {
        match side {
            Side::Ours => &self.ours_index,
            Side::Theirs => &self.theirs_index,
        }
    }

    /// The full index of a side.
    pub(crate) fn side(&self, side: Side) -> &DocIndex<'s> {
        self.index_cell(side)
            .get_or_init(|| self.index_of(side.into()))
    }

    /// Everything a round reads of result `doc`: its index, both sides' ids against it,
    /// and the strings that can be references. For a large document, the result is
    /// indexed and its strings collected on one thread while the other walks the two
    /// sides (which needs no index); the sides are matched with the index after.
    ///
    /// `walked`: the sides' objects, when they were walked already (before the result
    /// existed, see [`super::walk_sides`]).
    pub(crate) fn survey<'m>(&self, doc: &'m Document, walked: Option<SideWalk>) -> Survey<'m>
    where
        's: 'm,
    {
        let ids = self.m.id_keys_lower;
        let parallel = self.m.threads.parallel(doc.text().len());
        let (walked, (im, strings)) = match walked {
            Some(walked) => (walked, DocIndex::build_with_strings(doc.root(), self.m)),
            None => {
                let (ours, theirs) = (self.doc(Version::Ours), self.doc(Version::Theirs));
                let walk = |d: Option<&Document>| {
                    d.map_or_else(Detached::default, |d| Detached::of(d, ids))
                };
                let sides = || SideWalk {
                    ours: walk(ours),
                    theirs: walk(theirs),
                };
                both(parallel, sides, || {
                    DocIndex::build_with_strings(doc.root(), self.m)
                })
            }
        };
        let o = walked.ours.attach(self.versions.side_text(Side::Ours));
        let t = walked.theirs.attach(self.versions.side_text(Side::Theirs));
        let (t, o) = both(
            parallel,
            || SideIds::matched(t, &im),
            || SideIds::matched(o, &im),
        );
        Survey {
            im,
            sides: [o, t],
            strings,
        }
    }

    /// Base's index.
    fn base(&self) -> &DocIndex<'s> {
        self.base_index.get_or_init(|| self.index_of(Version::Base))
    }

    /// Whether `side` (which deleted the target of `r`) left `r` dangling itself: its
    /// version of the referrer (the root for a root-level reference) still names the
    /// target under the same key.
    fn dangles_in(&self, side: Side, round: &Round<'_, '_>, r: &Reference<'_>) -> bool {
        let im = round.im;
        // The referrer's node in the side (none: the side lacks it), or the root's.
        let node = match r.referrer.map(|i| round.ids(side).node(im, &im.objs[i].id)) {
            Some(None) => return false,
            referrer => referrer.flatten(),
        };
        let Some(doc) = self.doc(side.into()) else {
            return false;
        };
        let holder = node.map_or_else(|| doc.root(), |node| doc.value(node));
        names_under(holder, &r.key, &r.target)
    }

    /// One round: the edits that repair what is broken in `doc`, and their reports.
    /// `built`: `doc`'s index if it is at hand.
    /// `built`: `doc`'s index and the sides' ids against it, if they are at hand.
    pub(crate) fn plan<'m>(
        &mut self,
        doc: &'m Document,
        built: Option<Survey<'m>>,
    ) -> (Vec<Edit<'m>>, Vec<Conflict>)
    where
        's: 'm,
    {
        let Survey { im, sides, strings } = match built {
            Some(b) => b,
            None => self.survey(doc, None),
        };
        let mut round = Round {
            im: &im,
            sides,
            root: doc.root(),
            edits: Vec::new(),
            reports: Vec::new(),
            planned: SeededSet::default(),
        };
        let [so, st] = &round.sides;
        // A reference names an id of the result or of a side (an id only base holds is
        // one that both sides deleted: nothing references it that a repair could serve).
        let lengths = so.gone_lengths | st.gone_lengths | im.lengths;
        let refs = {
            let known = |s: &str| match im.position(s) {
                Some(i) => Named::Object(i),
                None if so.has_gone(s) || st.has_gone(s) => Named::Elsewhere,
                None => Named::Nothing,
            };
            resolve(doc, &strings, &im, lengths, &known, self.m)
        };
        // (1) References to objects the result lacks but a side kept.
        self.restore_referenced(&mut round, &refs);
        // (3) Objects lost that no side deleted.
        self.restore_lost(&mut round);
        // (4) An id twice (a move the structural merge also kept at the old place).
        if round.edits.is_empty() && !im.dups.is_empty() {
            self.dedupe(&mut round);
        }
        // (2) Parent cycles, once nothing is missing (nesting alone never makes one).
        if round.edits.is_empty() && refs.iter().any(|r| r.parent) {
            self.break_cycle(&mut round, &refs);
        }
        (round.edits, round.reports)
    }

    /// Restores each object the result lacks that a reference of `refs` names and a side
    /// kept (unless the side that deleted it also dropped the reference).
    fn restore_referenced<'m>(&mut self, round: &mut Round<'_, 'm>, refs: &[Reference<'m>])
    where
        's: 'm,
    {
        for r in refs.iter().filter(|r| r.at.is_none()) {
            let (o, t) = (
                round.sides[0].has_gone(&r.target),
                round.sides[1].has_gone(&r.target),
            );
            let deleter = match (o, t) {
                (true, false) => Some(Side::Theirs),
                (false, true) => Some(Side::Ours),
                (true, true) => None,
                (false, false) => continue,
            };
            if deleter.is_some_and(|d| self.dangles_in(d, round, r)) {
                continue;
            }
            let mut referrer = match r.referrer {
                Some(i) => round.im.pointer(i),
                None => Path::root(),
            };
            referrer.push(Segment::Key(r.key.to_string()));
            self.restore(
                round,
                &r.target,
                ConflictKind::DanglingReference,
                Some(referrer),
            );
        }
    }

    /// Restores the objects lost that no side deleted: of the sides' ids the result lacks,
    /// the ones both sides hold, or one side and not base (the other side deleted the
    /// others) that were lost with their container (an object in no id'd object was not:
    /// the walk of base is left out for those).
    fn restore_lost<'m>(&mut self, round: &mut Round<'_, 'm>)
    where
        's: 'm,
    {
        let [so, st] = &round.sides;
        let both = |id: &str| so.has_gone(id) && st.has_gone(id);
        let one_sided: SeededSet<&str> = so
            .gone
            .iter()
            .chain(&st.gone)
            .map(|(id, ..)| &**id)
            .filter(|id| !both(id) && (so.gone_nested(id) || st.gone_nested(id)))
            .collect();
        // (Base is read only when there is something to look for in it.)
        let in_base = match one_sided.is_empty() {
            true => SeededSet::default(),
            false => self
                .doc(Version::Base)
                .map_or_else(SeededSet::default, |base| {
                    present(base, self.m.id_keys_lower, &one_sided)
                }),
        };
        let lost: Vec<String> = so
            .gone
            .iter()
            .chain(&st.gone)
            .map(|(id, ..)| &**id)
            .filter(|id| both(id) || (one_sided.contains(id) && !in_base.contains(id)))
            .filter(|id| self.lost_container(id))
            .map(|id| id.to_string())
            .collect();
        for id in lost {
            let kind = if self.nested_cycle(&id) {
                ConflictKind::Cycle
            } else {
                ConflictKind::Orphan
            };
            self.restore(round, &id, kind, None);
        }
    }

    /// Whether `id`, missing from the result, was lost with or inside a container: held
    /// by both sides, or new on one side inside an id'd object that base has (an object
    /// that base lacks, with ids on one side only, can be an unmigrated base element that
    /// the other side deleted).
    fn lost_container(&self, id: &str) -> bool {
        let (ours, theirs) = (self.side(Side::Ours), self.side(Side::Theirs));
        match (ours.position(id), theirs.position(id)) {
            (Some(_), Some(_)) => true,
            (Some(i), None) => ours.owner_id(i).is_some_and(|o| self.base().has(o)),
            (None, Some(i)) => theirs.owner_id(i).is_some_and(|o| self.base().has(o)),
            (None, None) => false,
        }
    }

    /// Keeps each id the result holds twice once: at the policy side's place (the one
    /// whose id'd container is the one that side has), else the first; the other copies
    /// go (what only they held comes back as orphans in the next round).
    fn dedupe<'m>(&self, round: &mut Round<'_, 'm>) {
        let im = round.im;
        // Ids a side already holds twice are that side's (numeric ids in unkeyed arrays).
        let mut dups: Vec<&str> = im
            .dups
            .iter()
            .map(|d| &**d)
            .filter(|d| !round.sides.iter().any(|s| s.dups.contains(*d)))
            .collect();
        dups.sort_unstable();
        for id in dups {
            let copies: Vec<usize> = (0..im.objs.len())
                .filter(|&i| im.objs[i].id == id)
                .collect();
            let winner = self.side(self.winner);
            let wanted = winner.position(id).map(|i| winner.owner_id(i));
            let keep = copies
                .iter()
                .copied()
                .find(|&c| Some(im.owner_id(c)) == wanted)
                .unwrap_or(copies[0]);
            for &c in copies.iter().filter(|&&c| c != keep) {
                // A copy inside another copy goes with it.
                if copies.iter().any(|&o| {
                    o != c && o != keep && im.objs[o].value.contains(im.objs[c].value.id())
                }) {
                    continue;
                }
                round.edits.push(Edit::Remove {
                    node: im.objs[c].value.id(),
                });
                round.reports.push(Conflict {
                    path: im.pointer(c),
                    kind: ConflictKind::Orphan,
                    base: None,
                    ours: None,
                    theirs: None,
                    taken: self.winner,
                    object: Some(label(im.objs[c].value, id)),
                    referrer: Some(im.pointer(keep)),
                });
            }
        }
    }

    /// The ids of the id'd ancestors of `id` in `side`, nearest first.
    fn ancestors(&self, side: Side, id: &str) -> Vec<&str> {
        let index = self.side(side);
        let mut out = Vec::new();
        let mut at = index.position(id);
        while let Some(i) = at.and_then(|i| index.objs[i].owner) {
            if out.len() > index.objs.len() {
                break;
            }
            out.push(&*index.objs[i].id);
            at = Some(i);
        }
        out
    }

    /// Whether one side nests `id` under an object that the other side nests under `id`.
    fn nested_cycle(&self, id: &str) -> bool {
        [Side::Ours, Side::Theirs].into_iter().any(|s| {
            self.ancestors(s, id)
                .into_iter()
                .any(|a| self.ancestors(other(s), a).contains(&id))
        })
    }
}

/// Whether a member `key` inside `v` (at any depth) names `target`, alone or in a list.
fn names_under(v: Value<'_>, key: &str, target: &str) -> bool {
    v.descendants()
        .any(|d| d.key().is_some_and(|k| k == key) && State::names(Some(d), target))
}

/// The edits and reports of one round.
struct Round<'r, 'm> {
    im: &'r DocIndex<'m>,
    /// Ours' and theirs' ids against `im`.
    sides: [SideIds<'m>; 2],
    root: Value<'m>,
    edits: Vec<Edit<'m>>,
    reports: Vec<Conflict>,
    /// Ids restored this round (each object is restored once).
    planned: SeededSet<String>,
}

impl<'m> Round<'_, 'm> {
    /// A side's ids against the result.
    fn ids(&self, side: Side) -> &SideIds<'m> {
        match side {
            Side::Ours => &self.sides[0],
            Side::Theirs => &self.sides[1],
        }
    }
}
