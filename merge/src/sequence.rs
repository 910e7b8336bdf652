//! Arrays without identity: a diff3 over elements compared by value (numbered by
//! [`crate::pairing::Classes`]; aligned by
//! [`crate::lcs`]: Myers' diff, patience alignment for long arrays, bounded by work), with objects in overlapping changes paired
//! and merged recursively.

use crate::hashing::{SeededMap, SeededSet};
use sjson::{Kind, NodeId, Out, OutItem, Segment, Value};

use crate::compact::compact_json;
use crate::merger::Merger;
use crate::observe::{Basis, Pairing};
use crate::pairing::{
    indices, pair, similarity, value_hash, Classes, Pairs, Print, Skip, PAIRING_THRESHOLD,
};
use crate::{ConflictKind, Side};

/// For each element of `old`, the element of `new` it is equal to in a longest common
/// subsequence.
///
/// Elements found on one side only are never part of one, so they are left out of the
/// diff: Myers' O((N+M)·D) then counts only the shared elements, and a list whose every
/// element was rewritten costs linear time, not quadratic.
pub(crate) fn matches(old: &[u64], new: &[u64]) -> Vec<Option<usize>> {
    let mut m = vec![None; old.len()];
    let in_old: SeededSet<u64> = old.iter().copied().collect();
    let in_new: SeededSet<u64> = new.iter().copied().collect();
    let oi: Vec<usize> = (0..old.len())
        .filter(|&i| in_new.contains(&old[i]))
        .collect();
    let ni: Vec<usize> = (0..new.len())
        .filter(|&j| in_old.contains(&new[j]))
        .collect();
    let ov: Vec<u64> = oi.iter().map(|&i| old[i]).collect();
    let nv: Vec<u64> = ni.iter().map(|&j| new[j]).collect();
    for op in crate::lcs::diff_ops(&ov, &nv) {
        if let similar::DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = op
        {
            for k in 0..len {
                m[oi[old_index + k]] = Some(ni[new_index + k]);
            }
        }
    }
    m
}

fn json_list(vs: &[Value<'_>]) -> String {
    let parts: Vec<String> = vs.iter().map(|v| compact_json(*v)).collect();
    format!("[{}]", parts.join(","))
}

impl<'a> Merger<'a> {
    /// diff3 of three element sequences.
    pub(crate) fn merge_sequence(
        &mut self,
        b: Option<Value<'a>>,
        o: Value<'a>,
        t: Value<'a>,
    ) -> Out<'a> {
        let bs: Vec<Value<'a>> = b.map(|b| b.children().collect()).unwrap_or_default();
        let os: Vec<Value<'a>> = o.children().collect();
        let ts: Vec<Value<'a>> = t.children().collect();
        // Equal elements by number (a hash collision is no equality).
        let mut classes = Classes::default();
        let (hb, ho, ht) = (
            classes.all(bs.iter().copied()),
            classes.all(os.iter().copied()),
            classes.all(ts.iter().copied()),
        );
        let (om, tm) = (matches(&hb, &ho), matches(&hb, &ht));
        let mut items: Vec<OutItem<'a>> = Vec::with_capacity(os.len().max(ts.len()));
        let (mut ib, mut io, mut it) = (0, 0, 0);
        loop {
            let stable = (ib..bs.len()).find_map(|k| Some((k, om[k]?, tm[k]?)));
            let (kb, ko, kt) = stable.unwrap_or((bs.len(), os.len(), ts.len()));
            let chunk = Chunk {
                b: &bs[ib..kb],
                o: &os[io..ko],
                t: &ts[it..kt],
                hb: &hb[ib..kb],
                ho: &ho[io..ko],
                ht: &ht[it..kt],
                b_start: ib,
                o_start: io,
                t_start: it,
            };
            self.resolve_chunk(chunk, &mut items);
            let Some((_, ko, _)) = stable else { break };
            items.push(ours_item(os[ko], Out::Value(os[ko])));
            (ib, io, it) = (kb + 1, ko + 1, kt + 1);
        }
        drop_twice_added(&mut items, inserted(&os, &om), inserted(&ts, &tm));
        Out::Container {
            kind: Kind::Array,
            ours: Some(o),
            items,
        }
    }

    fn resolve_chunk(&mut self, c: Chunk<'_, 'a>, items: &mut Vec<OutItem<'a>>) {
        if c.o.is_empty() && c.t.is_empty() {
            return;
        }
        if c.ho == c.hb {
            items.extend(c.t.iter().map(|v| theirs_item(*v, Out::Value(*v))));
        } else if c.ht == c.hb || c.ho == c.ht {
            items.extend(c.o.iter().map(|v| ours_item(*v, Out::Value(*v))));
        } else if c.b.is_empty() {
            self.both_inserted(c, items);
        } else if c
            .o
            .iter()
            .chain(c.t)
            .chain(c.b)
            .all(|v| v.kind() == Kind::Object)
        {
            self.pair_chunk(c, items);
        } else {
            self.st.path.push(Segment::Index(c.o_start));
            let taken = self.cx.opts().policy.side();
            self.st.conflicts.push(crate::Conflict {
                path: self.st.path.clone(),
                kind: ConflictKind::BothModified,
                base: Some(json_list(c.b)),
                ours: Some(json_list(c.o)),
                theirs: Some(json_list(c.t)),
                taken,
                object: None,
                referrer: None,
            });
            self.st.path.pop();
            match taken {
                Side::Ours => items.extend(c.o.iter().map(|v| ours_item(*v, Out::Value(*v)))),
                Side::Theirs => items.extend(c.t.iter().map(|v| theirs_item(*v, Out::Value(*v)))),
            }
        }
    }

    /// Both inserted at one place: ours first, then theirs; an object of theirs that
    /// agrees with one of ours on every member both have (theirs added a member to
    /// it, or nothing) is one element added twice, merged into ours' place.
    fn both_inserted(&mut self, c: Chunk<'_, 'a>, items: &mut Vec<OutItem<'a>>) {
        let mut t_paired = vec![false; c.t.len()];
        for (i, oe) in c.o.iter().enumerate() {
            let twin = (0..c.t.len()).find(|&j| !t_paired[j] && compatible(*oe, c.t[j]));
            let value = match twin {
                Some(j) => {
                    t_paired[j] = true;
                    self.st.path.push(Segment::Index(c.o_start + i));
                    let value = self.merge_value(None, *oe, c.t[j]);
                    self.st.path.pop();
                    value
                }
                None => Out::Value(*oe),
            };
            items.push(ours_item(*oe, value));
        }
        let theirs = c.t.iter().zip(t_paired).filter(|(_, paired)| !paired);
        items.extend(theirs.map(|(v, _)| theirs_item(*v, Out::Value(*v))));
    }

    /// Overlapping changes to objects: pair ours' with theirs' (and both with the base's)
    /// and merge each pair; unpaired elements are insertions or deletions.
    fn pair_chunk(&mut self, c: Chunk<'_, 'a>, items: &mut Vec<OutItem<'a>>) {
        let natural = self.cx.opts().natural_keys.clone();
        let ot_pairs = pair(c.o, c.t, &natural, Skip::Nothing);
        let ob_pairs = pair(c.o, c.b, &natural, Skip::Nothing);
        let tb_pairs = pair(c.t, c.b, &natural, Skip::Nothing);
        let (direct, mut ob, tb) = (indices(&ot_pairs), indices(&ob_pairs), indices(&tb_pairs));
        let mut ot = through_base(&direct, &ob, &tb);
        // Objects with the same keys at one position of a chunk as long in all three
        // versions are versions of one element when nothing else paired them.
        if c.o.len() == c.b.len() && c.t.len() == c.b.len() {
            for i in 0..c.o.len() {
                if same_keys(c.b[i], c.o[i])
                    && same_keys(c.b[i], c.t[i])
                    && ot[i].is_none()
                    && !ot.contains(&Some(i))
                    && ob[i].is_none()
                    && !ob.contains(&Some(i))
                    && tb[i].is_none_or(|k| k == i)
                    && (0..c.t.len()).all(|j| j == i || tb[j] != Some(i))
                {
                    ot[i] = Some(i);
                    ob[i] = Some(i);
                }
            }
        }
        if self.st.trace.is_some() {
            let basis = |i: usize, j: usize| match ot_pairs[i] {
                Some((p, basis)) if p == j => Basis::from(basis),
                _ if ob_pairs[i].is_some() && ob[i] == tb[j] => Basis::ThroughBase,
                _ => Basis::Position,
            };
            let record = pairings(&c, &ot, &ob, &tb, &ob_pairs, &tb_pairs, basis);
            self.trace_pairs(record);
        }
        let mut t_paired = vec![false; c.t.len()];
        for (i, oe) in c.o.iter().enumerate() {
            self.st.path.push(Segment::Index(c.o_start + i));
            match ot[i] {
                Some(j) => {
                    t_paired[j] = true;
                    let be = ob[i].or(tb[j]).map(|k| c.b[k]);
                    let value = self.merge_value(be, *oe, c.t[j]);
                    items.push(ours_item(*oe, value));
                }
                None => match ob[i] {
                    Some(k) => {
                        if let Some(v) = self.one_side_deleted(Side::Theirs, c.b[k], *oe) {
                            items.push(ours_item(*oe, v));
                        }
                    }
                    None => items.push(ours_item(*oe, Out::Value(*oe))),
                },
            }
            self.st.path.pop();
        }
        for (j, te) in c.t.iter().enumerate() {
            if t_paired[j] {
                continue;
            }
            self.st.path.push(Segment::Index(c.o_start + c.o.len()));
            match tb[j] {
                Some(k) => {
                    if let Some(v) = self.one_side_deleted(Side::Ours, c.b[k], *te) {
                        items.push(theirs_item(*te, v));
                    }
                }
                None => items.push(theirs_item(*te, Out::Value(*te))),
            }
            self.st.path.pop();
        }
    }
}

/// Ours' element `i` paired with theirs' `ot[i]`: first two versions of one base element
/// pair through it, however unlike each other their edits made them (ours edited `a`,
/// theirs `b`: both edits are kept; one side deleted an element, the other edited its
/// neighbour: the edit goes to the neighbour, not to the deleted element it resembles).
/// Then `direct` pairs, unless they join versions of two different base elements.
fn through_base(
    direct: &[Option<usize>],
    ob: &[Option<usize>],
    tb: &[Option<usize>],
) -> Vec<Option<usize>> {
    let mut ot = vec![None; ob.len()];
    let mut taken = vec![false; tb.len()];
    for (i, k) in ob.iter().enumerate() {
        let Some(k) = k else { continue };
        if let Some(j) = (0..tb.len()).find(|&j| tb[j] == Some(*k) && !taken[j]) {
            ot[i] = Some(j);
            taken[j] = true;
        }
    }
    for (i, d) in direct.iter().enumerate() {
        let Some(j) = *d else { continue };
        let other_bases = matches!((ob[i], tb[j]), (Some(x), Some(y)) if x != y);
        if ot[i].is_none() && !taken[j] && !other_bases {
            ot[i] = Some(j);
            taken[j] = true;
        }
    }
    ot
}

/// The pairings of a chunk for the trace, indices in the whole arrays: each of ours'
/// elements with theirs' and the base's, then theirs' left with the base's.
fn pairings(
    c: &Chunk<'_, '_>,
    ot: &[Option<usize>],
    ob: &[Option<usize>],
    tb: &[Option<usize>],
    ob_pairs: &Pairs<'_>,
    tb_pairs: &Pairs<'_>,
    ours_theirs: impl Fn(usize, usize) -> Basis,
) -> Vec<Pairing> {
    let mut record = Vec::new();
    let mut t_paired = vec![false; c.t.len()];
    for i in 0..c.o.len() {
        let (basis, base) = match (ot[i], ob[i]) {
            (Some(j), _) => {
                t_paired[j] = true;
                (ours_theirs(i, j), ob[i].or(tb[j]))
            }
            (None, Some(k)) => (ob_pairs[i].map_or(Basis::Position, |p| p.1.into()), Some(k)),
            (None, None) => continue,
        };
        record.push(Pairing {
            base: base.map(|k| c.b_start + k),
            ours: Some(c.o_start + i),
            theirs: ot[i].map(|j| c.t_start + j),
            basis,
        });
    }
    for (j, k) in tb.iter().enumerate() {
        let (false, Some(k), Some((_, basis))) = (t_paired[j], k, tb_pairs[j]) else {
            continue;
        };
        record.push(Pairing {
            base: Some(c.b_start + k),
            ours: None,
            theirs: Some(c.t_start + j),
            basis: basis.into(),
        });
    }
    record
}

/// Whether two objects added at one place are one element added twice: equal, or alike
/// (see [`similarity`]) with every member both have equal.
fn compatible(a: Value<'_>, b: Value<'_>) -> bool {
    if a.kind() != Kind::Object || b.kind() != Kind::Object {
        return false;
    }
    if a.same_value(&b) {
        return true;
    }
    let alike = similarity(&Print::new(a, Skip::Nothing), &Print::new(b, Skip::Nothing))
        >= PAIRING_THRESHOLD;
    alike
        && !a.has_duplicate_keys()
        && !b.has_duplicate_keys()
        && a.members()
            .all(|(k, v)| b.get(&k).is_none_or(|w| w.same_value(&v)))
}

/// The nodes of the elements of `vs` that `m` (base's elements matched in `vs`) does not
/// match: the elements that side inserted.
fn inserted(vs: &[Value<'_>], m: &[Option<usize>]) -> SeededSet<NodeId> {
    let mut kept = vec![false; vs.len()];
    for j in m.iter().flatten() {
        kept[*j] = true;
    }
    vs.iter()
        .zip(kept)
        .filter(|(_, kept)| !kept)
        .map(|(v, _)| v.id())
        .collect()
}

/// Both sides inserted an equal object, each at its own place (theirs before an element
/// ours appended it after): it is written once, at ours' place.
fn drop_twice_added<'a>(
    items: &mut Vec<OutItem<'a>>,
    ours: SeededSet<NodeId>,
    theirs: SeededSet<NodeId>,
) {
    let whole = |item: &OutItem<'a>, set: &SeededSet<NodeId>, v: Option<Value<'a>>| match (
        &item.value,
        v,
    ) {
        (Out::Value(w), Some(v)) if w.id() == v.id() && set.contains(&v.id()) => {
            (v.kind() == Kind::Object).then_some(v)
        }
        _ => None,
    };
    let mut by_hash: SeededMap<u64, Vec<Value<'a>>> = SeededMap::default();
    for item in items.iter() {
        if let Some(v) = whole(item, &ours, item.ours) {
            by_hash.entry(value_hash(v)).or_default().push(v);
        }
    }
    if by_hash.is_empty() {
        return;
    }
    items.retain(|item| {
        let Some(v) = whole(item, &theirs, item.origin).filter(|_| item.ours.is_none()) else {
            return true;
        };
        let Some(twins) = by_hash.get_mut(&value_hash(v)) else {
            return true;
        };
        match twins.iter().position(|w| w.same_value(&v)) {
            Some(k) => {
                twins.swap_remove(k);
                false
            }
            None => true,
        }
    });
}

/// Whether `a` and `b` are objects with the same keys (in any order).
fn same_keys(a: Value<'_>, b: Value<'_>) -> bool {
    a.kind() == sjson::Kind::Object
        && b.kind() == sjson::Kind::Object
        && a.len() == b.len()
        && a.members().all(|(k, _)| b.get(&k).is_some())
}

struct Chunk<'c, 'a> {
    b: &'c [Value<'a>],
    o: &'c [Value<'a>],
    t: &'c [Value<'a>],
    hb: &'c [u64],
    ho: &'c [u64],
    ht: &'c [u64],
    /// Where the chunk starts in each version's array.
    b_start: usize,
    o_start: usize,
    t_start: usize,
}

pub(crate) fn ours_item<'a>(v: Value<'a>, value: Out<'a>) -> OutItem<'a> {
    OutItem {
        key: None,
        ours: Some(v),
        origin: None,
        value,
    }
}

pub(crate) fn theirs_item<'a>(v: Value<'a>, value: Out<'a>) -> OutItem<'a> {
    OutItem {
        key: None,
        ours: None,
        origin: Some(v),
        value,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_follow_a_longest_common_subsequence() {
        assert_eq!(
            matches(&[1, 2, 3, 4], &[2, 3, 9, 4]),
            [None, Some(0), Some(1), Some(3)]
        );
        // Elements of one side only are skipped over.
        assert_eq!(
            matches(&[7, 1, 8, 2, 9], &[1, 5, 6, 2, 3]),
            [None, Some(0), None, Some(3), None]
        );
        assert_eq!(matches(&[1, 2, 3], &[3, 2, 1]).iter().flatten().count(), 1);
        assert_eq!(matches(&[], &[1]), Vec::<Option<usize>>::new());
        assert_eq!(matches(&[1, 1], &[1]), [Some(0), None]);
        assert_eq!(matches(&[5, 6], &[]), [None, None]);
    }

    fn merged(base: &str, ours: &str, theirs: &str) -> crate::Merged {
        let texts = crate::Inputs::texts(base, ours, theirs, sjson::Dialect::Json);
        crate::merge(texts, &crate::MergeOptions::default()).unwrap()
    }

    /// Both appended the same object, theirs with a member more: one object, with it.
    #[test]
    fn an_object_both_appended_is_written_once_with_both_members() {
        let base = r#"[{"a": 1}]"#;
        let ours = r#"[{"a": 1}, {"n": "x", "p": 1, "q": 2}]"#;
        let theirs = r#"[{"a": 1}, {"n": "x", "p": 1, "q": 2, "r": 3}]"#;
        let out = merged(base, ours, theirs);
        assert!(out.conflicts.is_empty(), "{:?}", out.conflicts);
        assert_eq!(
            out.text(),
            r#"[{"a": 1}, {"n": "x", "p": 1, "q": 2, "r": 3}]"#
        );
        // Two different objects appended (a member both have differs): both kept.
        let theirs = r#"[{"a": 1}, {"n": "y", "p": 1, "q": 2}]"#;
        let out = merged(base, ours, theirs);
        let doc = sjson::Document::parse(out.text(), sjson::Dialect::Json).unwrap();
        assert_eq!(doc.root().len(), 3, "{}", out.text());
    }

    /// Theirs inserted in the middle the object ours appended: written once, at ours'
    /// place; scalars appended twice stay twice (a list of numbers may repeat).
    #[test]
    fn an_object_both_inserted_at_two_places_is_written_once() {
        let base = r#"[{"a": 1}, {"b": 2}]"#;
        let ours = r#"[{"a": 1}, {"b": 2}, {"c": 3}]"#;
        let theirs = r#"[{"a": 1}, {"c": 3}, {"b": 2}]"#;
        assert_eq!(merged(base, ours, theirs).text(), ours);
        let out = merged("[1, 2]", "[1, 2, 0]", "[1, 0, 2]");
        assert_eq!(out.text(), "[1, 0, 2, 0]");
    }

    #[test]
    fn colliding_hashes_lose_no_edit() {
        let merge = || {
            let inputs = crate::Inputs::texts(
                "l = [1 2 3]\n",
                "l = [1 2 3 4]\n",
                "l = [1 6 3]\n",
                sjson::Dialect::Sjson,
            );
            crate::merge(inputs, &crate::MergeOptions::default()).map(|m| m.text().to_string())
        };
        let out = crate::pairing::tests::colliding(merge).unwrap();
        assert_eq!(out, "l = [1 6 3 4]\n");
        assert_eq!(merge().unwrap(), out);
    }

    #[test]
    fn json_lists_are_compact() {
        let d =
            sjson::Document::parse("l = [1 \"a\" { b = [2 3] }]", sjson::Dialect::Sjson).unwrap();
        let vs: Vec<_> = d.root().get("l").unwrap().children().collect();
        assert_eq!(json_list(&vs), r#"[1,"a",{"b":[2,3]}]"#);
        assert_eq!(json_list(&[]), "[]");
    }
}
